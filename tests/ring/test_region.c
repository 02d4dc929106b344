/* SPDX-License-Identifier: MIT */
/* rs_region_size, rs_region_layout, rs_region_open, rs_region_ring. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fixture.h"

/* Anonymous page-aligned memory, pre-filled so that zeroing is visible. */
static uint8_t *map_mem(uint64_t size)
{
	uint8_t *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ck_assert_ptr_ne(mem, MAP_FAILED);
	return mem;
}

struct area {
	uint64_t off;
	uint64_t size;
};

static void check_no_overlap(const struct area *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (!a[i].size || !a[j].size)
				continue;
			ck_assert_msg(a[i].off + a[i].size <= a[j].off ||
				      a[j].off + a[j].size <= a[i].off,
				      "areas %zu and %zu overlap", i, j);
		}
}

/* Everything a layout promises, checked from the shared header alone. */
static void check_layout(const uint8_t *mem, uint64_t mem_size,
			 const struct rs_region_params *p)
{
	const struct rs_region_header *hdr = (const void *)mem;
	uint64_t data_size = (uint64_t)p->data_pages * RS_PAGE_SIZE;
	uint64_t aux_size = (uint64_t)p->aux_pages * RS_PAGE_SIZE;
	struct area *areas = calloc(1 + 3 * (size_t)p->nr_rings, sizeof(*areas));
	size_t n = 0;
	uint64_t end = RS_PAGE_SIZE + rs_ring_table_size(p->nr_rings);
	int table = p->nr_rings > RS_HDR_RINGS;

	ck_assert_ptr_nonnull(areas);
	ck_assert_uint_eq(hdr->magic, RS_REGION_MAGIC);
	ck_assert_uint_eq(hdr->abi_version, RS_ABI_VERSION);
	ck_assert_uint_eq(hdr->header_size, RS_PAGE_SIZE);
	ck_assert_uint_eq(hdr->page_size, RS_PAGE_SIZE);
	ck_assert_uint_eq(hdr->region_size, mem_size);
	/* the header's rings are all an older reader sees; the table, the rest */
	ck_assert_uint_eq(hdr->nr_rings, table ? RS_HDR_RINGS : p->nr_rings);
	ck_assert_uint_eq(hdr->nr_rings_total, table ? p->nr_rings : 0);
	ck_assert_uint_eq(!!(hdr->config.features & RS_FEATURE_RING_TABLE), table);
	ck_assert_uint_eq(hdr->config.enabled, 0);
	ck_assert_uint_eq(hdr->config.data_mode, p->data_mode);
	ck_assert_uint_eq(hdr->config.aux_mode, p->aux_mode);
	ck_assert_uint_eq(hdr->config.trace_mask, p->trace_mask);
	ck_assert_uint_eq(hdr->config.sample_type, p->sample_type);
	ck_assert_uint_eq(hdr->config.sample_freq, p->sample_freq);
	if (p->data_watermark)
		ck_assert_uint_eq(hdr->config.data_watermark, p->data_watermark);
	if (p->aux_watermark)
		ck_assert_uint_eq(hdr->config.aux_watermark, p->aux_watermark);
	ck_assert_uint_eq(hdr->status.attached, 0);

	areas[n++] = (struct area){ 0, end };
	for (uint32_t i = 0; i < p->nr_rings; i++) {
		const struct rs_ring_desc *d = i < RS_HDR_RINGS ? &hdr->rings[i] :
			(const struct rs_ring_desc *)(mem + RS_RING_TABLE_OFFSET) +
			(i - RS_HDR_RINGS);
		const struct rs_ctrl_page *ctrl;

		ck_assert_uint_eq(d->data_size, data_size);
		ck_assert_uint_eq(d->aux_size, aux_size);
		ck_assert_uint_eq(d->ctrl_offset % RS_PAGE_SIZE, 0);
		ck_assert_uint_eq(d->data_offset % data_size, 0);
		ck_assert_uint_le(d->ctrl_offset + RS_PAGE_SIZE, mem_size);
		ck_assert_uint_le(d->data_offset + data_size, mem_size);
		if (aux_size) {
			ck_assert_uint_eq(d->aux_offset % aux_size, 0);
			ck_assert_uint_le(d->aux_offset + aux_size, mem_size);
		} else {
			ck_assert_uint_eq(d->aux_offset, 0);
		}
		areas[n++] = (struct area){ d->ctrl_offset, RS_PAGE_SIZE };
		areas[n++] = (struct area){ d->data_offset, data_size };
		areas[n++] = (struct area){ d->aux_offset, aux_size };
		if (d->data_offset + data_size > end)
			end = d->data_offset + data_size;
		if (d->aux_offset + aux_size > end)
			end = d->aux_offset + aux_size;
		if (d->ctrl_offset + RS_PAGE_SIZE > end)
			end = d->ctrl_offset + RS_PAGE_SIZE;

		/* perf's fields count from the control page. */
		ctrl = (const void *)(mem + d->ctrl_offset);
		ck_assert_uint_eq(ctrl->data_offset + d->ctrl_offset, d->data_offset);
		ck_assert_uint_eq(ctrl->data_size, data_size);
		ck_assert_uint_eq(ctrl->aux_size, aux_size);
		if (aux_size)
			ck_assert_uint_eq(ctrl->aux_offset + d->ctrl_offset,
					  d->aux_offset);
		ck_assert_uint_eq(ctrl->data_head, 0);
		ck_assert_uint_eq(ctrl->data_tail, 0);
		ck_assert_uint_eq(ctrl->aux_head, 0);
		ck_assert_uint_eq(ctrl->aux_tail, 0);
	}
	check_no_overlap(areas, n);
	/* rs_region_size: the layout's end rounded up to a power of two */
	{
		uint64_t need = 0;

		ck_assert_int_eq(rs_region_size(p, &need), 0);
		ck_assert(rs_is_pow2(need));
		ck_assert_uint_ge(need, end);
		ck_assert_uint_lt(need / 2, end);
	}
	free(areas);
}

