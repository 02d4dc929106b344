/* SPDX-License-Identifier: MIT */
/*
 * Names for the threads in a ring.  The kernel sends PERF_RECORD_COMM only
 * when a thread execs or renames itself; a flight recorder overwrites those
 * long before it overwrites the thread's latest samples.  So after each
 * tick the agent writes one COMM per thread sampled in it: every sample a
 * ring still holds has a COMM newer than itself in the same ring (except
 * the samples of the tick in progress).
 *
 * The names come from a cache, not from /proc every tick: a thread's name
 * is read from /proc/PID/task/TID/comm the first time it is sampled, and
 * kept until the kernel says it changed.  The sampling event asks for
 * what changes a name or a tid's owner (kbuf.c: comm, comm_exec, task),
 * and forward.c hands those records here (agent_comm_kernel): a COMM (exec,
 * prctl(PR_SET_NAME)) is the new name; a FORK is a new thread, whose tid
 * may be a dead one's: it takes its creator's name, as the kernel gave it,
 * or, when that is not known, its entry is dropped and read again when
 * sampled; the kernel's LOST (its buffer overflowed: any of these may be
 * among what it dropped) forgets every name.  A guest that starts
 * processes all the time (a shell loop, a service's helpers) so costs no
 * read of /proc per process: a read there is a path lookup and three
 * system calls, the dearest part of a new process for the agent.  A
 * session starts with an empty cache (agent_comm_reset): between two, no
 * record was seen.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define COMM_LEN AGENT_COMM_LEN
#define CACHE_SLOTS 4096u          /* a power of two; by tid */

/* One slot per tid modulo CACHE_SLOTS: a collision only costs a read. */
static struct comm_slot {
	uint32_t pid, tid;
	uint32_t gen;              /* valid when == cache.gen */
	char comm[COMM_LEN];       /* NUL-terminated */
} cache_slot[CACHE_SLOTS];

static struct {
	uint32_t gen;              /* bumped to forget every name; never 0 */
	struct agent_comm_stats st;
} cache = { .gen = 1 };

static struct comm_slot *slot_of(uint32_t tid)
{
	return &cache_slot[tid & (CACHE_SLOTS - 1u)];
}

/* @tid's cached name, NULL if none is known. */
static const char *cached(uint32_t pid, uint32_t tid)
{
	const struct comm_slot *c = slot_of(tid);

	return c->gen == cache.gen && c->tid == tid && c->pid == pid ?
	       c->comm : NULL;
}

static void remember(uint32_t pid, uint32_t tid, const char *comm, size_t n)
{
	struct comm_slot *c = slot_of(tid);

	if (n > COMM_LEN - 1)
		n = COMM_LEN - 1;
	c->pid = pid;
	c->tid = tid;
	c->gen = cache.gen;
	memset(c->comm, 0, sizeof(c->comm));
	memcpy(c->comm, comm, n);
}

void agent_comm_reset(void)
{
	if (++cache.gen == 0)
		cache.gen = 1;
	memset(&cache.st, 0, sizeof(cache.st));
}

const struct agent_comm_stats *agent_comm_stats(void)
{
	return &cache.st;
}

/* A FORK: the new thread has its creator's name, as the kernel copied it
 * (a fork that never execs, a shell's subshell, is named so until it
 * renames itself), when that is known; else whatever the tid's slot held
 * is not its name. */
static void forked(const struct rs_perf_task_body *t)
{
	const char *parent = cached(t->ppid, t->ptid);
	char comm[COMM_LEN];

	if (parent) {
		memcpy(comm, parent, COMM_LEN);
		remember(t->pid, t->tid, comm, strnlen(comm, COMM_LEN - 1));
		cache.st.inherited++;
	} else if (slot_of(t->tid)->tid == t->tid) {
		slot_of(t->tid)->gen = 0;
	}
}

