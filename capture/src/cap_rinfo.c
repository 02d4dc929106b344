/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "cap_internal.h"

void cap_rinfo_region_get(const struct rs_region *region, struct cap_rinfo_region *rr)
{
	const struct rs_config *cfg = rs_region_config(region);
	struct rs_guest_status st;

	memset(rr, 0, sizeof(*rr));
	if (rs_region_status_read(region, &st, &rr->enabled) < 0)
		return;
	rr->data_mode = cfg->data_mode;
	rr->aux_mode = cfg->aux_mode;
	rr->trace_mask = cfg->trace_mask;
	rr->attached = st.attached;
	rr->agent_abi = st.abi_version;
	rr->agent_kind = st.agent_kind;
	rr->rings_used = st.rings_used;
	rr->heartbeat = st.heartbeat;
	rr->agent_boot_gen = st.boot_gen;
	rr->boot_gen = rs_region_boot_gen(region);
}

int cap_rinfo_claim_stale(const struct cap_rinfo_region *rr)
{
	if (rr->attached != 1 || !rr->boot_gen || !rr->agent_boot_gen)
		return -1;
	return rr->agent_boot_gen != rr->boot_gen;
}

uint32_t cap_rinfo_aux_format_of(const struct rs_region *region, int opaque)
{
	uint32_t f = cap_rinfo_aux_format(region);

	return opaque && f != PDF_AUX_NONE ? PDF_AUX_OPAQUE : f;
}

uint32_t cap_rinfo_aux_format(const struct rs_region *region)
{
	struct rs_ring ring;
	uint32_t i, any = 0;

	/* the layout's sizes alone: no ring's control page is read */
	for (i = 0; i < cap_rinfo_count(region) && !any; i++)
		if (!rs_region_ring(region, i, &ring) && ring.aux_size)
			any = 1;
	if (!any)
		return PDF_AUX_NONE;
	return rs_region_config(region)->trace_mask & RS_TRACE_AUX ?
	       PDF_AUX_INTEL_PT : PDF_AUX_OPAQUE;
}

uint32_t cap_rinfo_count(const struct rs_region *region)
{
	return rs_region_nr_rings(region);
}

uint64_t cap_rinfo_sample_type(const struct rs_region *region)
{
	return rs_region_config(region)->sample_type;
}

int cap_rinfo_get(const struct rs_region *region, uint32_t index,
		  struct cap_rinfo *ri)
{
	struct rs_ring_state st;
	struct rs_ring ring;
	int err;

	err = rs_region_ring(region, index, &ring);
	if (!err)
		err = rs_ring_state_read(&ring, &st);
	if (err)
		return err;
	memset(ri, 0, sizeof(*ri));
	ri->index = index;
	ri->data_mode = ring.data_mode;
	ri->aux_mode = ring.aux_mode;
	ri->data_size = ring.data_size;
	ri->aux_size = ring.aux_size;
	ri->data_head = st.data_head;
	ri->data_tail = st.data_tail;
	ri->aux_head = st.aux_head;
	ri->aux_tail = st.aux_tail;
	ri->produced = st.produced;
	ri->lost = st.lost;
	ri->aux_truncated = st.aux_truncated;
	ri->doorbells = st.doorbells;
	ri->suppressed = st.suppressed;
	ri->consumer = st.consumer;
	return 0;
}
uint64_t cap_rinfo_fill(const struct cap_rinfo *ri)
{
	uint64_t used;

	if (ri->data_mode == RS_MODE_OVERWRITE)
		used = 0 - ri->data_head; /* written backward from 0 */
	else
		used = ri->data_head - ri->data_tail;
	return used > ri->data_size ? ri->data_size : used;
}
