// SPDX-License-Identifier: MIT
/*
 * ToPA: golden table layouts (values computed by hand from the SDM's
 * entry format), marker placement as aux_head/aux_tail move, and one case
 * per operational error of the validator.
 */
#include "pt_fixture.h"

static struct fx_mem mem;
static uint8_t *tables;
static struct pv_topa topa;

static void setup(void)
{
	memset(&mem, 0, sizeof(mem));
	tables = fx_mem_add(&mem, FX_TABLE_GPA, 0x10000);
	fx_mem_add(&mem, FX_AUX_GPA, 0x40000);
}

static void teardown(void)
{
	fx_mem_free(&mem);
}

static struct pv_topa_params params(uint64_t aux_size, uint64_t region,
				    uint32_t per, uint32_t flags)
{
	struct pv_topa_params p = {
		.size = sizeof(p),
		.flags = flags,
		.aux_gpa = FX_AUX_GPA,
		.aux_size = aux_size,
		.region_size = region,
		.table_gpa = FX_TABLE_GPA,
		.entries_per_table = per,
		.watermark = 0x2000,
	};
	return p;
}

static uint64_t raw(uint64_t gpa)
{
	uint64_t e;

	memcpy(&e, tables + (gpa - FX_TABLE_GPA), 8);
	return e;
}

/* 4 regions of 4 KiB, two per table: two tables chained in a ring. */
START_TEST(build_golden_chained)
{
	struct pv_topa_params p = params(0x4000, 0x1000, 2, 0);
	uint64_t bytes;

	ck_assert_int_eq(pv_topa_table_bytes(&p, &bytes), 0);
	ck_assert_uint_eq(bytes, 0x2000);
	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	ck_assert_uint_eq(raw(0x10000), 0x80040000ull);
	ck_assert_uint_eq(raw(0x10008), 0x80041000ull);
	ck_assert_uint_eq(raw(0x10010), 0x0000000000011001ull); /* END -> t1 */
	ck_assert_uint_eq(raw(0x11000), 0x80042000ull);
	ck_assert_uint_eq(raw(0x11008), 0x80043000ull);
	ck_assert_uint_eq(raw(0x11010), 0x0000000000010001ull); /* END -> t0 */
	ck_assert_uint_eq(topa.nr_tables, 2);
	ck_assert_uint_eq(topa.nr_regions, 4);
}
END_TEST

/* 8 KiB regions: size code 1 in bits 9:6 (0x40). */
START_TEST(build_golden_8k)
{
	struct pv_topa_params p = params(0x8000, 0x2000, 0, 0);

	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	ck_assert_uint_eq(raw(0x10000), 0x80040040ull);
	ck_assert_uint_eq(raw(0x10008), 0x80042040ull);
	ck_assert_uint_eq(raw(0x10010), 0x80044040ull);
	ck_assert_uint_eq(raw(0x10018), 0x80046040ull);
	ck_assert_uint_eq(raw(0x10020), 0x10001ull);
	ck_assert_uint_eq(topa.nr_tables, 1);
}
END_TEST

/* Single region of 64 KiB (code 4: 0x100) and an END back to the table. */
START_TEST(build_golden_single)
{
	struct pv_topa_params p = params(0x10000, 0, 0, PV_TOPA_SINGLE);

	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	ck_assert_uint_eq(raw(0x10000), 0x80040100ull);
	ck_assert_uint_eq(raw(0x10008), 0x10001ull);
	/* Normal mode: STOP|INT on the one region. */
	ck_assert_int_eq(pv_topa_markers(&topa, 0, 0), 0);
	ck_assert_uint_eq(raw(0x10000), 0x80040114ull);
	ck_assert_int_eq(pv_topa_check(&(struct pv_mem){ fx_mem_ptr, &mem },
				       FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false,
				       46, true, 16, NULL), 0);
}
END_TEST

START_TEST(build_bad_geometry)
{
	struct pv_topa_params p = params(0x4000, 0x1000, 2, 0);

	p.aux_size = 0x3000;
	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), -pve_geometry);
	p = params(0x4000, 0x800, 2, 0);
	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), -pve_geometry);
	p = params(0x4000, 0x1000, 2, 0);
	p.aux_gpa += 0x800;
	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), -pve_geometry);
	p = params(0x4000, 0x1000, 2, 0);
	p.table_gpa += 8;
	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), -pve_geometry);
	p = params(0x4000, 0x1000, 2, 0);
	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x1000), -pve_nomem);
	ck_assert_int_eq(pv_topa_build(NULL, &p, tables, 0x10000), -pve_invalid);
	ck_assert_int_eq(pv_topa_build(&topa, NULL, tables, 0x10000), -pve_invalid);
}
END_TEST

