/* SPDX-License-Identifier: MIT */
/*
 * The region: its layout, and the views of it each side works from.
 *
 * The host lays a region out once, before the guest runs, and after that
 * writes only the switch that tells the guest to trace (config.enabled)
 * and the count of the guest's boots it saw.  Everybody who attaches
 * later (the guest agent, a host consumer in another process) validates
 * it and works from a private copy of the layout, because the shared
 * header is writable by the guest.
 *
 * rs_region_open trusts nothing it has not checked, but it has nothing to
 * check against but the header itself, so a scribbled header loses the
 * whole region.  The host that laid the region out rebuilds the header it
 * wrote from the same params instead (rs_region_open_layout), takes the
 * layout from that, and uses the shared header only to say what the guest
 * (or a stray write) changed.
 */
#include "ringside/barrier.h"
#include "ring_internal.h"

/* A layout as rs_region_layout computes it from the params. */
struct rs_layout {
	uint64_t end;
	uint64_t data_size;
	uint64_t aux_size;
	uint64_t sideband_offset;
	uint64_t sideband_size;
	struct rs_ring_desc rings[RS_MAX_RINGS];
};

_Static_assert(offsetof(struct rs_region_params, sideband_pages) ==
	       RS_REGION_PARAMS_SIZE_V1, "params grow at the end");

/* The fields after the first version's read as 0 for a caller that
 * predates them (params->size says how far it knows the struct). */
static uint32_t sideband_pages(const struct rs_region_params *p)
{
	if (p->size < offsetof(struct rs_region_params, sideband_pages) +
		      sizeof(p->sideband_pages))
		return 0;
	return p->sideband_pages;
}

static uint32_t features(const struct rs_region_params *p)
{
	if (p->size < offsetof(struct rs_region_params, features) +
		      sizeof(p->features))
		return 0;
	return p->features;
}

static int params_check(const struct rs_region_params *p)
{
	uint64_t data_size, aux_size;

	if (!p || p->size < RS_REGION_PARAMS_SIZE_V1)
		return -rse_invalid;
	if (p->data_mode > RS_MODE_OVERWRITE || p->aux_mode > RS_MODE_OVERWRITE)
		return -rse_invalid;
	if (p->nr_rings == 0 || p->nr_rings > RS_MAX_RINGS)
		return -rse_geometry;
	if (!rs_is_pow2(p->data_pages) || (p->aux_pages && !rs_is_pow2(p->aux_pages)))
		return -rse_geometry;
	data_size = (uint64_t)p->data_pages * RS_PAGE_SIZE;
	aux_size = (uint64_t)p->aux_pages * RS_PAGE_SIZE;
	if (data_size > RS_AREA_MAX || aux_size > RS_AREA_MAX)
		return -rse_geometry;
	if (p->data_watermark >= data_size)
		return -rse_geometry;
	if (p->aux_watermark && p->aux_watermark >= aux_size)
		return -rse_geometry;
	if ((uint64_t)sideband_pages(p) * RS_PAGE_SIZE > RS_SIDEBAND_MAX)
		return -rse_geometry;
	if (features(p) & ~RS_FEATURES_KNOWN)
		return -rse_invalid;
	return 0;
}

int rs_region_params_init(struct rs_region_params *params, uint32_t nr_rings,
			  uint32_t data_pages, uint32_t aux_pages,
			  uint32_t data_mode, uint32_t aux_mode)
{
	if (!params)
		return -rse_invalid;
	rs_memset(params, 0, sizeof(*params));
	params->size = sizeof(*params);
	params->nr_rings = nr_rings;
	params->data_pages = data_pages;
	params->aux_pages = aux_pages;
	params->data_mode = data_mode;
	params->aux_mode = aux_mode;
	params->features = RS_FEATURES_KNOWN;
	return params_check(params);
}

/* Areas are placed largest kind first, each aligned to its own size, so
 * that padding stays small and a ToPA single-region entry can cover an AUX
 * area (the SDM wants output regions aligned to their size). */
static void place(uint64_t *cursor, uint64_t size, uint64_t *offset)
{
	*cursor = rs_align_up(*cursor, size);
	*offset = *cursor;
	*cursor += size;
}

static void layout_compute(const struct rs_region_params *p,
			   struct rs_layout *l)
{
	/* the ring table (none up to RS_HDR_RINGS rings) after the header */
	uint64_t cursor = RS_RING_TABLE_OFFSET + rs_ring_table_size(p->nr_rings);
	uint32_t i;
	int aux_first;

