/* SPDX-License-Identifier: MIT */
/*
 * The host's switch in the region header, which tells the guest to trace.
 * rs_region_layout wrote the rest of the configuration before the guest
 * ran; after that the host writes only this flag.
 */
#include "barrier.h"
#include "ring_internal.h"

static int set_enabled(void *mem, uint32_t on)
{
	struct rs_region_header *h = mem;

	if (!mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)))
		return -rse_invalid;
	rs_publish_enabled(&h->config.enabled, on);
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
