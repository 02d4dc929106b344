/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's records into a ring.  Samples, COMM and MMAP2 records
 * go in as the kernel wrote them: the agent asked for the region's
 * sample_type, so the layout is the one the host expects.  Before the
 * first sample of a process in a ring go MMAP2 records of its mappings
 * (mmaps.c): older than the sample, so perf has the process's maps when it
 * meets the sample.  The kernel's MMAP2 records (an exec after the process
 * was described, a dlopen) tell usyms of the files they map.  The kernel's
 * LOST (its own buffer overflowed because the agent was late) becomes
 * LOST_SAMPLES, so that the host can tell it from the ring's own LOST.
 * COMM, FORK and LOST also keep comm.c's names current; FORK, EXIT, COMM,
 * MMAP2 and LOST keep pstate's model of the processes (FORK and EXIT go no
 * further).
 */
#include <linux/perf_event.h>
#include <string.h>

#include "agent.h"

/* pid and tid of a sample laid out for @type.  0 when it has none. */
static int sample_tid(uint64_t type, const struct rs_perf_header *rec,
		      uint32_t *pid, uint32_t *tid)
{
	size_t off = agent_kbuf_tid_at(type);
	uint32_t v[2];

	if (!off || off + sizeof(v) > rec->size)
		return 0;
	memcpy(v, (const uint8_t *)rec + off, sizeof(v));
	*pid = v[0];
	*tid = v[1];
	return 1;
}

void agent_forward(struct agent_ring *r, uint64_t sample_type,
		   const struct rs_perf_header *rec)
{
	const void *body = rec + 1;
	uint32_t len = rec->size - (uint32_t)sizeof(*rec);
	uint32_t pid, tid;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE: {
		int ids = sample_tid(sample_type, rec, &pid, &tid);

		if (ids)
			agent_mmaps_note(r, pid);
		if (!agent_ring_put(r, rec->type, rec->misc, body, len) && ids)
			agent_comm_note(r, pid, tid);
		break;
	}
	case PERF_RECORD_COMM:
		agent_comm_kernel(rec);
		/* fall through */
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		agent_pstate_kernel(rec);
		agent_ring_put(r, rec->type, rec->misc, body, len);
		if (rec->type == PERF_RECORD_MMAP2)
			agent_mmaps_kernel(rec);  /* its file's symbols */
		break;
	case PERF_RECORD_FORK:
		agent_comm_kernel(rec);   /* a tid's new owner; not forwarded */
		agent_mmaps_fork(rec);    /* its parent known before it */
		agent_pstate_kernel(rec); /* a new process: its parent's maps */
		break;
	case PERF_RECORD_EXIT:
		agent_pstate_kernel(rec); /* kept while the rings hold it */
		break;
	case PERF_RECORD_LOST: {
		struct rs_perf_lost l;

		agent_comm_kernel(rec);   /* a COMM or FORK may be among them */
		agent_pstate_lost();      /* and an EXIT, an MMAP2 */
		if (rec->size >= sizeof(l)) {
			memcpy(&l, rec, sizeof(l));
			agent_ring_put(r, RS_PERF_RECORD_LOST_SAMPLES, 0,
				       &l.lost, sizeof(l.lost));
		}
		break;
	}
	case PERF_RECORD_LOST_SAMPLES:
		agent_ring_put(r, rec->type, rec->misc, body, len);
		break;
	default:
		break;  /* THROTTLE and friends: the host has no use for them */
	}
}

void agent_forward_samples(struct agent_ring *r, const struct kbuf_thread *thr,
			   uint32_t nr_thr, const uint8_t *recs, uint32_t len,
			   uint32_t nr)
{
	uint32_t i;

	/* before the run: its processes' mappings older than their samples,
	 * the names read while the threads are there (written after).  The
	 * threads come from the buffer's first walk: the run is not walked
	 * again here. */
	for (i = 0; i < nr_thr; i++) {
		agent_mmaps_note(r, thr[i].pid);
		agent_comm_note(r, thr[i].pid, thr[i].tid);
	}
	agent_ring_put_run(r, recs, len, nr);
}
