/* SPDX-License-Identifier: MIT */
/*
 * Region layout and validation.  The host lays a region out once, before
 * the guest runs; everybody who attaches later (the guest agent, a host
 * consumer in another process) validates it and works from a private copy
 * of the layout, because the shared header is writable by the guest.
 */
#include "barrier.h"
#include "ring_internal.h"

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

int rs_params_check(const struct rs_region_params *p)
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
	return rs_params_check(params);
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

void rs_layout_compute(const struct rs_region_params *p, struct rs_layout *l)
{
	uint64_t cursor = RS_PAGE_SIZE;
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

	err = rs_params_check(params);
	if (err)
		return err;
	if (!size)
		return -rse_invalid;
	rs_layout_compute(params, &l);
	if (l.end > RS_REGION_MAX)
		return -rse_geometry;
	*size = round_pow2(l.end);
	return 0;
}

/* Everything of the header the host writes at layout, but the magic. */
void rs_header_fill(struct rs_region_header *hdr, uint64_t mem_size,
		    const struct rs_region_params *params,
		    const struct rs_layout *l)
{
	uint32_t i;

	hdr->abi_version = RS_ABI_VERSION;
	hdr->header_size = RS_PAGE_SIZE;
	hdr->region_size = mem_size;
	hdr->page_size = RS_PAGE_SIZE;
	hdr->nr_rings = params->nr_rings;
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
	hdr->config.features = features(params);

	for (i = 0; i < params->nr_rings; i++)
		hdr->rings[i] = l->rings[i];
}

int rs_layout_for(const void *mem, uint64_t mem_size,
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
	rs_layout_compute(params, l);
	return 0;
}

int rs_region_layout(void *mem, uint64_t mem_size,
		     const struct rs_region_params *params)
{
	struct rs_region_header *hdr = mem;
	struct rs_layout l;
	uint32_t i;
	int err;

	err = rs_layout_for(mem, mem_size, params, &l);
	if (err)
		return err;

	rs_memset(mem, 0, mem_size);
	rs_header_fill(hdr, mem_size, params, &l);
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
	rs_release(&hdr->magic, RS_REGION_MAGIC);
	return 0;
}

/* [off, off + len) lies inside a region of @size bytes. */
static int in_region(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int area_ok(uint64_t off, uint64_t len, uint64_t size)
{
	if (!rs_is_pow2(len) || len < RS_PAGE_SIZE || len > RS_AREA_MAX)
		return 0;
	if (off & (RS_PAGE_SIZE - 1))
		return 0;
	return in_region(off, len, size);
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

struct span {
	uint64_t off, len;
};

static int descs_check(const struct rs_region_header *h, uint64_t size)
{
	struct span s[2 + 3 * RS_MAX_RINGS];
	uint32_t n = 0, i, j;

	s[n++] = (struct span){ 0, RS_PAGE_SIZE };
	if (h->sideband_size) {
		if ((h->sideband_offset | h->sideband_size) & (RS_PAGE_SIZE - 1) ||
		    h->sideband_size > RS_SIDEBAND_MAX ||
		    !in_region(h->sideband_offset, h->sideband_size, size))
			return -rse_geometry;
		s[n++] = (struct span){ h->sideband_offset, h->sideband_size };
	} else if (h->sideband_offset) {
		return -rse_geometry;
	}
	for (i = 0; i < h->nr_rings; i++) {
		const struct rs_ring_desc *d = &h->rings[i];

		if ((d->ctrl_offset & (RS_PAGE_SIZE - 1)) ||
		    !in_region(d->ctrl_offset, RS_PAGE_SIZE, size))
			return -rse_geometry;
		if (!area_ok(d->data_offset, d->data_size, size))
			return -rse_geometry;
		s[n++] = (struct span){ d->ctrl_offset, RS_PAGE_SIZE };
		s[n++] = (struct span){ d->data_offset, d->data_size };
		if (d->aux_size) {
			if (!area_ok(d->aux_offset, d->aux_size, size))
				return -rse_geometry;
			s[n++] = (struct span){ d->aux_offset, d->aux_size };
		} else if (d->aux_offset) {
			return -rse_geometry;
		}
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (overlaps(s[i].off, s[i].len, s[j].off, s[j].len))
				return -rse_geometry;
	return 0;
}

/* The control page repeats the descriptor in perf's terms; they must agree. */
int rs_ctrl_check(const uint8_t *mem, const struct rs_ring_desc *d)
{
	const struct rs_ctrl_page *c =
		(const struct rs_ctrl_page *)(mem + d->ctrl_offset);
	uint64_t data_offset = c->data_offset, data_size = c->data_size;
	uint64_t aux_offset = c->aux_offset, aux_size = c->aux_size;

	if (d->data_offset < d->ctrl_offset ||
	    data_offset != d->data_offset - d->ctrl_offset ||
	    data_size != d->data_size || aux_size != d->aux_size)
		return -rse_geometry;
	if (d->aux_size && (d->aux_offset < d->ctrl_offset ||
			    aux_offset != d->aux_offset - d->ctrl_offset))
		return -rse_geometry;
	return 0;
}

int rs_region_open(struct rs_region *region, void *mem, uint64_t mem_size)
{
	struct rs_region_header h;
	uint32_t i;
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
	if (h.nr_rings == 0 || h.nr_rings > RS_MAX_RINGS)
		return -rse_geometry;
	if (h.config.data_mode > RS_MODE_OVERWRITE ||
	    h.config.aux_mode > RS_MODE_OVERWRITE)
		return -rse_geometry;
	err = descs_check(&h, h.region_size);
	if (err)
		return err;
	for (i = 0; i < h.nr_rings; i++) {
		err = rs_ctrl_check(mem, &h.rings[i]);
		if (err)
			return err;
	}

	rs_memset(region, 0, sizeof(*region));
	region->base = mem;
	region->size = h.region_size;
	region->nr_rings = h.nr_rings;
	region->config = h.config;
	for (i = 0; i < h.nr_rings; i++)
		region->rings[i] = h.rings[i];
	region->sideband_offset = h.sideband_offset;
	region->sideband_size = h.sideband_size;
	return 0;
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
	if (region->skipped & (1ull << index))
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
