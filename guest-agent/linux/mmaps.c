/* SPDX-License-Identifier: MIT */
/*
 * The mappings of the processes in a ring.  The guest kernel sends
 * PERF_RECORD_MMAP2 (with the file's build id) only when a process maps
 * something while the events are open; a process that ran before the
 * agent started, or mapped its program before tracing was enabled, has
 * none.  So before the first sample of a pid in a ring, the agent writes
 * one MMAP2 per executable mapping listed in /proc/PID/maps, as perf
 * itself synthesizes them at `perf record` start: misc USER, the build id
 * read from the mapped file's ELF notes when it has one (misc
 * MMAP_BUILD_ID, as the kernel marks its own), else the device and inode.
 * The work per pid is bounded (MAPS_MAX bytes of maps, MMAPS_PER_PID
 * records, AGENT_NOTE_MAX bytes of notes per file); what is not described is
 * counted in the ring's agent_mmap_stats.
 *
 * A flight recorder (an overwrite ring) overwrites a process's MMAP2
 * records long before the samples of a process that runs on: there the
 * set of processes described is emptied whenever half the ring has been
 * written with other records since it last was, so each process still
 * sampled is described again, at most once per half ring.  Only the samples of the oldest part
 * of a wrapped ring can have lost their process's mappings.
 */
#include <dirent.h>
#include <elf.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ringside/elf_note.h"

#include "agent.h"

#define MAPS_MAX       (64u * 1024u)  /* bytes of /proc/PID/maps read */
#define MMAPS_PER_PID  64u            /* executable mappings described */
#define BID_SETS       128u           /* files whose build id is known: */
#define BID_WAYS       4u             /* a set by device and inode, each of */
				      /* BID_WAYS files */
#define NAME_MAX_LEN   4095u          /* perf's PATH_MAX, its NUL aside */

/* ---- build ids --------------------------------------------------------- */

struct bid_entry {
	uint32_t maj, min;
	uint64_t ino;
	uint8_t used;
	uint8_t size;                 /* 0: the file has none (or unreadable) */
	uint8_t id[AGENT_BUILD_ID_MAX];
};

/* The agent has one thread: one cache of BID_SETS x BID_WAYS files, each
 * set filled round robin.  Large enough for the libraries of the
 * processes a guest runs (perf or a systemd service maps 30-40 files):
 * a cache smaller than one process's files reads every build id of it
 * again each time such a process is described. */
static struct bid_entry bid_cache[BID_SETS][BID_WAYS];
static uint8_t bid_next[BID_SETS];

void agent_mmaps_forget(void)
{
	memset(bid_cache, 0, sizeof(bid_cache));
	memset(bid_next, 0, sizeof(bid_next));
}

static uint32_t bid_set(uint32_t maj, uint32_t min, uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)maj << 40) ^ ((uint64_t)min << 20)) *
		     0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & (BID_SETS - 1u);
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len ? 0 : -1;
}

/* The GNU build id in @len bytes of notes aligned to @align.  Its size, 0
 * when there is none. */
uint8_t agent_mmaps_note_build_id(const uint8_t *p, size_t len, size_t align,
				  uint8_t *id)
{
	size_t size = AGENT_BUILD_ID_MAX;

	return rs_elf_note_buildid(p, len, align, id, &size) ? 0 : (uint8_t)size;
}

/* The build id of the 64-bit ELF file open at @fd, from its PT_NOTE
 * segments; 0 when it has none, or is no such file. */
