/* SPDX-License-Identifier: MIT */
/*
 * The recorders' backoff while their rings are idle: the rule and its
 * bound (ringside/service_idle.h says why the bound is safe), for the
 * service's recorders and `ringside record`'s.  Pure: it reads a region,
 * never writes one.
 */
#include "ringside/domain.h"
#include "ringside/ring.h"
#include "ringside/service_idle.h"

uint32_t svc_idle_hold_ms(const struct svc_idle_rings *r)
{
	uint64_t per_s, ms;

	if (!r->samples || !r->sample_freq)
		return UINT32_MAX;
	if (!r->min_data_bytes)
		return 0;
	/* bytes a second at the region's rate with the largest samples:
	 * the frequency is at most DOM_FREQ_MAX for a domain, but a region
	 * file says what it says (a guest claim where the host opened it
	 * by its header): no product may wrap */
	if (r->sample_freq > UINT64_MAX / DOM_CHAIN_FRAMES_MAX / 16u)
		return 0;
	per_s = r->sample_freq * dom_cfg_sample_bytes(DOM_CHAIN_FRAMES_MAX);
	ms = r->min_data_bytes > UINT64_MAX / 1000u ? UINT64_MAX / per_s :
	     r->min_data_bytes * 1000u / per_s;
	return ms > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)ms;
}

void svc_idle_rings_of(const struct rs_region *region,
		       struct svc_idle_rings *r)
{
	const struct rs_config *cfg = rs_region_config(region);
	struct rs_ring ring;

	*r = (struct svc_idle_rings){
		.sample_freq = cfg->sample_freq,
		.samples = !!(cfg->trace_mask & RS_TRACE_SAMPLES),
	};
	for (uint32_t i = 0; i < rs_region_nr_rings(region); i++) {
		if (rs_region_ring(region, i, &ring))
			continue;   /* skipped: not drained */
		if (!r->min_data_bytes || ring.data_size < r->min_data_bytes)
			r->min_data_bytes = ring.data_size;
		if (ring.aux_size && ring.aux_mode == RS_MODE_NORMAL)
			r->aux_normal = 1;
	}
}

uint32_t svc_idle_bound(const struct svc_idle_rings *r, uint32_t interval_ms,
			uint32_t stall_ms)
{
	uint32_t hold = svc_idle_hold_ms(r), bound;

	if (!stall_ms)
		stall_ms = DOM_STALL_MS_DEFAULT;
	if (r->aux_normal || hold == UINT32_MAX)
		return interval_ms;
	bound = hold > stall_ms ? hold - stall_ms : 0;
	if (bound > SVC_IDLE_MAX_MS)
		bound = SVC_IDLE_MAX_MS;
	return bound < interval_ms ? interval_ms : bound;
}

uint32_t svc_idle_next(uint32_t last_ms, int found, uint32_t interval_ms,
		       uint32_t bound_ms)
{
	uint32_t next;

	if (bound_ms < interval_ms)
		bound_ms = interval_ms;
	if (found || last_ms < interval_ms)
		return interval_ms;
	next = last_ms > UINT32_MAX / 2 ? UINT32_MAX : last_ms * 2;
	return next > bound_ms ? bound_ms : next;
}