/* Markers follow head and tail; values by hand (STOP|INT = 0x14). */
START_TEST(markers_move)
{
	struct pv_topa_params p = params(0x4000, 0x1000, 2, 0);

	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	ck_assert_int_eq(pv_topa_markers(&topa, 0, 0), 0);
	ck_assert_uint_eq(raw(0x11008), 0x80043014ull); /* STOP at region 3 */
	ck_assert_uint_eq(raw(0x10008), 0x80041004ull); /* INT at 8 KiB */
	ck_assert_uint_eq(raw(0x10000), 0x80040000ull);

	/* head 10 KiB, tail 4 KiB: free up to 20 KiB = end of region 4 = 0. */
	ck_assert_int_eq(pv_topa_markers(&topa, 0x2800, 0x1000), 0);
	ck_assert_uint_eq(raw(0x10000), 0x80040014ull);
	ck_assert_uint_eq(raw(0x11008), 0x80043004ull); /* INT at 16 KiB */
	ck_assert_uint_eq(raw(0x10008), 0x80041000ull); /* old INT cleared */

	/* head 18 KiB, tail 2 KiB: region 4 would end past 18 KiB + ... */
	ck_assert_int_eq(pv_topa_markers(&topa, 0x4800, 0x0800), -pve_no_space);
	ck_assert_uint_eq(raw(0x10000), 0x80040014ull);
	ck_assert_uint_eq(raw(0x11008), 0x80043000ull);
	ck_assert_int_eq(pv_topa_markers(&topa, 0x5000, 0), -pve_invalid);
}
END_TEST

START_TEST(markers_snapshot_none)
{
	struct pv_topa_params p = params(0x4000, 0x1000, 2, PV_TOPA_SNAPSHOT);

	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	ck_assert_int_eq(pv_topa_markers(&topa, 0x12345, 0), 0);
	for (uint64_t g = 0x10000; g < 0x12000; g += 8)
		ck_assert_uint_eq(raw(g) & (PV_TOPA_STOP | PV_TOPA_INT), 0);
}
END_TEST

START_TEST(locate_roundtrip)
{
	struct pv_topa_params p = params(0x4000, 0x1000, 3, 0);
	uint64_t table;
	uint32_t index;

	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	for (uint32_t r = 0; r < 4; r++) {
		ck_assert_int_eq(pv_topa_locate(&topa, r, &table, &index), 0);
		ck_assert_int_eq(pv_topa_region_of(&topa, table, index), (int)r);
	}
	/* END slot of table 0 = region 3; END of the last table = region 0 */
	ck_assert_int_eq(pv_topa_region_of(&topa, 0x10000, 3), 3);
	ck_assert_int_eq(pv_topa_region_of(&topa, 0x11000, 1), 0);
	ck_assert_int_eq(pv_topa_region_of(&topa, 0x11000, 2), -pve_invalid);
	ck_assert_int_eq(pv_topa_locate(&topa, 4, &table, &index), -pve_invalid);
}
END_TEST

/* ---- the validator: one case per operational error ---------------------- */

static void put(uint64_t gpa, uint64_t e)
{
	memcpy(tables + (gpa - FX_TABLE_GPA), &e, 8);
}

static int walk(uint64_t base, uint64_t ptrs, bool stopped, bool single,
		struct pv_topa_fault *f)
{
	struct pv_mem pm = fx_pv_mem(&mem);

	return pv_topa_check(&pm, base, ptrs, stopped, 46, single, 64, f);
}

static void good_table(void)
{
	struct pv_topa_params p = params(0x4000, 0x1000, 2, 0);

	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	ck_assert_int_eq(pv_topa_markers(&topa, 0, 0), 0);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      NULL), 0);
}

START_TEST(check_ok_from_any_entry)
{
	good_table();
	ck_assert_int_eq(walk(0x11000, PV_MASK_PTRS(1, 0xfff), false, false,
			      NULL), 0);
	/* Index on an END entry: followed. */
	ck_assert_int_eq(walk(0x10000, PV_MASK_PTRS(2, 0), false, false, NULL),
			 0);
}
END_TEST

START_TEST(check_rsvd)
{
	struct pv_topa_fault f;

	good_table();
	for (int bit = 0; bit < 12; bit++) {
		uint64_t b = 1ull << bit;

		if (!(PV_TOPA_RSVD_LOW & b))
			continue;
		put(0x10008, 0x80041000ull | b);
		ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false,
				      false, &f), -pve_topa_rsvd);
		ck_assert_uint_eq(f.table, FX_TABLE_GPA);
		ck_assert_uint_eq(f.index, 1);
		ck_assert_uint_eq(f.entry, 0x80041000ull | b);
	}
}
END_TEST

START_TEST(check_maxphys)
{
	good_table();
	put(0x10008, 1ull << 46);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      NULL), -pve_topa_maxphys);
	ck_assert_int_eq(pv_topa_check_entry(1ull << 45, 0, 1, 46, false),
			 0);
	ck_assert_int_eq(pv_topa_check_entry(1ull << 45, 0, 1, 40, false),
			 -pve_topa_maxphys);
	ck_assert_int_eq(walk(1ull << 50, PV_MASK_PTRS(0, 0), false, false,
			      NULL), -pve_topa_maxphys);
}
END_TEST