uint8_t agent_mmaps_elf_build_id(int fd, uint8_t *id)
{
	static uint8_t note[AGENT_NOTE_MAX];
	Elf64_Phdr ph[AGENT_PHDRS_MAX];
	Elf64_Ehdr eh;
	uint8_t size;
	unsigned i;

	if (read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum ||
	    eh.e_phnum > AGENT_PHDRS_MAX ||
	    read_at(fd, ph, (size_t)eh.e_phnum * sizeof(ph[0]), eh.e_phoff))
		return 0;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz < sizeof(Elf64_Nhdr) ||
		    ph[i].p_filesz > AGENT_NOTE_MAX ||
		    read_at(fd, note, (size_t)ph[i].p_filesz, ph[i].p_offset))
			continue;
		size = agent_mmaps_note_build_id(note, (size_t)ph[i].p_filesz,
				      ph[i].p_align == 8 ? 8 : 4, id);
		if (size)
			return size;
	}
	return 0;
}

/* The file mapped at @start-@end of @pid (map_files: the very file),
 * else @path; -1 when neither opens. */
static int open_mapped(uint32_t pid, uint64_t start, uint64_t end,
		       const char *path)
{
	char link[96];
	int fd;

	snprintf(link, sizeof(link), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(link, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && path[0] == '/')
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	return fd;
}

/* @fd's symbols to usyms under @id, if @fd is the file with that id (a
 * path may name another file by now). */
static void note_if_same(int fd, const char *path, const uint8_t *id,
			 uint8_t size)
{
	uint8_t fid[AGENT_BUILD_ID_MAX];

	if (agent_mmaps_elf_build_id(fd, fid) == size && !memcmp(fid, id, size))
		agent_usyms_note(fd, path, id, size);
}

/* The build id of the file mapped at @start-@end of @pid, through
 * /proc/PID/map_files (the very file mapped, even if it was deleted or
 * replaced), else @path.  Cached by device and inode. */
static uint8_t build_id_of(uint32_t pid, uint64_t start, uint64_t end,
			   uint32_t maj, uint32_t min, uint64_t ino,
			   const char *path, uint8_t *id)
{
	uint32_t set = bid_set(maj, min, ino), i;
	struct bid_entry *e;
	int fd;

	for (i = 0; i < BID_WAYS; i++) {
		e = &bid_cache[set][i];
		if (e->used && e->ino == ino && e->maj == maj && e->min == min) {
			/* known here, not yet to this session's region (an
			 * agent that follows its device): published now */
			if (agent_usyms_wants(e->id, e->size)) {
				fd = open_mapped(pid, start, end, path);
				if (fd >= 0) {
					note_if_same(fd, path, e->id, e->size);
					close(fd);
				}
			}
			memcpy(id, e->id, e->size);
			return e->size;
		}
	}
	fd = open_mapped(pid, start, end, path);
	if (fd < 0)
		return 0;          /* not cached: it may be readable next time */
	e = &bid_cache[set][bid_next[set]];
	bid_next[set] = (uint8_t)((bid_next[set] + 1u) % BID_WAYS);
	e->used = 1;
	e->maj = maj;
	e->min = min;
	e->ino = ino;
	e->size = agent_mmaps_elf_build_id(fd, e->id);
	agent_usyms_note(fd, path, e->id, e->size);  /* once per build id */
	close(fd);
	memcpy(id, e->id, e->size);
	return e->size;
}

/* ---- /proc/PID/maps ------------------------------------------------------ */

/* "START-END PERMS OFFSET MAJ:MIN INODE   PATH": 0 for an executable
 * mapping of a file or the vdso, the line's NUL-terminated path in it. */
int agent_mmaps_parse_line(char *line, struct agent_maps_line *m)
{
	char perms[5];
	unsigned long long s, e, off, ino;
	unsigned maj, min;
	int n = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &s, &e, perms, &off,
		   &maj, &min, &ino, &n) != 7 || !n || strlen(perms) != 4 ||
	    e <= s)
		return -1;
	if (perms[2] != 'x')
		return -1;
	m->path = line + n;
	if (m->path[0] != '/' && strcmp(m->path, "[vdso]"))
		return -1;      /* anonymous code (JITs) has no file to name */
	if (strlen(m->path) > NAME_MAX_LEN)
		return -1;
	m->start = s;
	m->end = e;
	m->pgoff = off;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	return 0;
}

