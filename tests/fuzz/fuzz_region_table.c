/* SPDX-License-Identifier: MIT */
/*
 * Target: as fuzz_region_open.c, on a region of RS_HDR_RINGS + 1 or + 2
 * rings, whose ring table (RS_FEATURE_RING_TABLE) lies in the page after
 * the header, within reach of the scribbles aimed at the first pages.
 */
#define FZ_BASE_RINGS (RS_HDR_RINGS + 1u)
#include "fuzz_region_open.c"
