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

/* suppress.c: a doorbell is due on @p: 1 ring it, 0 the consumer polls
 * (RS_FEATURE_EVENT_SUPPRESS): counted in ext.suppressed.  Called after
 * the head (or aux_head) that made it due was published. */
int rs_producer_doorbell(struct rs_producer *p);

/* seq_read.c: @take loads a guest block's fields once for seqcount @s,
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

/* region.c: a layout as rs_region_layout computes it from the params,
 * shared with region_recover.c, which rebuilds it instead of trusting the
 * header. */
struct rs_layout {
	uint64_t end;
	uint64_t data_size;
	uint64_t aux_size;
	uint64_t sideband_offset;
	uint64_t sideband_size;
	struct rs_ring_desc rings[RS_MAX_RINGS];
};

/* 0, -rse_invalid, -rse_geometry. */
int rs_params_check(const struct rs_region_params *p);
/* @p passed rs_params_check. */
void rs_layout_compute(const struct rs_region_params *p, struct rs_layout *l);
/* Check @mem (page-aligned) and @mem_size (a power of two, at most
 * RS_REGION_MAX, enough for @params) and compute the layout into @l.
 * -rse_invalid, -rse_geometry, -rse_too_small, or rs_region_size's. */
int rs_layout_for(const void *mem, uint64_t mem_size,
		  const struct rs_region_params *params, struct rs_layout *l);
/* Every header field rs_region_layout writes, but the magic. */
void rs_header_fill(struct rs_region_header *hdr, uint64_t mem_size,
		    const struct rs_region_params *params,
		    const struct rs_layout *l);
/* The control page at d->ctrl_offset repeats @d; 0 or -rse_geometry. */
int rs_ctrl_check(const uint8_t *mem, const struct rs_ring_desc *d);

#endif /* RINGSIDE_RING_INTERNAL_H */
