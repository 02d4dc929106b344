/* SPDX-License-Identifier: MIT */
/* Read-once views of shared state, for tools that show it (ringside stat). */
#include "barrier.h"
#include "ring_internal.h"

uint32_t rs_region_nr_rings(const struct rs_region *region)
{
	return region ? region->nr_rings : 0;
}

int rs_region_status_read(const struct rs_region *region,
			  struct rs_guest_status *status, uint32_t *enabled)
{
	const struct rs_region_header *h;

	if (!region || !region->base || !status)
		return -rse_invalid;
	h = (const struct rs_region_header *)region->base;
	status->attached = rs_load_hint(&h->status.attached);
	status->abi_version = rs_load_hint(&h->status.abi_version);
	status->heartbeat = rs_load_hint(&h->status.heartbeat);
	status->rings_used = rs_load_hint(&h->status.rings_used);
	status->agent_kind = rs_load_hint(&h->status.agent_kind);
	status->boot_gen = rs_load_hint(&h->status.boot_gen);
	if (enabled)
		*enabled = rs_load_hint(&h->config.enabled);
	return 0;
}

uint64_t rs_region_boot_gen(const struct rs_region *region)
{
	if (!region || !region->base)
		return 0;
	return rs_load_hint(&((const struct rs_region_header *)
			      region->base)->boot_gen);
}

int rs_ring_state_read(const struct rs_ring *ring, struct rs_ring_state *st)
{
	const struct rs_ctrl_page *c;

	if (!ring || !ring->ctrl || !st)
		return -rse_invalid;
	c = ring->ctrl;
	st->data_head = rs_read_head(c);
	st->data_tail = rs_read_tail(c);
	st->aux_head = rs_read_aux_head(c);
	st->aux_tail = rs_read_aux_tail(c);
	st->write_head = rs_load_hint(&c->ext.write_head);
	st->produced = rs_load_hint(&c->ext.produced);
	st->lost = rs_load_hint(&c->ext.lost);
	st->aux_truncated = rs_load_hint(&c->ext.aux_truncated);
	st->doorbells = rs_load_hint(&c->ext.doorbells);
	st->suppressed = rs_load_hint(&c->ext.suppressed);
	st->consumer = rs_load_hint(&c->host.consumer);
	st->reserved = 0;
	return 0;
}
