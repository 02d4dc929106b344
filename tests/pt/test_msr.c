// SPDX-License-Identifier: MIT
/* The RTIT MSR write rules and CPUID leaf 0x14. */
#include "pt_fixture.h"

static struct pv_msr m;

static void setup(void)
{
	pv_msr_init(&m, NULL);
}

#define CTL_ON (PV_CTL_TRACEEN | PV_CTL_TOPA | PV_CTL_OS | PV_CTL_BRANCHEN)

START_TEST(cpuid_contents)
{
	uint32_t r[4];

	pv_cpuid_14(&m.caps, 0, r);
	ck_assert_uint_eq(r[0], 1);
	ck_assert_uint_eq(r[1], 0x7);   /* CR3 filter, PSB/CYC, IP filter */
	ck_assert_uint_eq(r[2], 0x3);   /* ToPA, multiple entries */
	ck_assert_uint_eq(r[3], 0);
	pv_cpuid_14(&m.caps, 1, r);
	ck_assert_uint_eq(r[0], 2);     /* two ranges, no MTC periods */
	ck_assert_uint_eq(r[1], 0x003f0001u);
	pv_cpuid_14(&m.caps, 2, r);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
}
END_TEST

START_TEST(ctl_enable_disable)
{
	uint64_t v;

	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL, CTL_ON), 1);
	ck_assert_int_eq(pv_msr_read(&m, PV_MSR_RTIT_CTL, &v), 0);
	ck_assert_uint_eq(v, CTL_ON);
	/* the same value back: fine */
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL, CTL_ON), 0);
	/* any other change with TraceEn still set: #GP */
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL, CTL_ON | PV_CTL_USER),
			 -pve_gp);
	ck_assert_uint_eq(m.ctl, CTL_ON);
	/* clearing TraceEn */
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL,
				      CTL_ON & ~PV_CTL_TRACEEN), 1);
}
END_TEST

START_TEST(ctl_reserved_and_encodings)
{
	static const uint64_t bad[] = {
		1ull << 18, 1ull << 23, 1ull << 28, 1ull << 48, 1ull << 56,
		1ull << 63,
		PV_CTL_MTCEN,                           /* no MTC */
		3ull << PV_CTL_MTCFREQ_SHIFT,
		1ull << PV_CTL_CYCTHRESH_SHIFT,         /* only threshold 0 */
		6ull << PV_CTL_PSBFREQ_SHIFT,           /* PSBFreq 0..5 */
		PV_CTL_PTWEN, PV_CTL_FUPONPTW, PV_CTL_PWREVTEN, PV_CTL_FABRICEN,
		3ull << PV_CTL_ADDR_CFG_SHIFT(0),       /* cfg > 2 */
		1ull << PV_CTL_ADDR_CFG_SHIFT(2),       /* only 2 ranges */
		PV_CTL_TRACEEN | PV_CTL_OS,             /* ToPA=0, no single range */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(pv_msr_write(&m, PV_MSR_RTIT_CTL, bad[i]) == -pve_gp,
			      "CTL %#llx should fault", (unsigned long long)bad[i]);
		ck_assert_uint_eq(m.ctl, 0);
	}
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL,
				      (5ull << PV_CTL_PSBFREQ_SHIFT) |
				      (2ull << PV_CTL_ADDR_CFG_SHIFT(1)) |
				      PV_CTL_CR3FILTER | PV_CTL_TSCEN |
				      PV_CTL_DISRETC | PV_CTL_CYCEN), 0);
}
END_TEST

START_TEST(frozen_while_tracing)
{
	static const uint32_t idx[] = {
		PV_MSR_RTIT_STATUS, PV_MSR_RTIT_OUTPUT_BASE,
		PV_MSR_RTIT_OUTPUT_MASK_PTRS, PV_MSR_RTIT_CR3_MATCH,
		PV_MSR_RTIT_ADDR0_A, PV_MSR_RTIT_ADDR0_A + 3,
	};

	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL, CTL_ON), 1);
	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		ck_assert_int_eq(pv_msr_write(&m, idx[i], 0), -pve_gp);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL, 0), 1);
	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		ck_assert_int_eq(pv_msr_write(&m, idx[i], 0), 0);
}
END_TEST

