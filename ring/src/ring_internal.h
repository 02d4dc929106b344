/* SPDX-License-Identifier: MIT */
/* Helpers shared by the ring library's modules; not installed. */
#ifndef RINGSIDE_RING_INTERNAL_H
#define RINGSIDE_RING_INTERNAL_H

#include <stdint.h>

#include "ringside/ring.h"

static inline uint64_t rs_align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/*
 * Copy between a linear buffer and a power-of-two ring of @size bytes,
 * starting at ring position @pos and wrapping at the end.  @len <= @size.
 */
void rs_copy_from_ring(void *dst, const uint8_t *ring, uint64_t size,
		       uint64_t pos, uint64_t len);
void rs_copy_to_ring(uint8_t *ring, uint64_t size, uint64_t pos,
		     const void *src, uint64_t len);

/* Smallest valid size of a record of @type (8 for types it does not know). */
uint32_t rs_record_min_size(uint32_t type);

/* The library's memcpy/memset: builtins, which a freestanding build
 * resolves to the embedder's memcpy/memset. */
#define rs_memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define rs_memset(d, c, n) __builtin_memset((d), (c), (n))

/*
 * Ask for the cache line @RS_PREFETCH_AHEAD bytes past ring position @pos,
 * for writing: on a ring a consumer on another core reads, the line comes
 * back from that core while the producer writes the lines before it,
 * instead of stalling the store that needs it.  A hint; it costs a few
 * cycles when the line is already here.
 */
#define RS_PREFETCH_AHEAD 1024u

static inline void rs_prefetch_own(const uint8_t *ring, uint64_t size,
				   uint64_t pos)
{
	if (size >= 8 * RS_PREFETCH_AHEAD)
		__builtin_prefetch(ring + ((pos + RS_PREFETCH_AHEAD) & (size - 1)),
				   1, 3);
}

/* sideband.c: the checks both readers of the sideband area make before
 * they copy (@info zeroed first); 0, -rse_invalid, -rse_absent,
 * -rse_too_small. */
int rs_sideband_read_check(const struct rs_region *region, const void *buf,
			   uint64_t buf_size, void *info, size_t info_size);

#endif /* RINGSIDE_RING_INTERNAL_H */