static void layout_and_check(const struct rs_region_params *p)
{
	uint64_t size = 0;
	uint8_t *mem;
	struct rs_region region;

	ck_assert_int_eq(rs_region_size(p, &size), 0);
	ck_assert(rs_is_pow2(size));
	mem = map_mem(size);
	memset(mem, 0xa5, size);
	ck_assert_int_eq(rs_region_layout(mem, size, p), 0);
	check_layout(mem, size, p);
	/* Data areas are zeroed: the snapshot walker relies on it. */
	for (uint64_t i = 0; i < p->data_pages * (uint64_t)RS_PAGE_SIZE; i++)
		ck_assert_uint_eq(mem[((struct rs_region_header *)mem)->rings[0].data_offset + i], 0);
	ck_assert_int_eq(rs_region_open(&region, mem, size), 0);
	ck_assert_ptr_eq(rs_region_header(&region), (void *)mem);
	for (uint32_t i = 0; i < p->nr_rings; i++) {
		struct rs_ring ring;

		ck_assert_int_eq(rs_region_ring(&region, i, &ring), 0);
	}
	munmap(mem, size);
}

START_TEST(region_layout_one_ring)
{
	struct rs_region_params p;

	fx_params(&p, 4, 2);
	p.data_watermark = 1000;
	p.aux_watermark = 4000;
	p.sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TIME;
	p.sample_freq = 997;
	layout_and_check(&p);
}
END_TEST

START_TEST(region_layout_max_rings)
{
	struct rs_region_params p;

	fx_params(&p, 2, 4);
	p.nr_rings = RS_MAX_RINGS;
	p.data_mode = RS_MODE_OVERWRITE;
	p.aux_mode = RS_MODE_OVERWRITE;
	layout_and_check(&p);
}
END_TEST

START_TEST(region_layout_no_aux)
{
	struct rs_region_params p;

	fx_params(&p, 1, 0);
	p.nr_rings = 3;
	layout_and_check(&p);
}
END_TEST

START_TEST(region_layout_big_aux)
{
	struct rs_region_params p;

	/* aux 64x the data area: natural alignment of mixed sizes */
	fx_params(&p, 1, 4096);
	p.nr_rings = 3;
	layout_and_check(&p);
}
END_TEST

START_TEST(region_layout_larger_mem)
{
	struct rs_region_params p;
	struct rs_region region;
	uint64_t size = 0;
	uint8_t *mem;

	/* a power of two bigger than needed is allowed; the region is all of it */
	fx_params(&p, 1, 1);
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	mem = map_mem(4 * size);
	ck_assert_int_eq(rs_region_layout(mem, 4 * size, &p), 0);
	check_layout(mem, 4 * size, &p);
	ck_assert_int_eq(rs_region_open(&region, mem, 4 * size), 0);
	munmap(mem, 4 * size);
}
END_TEST