	l->data_size = (uint64_t)p->data_pages * RS_PAGE_SIZE;
	l->aux_size = (uint64_t)p->aux_pages * RS_PAGE_SIZE;
	aux_first = l->aux_size > l->data_size;

	for (i = 0; i < p->nr_rings; i++) {
		rs_memset(&l->rings[i], 0, sizeof(l->rings[i]));
		l->rings[i].ctrl_offset = cursor;
		l->rings[i].data_size = l->data_size;
		l->rings[i].aux_size = l->aux_size;
		cursor += RS_PAGE_SIZE;
	}
	if (aux_first)
		for (i = 0; i < p->nr_rings; i++)
			place(&cursor, l->aux_size, &l->rings[i].aux_offset);
	for (i = 0; i < p->nr_rings; i++)
		place(&cursor, l->data_size, &l->rings[i].data_offset);
	if (!aux_first && l->aux_size)
		for (i = 0; i < p->nr_rings; i++)
			place(&cursor, l->aux_size, &l->rings[i].aux_offset);
	/* The sideband after the rings: whole pages, no alignment of its own. */
	l->sideband_size = (uint64_t)sideband_pages(p) * RS_PAGE_SIZE;
	l->sideband_offset = l->sideband_size ? cursor : 0;
	cursor += l->sideband_size;
	l->end = cursor;
}

static uint64_t round_pow2(uint64_t v)
{
	uint64_t r = RS_PAGE_SIZE;

	while (r < v)
		r <<= 1;
	return r;
}

int rs_region_size(const struct rs_region_params *params, uint64_t *size)
{
	struct rs_layout l;
	int err;

	err = params_check(params);
	if (err)
		return err;
	if (!size)
		return -rse_invalid;
	layout_compute(params, &l);
	if (l.end > RS_REGION_MAX)
		return -rse_geometry;
	*size = round_pow2(l.end);
	return 0;
}

/* Everything of the header the host writes at layout, but the magic. */
static void header_fill(struct rs_region_header *hdr, uint64_t mem_size,
		    const struct rs_region_params *params,
		    const struct rs_layout *l)
{
	uint32_t i, table = params->nr_rings > RS_HDR_RINGS;

	hdr->abi_version = RS_ABI_VERSION;
	hdr->header_size = RS_PAGE_SIZE;
	hdr->region_size = mem_size;
	hdr->page_size = RS_PAGE_SIZE;
	/* A reader that does not know the ring table sees the first
	 * RS_HDR_RINGS rings, whole. */
	hdr->nr_rings = table ? RS_HDR_RINGS : params->nr_rings;
	hdr->nr_rings_total = table ? params->nr_rings : 0;
	hdr->sideband_offset = l->sideband_offset;
	hdr->sideband_size = l->sideband_size;
	hdr->boot_gen = 1;
	hdr->config.data_mode = params->data_mode;
	hdr->config.aux_mode = params->aux_mode;
	hdr->config.data_watermark = params->data_watermark ?
		params->data_watermark : (uint32_t)(l->data_size / 2);
	hdr->config.aux_watermark = params->aux_watermark;
	if (!params->aux_watermark && params->aux_mode == RS_MODE_NORMAL)
		hdr->config.aux_watermark = (uint32_t)(l->aux_size / 2);
	hdr->config.trace_mask = params->trace_mask;
	hdr->config.sample_type = params->sample_type;
	hdr->config.sample_freq = params->sample_freq;
	hdr->config.doorbell_addr = params->doorbell_addr;
	hdr->config.features = (features(params) & ~(uint32_t)RS_FEATURE_RING_TABLE) |
			       (table ? (uint32_t)RS_FEATURE_RING_TABLE : 0u);

	for (i = 0; i < hdr->nr_rings; i++)
		hdr->rings[i] = l->rings[i];
}

/* Descriptor @i (>= RS_HDR_RINGS) in the ring table of the region at @mem. */
static struct rs_ring_desc *table_desc(const void *mem, uint32_t i)
{
	return (struct rs_ring_desc *)((uint8_t *)(uintptr_t)mem +
				       RS_RING_TABLE_OFFSET) + (i - RS_HDR_RINGS);
}

static int layout_for(const void *mem, uint64_t mem_size,
		  const struct rs_region_params *params, struct rs_layout *l)
{
	uint64_t need;
	int err;

	if (!mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)))
		return -rse_invalid;
	err = rs_region_size(params, &need);
	if (err)
		return err;
	if (!rs_is_pow2(mem_size) || mem_size > RS_REGION_MAX)
		return -rse_geometry;
	if (mem_size < need)
		return -rse_too_small;
	layout_compute(params, l);
	return 0;
}

