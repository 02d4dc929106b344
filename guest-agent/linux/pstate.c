/* SPDX-License-Identifier: MIT */
/*
 * The guest's processes as the agent knows them, into the region's process
 * state table (abi.h, struct rs_pstate_desc; docs/abi.md, "Process state"),
 * so that a flight recorder, whose ring has long overwritten the records
 * that described a process, still gives its samples their process.
 *
 * The agent keeps a private model, driven by the kernel's records it reads
 * anyway (forward.c), in the order of each CPU's buffer:
 *  - FORK of a new process: its parent's mappings and name, as the kernel
 *    copied them (a busybox applet runs in a fork that never execs);
 *  - COMM: a rename, or an exec, which empties the mappings; the kernel's
 *    MMAP2 records of code add to them (the exec's own first);
 *  - EXIT: the process has ended.  It stays in the model, and in the
 *    table, for as long as a snapshot of the rings may still read its
 *    samples: until every ring has been written over (an overwrite ring)
 *    or consumed (a normal ring) twice since (agent_pstate_epoch,
 *    agent_ring_passed), or until the model needs its room;
 *  - mmaps's reads of /proc/PID/maps, for the processes it met before
 *    their birth was seen (they ran before the agent, or the kernel lost
 *    records: then /proc is read again).
 * So a process that lives less than a tick is known from its records even
 * after it is gone, and mmaps describes it into the rings from here.
 * The CPUs' buffers are read one after the other, so a process's records
 * may come out of order across CPUs (its exec before its FORK): a FORK
 * never overwrites what is known of its child, an EXIT older than a FORK
 * is a former process's, and a FORK after the EXIT of its pid a new one.
 *
 * The model goes into the table (pstate_table.c) at the end of each pass
 * that changed it, and within a pass before a ring could write over what
 * it took of a change (agent_pstate_due): a process whose exec has left a
 * ring, or whose samples are still in the kernel's buffer, is then in it.
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

#include "pstate_int.h"

#define PRUNE_PER_ROUND 1024u   /* processes looked at per round */
#define PRUNE_EVERY_NS  1000000000ull  /* a round a second, while due */

struct agent_pstate_model agent_pstate_model;

/* ---- the index by pid --------------------------------------------------- */

static uint32_t home_of(uint32_t pid)
{
	return (pid * 2654435761u) & (HASH_SLOTS - 1u);
}

/* The slot that holds @pid, or the free one where it would go. */
static uint32_t slot_of(uint32_t pid)
{
	uint32_t s = home_of(pid);

	while (ps.hash[s] && ps.proc[ps.hash[s] - 1u]->pid != pid)
		s = (s + 1u) & (HASH_SLOTS - 1u);
	return s;
}

static struct pproc *find(uint32_t pid)
{
	uint32_t s = slot_of(pid);

	return ps.hash[s] ? ps.proc[ps.hash[s] - 1u] : NULL;
}

/* @pid's slot emptied; the probe chains after it closed up (linear
 * probing's deletion, no tombstones). */
static void unhash(uint32_t pid)
{
	uint32_t s = slot_of(pid), j = s, k;

	ps.hash[s] = 0;
	for (;;) {
		j = (j + 1u) & (HASH_SLOTS - 1u);
		if (!ps.hash[j])
			return;
		k = home_of(ps.proc[ps.hash[j] - 1u]->pid);
		/* the entry at j may stay if its home lies in (s, j] */
		if (s < j ? (k > s && k <= j) : (k > s || k <= j))
			continue;
		ps.hash[s] = ps.hash[j];
		ps.hash[j] = 0;
		s = j;
	}
}

/* ---- processes and their mappings ----------------------------------------- */

/* A name of @n bytes at @s, counted once; NULL: no memory. */
static struct pname *name_new(const char *s, size_t n)
{
	struct pname *nm = malloc(sizeof(*nm) + n + 1u);

	if (!nm)
		return NULL;
	nm->refs = 1;
	nm->len = (uint16_t)n;
	memcpy(nm->s, s, n);
	nm->s[n] = '\0';
	return nm;
}

