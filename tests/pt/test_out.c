// SPDX-License-Identifier: MIT
/*
 * The output engine at region ends, END chains, INT and STOP, with the
 * output MSRs checked after every step (values by hand), and operational
 * errors.  Layout: 4 regions of 4 KiB, two per table (tables at 0x10000
 * and 0x11000), AUX area at 0x80040000.
 */
#include "pt_fixture.h"

static struct fx_mem mem;
static uint8_t *tables, *aux;
static struct pv_topa topa;
static struct pv_msr msr;
static struct pv_out out;
static uint8_t pattern[0x6000];
static int pmi_calls;
static uint64_t pmi_base, pmi_mask;

static void on_pmi(void *arg, struct pv_out *o)
{
	(void)arg;
	pmi_calls++;
	pmi_base = o->msr->output_base;
	pmi_mask = o->msr->output_mask;
}

static void setup(void)
{
	struct pv_topa_params p = {
		.size = sizeof(p), .aux_gpa = FX_AUX_GPA, .aux_size = 0x4000,
		.region_size = 0x1000, .table_gpa = FX_TABLE_GPA,
		.entries_per_table = 2, .watermark = 0x2000,
	};
	struct pv_mem pm;

	memset(&mem, 0, sizeof(mem));
	tables = fx_mem_add(&mem, FX_TABLE_GPA, 0x10000);
	aux = fx_mem_add(&mem, FX_AUX_GPA, 0x4000);
	ck_assert_int_eq(pv_topa_build(&topa, &p, tables, 0x10000), 0);
	pv_msr_init(&msr, NULL);
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_OUTPUT_BASE, FX_TABLE_GPA), 0);
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_OUTPUT_MASK_PTRS, 0), 0);
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_CTL, PV_CTL_TRACEEN |
				      PV_CTL_TOPA | PV_CTL_BRANCHEN), 1);
	pm = fx_pv_mem(&mem);
	pv_out_init(&out, &msr, &pm, on_pmi, NULL);
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 31 + (i >> 8));
	pmi_calls = 0;
}

static void teardown(void)
{
	fx_mem_free(&mem);
}

static void ptrs(uint64_t base, uint32_t index, uint64_t offset)
{
	ck_assert_uint_eq(msr.output_base, base);
	ck_assert_uint_eq(msr.output_mask, PV_MASK_PTRS(index, offset));
}

START_TEST(region_end_advances_entry)
{
	ck_assert_int_eq(pv_out_write(&out, pattern, 100), 100);
	ptrs(0x10000, 0, 100);
	ck_assert_int_eq(pv_out_write(&out, pattern + 100, 0x1000 - 100), 0xf9c);
	ptrs(0x10000, 1, 0);                     /* 0x00000000000000ff */
	ck_assert_uint_eq(msr.output_mask, 0xffull);
	ck_assert_int_eq(pv_out_write(&out, pattern + 0x1000, 1), 1);
	ptrs(0x10000, 1, 1);
	ck_assert_uint_eq(msr.output_mask, 0x00000001000000ffull);
	ck_assert_mem_eq(aux, pattern, 0x1001);
	ck_assert_uint_eq(out.stats.regions, 1);
}
END_TEST

START_TEST(end_chains_tables_and_wraps)
{
	ck_assert_int_eq(pv_out_write(&out, pattern, 0x2000), 0x2000);
	/* The index rests on table 0's END entry until the next byte. */
	ptrs(0x10000, 2, 0);
	ck_assert_uint_eq(out.stats.ends, 0);
	ck_assert_int_eq(pv_out_write(&out, pattern + 0x2000, 0x10), 0x10);
	ptrs(0x11000, 0, 0x10);
	ck_assert_uint_eq(out.stats.ends, 1);
	ck_assert_int_eq(pv_out_write(&out, pattern + 0x2010, 0x1ff0), 0x1ff0);
	ptrs(0x11000, 2, 0);
	ck_assert_mem_eq(aux, pattern, 0x4000);
	/* Last END goes back to table 0: the buffer wraps. */
	ck_assert_int_eq(pv_out_write(&out, pattern + 0x4000, 0x20), 0x20);
	ptrs(0x10000, 0, 0x20);
	ck_assert_uint_eq(out.stats.ends, 2);
	ck_assert_mem_eq(aux, pattern + 0x4000, 0x20);
	ck_assert_mem_eq(aux + 0x20, pattern + 0x20, 0x4000 - 0x20);
	ck_assert_int_eq(pmi_calls, 0);
}
END_TEST