START_TEST(region_size_area_max)
{
	struct rs_region_params p;
	uint64_t size = 0;
	const uint32_t max_pages = (uint32_t)(RS_AREA_MAX / RS_PAGE_SIZE);

	/* Sizes only: a layout this big would need gigabytes. */
	fx_params(&p, 1, max_pages);
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	ck_assert(rs_is_pow2(size));
	ck_assert_uint_gt(size, RS_AREA_MAX);
	ck_assert_uint_le(size, RS_REGION_MAX);

	fx_params(&p, max_pages, max_pages);
	p.nr_rings = RS_HDR_RINGS;
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	ck_assert(rs_is_pow2(size));
	ck_assert_uint_ge(size, 2 * RS_AREA_MAX * RS_HDR_RINGS);
	ck_assert_uint_le(size, RS_REGION_MAX);
	/* 1024 rings of 2 x 4 GiB pass RS_REGION_MAX (1 TiB) */
	p.nr_rings = RS_MAX_RINGS;
	ck_assert_int_eq(rs_region_size(&p, &size), -rse_geometry);
}
END_TEST

START_TEST(region_size_grows)
{
	struct rs_region_params p;
	uint64_t prev = 0, size = 0;

	/* more rings never need less room, and every size is a power of two */
	for (uint32_t n = 1; n <= RS_MAX_RINGS; n++) {
		fx_params(&p, 2, 1);
		p.nr_rings = n;
		ck_assert_int_eq(rs_region_size(&p, &size), 0);
		ck_assert(rs_is_pow2(size));
		ck_assert_uint_ge(size, RS_PAGE_SIZE + n * (3u + 1u) * RS_PAGE_SIZE);
		ck_assert_uint_ge(size, prev);
		prev = size;
	}
}
END_TEST

/* One invalid geometry and the error it must give. */
struct bad_params {
	const char *what;
	void (*spoil)(struct rs_region_params *p);
	int err;
};

static void data_pages_0(struct rs_region_params *p) { p->data_pages = 0; }
static void data_pages_3(struct rs_region_params *p) { p->data_pages = 3; }
static void data_pages_6(struct rs_region_params *p) { p->data_pages = 6; }
static void data_pages_huge(struct rs_region_params *p)
{
	p->data_pages = (uint32_t)(2 * RS_AREA_MAX / RS_PAGE_SIZE);
}
static void aux_pages_3(struct rs_region_params *p) { p->aux_pages = 3; }
static void aux_pages_12(struct rs_region_params *p) { p->aux_pages = 12; }
static void aux_pages_huge(struct rs_region_params *p)
{
	p->aux_pages = (uint32_t)(2 * RS_AREA_MAX / RS_PAGE_SIZE);
}
static void rings_0(struct rs_region_params *p) { p->nr_rings = 0; }
static void rings_over(struct rs_region_params *p) { p->nr_rings = RS_MAX_RINGS + 1; }
static void rings_huge(struct rs_region_params *p) { p->nr_rings = UINT32_MAX; }
static void data_wm_eq(struct rs_region_params *p)
{
	p->data_watermark = p->data_pages * RS_PAGE_SIZE;
}
static void data_wm_over(struct rs_region_params *p) { p->data_watermark = UINT32_MAX; }
static void aux_wm_eq(struct rs_region_params *p)
{
	p->aux_watermark = p->aux_pages * RS_PAGE_SIZE;
}
static void aux_wm_over(struct rs_region_params *p)
{
	p->aux_watermark = p->aux_pages * RS_PAGE_SIZE + 8;
}
static void data_mode_bad(struct rs_region_params *p) { p->data_mode = 2; }
static void aux_mode_bad(struct rs_region_params *p) { p->aux_mode = 0x80000000u; }
static void size_0(struct rs_region_params *p) { p->size = 0; }
static void size_short(struct rs_region_params *p)
{
	p->size = offsetof(struct rs_region_params, aux_mode);
}

static const struct bad_params bad_params[] = {
	{ "data_pages 0", data_pages_0, -rse_geometry },
	{ "data_pages 3", data_pages_3, -rse_geometry },
	{ "data_pages 6", data_pages_6, -rse_geometry },
	{ "data area > RS_AREA_MAX", data_pages_huge, -rse_geometry },
	{ "aux_pages 3", aux_pages_3, -rse_geometry },
	{ "aux_pages 12", aux_pages_12, -rse_geometry },
	{ "aux area > RS_AREA_MAX", aux_pages_huge, -rse_geometry },
	{ "0 rings", rings_0, -rse_geometry },
	{ "RS_MAX_RINGS + 1 rings", rings_over, -rse_geometry },
	{ "UINT32_MAX rings", rings_huge, -rse_geometry },
	{ "data watermark == data size", data_wm_eq, -rse_geometry },
	{ "data watermark > data size", data_wm_over, -rse_geometry },
	{ "aux watermark == aux size", aux_wm_eq, -rse_geometry },
	{ "aux watermark > aux size", aux_wm_over, -rse_geometry },
	{ "data mode 2", data_mode_bad, -rse_invalid },
	{ "aux mode 2^31", aux_mode_bad, -rse_invalid },
	{ "params->size 0", size_0, -rse_invalid },
	{ "params->size too small", size_short, -rse_invalid },
};