static void name_put(struct pname *nm)
{
	if (!--nm->refs)
		free(nm);
}

static void drop_maps(struct pproc *p)
{
	uint32_t i;

	for (i = 0; i < p->nr_maps; i++)
		name_put(p->map[i].name);
	p->nr_maps = 0;
	p->maps_over = 0;
}

static void remove_at(uint32_t i)
{
	struct pproc *p = ps.proc[i];
	uint32_t last = ps.nr - 1u;

	unhash(p->pid);
	if (i < last)             /* the last one moves to i */
		ps.hash[slot_of(ps.proc[last]->pid)] = i + 1u;
	ps.proc[i] = ps.proc[last];
	ps.proc[last] = NULL;
	ps.nr = last;
	if (p->flags & P_ENDED)
		ps.nr_ended--;
	drop_maps(p);
	free(p->map);
	free(p);
	ps.dirty = 1;
}

/* Room for one more: the ended process the rings are least likely to
 * hold (never sampled first, then the oldest end).  0, -1: none ended. */
static int evict(void)
{
	uint32_t i, best = UINT32_MAX;

	for (i = 0; i < ps.nr; i++) {
		const struct pproc *p = ps.proc[i], *b;

		if (!(p->flags & P_ENDED))
			continue;
		if (best == UINT32_MAX) {
			best = i;
			continue;
		}
		b = ps.proc[best];
		if ((b->flags & P_SAMPLED) > (p->flags & P_SAMPLED) ||
		    ((b->flags & P_SAMPLED) == (p->flags & P_SAMPLED) &&
		     p->end_seq < b->end_seq))
			best = i;
	}
	if (best == UINT32_MAX)
		return -1;
	remove_at(best);
	ps.st.evicted++;
	return 0;
}

static struct pproc *create(uint32_t pid)
{
	struct pproc *p;

	if (ps.nr == PSTATE_PROCS && evict()) {
		ps.st.full++;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		ps.st.full++;
		return NULL;
	}
	p->pid = pid;
	p->gen = ++ps.gens;
	ps.hash[slot_of(pid)] = ps.nr + 1u;
	ps.proc[ps.nr++] = p;
	ps.dirty = 1;
	return p;
}

/* @pid's process, created when absent; NULL: no room, or no process's
 * pid. */
static struct pproc *get(uint32_t pid)
{
	struct pproc *p;

	if (!pid || pid == UINT32_MAX)
		return NULL;
	p = find(pid);
	return p ? p : create(pid);
}

/* The pid is another process's now: everything of the former forgotten. */
static void reborn(struct pproc *p)
{
	drop_maps(p);
	if (p->flags & P_ENDED)
		ps.nr_ended--;
	p->flags = 0;
	p->ppid = 0;
	p->fork_time = p->exit_time = 0;
	memset(p->comm, 0, sizeof(p->comm));
	p->gen = ++ps.gens;
	ps.dirty = 1;
}

static void ended(struct pproc *p, uint64_t time)
{
	if (p->flags & P_ENDED)
		return;
	p->flags |= P_ENDED;
	p->exit_time = time;
	p->exit_epoch = ps.epoch;
	p->end_seq = ++ps.ends;
	ps.nr_ended++;
	if (!(p->flags & P_SAMPLED))
		ps.unsampled_new++;
	ps.st.ended++;
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
			name_put(m->name);
			*m = p->map[--p->nr_maps];
			continue;
		}
		i++;
	}
}

/* A slot for one more mapping of @p, NULL when it has
 * RS_PSTATE_MAX_MAPS (counted) or no memory. */
static struct pmap *map_slot(struct pproc *p)
{
	if (p->nr_maps == p->cap) {
		uint32_t cap = p->cap ? 2u * p->cap : 4u;
		struct pmap *m;

		if (cap > RS_PSTATE_MAX_MAPS)
			cap = RS_PSTATE_MAX_MAPS;
		if (p->nr_maps == cap) {
			p->maps_over++;
			return NULL;
		}
		m = realloc(p->map, cap * sizeof(*m));
		if (!m) {
			p->maps_over++;
			return NULL;
		}
		p->map = m;
		p->cap = cap;
	}
	return &p->map[p->nr_maps];
}

