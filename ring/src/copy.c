/* SPDX-License-Identifier: MIT */
#include "ring_internal.h"

void rs_copy_from_ring(void *dst, const uint8_t *ring, uint64_t size,
		       uint64_t pos, uint64_t len)
{
	uint64_t off = pos & (size - 1);
	uint64_t first = size - off;

	if (!len)
		return;
	if (first >= len) {
		rs_memcpy(dst, ring + off, len);
		return;
	}
	rs_memcpy(dst, ring + off, first);
	rs_memcpy((uint8_t *)dst + first, ring, len - first);
}

void rs_copy_to_ring(uint8_t *ring, uint64_t size, uint64_t pos,
		     const void *src, uint64_t len)
{
	uint64_t off = pos & (size - 1);
	uint64_t first = size - off;

	if (!len)
		return;
	if (first >= len) {
		rs_memcpy(ring + off, src, len);
		return;
	}
	rs_memcpy(ring + off, src, first);
	rs_memcpy(ring, (const uint8_t *)src + first, len - first);
}
