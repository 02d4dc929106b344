/* SPDX-License-Identifier: MIT */
/*
 * The ring table (RS_FEATURE_RING_TABLE): regions of more rings than the
 * header page holds descriptors for, up to RS_MAX_RINGS; what a reader
 * that does not know the table sees of them; a table the guest scribbled
 * over, opened by the header (refused) and by the host's layout (the
 * damage listed, every ring that still validates readable).
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* A region of @n rings of one data page, overwrite mode, no AUX. */
static void table_init(struct fx_region *f, struct rs_region_params *p,
		       uint32_t n)
{
	fx_params(p, 1, 0);
	p->nr_rings = n;
	p->data_mode = RS_MODE_OVERWRITE;
	fx_region_init(f, p, 0);
}

/* One seq record into ring @r, through the library's producer. */
static void put_seq(const struct rs_region *region, uint32_t r, uint64_t seq)
{
	struct rs_producer prod;

	ck_assert_int_eq(rs_producer_init(&prod, region, r), 0);
	ck_assert_int_ge(fx_seq_output(&prod, seq, 8), 0);
}

START_TEST(table_1024_rings)
{
	struct rs_region_params p;
	struct rs_region_damage d;
	struct fx_region f;
	struct rs_region *reg = malloc(sizeof(*reg));
	const struct rs_region_header *h;

	ck_assert_ptr_nonnull(reg);
	table_init(&f, &p, RS_MAX_RINGS);
	h = fx_header(&f);
	ck_assert_uint_eq(h->nr_rings, RS_HDR_RINGS);
	ck_assert_uint_eq(h->nr_rings_total, RS_MAX_RINGS);
	ck_assert(h->config.features & RS_FEATURE_RING_TABLE);
	/* the table fills the pages between the header and ring 0 */
	ck_assert_uint_eq(fx_desc(&f, 0)->ctrl_offset,
			  RS_PAGE_SIZE + rs_ring_table_size(RS_MAX_RINGS));
	ck_assert_uint_eq(rs_ring_table_size(RS_MAX_RINGS), 16 * RS_PAGE_SIZE);
	ck_assert_uint_eq(rs_region_nr_rings(&f.region), RS_MAX_RINGS);
	/* every ring its own: a record in each, each read back from its own */
	for (uint32_t r = 0; r < RS_MAX_RINGS; r++) {
		ck_assert_uint_eq(fx_ctrl(&f, r)->index, r);
		put_seq(&f.region, r, 5000u + r);
	}
	for (uint32_t r = 0; r < RS_MAX_RINGS; r++)
		FX_CHECK(fx_newest_seq(&f.region, r) == 5000u + r, "ring %u", r);
	/* the host's own layout agrees, nothing damaged */
	ck_assert_int_eq(rs_region_open_layout(reg, f.mem, f.size, &p, &d), 0);
	ck_assert_uint_eq(rs_region_nr_rings(reg), RS_MAX_RINGS);
	ck_assert_uint_eq(fx_newest_seq(reg, RS_MAX_RINGS - 1),
			  5000u + RS_MAX_RINGS - 1);
	/* the last ring's records stay inside its own data area */
	ck_assert_uint_le(fx_desc(&f, RS_MAX_RINGS - 1)->data_offset +
			  fx_data_size(&f, RS_MAX_RINGS - 1), f.size);
	free(reg);
	fx_region_fini(&f);
}
END_TEST

