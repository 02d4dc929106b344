/* SPDX-License-Identifier: MIT */
/*
 * One of the agent's rings: every record the agent writes (forwarded,
 * COMM, markers) goes in here and is counted.  The bottom of the agent's
 * modules: forward, comm and markers call it; it calls only the ring
 * library.
 */
#include "agent.h"

int agent_ring_put(struct agent_ring *r, uint32_t type, uint16_t misc,
		   const void *body, uint32_t len)
{
	int err = rs_producer_output(&r->prod, type, misc, body, len);

	if (err < 0) {
		r->dropped++;
		return err;
	}
	r->written++;
	r->written_bytes += sizeof(struct rs_perf_header) + len;
	return 0;
}