START_TEST(region_size_invalid_geometry)
{
	const struct bad_params *b = &bad_params[_i];
	struct rs_region_params p;
	uint64_t size = 12345;

	fx_params(&p, 4, 2);
	b->spoil(&p);
	ck_assert_msg(rs_region_size(&p, &size) == b->err,
		      "%s: got %d, want %d", b->what, rs_region_size(&p, &size), b->err);
	ck_assert_uint_eq(size, 12345);
}
END_TEST

START_TEST(region_layout_invalid_geometry)
{
	const struct bad_params *b = &bad_params[_i];
	struct rs_region_params p;
	uint64_t size = 0;
	uint8_t *mem;
	int err;

	fx_params(&p, 4, 2);
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	mem = map_mem(size);
	memset(mem, 0x5a, RS_PAGE_SIZE);
	b->spoil(&p);
	err = rs_region_layout(mem, size, &p);
	ck_assert_msg(err == b->err, "%s: got %d, want %d", b->what, err, b->err);
	/* a refused layout leaves no region behind */
	ck_assert_uint_ne(((struct rs_region_header *)mem)->magic, RS_REGION_MAGIC);
	munmap(mem, size);
}
END_TEST

START_TEST(region_size_null)
{
	struct rs_region_params p;
	uint64_t size;

	fx_params(&p, 1, 0);
	ck_assert_int_eq(rs_region_size(NULL, &size), -rse_invalid);
	ck_assert_int_eq(rs_region_size(&p, NULL), -rse_invalid);
}
END_TEST

START_TEST(region_layout_null)
{
	struct rs_region_params p;
	uint64_t size = 0;
	uint8_t *mem;

	fx_params(&p, 1, 1);
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	mem = map_mem(size);
	ck_assert_int_eq(rs_region_layout(NULL, size, &p), -rse_invalid);
	ck_assert_int_eq(rs_region_layout(mem, size, NULL), -rse_invalid);
	munmap(mem, size);
}
END_TEST

START_TEST(region_layout_too_small)
{
	struct rs_region_params p;
	uint64_t size = 0;
	uint8_t *mem;

	fx_params(&p, 8, 8);
	p.nr_rings = 2;
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	mem = map_mem(size);
	ck_assert_int_eq(rs_region_layout(mem, size / 2, &p), -rse_too_small);
	ck_assert_int_eq(rs_region_layout(mem, RS_PAGE_SIZE, &p), -rse_too_small);
	/* 0 is not a power of two before it is too small */
	ck_assert_int_eq(rs_region_layout(mem, 0, &p), -rse_geometry);
	munmap(mem, size);
}
END_TEST

START_TEST(region_layout_not_pow2)
{
	struct rs_region_params p;
	uint64_t size = 0;
	uint8_t *mem;

	fx_params(&p, 1, 1);
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	mem = map_mem(4 * size);
	ck_assert_int_eq(rs_region_layout(mem, size + RS_PAGE_SIZE, &p), -rse_geometry);
	ck_assert_int_eq(rs_region_layout(mem, 3 * size, &p), -rse_geometry);
	ck_assert_int_eq(rs_region_layout(mem, size + 8, &p), -rse_geometry);
	munmap(mem, 4 * size);
}
END_TEST

START_TEST(region_layout_misaligned)
{
	struct rs_region_params p;
	uint64_t size = 0;
	uint8_t *mem;

	fx_params(&p, 1, 1);
	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	mem = map_mem(2 * size);
	ck_assert_int_eq(rs_region_layout(mem + 64, size, &p), -rse_invalid);
	munmap(mem, 2 * size);
}
END_TEST

/* ---- rs_region_open on a spoiled header ---------------------------------- */

struct open_env {
	uint8_t *mem;
	uint64_t size;
	struct rs_region_header *hdr;
	struct rs_ctrl_page *ctrl0;
	struct rs_ctrl_page *ctrl1;
};

struct bad_region {
	const char *what;
	void (*spoil)(struct open_env *e);
	int err;
};