int agent_mmaps_put(struct agent_ring *r, uint32_t pid, uint32_t tid,
		   const struct agent_mmap *m)
{
	struct agent_mmap2_body body;
	size_t n = strnlen(m->path, NAME_MAX_LEN);
	uint16_t misc = PERF_RECORD_MISC_USER;

	memset(&body.m, 0, sizeof(body.m));
	body.m.pid = pid;
	body.m.tid = tid;
	body.m.addr = m->start;
	body.m.len = m->len;
	body.m.pgoff = m->pgoff;
	if (m->build_id_size && m->build_id_size <= AGENT_BUILD_ID_MAX) {
		body.m.u.build_id.size = m->build_id_size;
		memcpy(body.m.u.build_id.id, m->build_id, m->build_id_size);
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	} else {
		body.m.u.file.maj = m->maj;
		body.m.u.file.min = m->min;
		body.m.u.file.ino = m->ino;
	}
	body.m.prot = m->prot;
	body.m.flags = m->flags;
	memcpy(body.name, m->path, n);
	/* perf pads the NUL-terminated name to 8 bytes */
	memset(body.name + n, 0, 8);
	return agent_ring_put(r, PERF_RECORD_MMAP2, misc, &body,
			      (uint32_t)(sizeof(body.m) +
					  ((n + 1 + 7) & ~(size_t)7)));
}

/* The kernel's MMAP2: its fixed part, then the name. */
void agent_mmaps_kernel(const struct rs_perf_header *rec)
{
	struct rs_perf_mmap2_body k;
	const char *name = (const char *)(rec + 1) + sizeof(k);
	size_t len = rec->size - sizeof(*rec), n;
	uint8_t id[AGENT_BUILD_ID_MAX];
	int fd;

	if (rec->type != PERF_RECORD_MMAP2 || len <= sizeof(k))
		return;
	memcpy(&k, rec + 1, sizeof(k));
	n = strnlen(name, len - sizeof(k));
	if (!(k.prot & PROT_EXEC) || n == len - sizeof(k) || name[0] != '/' ||
	    n > NAME_MAX_LEN || k.len == 0 || k.addr + k.len < k.addr)
		return;
	if (!(rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		/* no id from the kernel: the file's, cached by inode, and
		 * its symbols noted there */
		build_id_of(k.pid, k.addr, k.addr + k.len, k.u.file.maj,
			    k.u.file.min, k.u.file.ino, name, id);
		return;
	}
	if (!k.u.build_id.size || k.u.build_id.size > AGENT_BUILD_ID_MAX ||
	    !agent_usyms_wants(k.u.build_id.id, k.u.build_id.size))
		return;
	fd = open_mapped(k.pid, k.addr, k.addr + k.len, name);
	if (fd < 0)
		return;     /* still wanted: the next mapping of it tries */
	note_if_same(fd, name, k.u.build_id.id, k.u.build_id.size);
	close(fd);
}

/* @pid's executable mappings from /proc/PID/maps, at most MMAPS_PER_PID
 * into @out (their paths in a buffer of this module's, until the next
 * call), their build ids read (and their files' symbols noted): how many,
 * or -1 when the file is gone or unreadable.  Counted in @st. */
static int read_maps(uint32_t pid, struct agent_mmap *out,
		     struct agent_mmap_stats *st)
{
	static char buf[MAPS_MAX + 1];
	char path[64], *line, *nl;
	size_t len = 0;
	int n = 0;
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		st->unreadable++;
		return -1;
	}
	while (len < MAPS_MAX &&
	       (got = read(fd, buf + len, MAPS_MAX - len)) > 0)
		len += (size_t)got;
	close(fd);
	buf[len] = '\0';
	st->pids++;
	for (line = buf; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		struct agent_maps_line ml;
		struct agent_mmap *m = &out[n];

		*nl = '\0';
		if (agent_mmaps_parse_line(line, &ml))
			continue;
		if (n == MMAPS_PER_PID) {
			st->skipped++;
			continue;
		}
		memset(m, 0, sizeof(*m));
		m->start = ml.start;
		m->len = ml.end - ml.start;
		m->pgoff = ml.pgoff;
		m->maj = ml.maj;
		m->min = ml.min;
		m->ino = ml.ino;
		m->prot = ml.prot;
		m->flags = ml.flags;
		m->path = ml.path;
		if (ml.path[0] == '/')
			m->build_id_size = build_id_of(pid, ml.start, ml.end,
						       ml.maj, ml.min, ml.ino,
						       ml.path, m->build_id);
		n++;
	}
	if (len == MAPS_MAX)
		st->truncated++;   /* the lines past MAPS_MAX are not counted */
	return n;
}

