/* SPDX-License-Identifier: MIT */
/* rs_region_open_layout: a region whose header was scribbled over, opened
 * by the params the host laid it out with. */
#include <string.h>

#include "fixture.h"

#define NR_RINGS 3u
#define PER_RING 40u

struct rec_test {
	struct fx_region f;
	struct rs_region_params p;
	struct rs_region region;
	struct rs_region_damage d;
};

/* Three overwrite rings, each holding seq records ring * 1000 + 0 ..
 * PER_RING - 1 (more than fit: the oldest are overwritten). */
static void rec_init(struct rec_test *t)
{
	fx_params(&t->p, 1, 0);
	t->p.nr_rings = NR_RINGS;
	t->p.data_mode = RS_MODE_OVERWRITE;
	t->p.sideband_pages = 2;
	fx_region_init(&t->f, &t->p, 0);
	for (uint32_t r = 0; r < NR_RINGS; r++) {
		struct rs_producer prod;

		ck_assert_int_eq(rs_producer_init(&prod, &t->f.region, r), 0);
		for (uint32_t i = 0; i < PER_RING; i++)
			ck_assert_int_ge(fx_seq_output(&prod, r * 1000u + i, 64), 0);
	}
}

static const struct rs_region_diff *find(const struct rs_region_damage *d,
					 uint32_t field, uint32_t ring)
{
	for (uint32_t i = 0; i < d->nr_diffs; i++)
		if (d->diff[i].field == field && d->diff[i].ring == ring)
			return &d->diff[i];
	return NULL;
}

START_TEST(open_layout_whole)
{
	struct rec_test t;

	rec_init(&t);
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem, t.f.size,
					       &t.p, &t.d), 0);
	ck_assert_uint_eq(t.d.nr_diffs, 0);
	ck_assert_uint_eq(t.d.nr_bad_rings, 0);
	/* the same view rs_region_open built from the header */
	ck_assert_uint_eq(rs_region_nr_rings(&t.region), NR_RINGS);
	ck_assert_uint_eq(t.region.sideband_size, t.f.region.sideband_size);
	ck_assert_uint_eq(t.region.sideband_offset, t.f.region.sideband_offset);
	ck_assert_mem_eq(t.region.rings, t.f.region.rings,
			 sizeof(t.region.rings[0]) * NR_RINGS);
	ck_assert_mem_eq(&t.region.config, &t.f.region.config,
			 sizeof(t.region.config));
	for (uint32_t r = 0; r < NR_RINGS; r++)
		ck_assert_uint_eq(fx_newest_seq(&t.region, r), r * 1000u + PER_RING - 1);
	fx_region_fini(&t.f);
}
END_TEST

/* What a guest going down might leave: the magic and ring count zeroed,
 * a descriptor pointing elsewhere, the data mode flipped. */
START_TEST(open_layout_scribbled_header)
{
	struct rs_region_header *h;
	const struct rs_region_diff *df;
	struct rec_test t;
	int ret;

	rec_init(&t);
	h = fx_header(&t.f);
	h->magic = 0;
	h->nr_rings = 0;
	h->rings[1].data_offset = 0x1000;
	h->config.data_mode = 7;
	memset(h->rings + NR_RINGS, 0xa5, sizeof(h->rings[0]));  /* unused slot */
	ck_assert_int_eq(rs_region_open(&t.region, t.f.mem, t.f.size), -rse_magic);

	ret = rs_region_open_layout(&t.region, t.f.mem, t.f.size, &t.p, &t.d);
	ck_assert_int_eq(ret, 4);
	ck_assert_uint_eq(t.d.nr_diffs, 4);
	ck_assert_uint_eq(t.d.nr_bad_rings, 0);
	df = find(&t.d, rs_hf_magic, 0);
	ck_assert_ptr_nonnull(df);
	ck_assert_uint_eq(df->seen, 0);
	ck_assert_uint_eq(df->laid_out, RS_REGION_MAGIC);
	df = find(&t.d, rs_hf_nr_rings, 0);
	ck_assert_ptr_nonnull(df);
	ck_assert_uint_eq(df->seen, 0);
	ck_assert_uint_eq(df->laid_out, NR_RINGS);
	df = find(&t.d, rs_hf_data_offset, 1);
	ck_assert_ptr_nonnull(df);
	ck_assert_uint_eq(df->seen, 0x1000);
	ck_assert_uint_eq(df->laid_out, t.f.region.rings[1].data_offset);
	df = find(&t.d, rs_hf_data_mode, 0);
	ck_assert_ptr_nonnull(df);
	ck_assert_uint_eq(df->seen, 7);
	ck_assert_str_eq(rs_region_field_name(rs_hf_nr_rings), "nr_rings");

	/* every ring, by the host's layout, newest record included */
	ck_assert_uint_eq(rs_region_nr_rings(&t.region), NR_RINGS);
	ck_assert_uint_eq(rs_region_config(&t.region)->data_mode,
			  RS_MODE_OVERWRITE);
	for (uint32_t r = 0; r < NR_RINGS; r++)
		ck_assert_uint_eq(fx_newest_seq(&t.region, r), r * 1000u + PER_RING - 1);
	fx_region_fini(&t.f);
}
END_TEST

