/* SPDX-License-Identifier: MIT */
/*
 * The guest's processes as they are now, into the region's process state
 * table (abi.h, struct rs_pstate_desc; docs/abi.md, "Process state"), so
 * that a flight recorder, whose ring has long overwritten the records
 * that described a process that runs on, still gives its samples their
 * process.  The agent keeps a private model from what it learns anyway:
 * mmaps's descriptions of the processes sampled (all their executable
 * file mappings, read from /proc/PID/maps), and the kernel's records it
 * forwards for the processes it knows (COMM: a rename, or an exec, which
 * empties the mappings; MMAP2: code mapped since).  Processes that ended
 * are found by a bounded look once a second (kill 0), PRUNE_PER_ROUND of
 * them.
 * Once per tick, if the model changed, it is written whole into the
 * table's idle copy (rs_pstate_publish): bounded by the copy's bytes,
 * PSTATE_PROCS processes and RS_PSTATE_MAX_MAPS mappings each, what did
 * not fit counted in the copy's head and here.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define PSTATE_PROCS    4096u   /* processes the model holds */
#define PRUNE_PER_ROUND 1024u   /* processes looked at per round */
#define PRUNE_EVERY_NS  1000000000ull  /* a round a second */
#define PSTATE_COPY_MAX (1u << 20) /* bytes of one copy */

struct pmap {
	uint64_t start, len, pgoff, ino;
	uint32_t prot, flags, maj, min;
	uint8_t bid_len;
	uint8_t bid[RS_PSTATE_BUILD_ID_MAX];
	uint16_t name_len;
	char *name;
};

struct pproc {
	uint32_t pid;
	uint32_t nr_maps;
	uint32_t maps_over;           /* mappings past RS_PSTATE_MAX_MAPS */
	char comm[RS_PSTATE_COMM_LEN];
	struct pmap map[RS_PSTATE_MAX_MAPS];
};

static struct {
	int on;
	int dirty;
	struct rs_pstate_writer w;
	uint32_t nr;
	uint32_t last;                /* the slot of the last lookup */
	uint32_t cursor;              /* the next slot pruning looks at */
	uint64_t pruned;              /* when the last round was, 0: none */
	struct pproc *proc[PSTATE_PROCS];
	uint8_t out[PSTATE_COPY_MAX]; /* a copy's entries, built here */
	struct agent_pstate_stats st;
} ps;

int agent_pstate_begin(const struct rs_region *region, uint64_t offset,
		       uint64_t size)
{
	int err;

	agent_pstate_end();
	memset(&ps.st, 0, sizeof(ps.st));
	offset = (offset + 7u) & ~(uint64_t)7u;
	if (size > 2ull * PSTATE_COPY_MAX)
		size = 2ull * PSTATE_COPY_MAX;
	err = rs_pstate_begin(region, &ps.w, offset, size);
	if (err)
		return err;
	ps.on = 1;
	ps.st.table_size = 2 * ps.w.copy_size;
	return 0;
}

static void drop_maps(struct pproc *p)
{
	uint32_t i;

	for (i = 0; i < p->nr_maps; i++)
		free(p->map[i].name);
	p->nr_maps = 0;
	p->maps_over = 0;
}

static void remove_at(uint32_t i)
{
	drop_maps(ps.proc[i]);
	free(ps.proc[i]);
	ps.proc[i] = ps.proc[--ps.nr];
	ps.proc[ps.nr] = NULL;
	ps.dirty = 1;
}

void agent_pstate_end(void)
{
	while (ps.nr)
		remove_at(ps.nr - 1);
	ps.on = 0;
	ps.dirty = 0;
	ps.last = ps.cursor = 0;
	ps.pruned = 0;
}

const struct agent_pstate_stats *agent_pstate_stats(void)
{
	return &ps.st;
}

static struct pproc *find(uint32_t pid)
{
	uint32_t i;

	if (ps.last < ps.nr && ps.proc[ps.last]->pid == pid)
		return ps.proc[ps.last];
	for (i = 0; i < ps.nr; i++)
		if (ps.proc[i]->pid == pid) {
			ps.last = i;
			return ps.proc[i];
		}
	return NULL;
}

int agent_pstate_has(uint32_t pid)
{
	/* full, or off: asking again would only cost /proc reads */
	return !ps.on || ps.nr == PSTATE_PROCS || find(pid) != NULL;
}