START_TEST(output_base_alignment)
{
	uint64_t v;

	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_OUTPUT_BASE, 0x10040),
			 -pve_gp);  /* bits 6:0 reserved */
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_OUTPUT_BASE, 1ull << 46),
			 -pve_gp);  /* MAXPHYADDR 46 */
	/* 128-byte aligned is accepted; 4 KiB is the ToPA's business (an
	 * operational error, not a #GP). */
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_OUTPUT_BASE, 0x10080), 0);
	ck_assert_int_eq(pv_msr_read(&m, PV_MSR_RTIT_OUTPUT_BASE, &v), 0);
	ck_assert_uint_eq(v, 0x10080);
}
END_TEST

START_TEST(mask_ptrs_low_bits_forced)
{
	uint64_t v;

	ck_assert_int_eq(pv_msr_read(&m, PV_MSR_RTIT_OUTPUT_MASK_PTRS, &v), 0);
	ck_assert_uint_eq(v, 0x7f);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_OUTPUT_MASK_PTRS,
				      0x0000020000000180ull), 0);
	ck_assert_int_eq(pv_msr_read(&m, PV_MSR_RTIT_OUTPUT_MASK_PTRS, &v), 0);
	ck_assert_uint_eq(v, 0x00000200000001ffull);
}
END_TEST

START_TEST(status_rules)
{
	uint64_t v;

	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_STATUS, 1ull << 3), -pve_gp);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_STATUS, 1ull << 49), -pve_gp);
	/* FilterEn/ContextEn/TriggerEn: writes ignored */
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_STATUS,
				      PV_STATUS_FILTEREN | PV_STATUS_STOPPED |
				      (5ull << 32)), 0);
	ck_assert_int_eq(pv_msr_read(&m, PV_MSR_RTIT_STATUS, &v), 0);
	ck_assert_uint_eq(v, PV_STATUS_STOPPED | (5ull << 32));
}
END_TEST

START_TEST(cr3_and_addr)
{
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CR3_MATCH, 0x3008), -pve_gp);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CR3_MATCH, 0x3000), 0);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_ADDR0_A,
				      0x0000800000000000ull), -pve_gp);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_ADDR0_A,
				      0xffff800000000000ull), 0);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_ADDR0_A + 1, 0x100000), 0);
	/* ADDR2/ADDR3 do not exist with two ranges */
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_ADDR0_A + 4, 0), -pve_gp);
	ck_assert(!pv_msr_exists(&m, PV_MSR_RTIT_ADDR3_B));
	ck_assert(pv_msr_exists(&m, PV_MSR_RTIT_ADDR0_A + 3));
}
END_TEST

START_TEST(missing_features_fault)
{
	struct pv_caps c;
	uint64_t v;

	pv_cpuid_default(&c);
	c.leaf0[1] &= ~PV_CAP0_EBX_CR3FILTER;
	c.leaf0[2] = 0;  /* no ToPA, no single range */
	pv_msr_init(&m, &c);
	ck_assert_int_eq(pv_msr_read(&m, PV_MSR_RTIT_CR3_MATCH, &v), -pve_gp);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_OUTPUT_BASE, 0), -pve_gp);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL, PV_CTL_TOPA), -pve_gp);
	ck_assert_int_eq(pv_msr_write(&m, PV_MSR_RTIT_CTL, PV_CTL_CR3FILTER),
			 -pve_gp);
}
END_TEST

START_TEST(not_rtit)
{
	uint64_t v;

	ck_assert_int_eq(pv_msr_write(&m, 0x10, 0), -pve_no_msr);
	ck_assert_int_eq(pv_msr_read(&m, 0x573, &v), -pve_no_msr);
	ck_assert_int_eq(pv_msr_write(NULL, PV_MSR_RTIT_CTL, 0), -pve_invalid);
	ck_assert_int_eq(pv_msr_read(&m, PV_MSR_RTIT_CTL, NULL), -pve_invalid);
	ck_assert_uint_eq(pv_msr_psb_period(NULL), 0);
	ck_assert_uint_eq(pv_msr_psb_period(&m), 2048);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt-msr");
	TCase *t = tcase_create("msr");

	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, cpuid_contents);
	tcase_add_test(t, ctl_enable_disable);
	tcase_add_test(t, ctl_reserved_and_encodings);
	tcase_add_test(t, frozen_while_tracing);
	tcase_add_test(t, output_base_alignment);
	tcase_add_test(t, mask_ptrs_low_bits_forced);
	tcase_add_test(t, status_rules);
	tcase_add_test(t, cr3_and_addr);
	tcase_add_test(t, missing_features_fault);
	tcase_add_test(t, not_rtit);
	suite_add_tcase(s, t);
	return fx_run(s);
}