/* What /proc said of @pid into pstate's model: a process with code
 * replaces what it knew, one without (gone, a zombie, a kernel thread)
 * leaves it.  0; -1: the model had no room. */
static int model_set(uint32_t pid, const struct agent_mmap *m, int n)
{
	int i;

	if (agent_pstate_proc(pid, n > 0))
		return -1;
	for (i = 0; i < n; i++)
		agent_pstate_map(pid, &m[i]);
	return 0;
}

static void put(struct agent_ring *r, uint32_t pid, const struct agent_mmap *m)
{
	struct agent_mmap_stats *st = &r->mmap_stats;

	if (agent_mmaps_put(r, pid, pid, m)) {
		st->skipped++;
		return;
	}
	st->records++;
	st->bytes += sizeof(struct rs_perf_header) + 64 +
		     ((strlen(m->path) + 1 + 7) & ~(size_t)7);
	if (!m->build_id_size && m->path[0] == '/')
		st->no_build_id++;
}

/* @m of @pid as the model knows it: its file's symbols published if this
 * session has not yet (a process the census met before the symbols' table
 * began, or one born under the agent's eyes whose file's MMAP2 came before
 * it), as a mapping read from /proc publishes them (build_id_of). */
static void publish_wanted(uint32_t pid, const struct agent_mmap *m)
{
	int fd;

	if (!m->build_id_size || m->path[0] != '/' ||
	    !agent_usyms_wants(m->build_id, m->build_id_size))
		return;
	fd = open_mapped(pid, m->start, m->start + m->len, m->path);
	if (fd < 0)
		return;          /* ended: its samples keep its build id */
	note_if_same(fd, m->path, m->build_id, m->build_id_size);
	close(fd);
}

/* Describe @pid's executable mappings into @r: as the model knows them
 * (a process born or exec'd under the agent's eyes: even after it ended),
 * else as /proc says now, which the model takes. */
static void describe(struct agent_ring *r, uint32_t pid)
{
	static struct agent_mmap m[MMAPS_PER_PID];
	struct agent_mmap k;
	int n = 0, i;
	uint32_t j;

	if (!agent_pstate_known(pid))
		n = read_maps(pid, m, &r->mmap_stats);
	else
		r->mmap_stats.from_model++;
	if ((n >= 0 && model_set(pid, m, n)) || agent_pstate_sampled(pid)) {
		for (i = 0; i < n; i++)      /* no room in the model */
			put(r, pid, &m[i]);
		return;
	}
	if (n < 0)
		agent_pstate_gone(pid);      /* its EXIT may be read already */
	for (j = 0; !agent_pstate_map_at(pid, j, &k); j++) {
		publish_wanted(pid, &k);
		put(r, pid, &k);
	}
}