static void read_comm(uint32_t pid, char *comm)
{
	char path[64];
	ssize_t n;
	int fd;

	memset(comm, 0, RS_PSTATE_COMM_LEN);
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, RS_PSTATE_COMM_LEN);
	close(fd);
	if (n > 0 && comm[n - 1] == '\n')
		n--;
	if (n < 0)
		n = 0;
	memset(comm + n, 0, RS_PSTATE_COMM_LEN - (size_t)n);
	comm[RS_PSTATE_COMM_LEN - 1] = '\0';
}

void agent_pstate_proc(uint32_t pid)
{
	struct pproc *p;

	if (!ps.on || !pid || pid == (uint32_t)-1)
		return;
	p = find(pid);
	if (!p) {
		if (ps.nr == PSTATE_PROCS) {
			ps.st.full++;
			return;
		}
		p = calloc(1, sizeof(*p));
		if (!p) {
			ps.st.full++;
			return;
		}
		p->pid = pid;
		ps.last = ps.nr;
		ps.proc[ps.nr++] = p;
	}
	drop_maps(p);
	read_comm(pid, p->comm);
	ps.dirty = 1;
}

/* @p's mappings that overlap [start, start + len) go: a new mapping
 * replaced them. */
static void unmap(struct pproc *p, uint64_t start, uint64_t len)
{
	uint32_t i = 0;

	while (i < p->nr_maps) {
		struct pmap *m = &p->map[i];

		if (m->start < start + len && start < m->start + m->len) {
			free(m->name);
			*m = p->map[--p->nr_maps];
			continue;
		}
		i++;
	}
}

static void add_map(struct pproc *p, const struct agent_mmap *a)
{
	size_t n = strnlen(a->path, RS_PSTATE_NAME_MAX + 1);
	struct pmap *m;

	if (!n || n > RS_PSTATE_NAME_MAX || !a->len)
		return;
	unmap(p, a->start, a->len);
	ps.dirty = 1;
	if (p->nr_maps == RS_PSTATE_MAX_MAPS) {
		p->maps_over++;
		return;
	}
	m = &p->map[p->nr_maps];
	memset(m, 0, sizeof(*m));
	m->name = malloc(n);
	if (!m->name) {
		p->maps_over++;
		return;
	}
	memcpy(m->name, a->path, n);
	m->name_len = (uint16_t)n;
	m->start = a->start;
	m->len = a->len;
	m->pgoff = a->pgoff;
	m->prot = a->prot;
	m->flags = a->flags;
	if (a->build_id_size && a->build_id_size <= RS_PSTATE_BUILD_ID_MAX) {
		m->bid_len = a->build_id_size;
		memcpy(m->bid, a->build_id, a->build_id_size);
	} else {
		m->maj = a->maj;
		m->min = a->min;
		m->ino = a->ino;
	}
	p->nr_maps++;
}

void agent_pstate_map(uint32_t pid, const struct agent_mmap *m)
{
	struct pproc *p;

	if (!ps.on || !(p = find(pid)))
		return;
	add_map(p, m);
}

/* PERF_RECORD_MMAP2's body as the kernel lays it out (mmaps.c). */
struct kmmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct { uint32_t maj, min; uint64_t ino, ino_gen; } f;
		struct { uint8_t size, r1; uint16_t r2; uint8_t id[20]; } b;
	} u;
	uint32_t prot, flags;
};

void agent_pstate_kernel(const struct rs_perf_header *rec)
{
	const uint8_t *body = (const uint8_t *)(rec + 1);
	size_t len = rec->size - sizeof(*rec);
	struct pproc *p;

	if (!ps.on)
		return;
	if (rec->type == PERF_RECORD_COMM && len >= 8 + 1) {
		uint32_t id[2];

		memcpy(id, body, sizeof(id));
		if (id[0] != id[1] || !(p = find(id[0])))
			return;    /* a thread's name, or a process not sampled */
		if (rec->misc & PERF_RECORD_MISC_COMM_EXEC)
			drop_maps(p);     /* a new image: its MMAP2s follow */
		memset(p->comm, 0, sizeof(p->comm));
		memcpy(p->comm, body + 8, strnlen((const char *)body + 8,
		       len - 8 < sizeof(p->comm) - 1 ? len - 8 : sizeof(p->comm) - 1));
		ps.dirty = 1;
	} else if (rec->type == PERF_RECORD_MMAP2 && len > sizeof(struct kmmap2)) {
		struct kmmap2 k;
		struct agent_mmap m;
		char name[RS_PSTATE_NAME_MAX + 1];
		size_t n = len - sizeof(k);

		memcpy(&k, body, sizeof(k));
		if (!(k.prot & PROT_EXEC) || !(p = find(k.pid)))
			return;
		if (n > RS_PSTATE_NAME_MAX)
			n = RS_PSTATE_NAME_MAX;
		memcpy(name, body + sizeof(k), n);
		name[n] = '\0';
		if (name[0] != '/' && strcmp(name, "[vdso]"))
			return;    /* anonymous code has no file to name */
		memset(&m, 0, sizeof(m));
		m.start = k.addr;
		m.len = k.len;
		m.pgoff = k.pgoff;
		m.prot = k.prot;
		m.flags = k.flags;
		m.path = name;
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m.build_id_size = k.u.b.size <= 20 ? k.u.b.size : 0;
			memcpy(m.build_id, k.u.b.id, m.build_id_size);
		} else {
			m.maj = k.u.f.maj;
			m.min = k.u.f.min;
			m.ino = k.u.f.ino;
		}
		add_map(p, &m);
	}
}