START_TEST(int_raises_pmi_with_exact_pointers)
{
	ck_assert_int_eq(pv_topa_markers(&topa, 0, 0), 0);  /* INT region 1 */
	ck_assert_int_eq(pv_out_write(&out, pattern, 0x1fff), 0x1fff);
	ck_assert_int_eq(pmi_calls, 0);
	ck_assert_int_eq(pv_out_write(&out, pattern + 0x1fff, 2), 2);
	ck_assert_int_eq(pmi_calls, 1);
	ck_assert_uint_eq(pmi_base, 0x10000);
	ck_assert_uint_eq(pmi_mask, PV_MASK_PTRS(2, 0));
	ptrs(0x11000, 0, 1);
}
END_TEST

START_TEST(stop_sets_stopped_and_drops)
{
	uint64_t v;

	ck_assert_int_eq(pv_topa_markers(&topa, 0, 0), 0); /* STOP region 3 */
	ck_assert_int_eq(pv_out_write(&out, pattern, 0x5000), 0x4000);
	ck_assert(msr.status & PV_STATUS_STOPPED);
	/* Table of the STOP entry, its index, offset = region size. */
	ptrs(0x11000, 1, 0x1000);
	ck_assert_uint_eq(msr.output_mask, 0x00001000000000ffull);
	ck_assert_uint_eq(out.stats.dropped, 0x1000);
	ck_assert_uint_eq(out.stats.stops, 1);
	ck_assert_int_eq(pmi_calls, 2);     /* INT at region 1, STOP|INT at 3 */
	ck_assert_int_eq(pv_out_write(&out, pattern, 10), 0);
	ck_assert(!pv_out_active(&out));
	ck_assert_mem_eq(aux, pattern, 0x4000);
	/* The guest sees the same through RDMSR once TraceEn is off. */
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_CTL, PV_CTL_TOPA |
				      PV_CTL_BRANCHEN), 1);
	ck_assert_int_eq(pv_msr_read(&msr, PV_MSR_RTIT_STATUS, &v), 0);
	ck_assert_uint_eq(v & PV_STATUS_STOPPED, PV_STATUS_STOPPED);
	/* Re-enabling with Stopped set and the offset at the region end is
	 * legal; with Stopped cleared it is an operational error. */
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_STATUS, 0), 0);
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_CTL, PV_CTL_TRACEEN |
				      PV_CTL_TOPA | PV_CTL_BRANCHEN), 1);
	ck_assert_int_eq(pv_out_write(&out, pattern, 1), 0);
	ck_assert(msr.status & PV_STATUS_ERROR);
	ck_assert_int_eq(out.fault.err, -pve_topa_offset);
}
END_TEST

START_TEST(operational_error_on_bad_entry)
{
	uint64_t bad = 0x80041000ull | PV_TOPA_END | PV_TOPA_INT;

	memcpy(tables + 8, &bad, 8);
	ck_assert_int_eq(pv_out_write(&out, pattern, 0x1800), 0x1000);
	ck_assert(msr.status & PV_STATUS_ERROR);
	ck_assert_int_eq(out.fault.err, -pve_topa_end_flags);
	ck_assert_uint_eq(out.fault.index, 1);
	ck_assert_uint_eq(out.stats.errors, 1);
	ck_assert_uint_eq(out.stats.dropped, 0x800);
}
END_TEST

START_TEST(misaligned_table_base)
{
	msr.output_base = FX_TABLE_GPA + 0x80;
	ck_assert_int_eq(pv_out_write(&out, pattern, 1), 0);
	ck_assert_int_eq(out.fault.err, -pve_topa_table_align);
}
END_TEST

START_TEST(inactive_stores_nothing)
{
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_CTL, 0), 1);
	ck_assert_int_eq(pv_out_write(&out, pattern, 5), 0);
	ck_assert_uint_eq(out.stats.dropped, 5);
	ck_assert_int_eq(pv_out_write(NULL, pattern, 5), -pve_invalid);
	ck_assert_int_eq(pv_out_write(&out, NULL, 5), -pve_invalid);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt-out");
	TCase *t = tcase_create("out");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, region_end_advances_entry);
	tcase_add_test(t, end_chains_tables_and_wraps);
	tcase_add_test(t, int_raises_pmi_with_exact_pointers);
	tcase_add_test(t, stop_sets_stopped_and_drops);
	tcase_add_test(t, operational_error_on_bad_entry);
	tcase_add_test(t, misaligned_table_base);
	tcase_add_test(t, inactive_stores_nothing);
	suite_add_tcase(s, t);
	return fx_run(s);
}
