/* SPDX-License-Identifier: MIT */
/* ringside/shared.h: barrier.h's word accessors, out of line. */
#include "ringside/shared.h"

#include "barrier.h"

uint32_t rs_shared_load32(const uint32_t *p)
{
	return rs_acquire(p);
}

uint64_t rs_shared_load(const uint64_t *p)
{
	return rs_acquire(p);
}

void rs_shared_store32(uint32_t *p, uint32_t v)
{
	rs_release(p, v);
}

void rs_shared_store(uint64_t *p, uint64_t v)
{
	rs_release(p, v);
}

void rs_shared_add(uint64_t *p, uint64_t n)
{
	rs_add_hint(p, n);
}