/* Up to RS_HDR_RINGS rings a region is what it always was: no table. */
START_TEST(table_none_at_48)
{
	struct rs_region_params p;
	struct fx_region f;

	table_init(&f, &p, RS_HDR_RINGS);
	ck_assert_uint_eq(fx_header(&f)->nr_rings, RS_HDR_RINGS);
	ck_assert_uint_eq(fx_header(&f)->nr_rings_total, 0);
	ck_assert(!(fx_header(&f)->config.features & RS_FEATURE_RING_TABLE));
	ck_assert_uint_eq(fx_desc(&f, 0)->ctrl_offset, RS_PAGE_SIZE);
	fx_region_fini(&f);

	/* the host cannot lay out a table by asking for the bit */
	fx_params(&p, 1, 0);
	p.nr_rings = 2;
	p.features = RS_FEATURE_RING_TABLE;
	fx_region_init(&f, &p, 0);
	ck_assert(!(fx_header(&f)->config.features & RS_FEATURE_RING_TABLE));
	fx_region_fini(&f);
}
END_TEST

/*
 * A reader of ABI v1 without the table reads neither the feature bit nor
 * nr_rings_total (offset 56 was reserved): it sees a header of 48 rings.
 * Clearing both in a copy of the region is that reader's view; it must
 * validate whole, and its rings be the first 48 of the new reader's.
 */
START_TEST(table_old_reader)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_region old;
	struct rs_region_header *h;
	uint8_t *copy;

	table_init(&f, &p, 200);
	for (uint32_t r = 0; r < 200; r++)
		put_seq(&f.region, r, 7000u + r);
	copy = aligned_alloc(RS_PAGE_SIZE, f.size);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, f.mem, f.size);
	h = (struct rs_region_header *)copy;
	h->config.features &= ~(uint32_t)RS_FEATURE_RING_TABLE;
	h->nr_rings_total = 0;
	ck_assert_int_eq(rs_region_open(&old, copy, f.size), 0);
	ck_assert_uint_eq(rs_region_nr_rings(&old), RS_HDR_RINGS);
	for (uint32_t r = 0; r < RS_HDR_RINGS; r++) {
		struct rs_ring a, b;

		ck_assert_int_eq(rs_region_ring(&old, r, &a), 0);
		ck_assert_int_eq(rs_region_ring(&f.region, r, &b), 0);
		FX_CHECK(a.data - copy == b.data - f.mem, "ring %u moved", r);
		FX_CHECK(fx_newest_seq(&old, r) == 7000u + r, "ring %u", r);
	}
	/* an old guest writes CPU c into ring c mod 48: a new host reads it */
	put_seq(&old, 130 % RS_HDR_RINGS, 130);
	h->config.features |= RS_FEATURE_RING_TABLE;
	h->nr_rings_total = 200;
	ck_assert_int_eq(rs_region_open(&old, copy, f.size), 0);
	ck_assert_uint_eq(rs_region_nr_rings(&old), 200);
	ck_assert_uint_eq(fx_newest_seq(&old, 130 % RS_HDR_RINGS), 130);
	ck_assert_uint_eq(fx_newest_seq(&old, 130), 7130);
	free(copy);
	fx_region_fini(&f);
}
END_TEST

/* One way of spoiling the table or its count, and the error of
 * rs_region_open. */
struct spoil {
	const char *what;
	void (*fn)(struct fx_region *f);
	int agree;   /* the guest makes the control pages agree with it */
};

/* A guest that means it rewrites each table ring's control page to agree
 * with its descriptor, so that only the geometry can refuse it. */
static void make_agree(struct fx_region *f, uint32_t nr)
{
	for (uint32_t i = RS_HDR_RINGS; i < nr; i++) {
		const struct rs_ring_desc *d = fx_desc(f, i);
		struct rs_ctrl_page *c;

		if (d->ctrl_offset % RS_PAGE_SIZE ||
		    d->ctrl_offset > f->size - RS_PAGE_SIZE ||
		    d->ctrl_offset < RS_PAGE_SIZE + rs_ring_table_size(nr))
			continue;
		c = (struct rs_ctrl_page *)(f->mem + d->ctrl_offset);
		c->data_offset = d->data_offset - d->ctrl_offset;
		c->data_size = d->data_size;
		c->aux_offset = d->aux_size ? d->aux_offset - d->ctrl_offset : 0;
		c->aux_size = d->aux_size;
	}
}

