/* SPDX-License-Identifier: MIT */
/*
 * Names for the threads in a ring.  The kernel sends PERF_RECORD_COMM only
 * when a thread execs or renames itself; a flight recorder overwrites those
 * long before it overwrites the thread's latest samples.  So after each
 * tick the agent writes one COMM per thread sampled in it, read from
 * /proc: every sample a ring still holds has a COMM newer than itself in
 * the same ring (except the samples of the tick in progress).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define COMM_LEN AGENT_COMM_LEN

int agent_comm_put(struct agent_ring *r, uint32_t pid, uint32_t tid,
		   const char *comm, uint16_t misc)
{
	struct {
		uint32_t pid, tid;
		char comm[COMM_LEN];
	} body;
	size_t n = strnlen(comm, COMM_LEN - 1);

	memset(&body, 0, sizeof(body));
	body.pid = pid;
	body.tid = tid;
	memcpy(body.comm, comm, n);
	/* perf pads the NUL-terminated name to 8 bytes */
	return agent_ring_put(r, PERF_RECORD_COMM, misc, &body,
			      (uint32_t)(8 + ((n + 1 + 7) & ~(size_t)7)));
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

/* The name of @tid now ("swapper" for the idle task, which has no /proc
 * entry).  -1 if it is gone already: its exec COMM may still be in the ring. */
static int name_of(uint32_t pid, uint32_t tid, char *comm)
{
	if (tid == 0) {
		strcpy(comm, "swapper");
		return 0;
	}
	return read_comm(pid, tid, comm);
}

void agent_comm_note(struct agent_ring *r, uint32_t pid, uint32_t tid)
{
	char comm[COMM_LEN + 1];
	uint32_t i;

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

	for (i = 0; i < r->nr_pending; i++)
		if (r->pending_comm[i][0])
			agent_comm_put(r, r->pending_pid[i], r->pending_tid[i],
				       r->pending_comm[i], 0);
	r->nr_pending = 0;
}