static void magic(struct open_env *e) { e->hdr->magic ^= 1; }
static void magic_0(struct open_env *e) { e->hdr->magic = 0; }
static void version_2(struct open_env *e) { e->hdr->abi_version = 2; }
static void version_0(struct open_env *e) { e->hdr->abi_version = 0; }
static void region_size_half(struct open_env *e) { e->hdr->region_size = e->size / 2; }
static void region_size_odd(struct open_env *e) { e->hdr->region_size = e->size - RS_PAGE_SIZE; }
static void header_size(struct open_env *e) { e->hdr->header_size = 2 * RS_PAGE_SIZE; }
static void page_size(struct open_env *e) { e->hdr->page_size = 65536; }
static void nr_rings_0(struct open_env *e) { e->hdr->nr_rings = 0; }
static void nr_rings_over(struct open_env *e) { e->hdr->nr_rings = RS_MAX_RINGS + 1; }
static void data_outside(struct open_env *e) { e->hdr->rings[1].data_offset = e->size; }
static void data_straddles(struct open_env *e)
{
	e->hdr->rings[1].data_offset = e->size - e->hdr->rings[1].data_size / 2;
}
static void data_wraps(struct open_env *e)
{
	e->hdr->rings[1].data_offset = 0 - e->hdr->rings[1].data_size;
}
static void aux_outside(struct open_env *e) { e->hdr->rings[0].aux_offset = 2 * e->size; }
static void ctrl_outside(struct open_env *e) { e->hdr->rings[1].ctrl_offset = e->size; }
static void ctrl_in_header(struct open_env *e) { e->hdr->rings[0].ctrl_offset = 0; }
static void ctrl_misaligned(struct open_env *e) { e->hdr->rings[0].ctrl_offset += 8; }
static void data_overlaps_data(struct open_env *e)
{
	e->hdr->rings[1].data_offset = e->hdr->rings[0].data_offset;
}
static void data_overlaps_aux(struct open_env *e)
{
	e->hdr->rings[1].data_offset = e->hdr->rings[0].aux_offset;
}
static void ctrl_overlaps_ctrl(struct open_env *e)
{
	e->hdr->rings[1].ctrl_offset = e->hdr->rings[0].ctrl_offset;
}
static void ctrl_overlaps_data(struct open_env *e)
{
	e->hdr->rings[0].ctrl_offset = e->hdr->rings[1].data_offset;
}
static void data_misaligned(struct open_env *e)
{
	e->hdr->rings[1].data_offset += RS_PAGE_SIZE;
}
static void aux_misaligned(struct open_env *e)
{
	e->hdr->rings[0].aux_offset += RS_PAGE_SIZE;
}
/* Descriptor and control page agree, so only the size itself is wrong. */
static void data_size_set(struct open_env *e, uint64_t size)
{
	e->hdr->rings[0].data_size = size;
	e->ctrl0->data_size = size;
}
static void data_size_odd(struct open_env *e) { data_size_set(e, 3 * RS_PAGE_SIZE); }
static void data_size_0(struct open_env *e) { data_size_set(e, 0); }
static void data_size_byte(struct open_env *e) { data_size_set(e, 8); }
static void aux_size_odd(struct open_env *e)
{
	e->hdr->rings[0].aux_size = 3 * RS_PAGE_SIZE;
	e->ctrl0->aux_size = 3 * RS_PAGE_SIZE;
}
static void ctrl_data_offset(struct open_env *e) { e->ctrl0->data_offset += RS_PAGE_SIZE; }
static void ctrl_data_size(struct open_env *e) { e->ctrl0->data_size /= 2; }
static void ctrl_aux_offset(struct open_env *e) { e->ctrl1->aux_offset += RS_PAGE_SIZE; }
static void ctrl_aux_size(struct open_env *e) { e->ctrl1->aux_size *= 2; }