void agent_comm_kernel(const struct rs_perf_header *rec)
{
	const uint8_t *body = (const uint8_t *)(rec + 1);
	size_t len = rec->size - sizeof(*rec);
	struct rs_perf_comm_body c;
	struct rs_perf_task_body t;
	const char *name = (const char *)body + sizeof(c);

	switch (rec->type) {
	case PERF_RECORD_COMM:
		if (len <= sizeof(c))
			return;
		memcpy(&c, body, sizeof(c));
		remember(c.pid, c.tid, name, strnlen(name, len - sizeof(c)));
		cache.st.renamed++;
		break;
	case PERF_RECORD_FORK:      /* the tid's new owner */
		if (len < offsetof(struct rs_perf_task_body, time))
			return;
		memcpy(&t, body, offsetof(struct rs_perf_task_body, time));
		forked(&t);
		break;
	case PERF_RECORD_LOST:
		if (++cache.gen == 0)
			cache.gen = 1;
		cache.st.forgotten++;
		break;
	default:
		break;
	}
}

int agent_comm_put(struct agent_ring *r, uint32_t pid, uint32_t tid,
		   const char *comm, uint16_t misc)
{
	struct {
		struct rs_perf_comm_body id;
		char comm[COMM_LEN];
	} body;
	size_t n = strnlen(comm, COMM_LEN - 1);

	memset(&body, 0, sizeof(body));
	body.id.pid = pid;
	body.id.tid = tid;
	memcpy(body.comm, comm, n);
	/* perf pads the NUL-terminated name to 8 bytes */
	return agent_ring_put(r, PERF_RECORD_COMM, misc, &body,
			      (uint32_t)(sizeof(body.id) +
					 ((n + 1 + 7) & ~(size_t)7)));
}

static int read_comm(uint32_t pid, uint32_t tid, char *buf)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, COMM_LEN);   /* the name and its newline */
	close(fd);
	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		n--;
	buf[n < COMM_LEN ? n : COMM_LEN - 1] = '\0';
	return 0;
}

/* The name of @tid ("swapper" for the idle task, which has no /proc
 * entry): the cache's, else read now and kept.  -1 if it is gone
 * already: its exec COMM may still be in the ring. */
static int name_of(uint32_t pid, uint32_t tid, char *comm)
{
	const char *c;

	if (tid == 0) {
		strcpy(comm, "swapper");
		return 0;
	}
	c = cached(pid, tid);
	if (c) {
		memcpy(comm, c, COMM_LEN);
		cache.st.hits++;
		return 0;
	}
	cache.st.reads++;
	if (read_comm(pid, tid, comm))
		return -1;
	remember(pid, tid, comm, strlen(comm));
	return 0;
}

void agent_comm_note(struct agent_ring *r, uint32_t pid, uint32_t tid)
{
	char comm[COMM_LEN + 1];
	uint32_t i;

	/* a run of one thread's samples: noted at its first */
	if (tid == r->noted_tid && pid == r->noted_pid && r->nr_pending)
		return;
	r->noted_pid = pid;
	r->noted_tid = tid;
	for (i = 0; i < r->nr_pending; i++)
		if (r->pending_tid[i] == tid && r->pending_pid[i] == pid)
			return;
	/* Read it now, while a short-lived thread is still there; write it
	 * at the end of the tick, after the thread's samples.  A thread that
	 * is gone is remembered nameless, so that it is looked up once. */
	if (name_of(pid, tid, comm))
		comm[0] = '\0';
	if (r->nr_pending == AGENT_COMM_PENDING) {
		if (comm[0])
			agent_comm_put(r, pid, tid, comm, 0);   /* a busy tick */
		return;
	}
	r->pending_pid[r->nr_pending] = pid;
	r->pending_tid[r->nr_pending] = tid;
	memcpy(r->pending_comm[r->nr_pending], comm, COMM_LEN);
	r->nr_pending++;
}

void agent_comm_flush(struct agent_ring *r)
{
	uint32_t i;

	for (i = 0; i < r->nr_pending; i++) {
		/* renamed since it was noted: the kernel's name is newer */
		const char *c = cached(r->pending_pid[i], r->pending_tid[i]);

		if (!c)
			c = r->pending_comm[i];
		if (c[0])
			agent_comm_put(r, r->pending_pid[i], r->pending_tid[i],
				       c, 0);
	}
	r->nr_pending = 0;
}
