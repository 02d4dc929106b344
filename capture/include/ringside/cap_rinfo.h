/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_RINFO_H
#define RINGSIDE_CAP_RINFO_H

#include <stdint.h>

#include "ringside/ring.h"

/*
 * A ring's geometry, mode and shared counters right now, gathered from the
 * ring library's read-once accessors into one struct for display
 * (`ringside stat`, `snapshot` buffer sizing).
 */

struct cap_rinfo {
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
	uint64_t doorbells;       /* rung (ext.doorbells) */
	uint64_t suppressed;      /* due but skipped: the consumer polled */
	uint32_t consumer;        /* the consumer's word: RS_CONSUMER_* (in
				   * guest-writable memory: any value) */
};

/* The region's shared configuration and guest status, read once. */
struct cap_rinfo_region {
	uint32_t enabled;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint64_t trace_mask;
	uint32_t attached;
	uint32_t agent_abi;
	uint32_t agent_kind;
	uint32_t rings_used;
	uint64_t heartbeat;
	/* the boot the status is of: the host's count of the guest's boots
	 * (the header's boot_gen) and the one the agent last said it read
	 * (its status's; 0: an agent that does not say) */
	uint64_t boot_gen;
	uint64_t agent_boot_gen;
};

/* 1 when the agent's status is a claim from before the guest's last reset
 * that the host counted (cap_rinfo_region.agent_boot_gen behind boot_gen), 0
 * when it is of the current boot, -1 when it cannot be told (no agent
 * attached, an agent or a layout that does not count boots). */
int cap_rinfo_claim_stale(const struct cap_rinfo_region *rr);

void cap_rinfo_region_get(const struct rs_region *region, struct cap_rinfo_region *rr);

/* What the region's AUX areas hold, for the perf.data writer: PDF_AUX_NONE
 * without AUX areas, PDF_AUX_INTEL_PT where the region traces PT
 * (RS_TRACE_AUX), else PDF_AUX_OPAQUE. */
uint32_t cap_rinfo_aux_format(const struct rs_region *region);
/* The same, but PDF_AUX_OPAQUE for AUX areas that @opaque says hold no PT. */
uint32_t cap_rinfo_aux_format_of(const struct rs_region *region, int opaque);

/* Rings in the validated region. */
uint32_t cap_rinfo_count(const struct rs_region *region);

/* The sample_type of the region's SAMPLE records, as validated at open. */
uint64_t cap_rinfo_sample_type(const struct rs_region *region);

/* Geometry and current counters of ring @index.  0, or the ring
 * library's -rse_* (rs_error_str names it). */
int cap_rinfo_get(const struct rs_region *region, uint32_t index,
		  struct cap_rinfo *ri);

/* Bytes of ring data not yet consumed (normal) or held (overwrite). */
uint64_t cap_rinfo_fill(const struct cap_rinfo *ri);

#endif /* RINGSIDE_CAP_RINFO_H */