static const struct bad_region bad_regions[] = {
	{ "magic off by a bit", magic, -rse_magic },
	{ "magic 0", magic_0, -rse_magic },
	{ "abi_version 2", version_2, -rse_version },
	{ "abi_version 0", version_0, -rse_version },
	{ "region_size half the memory", region_size_half, -rse_geometry },
	{ "region_size not a power of two", region_size_odd, -rse_geometry },
	{ "header_size", header_size, -rse_geometry },
	{ "page_size", page_size, -rse_geometry },
	{ "nr_rings 0", nr_rings_0, -rse_geometry },
	{ "nr_rings > max", nr_rings_over, -rse_geometry },
	{ "data area at the region's end", data_outside, -rse_geometry },
	{ "data area straddles the end", data_straddles, -rse_geometry },
	{ "data offset + size wraps u64", data_wraps, -rse_geometry },
	{ "aux area outside", aux_outside, -rse_geometry },
	{ "ctrl page outside", ctrl_outside, -rse_geometry },
	{ "ctrl page over the header", ctrl_in_header, -rse_geometry },
	{ "ctrl page misaligned", ctrl_misaligned, -rse_geometry },
	{ "data over another ring's data", data_overlaps_data, -rse_geometry },
	{ "data over another ring's aux", data_overlaps_aux, -rse_geometry },
	{ "ctrl over another ring's ctrl", ctrl_overlaps_ctrl, -rse_geometry },
	{ "ctrl over another ring's data", ctrl_overlaps_data, -rse_geometry },
	{ "data area misaligned", data_misaligned, -rse_geometry },
	{ "aux area misaligned", aux_misaligned, -rse_geometry },
	{ "data size not a power of two", data_size_odd, -rse_geometry },
	{ "data size 0", data_size_0, -rse_geometry },
	{ "data size below a page", data_size_byte, -rse_geometry },
	{ "aux size not a power of two", aux_size_odd, -rse_geometry },
	{ "ctrl data_offset != descriptor", ctrl_data_offset, -rse_geometry },
	{ "ctrl data_size != descriptor", ctrl_data_size, -rse_geometry },
	{ "ctrl aux_offset != descriptor", ctrl_aux_offset, -rse_geometry },
	{ "ctrl aux_size != descriptor", ctrl_aux_size, -rse_geometry },
};

static void open_env_init(struct open_env *e)
{
	struct rs_region_params p;

	fx_params(&p, 2, 2);
	p.nr_rings = 2;
	ck_assert_int_eq(rs_region_size(&p, &e->size), 0);
	e->mem = map_mem(e->size);
	ck_assert_int_eq(rs_region_layout(e->mem, e->size, &p), 0);
	e->hdr = (void *)e->mem;
	e->ctrl0 = (void *)(e->mem + e->hdr->rings[0].ctrl_offset);
	e->ctrl1 = (void *)(e->mem + e->hdr->rings[1].ctrl_offset);
}

START_TEST(region_open_invalid)
{
	const struct bad_region *b = &bad_regions[_i];
	struct rs_region region;
	struct open_env e;
	int err;

	open_env_init(&e);
	ck_assert_int_eq(rs_region_open(&region, e.mem, e.size), 0);
	b->spoil(&e);
	err = rs_region_open(&region, e.mem, e.size);
	ck_assert_msg(err == b->err, "%s: got %d (%s), want %d", b->what, err,
		      rs_error_str(err), b->err);
	munmap(e.mem, e.size);
}
END_TEST

START_TEST(region_open_too_small)
{
	struct rs_region region;
	struct open_env e;

	open_env_init(&e);
	ck_assert_int_eq(rs_region_open(&region, e.mem, e.size / 2), -rse_too_small);
	ck_assert_int_eq(rs_region_open(&region, e.mem, RS_PAGE_SIZE), -rse_too_small);
	ck_assert_int_eq(rs_region_open(&region, e.mem, 64), -rse_too_small);
	ck_assert_int_eq(rs_region_open(&region, e.mem, 0), -rse_too_small);
	munmap(e.mem, e.size);
}
END_TEST

START_TEST(region_open_bad_mode)
{
	struct rs_region region;
	struct open_env e;

	/* The producer and consumer take their mode from here. */
	open_env_init(&e);
	e.hdr->config.data_mode = 9;
	ck_assert_int_lt(rs_region_open(&region, e.mem, e.size), 0);
	e.hdr->config.data_mode = RS_MODE_NORMAL;
	e.hdr->config.aux_mode = 9;
	ck_assert_int_lt(rs_region_open(&region, e.mem, e.size), 0);
	munmap(e.mem, e.size);
}
END_TEST

START_TEST(region_open_config_watermark)
{
	const uint32_t bad[] = { 0, UINT32_MAX, 2 * RS_PAGE_SIZE };
	struct rs_region region;
	struct rs_producer prod;
	struct open_env e;

	/* Watermarks the layout would refuse: never divided by, never a
	 * reason to stop ringing the doorbell. */
	open_env_init(&e);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t rung = 0;

		e.hdr->config.enabled = 1;
		e.hdr->config.data_watermark = bad[i];
		e.hdr->config.aux_watermark = bad[i];
		ck_assert_int_eq(rs_region_open(&region, e.mem, e.size), 0);
		ck_assert_int_eq(rs_producer_init(&prod, &region, 1), 0);
		for (uint64_t seq = 0; seq < 2 * e.hdr->rings[1].data_size / 64; seq++) {
			int ret = fx_seq_output(&prod, seq, 24);

			if (ret == -rse_no_space)
				break;
			ck_assert_int_ge(ret, 0);
			rung += (uint64_t)ret;
		}
		ck_assert_uint_ge(rung, 1);
		/* ring 1 again, from scratch, for the next value */
		ck_assert_int_eq(rs_region_layout(e.mem, e.size, &(struct rs_region_params){
			.size = sizeof(struct rs_region_params), .nr_rings = 2,
			.data_pages = 2, .aux_pages = 2 }), 0);
	}
	munmap(e.mem, e.size);
}
END_TEST