static void total_over(struct fx_region *f)
{
	fx_header(f)->nr_rings_total = RS_MAX_RINGS + 1;
}
static void total_48(struct fx_region *f)
{
	fx_header(f)->nr_rings_total = RS_HDR_RINGS;
}
static void total_huge(struct fx_region *f)
{
	fx_header(f)->nr_rings_total = UINT32_MAX;
}
static void total_without_bit(struct fx_region *f)
{
	fx_header(f)->config.features &= ~(uint32_t)RS_FEATURE_RING_TABLE;
	fx_header(f)->nr_rings = 2;
}
static void bit_short_header(struct fx_region *f)
{
	fx_header(f)->nr_rings = 47;
}
static void table_desc_outside(struct fx_region *f)
{
	fx_desc(f, 100)->data_offset = f->size;
}
static void table_desc_wraps(struct fx_region *f)
{
	fx_desc(f, 150)->data_offset = 0 - fx_desc(f, 150)->data_size;
}
static void table_desc_over_header(struct fx_region *f)
{
	/* a control page inside the table itself */
	fx_desc(f, 60)->ctrl_offset = RS_RING_TABLE_OFFSET;
}
static void table_desc_over_other(struct fx_region *f)
{
	/* ring 199's data over ring 3's (header's) data */
	fx_desc(f, 199)->data_offset = fx_desc(f, 3)->data_offset;
}
static void table_desc_over_ctrl(struct fx_region *f)
{
	fx_desc(f, 120)->ctrl_offset = fx_desc(f, 121)->ctrl_offset;
}
static void table_ctrl_disagrees(struct fx_region *f)
{
	fx_ctrl(f, 180)->data_size = 3 * RS_PAGE_SIZE;
}
static void table_desc_misaligned(struct fx_region *f)
{
	fx_desc(f, 70)->data_offset += 8;
}
static void table_total_beyond_region(struct fx_region *f)
{
	/* more rings than the table laid out holds: what follows it
	 * (ring 0's control page) is no descriptor */
	fx_header(f)->nr_rings_total = RS_MAX_RINGS;
}

static const struct spoil spoils[] = {
	{ "nr_rings_total over the maximum", total_over },
	{ "nr_rings_total of 48 with the bit", total_48 },
	{ "nr_rings_total 2^32-1", total_huge },
	{ "nr_rings_total without the bit", total_without_bit },
	{ "the bit with fewer than 48 header rings", bit_short_header },
	{ "a table descriptor outside the region", table_desc_outside, 1 },
	{ "a table descriptor that wraps", table_desc_wraps, 1 },
	{ "a control page in the table", table_desc_over_header },
	{ "a table ring over a header ring", table_desc_over_other, 1 },
	{ "two table rings on one control page", table_desc_over_ctrl, 1 },
	{ "a table ring's control page disagrees", table_ctrl_disagrees },
	{ "a table descriptor misaligned", table_desc_misaligned, 1 },
	{ "a count beyond the table laid out", table_total_beyond_region },
};

START_TEST(table_corrupt_refused)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_region reg;

	table_init(&f, &p, 200);
	spoils[_i].fn(&f);
	if (spoils[_i].agree)
		make_agree(&f, 200);
	ck_assert_msg(rs_region_open(&reg, f.mem, f.size) == -rse_geometry,
		      "%s: accepted", spoils[_i].what);
	fx_region_fini(&f);
}
END_TEST

/* The host opens by its own layout: a scribbled table is listed as damage,
 * a ring whose control page disagrees is skipped, the rest stay
 * readable. */
