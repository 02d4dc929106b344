/* SPDX-License-Identifier: MIT */
/*
 * The host's switch in the region header, which tells the guest to trace.
 * rs_region_layout wrote the rest of the configuration before the guest
 * ran; after that the host writes only this flag, and the count of the
 * guest's boots it saw.
 */
#include "barrier.h"
#include "ring_internal.h"

static int set_enabled(void *mem, uint32_t on)
{
	struct rs_region_header *h = mem;

	if (!mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)))
		return -rse_invalid;
	rs_release(&h->config.enabled, on);
	return 0;
}

int rs_region_enable(void *mem)
{
	return set_enabled(mem, 1);
}

int rs_region_disable(void *mem)
{
	return set_enabled(mem, 0);
}

int rs_region_note_reset(void *mem, uint64_t *gen)
{
	struct rs_region_header *h = mem;
	uint64_t g;

	if (!mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)) || !gen)
		return -rse_invalid;
	/* guest-writable: whatever it holds, one more than that (never 0,
	 * which says "not counted") */
	g = rs_load_hint(&h->boot_gen) + 1;
	if (!g)
		g = 1;
	rs_store_hint(&h->boot_gen, g);
	*gen = g;
	return 0;
}
