/* SPDX-License-Identifier: MIT */
/*
 * One of the agent's rings: every record the agent writes (forwarded,
 * COMM, markers) goes in here and is counted.  The bottom of the agent's
 * modules: forward, comm and markers call it; it calls only the ring
 * library.
 */
#include <time.h>

#include "agent.h"

#include "ringside/producer_inline.h"

/* @r's consumer took records within its last AGENT_RING_LIVE_LOOKS
 * looks. */
static int draining(const struct agent_ring *r)
{
	return r->tail_seen && r->looks - r->tail_look <= AGENT_RING_LIVE_LOOKS;
}

/* Room in a normal ring for a record of @len body bytes, beside the LOST
 * record and the batch's slot any record needs room for, waited for
 * while the consumer drains (agent_ring_put). */
static void room_for(struct agent_ring *r, uint32_t len)
{
	uint64_t need = sizeof(struct rs_perf_header) + len + 7u +
			sizeof(struct rs_perf_lost) + sizeof(uint64_t);
	uint32_t step = 1, waited = 0;

	if (!r->wait_max_ms || r->prod.ring.data_mode != RS_MODE_NORMAL ||
	    rs_producer_has_room(&r->prod, need) ||
	    need > r->prod.ring.data_size || !draining(r))
		return;
	/* what it holds back, the consumer cannot take */
	(void)rs_producer_flush(&r->prod);
	r->waits++;
	while (!rs_producer_has_room(&r->prod, need)) {
		struct timespec ts = { 0, (long)step * 1000000L };

		if (waited >= r->wait_max_ms) {
			/* not draining after all: no more waits until
			 * its tail moves */
			r->wait_fails++;
			r->tail_look = r->looks - AGENT_RING_LIVE_LOOKS - 1u;
			break;
		}
		nanosleep(&ts, NULL);
		waited += step;
		if (step < 32u)
			step *= 2u;
	}
	r->waited_ms += waited;
}

int agent_ring_put(struct agent_ring *r, uint32_t type, uint16_t misc,
		   const void *body, uint32_t len)
{
	int err;

	room_for(r, len);
	err = rs_producer_output_inline(&r->prod, type, misc, body, len);

	if (err < 0) {
		r->dropped++;
		return err;
	}
	r->written++;
	r->written_bytes += sizeof(struct rs_perf_header) + len;
	return 0;
}

int agent_ring_put_run(struct agent_ring *r, const uint8_t *recs,
		       uint32_t len, uint32_t nr)
{
	const struct rs_perf_header *h;
	uint32_t off;
	int err, last = 0;

	/* room for all at once, or each waits for its own (below) */
	if (len <= r->prod.ring.data_size / 2u)
		room_for(r, len);
	err = rs_producer_output_walked(&r->prod, recs, len, nr);

	if (err >= 0) {
		r->written += nr;
		r->written_bytes += len;
		return 0;
	}
	/* no room for all (or a run this ring cannot take at once) */
	for (off = 0; off + sizeof(*h) <= len; off += h->size) {
		h = (const void *)(recs + off);
		if (h->size < sizeof(*h) || h->size > len - off)
			break;   /* never: whole records */
		err = agent_ring_put(r, h->type, h->misc, h + 1,
				     h->size - (uint32_t)sizeof(*h));
		if (err)
			last = err;
	}
	return last;
}

/* data_head per sixteenth of the data area rather than per record: a host
 * reader on another core then pays for the head's line once per batch.  A
 * ring too small for a batch keeps publishing per record. */
void agent_ring_batch(struct agent_ring *r, const struct rs_region *region)
{
	struct rs_ring ring;

	if (!rs_region_ring(region, r->index, &ring) &&
	    ring.data_mode == RS_MODE_NORMAL)
		(void)rs_producer_set_batch(&r->prod, (uint32_t)(ring.data_size / 16));
}

/* After a pass over the agent's inputs: what the batch held back becomes
 * visible to the host; and a look at whether the host drains. */
void agent_ring_publish(struct agent_ring *r)
{
	uint64_t tail;

	(void)rs_producer_flush(&r->prod);
	if (r->prod.ring.data_mode != RS_MODE_NORMAL)
		return;
	/* one look a pass at whether the consumer drains */
	tail = rs_read_tail(&r->prod.ring.ctrl->data_tail);
	r->looks++;
	if (tail != r->tail_seen) {
		r->tail_seen = tail;
		r->tail_look = r->looks;
	}
}

uint64_t agent_ring_mark(const struct agent_ring *r)
{
	return r->prod.ring.data_mode == RS_MODE_NORMAL ? r->prod.head :
	       r->written_bytes;
}

int agent_ring_passed(const struct agent_ring *r, uint64_t mark)
{
	if (r->prod.ring.data_mode == RS_MODE_NORMAL)
		return (int64_t)(rs_read_tail(&r->prod.ring.ctrl->data_tail) -
				 mark) >= 0;
	return r->written_bytes - mark >= r->prod.ring.data_size;
}
