/* SPDX-License-Identifier: MIT */
/*
 * Opening a region by the host's own layout.  rs_region_open trusts
 * nothing it has not checked, but it has nothing to check against but the
 * header itself, so a scribbled header loses the whole region.  The host
 * that laid the region out can rebuild the header it wrote from the same
 * params, take the layout from that, and use the shared header only to
 * say what the guest (or a stray write) changed.
 */
#include "barrier.h"
#include "ring_internal.h"

static const char *const field_names[rs_hf_max] = {
	[rs_hf_magic]           = "magic",
	[rs_hf_abi_version]     = "abi_version",
	[rs_hf_header_size]     = "header_size",
	[rs_hf_region_size]     = "region_size",
	[rs_hf_page_size]       = "page_size",
	[rs_hf_nr_rings]        = "nr_rings",
	[rs_hf_sideband_offset] = "sideband_offset",
	[rs_hf_sideband_size]   = "sideband_size",
	[rs_hf_data_mode]       = "config.data_mode",
	[rs_hf_aux_mode]        = "config.aux_mode",
	[rs_hf_data_watermark]  = "config.data_watermark",
	[rs_hf_aux_watermark]   = "config.aux_watermark",
	[rs_hf_trace_mask]      = "config.trace_mask",
	[rs_hf_sample_type]     = "config.sample_type",
	[rs_hf_sample_freq]     = "config.sample_freq",
	[rs_hf_doorbell_addr]   = "config.doorbell_addr",
	[rs_hf_ctrl_offset]     = "ctrl_offset",
	[rs_hf_data_offset]     = "data_offset",
	[rs_hf_data_size]       = "data_size",
	[rs_hf_aux_offset]      = "aux_offset",
	[rs_hf_aux_size]        = "aux_size",
};

const char *rs_region_field_name(uint32_t field)
{
	return field < rs_hf_max ? field_names[field] : "unknown field";
}

static void note(struct rs_region_damage *d, uint32_t field, uint32_t ring,
		 uint64_t seen, uint64_t laid_out)
{
	if (seen == laid_out)
		return;
	if (d->nr_diffs == RS_REGION_DIFF_MAX) {
		if (d->more_diffs != UINT32_MAX)
			d->more_diffs++;
		return;
	}
	d->diff[d->nr_diffs++] = (struct rs_region_diff){
		.field = field, .ring = ring, .seen = seen, .laid_out = laid_out,
	};
}

/* @seen is a private copy of the shared header: each field read once. */
static void compare(struct rs_region_damage *d,
		    const struct rs_region_header *seen,
		    const struct rs_region_header *want, uint32_t nr_rings)
{
	const struct rs_config *sc = &seen->config, *wc = &want->config;
	uint32_t i;

	note(d, rs_hf_magic, 0, seen->magic, RS_REGION_MAGIC);
	note(d, rs_hf_abi_version, 0, seen->abi_version, want->abi_version);
	note(d, rs_hf_header_size, 0, seen->header_size, want->header_size);
	note(d, rs_hf_region_size, 0, seen->region_size, want->region_size);
	note(d, rs_hf_page_size, 0, seen->page_size, want->page_size);
	note(d, rs_hf_nr_rings, 0, seen->nr_rings, want->nr_rings);
	note(d, rs_hf_sideband_offset, 0, seen->sideband_offset,
	     want->sideband_offset);
	note(d, rs_hf_sideband_size, 0, seen->sideband_size,
	     want->sideband_size);
	note(d, rs_hf_data_mode, 0, sc->data_mode, wc->data_mode);
	note(d, rs_hf_aux_mode, 0, sc->aux_mode, wc->aux_mode);
	note(d, rs_hf_data_watermark, 0, sc->data_watermark, wc->data_watermark);
	note(d, rs_hf_aux_watermark, 0, sc->aux_watermark, wc->aux_watermark);
	note(d, rs_hf_trace_mask, 0, sc->trace_mask, wc->trace_mask);
	note(d, rs_hf_sample_type, 0, sc->sample_type, wc->sample_type);
	note(d, rs_hf_sample_freq, 0, sc->sample_freq, wc->sample_freq);
	note(d, rs_hf_doorbell_addr, 0, sc->doorbell_addr, wc->doorbell_addr);
	/* config.features is not compared: a region laid out before the
	 * host knew a feature offers none, and is not damaged for it (the
	 * host reads no feature back; only producers use them). */
	for (i = 0; i < nr_rings; i++) {
		const struct rs_ring_desc *s = &seen->rings[i], *w = &want->rings[i];

		note(d, rs_hf_ctrl_offset, i, s->ctrl_offset, w->ctrl_offset);
		note(d, rs_hf_data_offset, i, s->data_offset, w->data_offset);
		note(d, rs_hf_data_size, i, s->data_size, w->data_size);
		note(d, rs_hf_aux_offset, i, s->aux_offset, w->aux_offset);
		note(d, rs_hf_aux_size, i, s->aux_size, w->aux_size);
	}
}

int rs_region_open_layout(struct rs_region *region, void *mem,
			  uint64_t mem_size,
			  const struct rs_region_params *params,
			  struct rs_region_damage *damage)
{
	/* Two pages of stack: this is host code (never the guest's build). */
	struct rs_region_header seen, want;
	struct rs_layout l;
	uint32_t i;
	int err;

	if (!region || !damage)
		return -rse_invalid;
	err = rs_layout_for(mem, mem_size, params, &l);
	if (err)
		return err;
	rs_memset(&want, 0, sizeof(want));
	rs_header_fill(&want, mem_size, params, &l);
	rs_memcpy(&seen, mem, sizeof(seen));

	rs_memset(damage, 0, sizeof(*damage));
	compare(damage, &seen, &want, params->nr_rings);

	rs_memset(region, 0, sizeof(*region));
	region->base = mem;
	region->size = mem_size;
	region->nr_rings = params->nr_rings;
	region->config = want.config;
	/* The one configuration field the host changes after layout. */
	region->config.enabled = rs_load_hint(
		&((const struct rs_region_header *)mem)->config.enabled);
	for (i = 0; i < params->nr_rings; i++) {
		region->rings[i] = l.rings[i];
		if (rs_ctrl_check(mem, &l.rings[i]))
			region->skipped |= 1ull << i;
	}
	damage->bad_rings = region->skipped;
	region->sideband_offset = l.sideband_offset;
	region->sideband_size = l.sideband_size;
	return (int)(damage->nr_diffs + damage->more_diffs +
		     (uint32_t)__builtin_popcountll(region->skipped));
}

int rs_region_ring_skipped(const struct rs_region *region, uint32_t index)
{
	return region && index < region->nr_rings &&
	       (region->skipped & (1ull << index)) ? 1 : 0;
}