uint32_t agent_mmaps_census(const char *proc, struct agent_mmap_stats *st)
{
	static struct agent_mmap m[MMAPS_PER_PID];
	struct dirent *e;
	uint32_t taken = 0;
	DIR *dir;

	dir = opendir(proc);
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		int n;

		if (*end || !pid || pid > UINT32_MAX ||
		    agent_pstate_known((uint32_t)pid))
			continue;
		n = read_maps((uint32_t)pid, m, st);
		/* a kernel thread has no code; one gone since is no matter */
		if (n > 0 && !model_set((uint32_t)pid, m, n))
			taken++;
	}
	closedir(dir);
	return taken;
}

/* The ring's set of pids described, each with the number of the process
 * it was (agent_pstate_gen): open addressing, emptied when 3/4 full (the
 * pids met since are described again: bounded work, no stale entries
 * forever).  1 when @pid's process @gen is in it; else 0, and it is now. */
int agent_mmaps_seen(struct agent_ring *r, uint32_t pid, uint64_t gen)
{
	uint32_t i = (pid * 2654435761u) % AGENT_MMAP_PIDS;

	while (r->mmap_pid[i]) {
		if (r->mmap_pid[i] == pid) {
			if (r->mmap_gen[i] == gen)
				return 1;
			r->mmap_gen[i] = gen;   /* a pid's new process */
			return 0;
		}
		i = (i + 1) % AGENT_MMAP_PIDS;
	}
	if (r->nr_mmap_pids >= AGENT_MMAP_PIDS / 4 * 3) {
		memset(r->mmap_pid, 0, sizeof(r->mmap_pid));
		r->nr_mmap_pids = 0;
		i = (pid * 2654435761u) % AGENT_MMAP_PIDS;
	}
	r->mmap_pid[i] = pid;
	r->mmap_gen[i] = gen;
	r->nr_mmap_pids++;
	return 0;
}

void agent_mmaps_note(struct agent_ring *r, uint32_t pid)
{
	const struct rs_ring *ring = &r->prod.ring;
	/* the ring's other records: its own cannot renew it, so a ring that
	 * can hold little more than the mappings does not describe them
	 * over and over */
	uint64_t others = r->written_bytes - r->mmap_stats.bytes;

	if (pid == 0 || pid == (uint32_t)-1)
		return;     /* the idle task has no maps */
	if (ring->data_mode == RS_MODE_OVERWRITE &&
	    others - r->mmap_epoch >= ring->data_size / 2) {
		memset(r->mmap_pid, 0, sizeof(r->mmap_pid));
		r->nr_mmap_pids = 0;
		r->mmap_epoch = others;
		r->mmap_stats.refreshes++;
		r->described_pid = 0;
	}
	/* the last one asked about, and no process numbered since: it is in
	 * the set, under the number it has now (a sample's common case) */
	if (pid == r->described_pid &&
	    agent_pstate_births() == r->described_births)
		return;
	if (!agent_mmaps_seen(r, pid, agent_pstate_gen(pid))) {
		describe(r, pid);
		/* the number describe gave it, when the model had none */
		(void)agent_mmaps_seen(r, pid, agent_pstate_gen(pid));
	}
	r->described_pid = pid;
	r->described_births = agent_pstate_births();
}

void agent_mmaps_fork(const struct rs_perf_header *rec)
{
	static struct agent_mmap m[MMAPS_PER_PID];
	struct agent_mmap_stats st;
	struct rs_perf_task_body t;
	int n;

	if (rec->type != PERF_RECORD_FORK ||
	    rec->size < sizeof(*rec) + offsetof(struct rs_perf_task_body, tid))
		return;
	memcpy(&t, rec + 1, offsetof(struct rs_perf_task_body, tid));
	/* a new process whose parent the model has not met: the parent as
	 * /proc says now, for its child to take */
	if (t.pid == t.ppid || agent_pstate_known(t.ppid) ||
	    agent_pstate_known(t.pid))
		return;
	memset(&st, 0, sizeof(st));
	n = read_maps(t.ppid, m, &st);
	if (n >= 0)
		(void)model_set(t.ppid, m, n);
}