/* The processes that ended: PRUNE_PER_ROUND of them looked at, each at
 * most once a round, a round a second (a table smaller than that is not
 * gone round again: every look is a system call). */
static void prune(uint64_t now)
{
	uint32_t n, looks = ps.nr < PRUNE_PER_ROUND ? ps.nr : PRUNE_PER_ROUND;

	if (ps.pruned && now - ps.pruned < PRUNE_EVERY_NS)
		return;
	ps.pruned = now ? now : 1;

	for (n = 0; n < looks && ps.nr; n++) {
		if (ps.cursor >= ps.nr)
			ps.cursor = 0;
		if (kill((pid_t)ps.proc[ps.cursor]->pid, 0) && errno == ESRCH) {
			remove_at(ps.cursor);
			ps.st.ended++;
			continue;
		}
		ps.cursor++;
	}
}

static uint32_t map_bytes(const struct pmap *m)
{
	return (uint32_t)((sizeof(struct rs_pstate_map) + m->name_len + 7u) &
			  ~(size_t)7u);
}

/* The model into ps.out: @h's counts. */
static void build(struct rs_pstate_copy *h)
{
	uint64_t room = ps.w.copy_size - sizeof(struct rs_pstate_copy);
	uint32_t i, j;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < ps.nr; i++) {
		const struct pproc *p = ps.proc[i];
		struct rs_pstate_proc e;
		uint64_t len = sizeof(e);
		uint8_t *o;

		for (j = 0; j < p->nr_maps; j++)
			len += map_bytes(&p->map[j]);
		h->maps_left_out += p->maps_over;
		if (len > room - h->length) {
			h->procs_left_out++;
			h->maps_left_out += p->nr_maps;
			continue;
		}
		o = ps.out + h->length;
		memset(&e, 0, sizeof(e));
		e.length = (uint32_t)len;
		e.pid = p->pid;
		e.nr_maps = (uint16_t)p->nr_maps;
		memcpy(e.comm, p->comm, sizeof(e.comm));
		memcpy(o, &e, sizeof(e));
		o += sizeof(e);
		for (j = 0; j < p->nr_maps; j++) {
			const struct pmap *m = &p->map[j];
			struct rs_pstate_map r;
			uint32_t mb = map_bytes(m);

			memset(&r, 0, sizeof(r));
			r.start = m->start;
			r.len = m->len;
			r.pgoff = m->pgoff;
			r.prot = m->prot;
			r.flags = m->flags;
			r.maj = m->maj;
			r.min = m->min;
			r.ino = m->ino;
			r.name_len = m->name_len;
			r.build_id_len = m->bid_len;
			memcpy(r.build_id, m->bid, m->bid_len);
			memcpy(o, &r, sizeof(r));
			memset(o + sizeof(r), 0, mb - sizeof(r));
			memcpy(o + sizeof(r), m->name, m->name_len);
			o += mb;
		}
		h->length += (uint32_t)len;
		h->nr_procs++;
		h->nr_maps += p->nr_maps;
	}
	if (h->procs_left_out || h->maps_left_out)
		h->flags = RS_PSTATE_TRUNCATED;
}

void agent_pstate_tick(uint64_t now)
{
	struct rs_pstate_copy h;

	if (!ps.on)
		return;
	prune(now);
	if (!ps.dirty)
		return;
	build(&h);
	h.time = now;                           /* agent_now's clock */
	if (rs_pstate_publish(&ps.w, &h, ps.out))
		return;            /* never: build bounds it by the copy */
	ps.dirty = 0;
	ps.st.publishes++;
	ps.st.procs = h.nr_procs;
	ps.st.maps = h.nr_maps;
	ps.st.procs_left_out = h.procs_left_out;
	ps.st.maps_left_out = h.maps_left_out;
}
