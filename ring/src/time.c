/* SPDX-License-Identifier: MIT */
/*
 * The producer clock's conversion to nanoseconds, published by the host in
 * each control page with perf's time_shift/time_mult/time_zero scheme
 * under the page's seqcount, and read back once by consumers.
 */
#include "barrier.h"
#include "ring_internal.h"

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
	rs_store_hint(&c->time_shift, tc->time_shift);
	rs_store_hint(&c->time_mult, tc->time_mult);
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
		v.time_shift = rs_load_hint(&c->time_shift);
		v.time_mult = rs_load_hint(&c->time_mult);
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
