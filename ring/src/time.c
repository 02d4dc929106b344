/* SPDX-License-Identifier: MIT */
/*
 * The producer clock's conversion to nanoseconds, perf's
 * cap_user_time_zero scheme (the host publishes the parameters in each
 * control page: ring.c).
 */
#include "ring_internal.h"

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
