/* SPDX-License-Identifier: MIT */
/*
 * A ring's geometry, mode and shared counters right now, gathered from the
 * ring library's read-once accessors into one struct for display
 * (`ringside stat`, `snapshot` buffer sizing).
 */
#ifndef RINGSIDE_CLI_RING_INFO_H
#define RINGSIDE_CLI_RING_INFO_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

struct rinfo {
	uint32_t index;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint64_t data_size;
	uint64_t aux_size;
	/* guest-written hints, each read once, for display only */
	uint64_t data_head;
	uint64_t data_tail;
	uint64_t aux_head;
	uint64_t aux_tail;
	uint64_t produced;
	uint64_t lost;
	uint64_t aux_truncated;
	uint64_t doorbells;
};

/* The region's shared configuration and guest status, read once. */
struct rinfo_region {
	uint32_t enabled;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint64_t trace_mask;
	uint32_t attached;
	uint32_t agent_abi;
	uint32_t agent_kind;
	uint32_t rings_used;
	uint64_t heartbeat;
};

void rinfo_region_get(const struct rs_region *region, struct rinfo_region *rr);

/* What the region's AUX areas hold, for the perf.data writer: PDF_AUX_NONE
 * without AUX areas, PDF_AUX_INTEL_PT where the region traces PT
 * (RS_TRACE_AUX), else PDF_AUX_OPAQUE. */
uint32_t rinfo_aux_format(const struct rs_region *region);
/* The same, but PDF_AUX_OPAQUE for AUX areas that @opaque says hold no PT. */
uint32_t rinfo_aux_format_of(const struct rs_region *region, int opaque);

/* Rings in the validated region. */
uint32_t rinfo_count(const struct rs_region *region);

/* The sample_type of the region's SAMPLE records, as validated at open. */
uint64_t rinfo_sample_type(const struct rs_region *region);

/* Geometry and current counters of ring @index.  0, or the ring
 * library's -rse_* (rs_errstr names it). */
int rinfo_get(const struct rs_region *region, uint32_t index,
	      struct rinfo *ri);

/* Bytes of ring data not yet consumed (normal) or held (overwrite). */
uint64_t rinfo_fill(const struct rinfo *ri);

#endif /* RINGSIDE_CLI_RING_INFO_H */