START_TEST(region_open_private_copy)
{
	struct rs_region region;
	struct rs_producer prod;
	struct rs_consumer *c;
	struct fx_log log;
	struct open_env e;
	struct rs_ring ring;

	/* After open, a scribbled descriptor must not move the rings. */
	open_env_init(&e);
	e.hdr->config.enabled = 1;
	ck_assert_int_eq(rs_region_open(&region, e.mem, e.size), 0);
	e.hdr->rings[0].data_offset = 1ull << 60;
	e.hdr->rings[0].data_size = 1ull << 62;
	e.hdr->rings[0].ctrl_offset = 1ull << 61;
	e.hdr->nr_rings = 1000;
	ck_assert_int_eq(rs_producer_init(&prod, &region, 0), 0);
	c = rs_consumer_alloc(&region, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_ge(fx_seq_output(&prod, 42, 100), 0);
	fx_log_init(&log);
	ck_assert_uint_eq(fx_drain_all(c, &log), 1);
	ck_assert_uint_eq(fx_seq_of(log.recs[0]), 42);
	ck_assert_int_eq(rs_region_ring(&region, 1, &ring), 0);
	ck_assert_int_eq(rs_region_ring(&region, 2, &ring), -rse_invalid);
	fx_log_fini(&log);
	rs_consumer_free(c);
	munmap(e.mem, e.size);
}
END_TEST

START_TEST(region_config_copy)
{
	struct rs_region_params p;
	struct fx_region f;
	const struct rs_config *cfg;

	/* the copy taken at open, not the shared header */
	fx_params(&p, 2, 1);
	p.nr_rings = 3;
	p.data_watermark = 1234;
	p.sample_freq = 4000;
	fx_region_init(&f, &p, 0);
	cfg = rs_region_config(&f.region);
	ck_assert_ptr_nonnull(cfg);
	ck_assert_uint_eq(cfg->data_watermark, 1234);
	ck_assert_uint_eq(cfg->sample_freq, 4000);
	ck_assert_uint_eq(cfg->enabled, 1);
	ck_assert_uint_eq(rs_region_nr_rings(&f.region), 3);
	fx_header(&f)->config.data_watermark = 99;
	fx_header(&f)->config.enabled = 0;
	fx_header(&f)->nr_rings = 7;
	ck_assert_uint_eq(cfg->data_watermark, 1234);
	ck_assert_uint_eq(cfg->enabled, 1);
	ck_assert_uint_eq(rs_region_nr_rings(&f.region), 3);
	fx_region_fini(&f);
}
END_TEST

START_TEST(region_config_null)
{
	ck_assert_ptr_null(rs_region_config(NULL));
	ck_assert_uint_eq(rs_region_nr_rings(NULL), 0);
}
END_TEST

START_TEST(region_status_read_live)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_guest_status st;
	struct rs_region_header *h;
	uint32_t enabled = 77;

	/* status and enabled are read from shared memory, as they are now */
	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, 0);
	h = fx_header(&f);
	h->status.attached = 1;
	h->status.abi_version = RS_ABI_VERSION;
	h->status.heartbeat = 123456789;
	h->status.rings_used = 1;
	h->status.agent_kind = 3;
	h->config.enabled = 0;
	ck_assert_int_eq(rs_region_status_read(&f.region, &st, &enabled), 0);
	ck_assert_uint_eq(st.attached, 1);
	ck_assert_uint_eq(st.abi_version, RS_ABI_VERSION);
	ck_assert_uint_eq(st.heartbeat, 123456789);
	ck_assert_uint_eq(st.rings_used, 1);
	ck_assert_uint_eq(st.agent_kind, 3);
	ck_assert_uint_eq(enabled, 0);
	h->status.heartbeat++;
	ck_assert_int_eq(rs_region_status_read(&f.region, &st, NULL), 0);
	ck_assert_uint_eq(st.heartbeat, 123456790);
	fx_region_fini(&f);
}
END_TEST