int rs_region_layout(void *mem, uint64_t mem_size,
		     const struct rs_region_params *params)
{
	struct rs_region_header *hdr = mem;
	struct rs_layout l;
	uint32_t i;
	int err;

	err = layout_for(mem, mem_size, params, &l);
	if (err)
		return err;

	rs_memset(mem, 0, mem_size);
	header_fill(hdr, mem_size, params, &l);
	for (i = RS_HDR_RINGS; i < params->nr_rings; i++)
		*table_desc(mem, i) = l.rings[i];
	for (i = 0; i < params->nr_rings; i++) {
		struct rs_ctrl_page *c;

		c = (struct rs_ctrl_page *)((uint8_t *)mem + l.rings[i].ctrl_offset);
		c->version = 0;
		c->compat_version = 0;
		c->size = sizeof(*c);
		c->index = i;
		c->data_offset = l.rings[i].data_offset - l.rings[i].ctrl_offset;
		c->data_size = l.rings[i].data_size;
		c->aux_offset = l.aux_size ?
			l.rings[i].aux_offset - l.rings[i].ctrl_offset : 0;
		c->aux_size = l.rings[i].aux_size;
	}
	/* Readers check the magic first: make it the last thing they see. */
	rs_release(&hdr->magic, RS_REGION_MAGIC);                /* I */
	return 0;
}

static int set_enabled(void *mem, uint32_t on)
{
	struct rs_region_header *h = mem;

	if (!mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)))
		return -rse_invalid;
	rs_release(&h->config.enabled, on);                      /* K */
	return 0;
}

int rs_region_enable(void *mem)
{
	return set_enabled(mem, 1);
}

int rs_region_disable(void *mem)
{
	return set_enabled(mem, 0);
}

int rs_region_note_reset(void *mem, uint64_t *gen)
{
	struct rs_region_header *h = mem;
	uint64_t g;

	if (!mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)) || !gen)
		return -rse_invalid;
	/* guest-writable: whatever it holds, one more than that (never 0,
	 * which says "not counted") */
	g = rs_load_hint(&h->boot_gen) + 1;
	if (!g)
		g = 1;
	rs_store_hint(&h->boot_gen, g);
	*gen = g;
	return 0;
}