static void add_map(struct pproc *p, const struct agent_mmap *a)
{
	size_t n = strnlen(a->path, RS_PSTATE_NAME_MAX + 1);
	struct pmap *m;

	if (!n || n > RS_PSTATE_NAME_MAX || !a->len)
		return;
	unmap(p, a->start, a->len);
	ps.dirty = 1;
	m = map_slot(p);
	if (!m)
		return;
	memset(m, 0, sizeof(*m));
	m->name = name_new(a->path, n);
	if (!m->name) {
		p->maps_over++;
		return;
	}
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

/* The child @c takes what the kernel copied of its parent @p: its
 * mappings and its name. */
static void inherit(struct pproc *c, const struct pproc *p)
{
	uint32_t i;

	drop_maps(c);
	for (i = 0; i < p->nr_maps; i++) {
		struct pmap *m = map_slot(c);

		if (!m)
			break;
		*m = p->map[i];
		m->name->refs++;
		c->nr_maps++;
	}
	c->maps_over += p->maps_over;
	if (!c->comm[0])
		memcpy(c->comm, p->comm, sizeof(c->comm));
	c->flags |= p->flags & P_COMPLETE;
	ps.dirty = 1;
}

/* ---- the module's calls ---------------------------------------------------- */

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

void agent_pstate_end(void)
{
	while (ps.nr)
		remove_at(ps.nr - 1);
	ps.on = 0;
	ps.dirty = 0;
	ps.cursor = 0;
	ps.look_due = 0;
	ps.looked = 0;
	ps.nr_ended = 0;
	ps.unsampled_new = ps.unsampled_due = 0;
}

const struct agent_pstate_stats *agent_pstate_stats(void)
{
	return &ps.st;
}

uint64_t agent_pstate_gen(uint32_t pid)
{
	const struct pproc *p = find(pid);

	return p ? p->gen : 0;
}

uint64_t agent_pstate_births(void)
{
	return ps.gens;
}

int agent_pstate_known(uint32_t pid)
{
	const struct pproc *p = find(pid);

	return p && (p->flags & (P_COMPLETE | P_LOOKED));
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

int agent_pstate_proc(uint32_t pid, int has_maps)
{
	struct pproc *p = get(pid);

	if (!p)
		return -1;
	p->flags |= P_LOOKED;
	if (has_maps) {
		drop_maps(p);
		read_comm(pid, p->comm);
		p->flags |= P_COMPLETE;
	} else if (!p->comm[0]) {
		read_comm(pid, p->comm);
	}
	ps.dirty = 1;
	return 0;
}

void agent_pstate_map(uint32_t pid, const struct agent_mmap *m)
{
	struct pproc *p = find(pid);

	if (p)
		add_map(p, m);
}

int agent_pstate_sampled(uint32_t pid)
{
	struct pproc *p = get(pid);

	if (!p)
		return -1;
	if (!(p->flags & P_SAMPLED)) {
		p->flags |= P_SAMPLED;
		ps.dirty = 1;
	}
	return 0;
}

int agent_pstate_map_at(uint32_t pid, uint32_t i, struct agent_mmap *out)
{
	const struct pproc *p = find(pid);
	const struct pmap *m;

	if (!p || i >= p->nr_maps)
		return -1;
	m = &p->map[i];
	memset(out, 0, sizeof(*out));
	out->start = m->start;
	out->len = m->len;
	out->pgoff = m->pgoff;
	out->maj = m->maj;
	out->min = m->min;
	out->ino = m->ino;
	out->prot = m->prot;
	out->flags = m->flags;
	out->build_id_size = m->bid_len;
	memcpy(out->build_id, m->bid, m->bid_len);
	out->path = m->name->s;
	return 0;
}

static void comm_rec(const struct rs_perf_header *rec, const uint8_t *body,
		     size_t len)
{
	struct rs_perf_comm_body id;
	const char *name = (const char *)body + sizeof(id);
	size_t room = len - sizeof(id);
	struct pproc *p;

	memcpy(&id, body, sizeof(id));
	if (id.pid != id.tid)
		return;            /* a thread's name, not its process's */
	if (rec->misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* a new image: its MMAP2s follow, and they are all of it */
		p = get(id.pid);
		if (!p)
			return;
		drop_maps(p);
		p->flags |= P_COMPLETE;
	} else if (!(p = get(id.pid))) {
		return;            /* kept: a FORK seen later leaves its name */
	}
	memset(p->comm, 0, sizeof(p->comm));
	memcpy(p->comm, name, strnlen(name, room < sizeof(p->comm) - 1 ?
				      room : sizeof(p->comm) - 1));
	ps.dirty = 1;
}

static void mmap2_rec(const struct rs_perf_header *rec, const uint8_t *body,
		      size_t len)
{
	struct rs_perf_mmap2_body k;
	struct agent_mmap m;
	char name[RS_PSTATE_NAME_MAX + 1];
	size_t n = len - sizeof(k);
	struct pproc *p;

	memcpy(&k, body, sizeof(k));
	if (!(k.prot & PROT_EXEC) || !(p = find(k.pid)))
		return;    /* not code, or a process whose birth was not seen */
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
		m.build_id_size = k.u.build_id.size <= RS_PERF_BUILD_ID_MAX ?
				  k.u.build_id.size : 0;
		memcpy(m.build_id, k.u.build_id.id, m.build_id_size);
	} else {
		m.maj = k.u.file.maj;
		m.min = k.u.file.min;
		m.ino = k.u.file.ino;
	}
	add_map(p, &m);
}

/* A new process @t->pid, child of @t->ppid (mmaps read the parent first
 * if it was not known). */
static void fork_rec(const struct rs_perf_task_body *t)
{
	struct pproc *c = find(t->pid), *p;

	if (c && (c->flags & P_ENDED) &&
	    (!c->exit_time || c->exit_time < t->time))
		reborn(c);          /* its pid's former process had ended */
	else if (c && (c->flags & P_FORKED) && c->fork_time < t->time)
		reborn(c);          /* a former one whose end was not seen */
	if (!c && !(c = create(t->pid)))
		return;
	ps.st.forks++;
	c->flags |= P_FORKED;
	c->fork_time = t->time;
	c->ppid = t->ppid;
	p = find(t->ppid);
	/* what is known of the child came after its fork (an exec, a look
	 * at /proc): the parent's mappings of then would be older */
	if (!p || c->nr_maps || (c->flags & (P_COMPLETE | P_LOOKED)))
		return;
	inherit(c, p);
	ps.st.inherited++;
}

static void exit_rec(const struct rs_perf_task_body *t)
{
	struct pproc *p = find(t->pid);

	if (p && (p->flags & P_FORKED) && p->fork_time > t->time)
		return;             /* a former process's end */
	if (!p && !(p = create(t->pid)))
		return;             /* kept: a FORK seen later fills it */
	ended(p, t->time);
}

void agent_pstate_kernel(const struct rs_perf_header *rec)
{
	const uint8_t *body = (const uint8_t *)(rec + 1);
	size_t len = rec->size - sizeof(*rec);
	struct rs_perf_task_body t;

	switch (rec->type) {
	case PERF_RECORD_COMM:
		if (len > sizeof(struct rs_perf_comm_body))
			comm_rec(rec, body, len);
		break;
	case PERF_RECORD_MMAP2:
		if (len > sizeof(struct rs_perf_mmap2_body))
			mmap2_rec(rec, body, len);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (len < sizeof(t))
			break;
		memcpy(&t, body, sizeof(t));
		/* a thread's birth or end is not its process's */
		if (rec->type == PERF_RECORD_FORK && t.pid != t.ppid &&
		    t.pid == t.tid)
			fork_rec(&t);
		else if (rec->type == PERF_RECORD_EXIT && t.pid == t.tid)
			exit_rec(&t);
		break;
	default:
		break;
	}
}

void agent_pstate_lost(void)
{
	uint32_t i;

	/* any FORK, EXIT, COMM or MMAP2 may be among what was lost: the
	 * live ones are read from /proc again when next sampled, and a look
	 * finds the ones that ended */
	for (i = 0; i < ps.nr; i++)
		if (!(ps.proc[i]->flags & P_ENDED))
			ps.proc[i]->flags &= ~(uint32_t)(P_COMPLETE | P_LOOKED);
	ps.look_due = 1;
	ps.st.lost++;
}

void agent_pstate_epoch(void)
{
	uint32_t i = 0;

	ps.epoch++;
	/* ended before the previous epoch began: every ring has been
	 * written over since, its samples are gone */
	while (ps.nr_ended && i < ps.nr) {
		const struct pproc *p = ps.proc[i];

		if ((p->flags & P_ENDED) && p->exit_epoch + 2u <= ps.epoch) {
			remove_at(i);
			ps.st.expired++;
			continue;
		}
		i++;
	}
}

void agent_pstate_gone(uint32_t pid)
{
	struct pproc *p = find(pid);
	struct timespec ts;

	if (!p || (p->flags & P_ENDED))
		return;
	/* ended by now at the latest: a FORK older than that is its own */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ended(p, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

int agent_pstate_has_ended(void)
{
	return ps.nr_ended > 0;
}

/* The processes whose end the kernel's records may not have told:
 * PRUNE_PER_ROUND of them looked at per round, a round a second, while a
 * look is due (records were lost). */
static void look(uint64_t now)
{
	uint32_t n, looks = ps.nr < PRUNE_PER_ROUND ? ps.nr : PRUNE_PER_ROUND;

	if (!ps.look_due || (ps.looked && now - ps.looked < PRUNE_EVERY_NS))
		return;
	ps.looked = now ? now : 1;
	for (n = 0; n < looks && ps.nr; n++) {
		struct pproc *p;

		if (ps.cursor >= ps.nr)
			ps.cursor = 0;
		p = ps.proc[ps.cursor++];
		/* ended by now at the latest */
		if (!(p->flags & P_ENDED) && kill((pid_t)p->pid, 0) &&
		    errno == ESRCH)
			ended(p, now ? now : 1);
	}
	if (ps.cursor >= ps.nr) {        /* gone round: done */
		ps.cursor = 0;
		ps.look_due = 0;
	}
}

/* Ended processes never sampled: dropped a tick after their end (their
 * samples, had the CPUs' buffers held any, were read by then). */
static void drop_unsampled(void)
{
	uint32_t i = 0;

	/* looked for only at the tick after one where some ended */
	while (ps.unsampled_due && ps.nr_ended && i < ps.nr) {
		const struct pproc *p = ps.proc[i];

		if ((p->flags & (P_ENDED | P_SAMPLED)) == P_ENDED &&
		    p->end_seq <= ps.ends_at_tick) {
			remove_at(i);
			continue;
		}
		i++;
	}
	ps.unsampled_due = ps.unsampled_new;
	ps.unsampled_new = 0;
	ps.ends_at_tick = ps.ends;
}

void agent_pstate_tick(struct agent_ring *rings, uint32_t n, uint64_t now)
{
	look(now);
	drop_unsampled();
	agent_pstate_publish(rings, n, now);
}

void agent_pstate_publish(struct agent_ring *rings, uint32_t n, uint64_t now)
{
	uint32_t i;

	if (!agent_pstate_changed())
		return;
	agent_pstate_table_publish(now);
	for (i = 0; i < n; i++)
		rings[i].table_mark = rings[i].written_bytes;
}

int agent_pstate_changed(void)
{
	return ps.on && ps.dirty;
}

int agent_pstate_due(const struct agent_ring *r)
{
	return agent_pstate_changed() &&
	       r->written_bytes - r->table_mark >= r->prod.ring.data_size / 2u;
}