START_TEST(check_table_align)
{
	good_table();
	ck_assert_int_eq(walk(FX_TABLE_GPA + 0x80, PV_MASK_PTRS(0, 0), false,
			      false, NULL), -pve_topa_table_align);
}
END_TEST

START_TEST(check_region_align)
{
	good_table();
	put(0x10008, 0x80041040ull);  /* 8 KiB region at an odd 4 KiB page */
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      NULL), -pve_topa_region_align);
	/* 2 MiB (code 9, 0x240) at base[20:12] != 0 */
	ck_assert_int_eq(pv_topa_check_entry(0x80201240ull, 0, 1, 46, false),
			 -pve_topa_region_align);
	ck_assert_int_eq(pv_topa_check_entry(0x80200240ull, 0, 1, 46, false),
			 0);
}
END_TEST

START_TEST(check_offset)
{
	good_table();
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0x1000), false,
			      false, NULL), -pve_topa_offset);
	/* After a ToPA STOP the offset is the region size: legal. */
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0x1000), true,
			      false, NULL), 0);
}
END_TEST

START_TEST(check_end_flags)
{
	good_table();
	put(0x10010, 0x11001ull | PV_TOPA_INT);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      NULL), -pve_topa_end_flags);
	put(0x10010, 0x11001ull | PV_TOPA_STOP);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      NULL), -pve_topa_end_flags);
}
END_TEST

START_TEST(check_end_first)
{
	good_table();
	put(0x11000, 0x10001ull);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      NULL), -pve_topa_end_first);
}
END_TEST

START_TEST(check_single_rules)
{
	struct pv_topa_params p = params(0x10000, 0, 0, PV_TOPA_SINGLE);

	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, true,
			      NULL), 0);
	put(0x10008, 0x11001ull);     /* END elsewhere */
	put(0x11000, 0x80040100ull);
	put(0x11008, 0x10001ull);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, true,
			      NULL), -pve_topa_single_base);
	/* A multi-entry CPU takes the same tables. */
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      NULL), 0);
	put(0x10008, 0x80050100ull);  /* a second output entry */
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, true,
			      NULL), -pve_topa_single_not_end);
}
END_TEST

START_TEST(check_unmapped)
{
	struct pv_topa_fault f;

	good_table();
	put(0x10008, 0x90000000ull);
	ck_assert_int_eq(walk(FX_TABLE_GPA, PV_MASK_PTRS(0, 0), false, false,
			      &f), -pve_unmapped);
	ck_assert_uint_eq(f.index, 1);
	ck_assert_int_eq(walk(0x40000000, PV_MASK_PTRS(0, 0), false, false,
			      &f), -pve_unmapped);
}
END_TEST

START_TEST(errstr_all)
{
	for (int e = 0; e < pve_max; e++)
		ck_assert_str_ne(pv_error_str(-e), "unknown error");
	ck_assert_str_eq(pv_error_str(-pve_max), "unknown error");
}
END_TEST

START_TEST(null_args)
{
	uint64_t b;

	ck_assert_int_eq(pv_topa_table_bytes(NULL, &b), -pve_invalid);
	ck_assert_int_eq(pv_topa_markers(NULL, 0, 0), -pve_invalid);
	ck_assert_int_eq(pv_topa_locate(NULL, 0, NULL, NULL), -pve_invalid);
	ck_assert_int_eq(pv_topa_region_of(NULL, 0, 0), -pve_invalid);
	ck_assert_uint_eq(pv_topa_entry(NULL, 0, 0), 0);
	ck_assert_int_eq(pv_topa_check(NULL, 0, 0, false, 46, false, 1, NULL),
			 -pve_unmapped);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt-topa");
	TCase *b = tcase_create("build");
	TCase *c = tcase_create("check");

	tcase_add_checked_fixture(b, setup, teardown);
	tcase_add_test(b, build_golden_chained);
	tcase_add_test(b, build_golden_8k);
	tcase_add_test(b, build_golden_single);
	tcase_add_test(b, build_bad_geometry);
	tcase_add_test(b, markers_move);
	tcase_add_test(b, markers_snapshot_none);
	tcase_add_test(b, locate_roundtrip);
	tcase_add_test(b, null_args);
	tcase_add_test(b, errstr_all);
	suite_add_tcase(s, b);
	tcase_add_checked_fixture(c, setup, teardown);
	tcase_add_test(c, check_ok_from_any_entry);
	tcase_add_test(c, check_rsvd);
	tcase_add_test(c, check_maxphys);
	tcase_add_test(c, check_table_align);
	tcase_add_test(c, check_region_align);
	tcase_add_test(c, check_offset);
	tcase_add_test(c, check_end_flags);
	tcase_add_test(c, check_end_first);
	tcase_add_test(c, check_single_rules);
	tcase_add_test(c, check_unmapped);
	suite_add_tcase(s, c);
	return fx_run(s);
}