int rs_region_open(struct rs_region *region, void *mem, uint64_t mem_size)
{
	struct rs_region_header h;
	uint32_t i, nr;
	int err;

	if (!region || !mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)))
		return -rse_invalid;
	if (mem_size < RS_PAGE_SIZE)
		return -rse_too_small;
	/* One copy of the header; everything below validates the copy. */
	rs_memcpy(&h, mem, sizeof(h));
	if (h.magic != RS_REGION_MAGIC)
		return -rse_magic;
	if (h.abi_version != RS_ABI_VERSION)
		return -rse_version;
	if (h.header_size != RS_PAGE_SIZE || h.page_size != RS_PAGE_SIZE)
		return -rse_geometry;
	if (h.region_size > mem_size)
		return -rse_too_small;
	if (h.region_size != mem_size || !rs_is_pow2(h.region_size) ||
	    h.region_size > RS_REGION_MAX)
		return -rse_geometry;
	nr = h.nr_rings;
	if (h.nr_rings == 0 || h.nr_rings > RS_HDR_RINGS)
		return -rse_geometry;
	if (h.config.features & RS_FEATURE_RING_TABLE) {
		/* more rings than the header holds: the table has the rest */
		if (h.nr_rings != RS_HDR_RINGS ||
		    h.nr_rings_total <= RS_HDR_RINGS ||
		    h.nr_rings_total > RS_MAX_RINGS)
			return -rse_geometry;
		nr = h.nr_rings_total;
	} else if (h.nr_rings_total) {
		return -rse_geometry;
	}
	if (h.config.data_mode > RS_MODE_OVERWRITE ||
	    h.config.aux_mode > RS_MODE_OVERWRITE)
		return -rse_geometry;
	if (!rs_region_check_in(0, RS_PAGE_SIZE + rs_ring_table_size(nr), h.region_size))
		return -rse_geometry;

	/* The descriptors go straight into the caller's copy (the table
	 * read once, like the header); it is cleared again on failure. */
	rs_memset(region, 0, sizeof(*region));
	for (i = 0; i < nr; i++)
		region->rings[i] = i < RS_HDR_RINGS ? h.rings[i] :
				   *table_desc(mem, i);
	err = rs_region_check_descs(&h, region->rings, nr, h.region_size);
	for (i = 0; !err && i < nr; i++)
		err = rs_region_check_ctrl(mem, &region->rings[i]);
	if (err) {
		rs_memset(region, 0, sizeof(*region));
		return err;
	}
	region->base = mem;
	region->size = h.region_size;
	region->nr_rings = nr;
	region->config = h.config;
	region->sideband_offset = h.sideband_offset;
	region->sideband_size = h.sideband_size;
	return 0;
}

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
	[rs_hf_nr_rings_total]  = "nr_rings_total",
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
static void compare(struct rs_region_damage *d, const void *mem,
		    const struct rs_region_header *seen,
		    const struct rs_region_header *want,
		    const struct rs_layout *l, uint32_t nr_rings)
{
	const struct rs_config *sc = &seen->config, *wc = &want->config;
	uint32_t i;

	note(d, rs_hf_magic, 0, seen->magic, RS_REGION_MAGIC);
	note(d, rs_hf_abi_version, 0, seen->abi_version, want->abi_version);
	note(d, rs_hf_header_size, 0, seen->header_size, want->header_size);
	note(d, rs_hf_region_size, 0, seen->region_size, want->region_size);
	note(d, rs_hf_page_size, 0, seen->page_size, want->page_size);
	note(d, rs_hf_nr_rings, 0, seen->nr_rings, want->nr_rings);
	note(d, rs_hf_nr_rings_total, 0, seen->nr_rings_total,
	     want->nr_rings_total);
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
		struct rs_ring_desc t;
		const struct rs_ring_desc *s = &t, *w = &l->rings[i];

		/* the table lies in guest-writable memory too: one copy */
		if (i < RS_HDR_RINGS)
			s = &seen->rings[i];
		else
			rs_memcpy(&t, table_desc(mem, i), sizeof(t));

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
	/* Two pages of stack: a host's call (no guest makes it). */
	struct rs_region_header seen, want;
	struct rs_layout l;
	uint32_t i, skipped = 0;
	int err;

	if (!region || !damage)
		return -rse_invalid;
	err = layout_for(mem, mem_size, params, &l);
	if (err)
		return err;
	rs_memset(&want, 0, sizeof(want));
	header_fill(&want, mem_size, params, &l);
	rs_memcpy(&seen, mem, sizeof(seen));

	rs_memset(damage, 0, sizeof(*damage));
	compare(damage, mem, &seen, &want, &l, params->nr_rings);

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
		if (rs_region_check_ctrl(mem, &l.rings[i])) {
			region->skipped[i / 64] |= 1ull << (i % 64);
			skipped++;
		}
	}
	rs_memcpy(damage->bad_rings, region->skipped, sizeof(region->skipped));
	damage->nr_bad_rings = skipped;
	region->sideband_offset = l.sideband_offset;
	region->sideband_size = l.sideband_size;
	return (int)(damage->nr_diffs + damage->more_diffs + skipped);
}

int rs_region_damage_bad_ring(const struct rs_region_damage *damage,
			      uint32_t index)
{
	return damage && index < RS_MAX_RINGS &&
	       (damage->bad_rings[index / 64] & (1ull << (index % 64))) ? 1 : 0;
}

int rs_region_ring_skipped(const struct rs_region *region, uint32_t index)
{
	return region && index < region->nr_rings &&
	       (region->skipped[index / 64] & (1ull << (index % 64))) ? 1 : 0;
}

const struct rs_config *rs_region_config(const struct rs_region *region)
{
	return region ? &region->config : (const struct rs_config *)0;
}

struct rs_region_header *rs_region_header(const struct rs_region *region)
{
	return region ? (struct rs_region_header *)region->base : (void *)0;
}

int rs_region_ring(const struct rs_region *region, uint32_t index,
		   struct rs_ring *ring)
{
	const struct rs_ring_desc *d;

	if (!region || !ring || !region->base || index >= region->nr_rings)
		return -rse_invalid;
	if (rs_region_ring_skipped(region, index))
		return -rse_corrupt;
	d = &region->rings[index];
	ring->ctrl = (struct rs_ctrl_page *)(region->base + d->ctrl_offset);
	ring->data = region->base + d->data_offset;
	ring->aux = d->aux_size ? region->base + d->aux_offset : (uint8_t *)0;
	ring->data_size = d->data_size;
	ring->aux_size = d->aux_size;
	ring->data_mode = region->config.data_mode;
	ring->aux_mode = region->config.aux_mode;
	ring->index = index;
	ring->reserved = 0;
	return 0;
}

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
	rs_load_hints(status, &h->status, sizeof(*status));
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
