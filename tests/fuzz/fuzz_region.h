/* SPDX-License-Identifier: MIT */
/*
 * A trace region as a hostile guest leaves it, built from a fuzz input:
 * the shape (rings, pages, modes, sideband) from its first bytes, then
 * records, AUX bytes and sideband content written through the guest's
 * own library (so that most inputs start from a region a real producer
 * could have written), then the guest's scribbles: patches of 1..16 bytes
 * anywhere in the region.  Shared by the ring library's fuzz targets.
 */
#ifndef RINGSIDE_FUZZ_REGION_H
#define RINGSIDE_FUZZ_REGION_H

#include "ringside/ring.h"

#include "fuzz_input.h"

struct fz_region {
	uint8_t *mem;
	uint64_t size;
	struct rs_region_params params;
};

/* Lay out a region for the shape in the input's first bytes.  0 or -1
 * (the shape is refused or there is no memory: nothing to fuzz). */
int fz_region_build(struct fz_region *r, struct fz_in *in);

/* The same with @base or @base + 1 rings (the shape's low bit): past
 * RS_HDR_RINGS, a region with a ring table. */
int fz_region_build_rings(struct fz_region *r, struct fz_in *in,
			  uint32_t base);

/* Write what the input says through the producer, AUX and sideband
 * calls, as a well-behaved guest would. */
void fz_region_produce(struct fz_region *r, struct fz_in *in);

/* Apply up to @max patches from the input (each: offset, length, bytes). */
void fz_region_scribble(struct fz_region *r, struct fz_in *in, unsigned max);

void fz_region_free(struct fz_region *r);

#endif /* RINGSIDE_FUZZ_REGION_H */