START_TEST(table_corrupt_host_layout)
{
	struct rs_region_params p;
	struct rs_region_damage d;
	struct fx_region f;
	struct rs_region *reg = malloc(sizeof(*reg));
	struct rs_ring ring;
	int found = 0;

	ck_assert_ptr_nonnull(reg);
	table_init(&f, &p, RS_MAX_RINGS);
	for (uint32_t r = 0; r < RS_MAX_RINGS; r++)
		put_seq(&f.region, r, 9000u + r);
	memset(f.mem + RS_RING_TABLE_OFFSET + 64 * 10, 0xa5, 64 * 3);
	fx_header(&f)->nr_rings_total = 5;
	fx_ctrl(&f, 1000)->data_size = 12345;
	ck_assert_int_eq(rs_region_open(reg, f.mem, f.size), -rse_geometry);
	ck_assert_int_gt(rs_region_open_layout(reg, f.mem, f.size, &p, &d), 0);
	/* nr_rings_total, then the 15 fields of rings 58..60 (3 x 5) */
	ck_assert_uint_eq(d.nr_diffs, RS_REGION_DIFF_MAX);
	ck_assert_uint_eq(d.nr_diffs + d.more_diffs, 1 + 3 * 5);
	for (uint32_t i = 0; i < d.nr_diffs; i++) {
		if (d.diff[i].field == rs_hf_nr_rings_total) {
			ck_assert_uint_eq(d.diff[i].seen, 5);
			ck_assert_uint_eq(d.diff[i].laid_out, RS_MAX_RINGS);
			found = 1;
		} else {
			ck_assert_uint_ge(d.diff[i].ring, RS_HDR_RINGS + 10);
			ck_assert_uint_le(d.diff[i].ring, RS_HDR_RINGS + 12);
		}
	}
	ck_assert(found);
	ck_assert_str_eq(rs_region_field_name(rs_hf_nr_rings_total),
			 "nr_rings_total");
	ck_assert_uint_eq(d.nr_bad_rings, 1);
	ck_assert_int_eq(rs_region_damage_bad_ring(&d, 1000), 1);
	ck_assert_uint_eq(d.bad_rings[1000 / 64], 1ull << (1000 % 64));
	ck_assert_int_eq(rs_region_ring(reg, 1000, &ring), -rse_corrupt);
	/* the rings whose descriptors were scribbled are found by the layout */
	for (uint32_t r = RS_HDR_RINGS + 10; r <= RS_HDR_RINGS + 12; r++)
		ck_assert_uint_eq(fx_newest_seq(reg, r), 9000u + r);
	ck_assert_uint_eq(fx_newest_seq(reg, RS_MAX_RINGS - 1),
			  9000u + RS_MAX_RINGS - 1);
	free(reg);
	fx_region_fini(&f);
}
END_TEST

/* A table in an order no layout makes (two rings swapped) is valid: the
 * check falls back to every pair, and still finds an overlap there. */
START_TEST(table_any_order)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_region reg;
	struct rs_ring_desc t;

	table_init(&f, &p, 300);
	put_seq(&f.region, 100, 100);
	put_seq(&f.region, 250, 250);
	t = *fx_desc(&f, 100);
	*fx_desc(&f, 100) = *fx_desc(&f, 250);
	*fx_desc(&f, 250) = t;
	ck_assert_int_eq(rs_region_open(&reg, f.mem, f.size), 0);
	ck_assert_uint_eq(fx_newest_seq(&reg, 100), 250);
	ck_assert_uint_eq(fx_newest_seq(&reg, 250), 100);
	fx_desc(&f, 250)->data_offset = fx_desc(&f, 299)->data_offset;
	ck_assert_int_eq(rs_region_open(&reg, f.mem, f.size), -rse_geometry);
	fx_region_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("region_table");
	TCase *tc = fx_tcase(s, "table");

	tcase_add_test(tc, table_1024_rings);
	tcase_add_test(tc, table_none_at_48);
	tcase_add_test(tc, table_old_reader);
	tcase_add_loop_test(tc, table_corrupt_refused, 0,
			    (int)(sizeof(spoils) / sizeof(spoils[0])));
	tcase_add_test(tc, table_corrupt_host_layout);
	tcase_add_test(tc, table_any_order);
	return fx_run(s);
}
