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

/*
 * seqcount.c: the host's copy of a block the guest writes under a
 * seqcount of its own (barrier.h, G/H), in the region header: the
 * sideband's, kernel perf buffers', user symbols' and process table's
 * descriptors and the guest info.  The reader takes settled reads only,
 * retried a bounded number of times while the guest writes; the block's
 * @take does the rest.
 */
struct rs_seqcount_reader {
	const struct rs_region *region;
	const void *block;        /* the block, in the shared header */
	const uint8_t *area;      /* the sideband area, by the private layout */
	uint64_t area_size;       /* (0 for the guest info: none) */
	void *buf;                /* the caller's copy of what it describes */
	void *info;               /* the caller's description of it */
};

/*
 * Load @r->block's fields once for seqcount @s (rs_load_hints into a
 * private copy), judge them, fill @r->info and copy what they describe
 * into @r->buf: 0 taken; 1 nothing to take (withdrawn, or no complete
 * copy yet): reads as never written; -rse_busy: a part under a seqcount
 * of its own changed meanwhile, try again; -rse_corrupt.  Its result
 * counts only once the block's read settled.
 */
typedef int (*rs_seqcount_take_fn)(const struct rs_seqcount_reader *r,
				   uint32_t s);

/* The offset of a block of the region header (rs_seqcount_read's @block). */
#define RS_HEADER_BLOCK(member) offsetof(struct rs_region_header, member)

/*
 * The block at offset @block of the region header (its seq the second
 * word, as every guest block's): 1 taken, 0 never written (or @take's
 * 1), -rse_invalid (NULL), -rse_busy (the guest wrote at every try),
 * @take's -rse_corrupt.  @info (@info_size bytes) is zeroed unless 1.
 */
int rs_seqcount_read(const struct rs_region *region, size_t block,
		     void *info, size_t info_size, rs_seqcount_take_fn take);

/* The same for a block that describes content of the sideband area,
 * which @take copies into @buf (@buf_size at least the area's size):
 * also -rse_absent (no sideband area), -rse_too_small (@buf). */
int rs_seqcount_read_sideband(const struct rs_region *region, size_t block,
			      void *buf, uint64_t buf_size, void *info,
			      size_t info_size, rs_seqcount_take_fn take);

/* sideband.c: the checks of a guest table's begin, for its writer @w:
 * where a table of @size bytes at @offset of the sideband area starts
 * (8-aligned, inside the area): 0 with *@at set; -rse_invalid (NULL,
 * a table outside the area), -rse_absent (no sideband area). */
int rs_sideband_table(const struct rs_region *region, const void *w,
		      uint64_t offset, uint64_t size, uint8_t **at);

/* A region's claims checked (region_check.c).  1 if [off, off + len)
 * lies inside @size bytes; 0 if the @nr descriptors at @d (the header's
 * and the table's, copies) place every area inside the region, aligned,
 * sized and disjoint, else -rse_geometry; 0 if ring @d's control page
 * agrees with it, else -rse_geometry. */
int rs_region_check_in(uint64_t off, uint64_t len, uint64_t size);
int rs_region_check_descs(const struct rs_region_header *h,
			  const struct rs_ring_desc *d, uint32_t nr,
			  uint64_t size);
int rs_region_check_ctrl(const uint8_t *mem, const struct rs_ring_desc *d);

#endif /* RINGSIDE_RING_INTERNAL_H */
