/* SPDX-License-Identifier: MIT */
/* Read-once views of shared state, for tools that show it (ringside stat). */
#include "barrier.h"
#include "ring_internal.h"

uint32_t rs_region_nr_rings(const struct rs_region *region)
{
	return region ? region->nr_rings : 0;
}

int rs_region_status_read(const struct rs_region *region,
			  struct rs_guest_status *status, uint32_t *enabled)
{
	const struct rs_region_header *h;

	if (!region || !region->base || !status)
		return -rse_invalid;
	h = (const struct rs_region_header *)region->base;
	status->attached = rs_load_hint32(&h->status.attached);
	status->abi_version = rs_load_hint32(&h->status.abi_version);
	status->heartbeat = rs_load_hint(&h->status.heartbeat);
	status->rings_used = rs_load_hint32(&h->status.rings_used);
	status->agent_kind = rs_load_hint32(&h->status.agent_kind);
	if (enabled)
		*enabled = rs_load_hint32(&h->config.enabled);
	return 0;
}

int rs_ring_state_read(const struct rs_ring *ring, struct rs_ring_state *st)
{
	const struct rs_ctrl_page *c;

	if (!ring || !ring->ctrl || !st)
		return -rse_invalid;
	c = ring->ctrl;
	st->data_head = rs_read_head(c);
	st->data_tail = rs_read_tail(c);
	st->aux_head = rs_read_aux_head(c);
	st->aux_tail = rs_read_aux_tail(c);
	st->write_head = rs_load_hint(&c->ext.write_head);
	st->produced = rs_load_hint(&c->ext.produced);
	st->lost = rs_load_hint(&c->ext.lost);
	st->aux_truncated = rs_load_hint(&c->ext.aux_truncated);
	st->doorbells = rs_load_hint(&c->ext.doorbells);
	return 0;
}

/* ---- time conversion --------------------------------------------------- */

/* A writer holds the seqcount for a few stores; a guest that scribbles on
 * it must not keep the host spinning. */
#define TIME_READ_TRIES 64

uint64_t rs_time_to_ns(const struct rs_time_conv *tc, uint64_t t)
{
	uint64_t quot, rem;

	if (!tc || !tc->time_mult || tc->time_shift >= 64)
		return t;
	quot = t >> tc->time_shift;
	rem = t & ((1ull << tc->time_shift) - 1);
	/* Modular, like perf: time_zero may "wrap" and still convert right. */
	return tc->time_zero + quot * tc->time_mult +
	       ((rem * tc->time_mult) >> tc->time_shift);
}

int rs_ring_time_publish(const struct rs_ring *ring,
			 const struct rs_time_conv *tc)
{
	struct rs_ctrl_page *c;
	uint32_t s;

	if (!ring || !ring->ctrl || !tc || !tc->time_mult || tc->time_shift >= 64)
		return -rse_invalid;
	c = ring->ctrl;
	s = rs_seqcount_write_begin(&c->lock);
	rs_store_hint16(&c->time_shift, tc->time_shift);
	rs_store_hint32(&c->time_mult, tc->time_mult);
	rs_store_hint(&c->time_zero, tc->time_zero);
	rs_store_hint(&c->capabilities, rs_load_hint(&c->capabilities) |
		      RS_CAP_USER_TIME | RS_CAP_USER_TIME_ZERO);
	rs_seqcount_write_end(&c->lock, s);
	return 0;
}

int rs_ring_time_read(const struct rs_ring *ring, struct rs_time_conv *tc)
{
	const uint64_t caps = RS_CAP_USER_TIME | RS_CAP_USER_TIME_ZERO;
	const struct rs_ctrl_page *c;
	struct rs_time_conv v;
	uint64_t cap;

	if (!ring || !ring->ctrl || !tc)
		return -rse_invalid;
	rs_memset(tc, 0, sizeof(*tc));
	c = ring->ctrl;
	for (int i = 0; i < TIME_READ_TRIES; i++) {
		uint32_t s = rs_seqcount_read_begin(&c->lock);

		rs_memset(&v, 0, sizeof(v));
		cap = rs_load_hint(&c->capabilities);
		v.time_shift = rs_load_hint16(&c->time_shift);
		v.time_mult = rs_load_hint32(&c->time_mult);
		v.time_zero = rs_load_hint(&c->time_zero);
		if (!rs_seqcount_read_ok(&c->lock, s))
			continue;
		if ((cap & caps) != caps || !v.time_mult || v.time_shift >= 64)
			return 0;
		*tc = v;
		return 1;
	}
	return 0;
}