START_TEST(region_status_read_null)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_guest_status st;
	uint32_t enabled;

	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, 0);
	ck_assert_int_eq(rs_region_status_read(NULL, &st, &enabled), -rse_invalid);
	ck_assert_int_eq(rs_region_status_read(&f.region, NULL, &enabled), -rse_invalid);
	ck_assert_int_eq(rs_region_status_read(&(struct rs_region){ 0 }, &st, &enabled),
			 -rse_invalid);
	fx_region_fini(&f);
}
END_TEST

START_TEST(region_ring_view)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_ring ring;

	/* rs_ring's fields are public: they must match the descriptors */
	fx_params(&p, 2, 4);
	p.nr_rings = 5;
	p.data_mode = RS_MODE_OVERWRITE;
	fx_region_init(&f, &p, 0);
	for (uint32_t i = 0; i < 5; i++) {
		ck_assert_int_eq(rs_region_ring(&f.region, i, &ring), 0);
		ck_assert_ptr_eq(ring.ctrl, fx_ctrl(&f, i));
		ck_assert_ptr_eq(ring.data, fx_data(&f, i));
		ck_assert_ptr_eq(ring.aux, fx_aux(&f, i));
		ck_assert_uint_eq(ring.data_size, fx_data_size(&f, i));
		ck_assert_uint_eq(ring.aux_size, fx_aux_size(&f, i));
		ck_assert_uint_eq(ring.data_mode, RS_MODE_OVERWRITE);
		ck_assert_uint_eq(ring.aux_mode, RS_MODE_NORMAL);
		ck_assert_uint_eq(ring.index, i);
	}
	fx_region_fini(&f);
}
END_TEST

START_TEST(region_open_null)
{
	struct rs_region region;
	struct open_env e;

	open_env_init(&e);
	ck_assert_int_eq(rs_region_open(NULL, e.mem, e.size), -rse_invalid);
	ck_assert_int_eq(rs_region_open(&region, NULL, e.size), -rse_invalid);
	munmap(e.mem, e.size);
}
END_TEST

START_TEST(region_header_null)
{
	ck_assert_ptr_null(rs_region_header(NULL));
}
END_TEST

START_TEST(region_ring_null)
{
	struct rs_region region;
	struct rs_ring ring;
	struct open_env e;

	open_env_init(&e);
	ck_assert_int_eq(rs_region_open(&region, e.mem, e.size), 0);
	ck_assert_int_eq(rs_region_ring(NULL, 0, &ring), -rse_invalid);
	ck_assert_int_eq(rs_region_ring(&region, 0, NULL), -rse_invalid);
	ck_assert_int_eq(rs_region_ring(&region, 2, &ring), -rse_invalid);
	ck_assert_int_eq(rs_region_ring(&region, UINT32_MAX, &ring), -rse_invalid);
	ck_assert_int_eq(rs_region_ring(&region, 1, &ring), 0);
	munmap(e.mem, e.size);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("region");
	TCase *tc = fx_tcase(s, "region");
	int nbad = (int)(sizeof(bad_params) / sizeof(bad_params[0]));
	int nregion = (int)(sizeof(bad_regions) / sizeof(bad_regions[0]));

	tcase_add_test(tc, region_layout_one_ring);
	tcase_add_test(tc, region_layout_max_rings);
	tcase_add_test(tc, region_layout_no_aux);
	tcase_add_test(tc, region_layout_big_aux);
	tcase_add_test(tc, region_layout_larger_mem);
	tcase_add_test(tc, region_size_area_max);
	tcase_add_test(tc, region_size_grows);
	tcase_add_loop_test(tc, region_size_invalid_geometry, 0, nbad);
	tcase_add_loop_test(tc, region_layout_invalid_geometry, 0, nbad);
	tcase_add_test(tc, region_size_null);
	tcase_add_test(tc, region_layout_null);
	tcase_add_test(tc, region_layout_too_small);
	tcase_add_test(tc, region_layout_not_pow2);
	tcase_add_test(tc, region_layout_misaligned);
	tcase_add_loop_test(tc, region_open_invalid, 0, nregion);
	tcase_add_test(tc, region_open_too_small);
	tcase_add_test(tc, region_open_bad_mode);
	tcase_add_test(tc, region_open_config_watermark);
	tcase_add_test(tc, region_open_private_copy);
	tcase_add_test(tc, region_open_null);
	tcase_add_test(tc, region_config_copy);
	tcase_add_test(tc, region_config_null);
	tcase_add_test(tc, region_status_read_live);
	tcase_add_test(tc, region_status_read_null);
	tcase_add_test(tc, region_ring_view);
	tcase_add_test(tc, region_header_null);
	tcase_add_test(tc, region_ring_null);
	return fx_run(s);
}