/* The whole header page gone: still every ring. */
START_TEST(open_layout_header_page_wiped)
{
	struct rec_test t;
	uint64_t state = 7;
	int ret;

	rec_init(&t);
	for (uint32_t i = 0; i < RS_PAGE_SIZE; i += 8) {
		uint64_t v = fx_rand(&state);

		memcpy(t.f.mem + i, &v, sizeof(v));
	}
	ret = rs_region_open_layout(&t.region, t.f.mem, t.f.size, &t.p, &t.d);
	ck_assert_int_gt(ret, (int)RS_REGION_DIFF_MAX);
	ck_assert_uint_eq(t.d.nr_diffs, RS_REGION_DIFF_MAX);
	ck_assert_uint_eq(t.d.nr_diffs + t.d.more_diffs, (uint32_t)ret);
	for (uint32_t r = 0; r < NR_RINGS; r++)
		ck_assert_uint_eq(fx_newest_seq(&t.region, r), r * 1000u + PER_RING - 1);
	fx_region_fini(&t.f);
}
END_TEST

/* A ring whose own control page disagrees is skipped; the others stay. */
START_TEST(open_layout_bad_ctrl_page)
{
	struct rs_ring ring;
	struct rec_test t;

	rec_init(&t);
	fx_header(&t.f)->magic = 0;
	fx_ctrl(&t.f, 1)->data_size = 12345;
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem, t.f.size,
					       &t.p, &t.d), 2);
	ck_assert_uint_eq(t.d.nr_diffs, 1);
	ck_assert_uint_eq(t.d.bad_rings[0], 1u << 1);
	ck_assert_uint_eq(t.d.nr_bad_rings, 1);
	ck_assert_int_eq(rs_region_ring_skipped(&t.region, 1), 1);
	ck_assert_int_eq(rs_region_ring_skipped(&t.region, 0), 0);
	ck_assert_int_eq(rs_region_ring(&t.region, 1, &ring), -rse_corrupt);
	ck_assert_uint_eq(fx_newest_seq(&t.region, 0), PER_RING - 1);
	ck_assert_uint_eq(fx_newest_seq(&t.region, 2), 2000u + PER_RING - 1);
	fx_region_fini(&t.f);
}
END_TEST

/* The params are the caller's: checked like rs_region_layout checks them. */
START_TEST(open_layout_bad_args)
{
	struct rs_region_params p;
	struct rec_test t;

	rec_init(&t);
	ck_assert_int_eq(rs_region_open_layout(NULL, t.f.mem, t.f.size, &t.p,
					       &t.d), -rse_invalid);
	ck_assert_int_eq(rs_region_open_layout(&t.region, NULL, t.f.size, &t.p,
					       &t.d), -rse_invalid);
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem, t.f.size,
					       &t.p, NULL), -rse_invalid);
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem + 8, t.f.size,
					       &t.p, &t.d), -rse_invalid);
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem, t.f.size,
					       NULL, &t.d), -rse_invalid);
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem,
					       t.f.size - RS_PAGE_SIZE, &t.p,
					       &t.d), -rse_geometry);
	p = t.p;
	p.data_pages = 1u << 20;      /* larger than the memory */
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem, t.f.size,
					       &p, &t.d), -rse_too_small);
	p = t.p;
	p.nr_rings = 0;
	ck_assert_int_eq(rs_region_open_layout(&t.region, t.f.mem, t.f.size,
					       &p, &t.d), -rse_geometry);
	ck_assert_int_eq(rs_region_ring_skipped(NULL, 0), 0);
	ck_assert_str_eq(rs_region_field_name(rs_hf_max), "unknown field");
	fx_region_fini(&t.f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("region_recover");
	TCase *tc = fx_tcase(s, "open_layout");

	tcase_add_test(tc, open_layout_whole);
	tcase_add_test(tc, open_layout_scribbled_header);
	tcase_add_test(tc, open_layout_header_page_wiped);
	tcase_add_test(tc, open_layout_bad_ctrl_page);
	tcase_add_test(tc, open_layout_bad_args);
	return fx_run(s);
}
