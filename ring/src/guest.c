/* SPDX-License-Identifier: MIT */
/*
 * The guest's side of the region header: the host's configuration, read
 * once per field, and the agent's status (attach, heartbeat, detach).
 * The header is shared with the host; the layout comes from the private
 * copy validated at open, never from the header.
 */
#include "barrier.h"
#include "ring_internal.h"

static struct rs_region_header *header(const struct rs_region *region)
{
	return (struct rs_region_header *)region->base;
}

int rs_guest_config_read(const struct rs_region *region, struct rs_config *cfg)
{
	const struct rs_config *c;

	if (!region || !region->base || !cfg)
		return -rse_invalid;
	c = &header(region)->config;
	rs_memset(cfg, 0, sizeof(*cfg));
	cfg->enabled = rs_acquire(&c->enabled);
	cfg->data_mode = rs_load_hint(&c->data_mode);
	cfg->aux_mode = rs_load_hint(&c->aux_mode);
	cfg->data_watermark = rs_load_hint(&c->data_watermark);
	cfg->aux_watermark = rs_load_hint(&c->aux_watermark);
	cfg->trace_mask = rs_load_hint(&c->trace_mask);
	cfg->sample_type = rs_load_hint(&c->sample_type);
	cfg->sample_freq = rs_load_hint(&c->sample_freq);
	cfg->doorbell_addr = rs_load_hint(&c->doorbell_addr);
	cfg->features = rs_load_hint(&c->features);
	return 0;
}

int rs_guest_enabled(const struct rs_region *region)
{
	if (!region || !region->base)
		return -rse_invalid;
	return rs_acquire(&header(region)->config.enabled) ? 1 : 0;
}

/* The producers were set up from the copy taken at open: the live
 * configuration must still describe the same rings. */
static int config_check(const struct rs_region *region,
			const struct rs_config *cfg)
{
	const struct rs_config *opened = &region->config;

	if (cfg->data_mode > RS_MODE_OVERWRITE || cfg->aux_mode > RS_MODE_OVERWRITE)
		return -rse_geometry;
	if (cfg->data_mode != opened->data_mode ||
	    cfg->aux_mode != opened->aux_mode ||
	    cfg->data_watermark != opened->data_watermark ||
	    cfg->aux_watermark != opened->aux_watermark)
		return -rse_geometry;
	return 0;
}

int rs_guest_attach(const struct rs_region *region, uint32_t agent_kind,
		    uint32_t rings_used, struct rs_config *cfg)
{
	struct rs_guest_status *st;
	int err;

	if (!region || !region->base || !cfg)
		return -rse_invalid;
	if (agent_kind < RS_AGENT_FREESTANDING || agent_kind > RS_AGENT_HOST_TEST)
		return -rse_invalid;
	if (!rings_used || rings_used > region->nr_rings)
		return -rse_invalid;
	err = rs_guest_config_read(region, cfg);
	if (err)
		return err;
	err = config_check(region, cfg);
	if (err)
		return err;
	st = &header(region)->status;
	rs_store_hint(&st->abi_version, RS_ABI_VERSION);
	rs_store_hint(&st->agent_kind, agent_kind);
	rs_store_hint(&st->rings_used, rings_used);
	rs_store_hint(&st->boot_gen, rs_load_hint(&header(region)->boot_gen));
	rs_release(&st->attached, 1);
	return cfg->enabled ? 1 : 0;
}

int rs_guest_heartbeat(const struct rs_region *region)
{
	struct rs_region_header *h;
	uint64_t gen;

	if (!region || !region->base)
		return -rse_invalid;
	h = header(region);
	/* the host counted a reset after this agent attached (it may do so
	 * a moment after the new boot's agent attached): say it is of this
	 * boot.  A store only when it changed: under the ringside VMM's
	 * header guard every store to the header is an exit. */
	gen = rs_load_hint(&h->boot_gen);
	if (rs_load_hint(&h->status.boot_gen) != gen)
		rs_store_hint(&h->status.boot_gen, gen);
	rs_heartbeat_inc(&h->status.heartbeat);
	return 0;
}

int rs_guest_detach(const struct rs_region *region)
{
	if (!region || !region->base)
		return -rse_invalid;
	rs_release(&header(region)->status.attached, 0);
	return 0;
}
