/* SPDX-License-Identifier: MIT */
/* Helpers shared by the ring library's modules; not installed. */
#ifndef RINGSIDE_RING_INTERNAL_H
#define RINGSIDE_RING_INTERNAL_H

#include <stdint.h>

#include "ringside/producer_inline.h"
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


/* The library's memcpy/memset: builtins, which a freestanding build
 * resolves to the embedder's memcpy/memset. */
#define rs_memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define rs_memset(d, c, n) __builtin_memset((d), (c), (n))

/* The watermark a producer uses for the configured @wm on an area of
 * @size bytes (0 or too large: half the area); a consumer computes the
 * same to know where doorbells fall due. */
static inline uint32_t rs_watermark_clamp(uint64_t wm, uint64_t size)
{
	if (!wm || wm >= size)
		return (uint32_t)(size / 2 ? size / 2 : 1);
	return (uint32_t)wm;
}

/* producer.c: a doorbell is due on @p: 1 ring it, 0 the consumer polls
 * (RS_FEATURE_EVENT_SUPPRESS): counted in ext.suppressed.  Called after
 * the head (or aux_head) that made it due was published. */
int rs_producer_doorbell(struct rs_producer *p);

/* seqcount.c: @take loads a guest block's fields once for seqcount @s,
 * checks them and copies what goes with them: 0 whole, 1 withdrawn (reads
 * as never written), -rse_corrupt.  Its result counts only once the read
 * settled. */
typedef int (*rs_seq_take_fn)(void *arg, uint32_t s);

/* 1 taken, 0 never written or withdrawn, -rse_busy (the guest wrote at
 * every try), or @take's -rse_corrupt. */
int rs_seqcount_read(const uint32_t *seq, rs_seq_take_fn take, void *arg);

/* sideband.c: the checks both readers of the sideband area make before
 * they copy (@info zeroed first); 0, -rse_invalid, -rse_absent,
 * -rse_too_small. */
int rs_sideband_read_check(const struct rs_region *region, const void *buf,
			   uint64_t buf_size, void *info, size_t info_size);

#endif /* RINGSIDE_RING_INTERNAL_H */
