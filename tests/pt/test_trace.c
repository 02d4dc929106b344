// SPDX-License-Identifier: MIT
/*
 * Round trips through a single-stepped guest: the PT payload programs the
 * RTIT MSRs itself, the VMM generates packets through the ToPA into the
 * AUX ring, and libipt's decoder must reproduce the ground truth
 * instruction for instruction.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "trace_fixture.h"

static struct tr x;

static void teardown(void)
{
	tr_fini(&x);
}

static void guest_done(void)
{
	const struct pv_guest_mailbox *mb = pv_trace_mailbox(x.t);

	ck_assert_msg(mb->cpuid_pt == 1, "cpuid 7 ebx %#x 14 ecx %#x",
		      mb->cpuid7_ebx, mb->cpuid14_ecx);
	ck_assert_uint_eq(mb->phase, PV_PHASE_DONE);
	ck_assert_uint_eq(mb->gp_faults, 0);
}

static void roundtrip(uint32_t wl, uint32_t iters)
{
	struct tr_opts o;

	tr_opts(&o, wl, iters);
	tr_run(&x, &o);
	guest_done();
	tr_decode(&x, 0);
	tr_check_equal(&x);
	ck_assert_uint_eq(x.dec.enabled, 1);
	ck_assert_uint_eq(x.dec.disabled, 1);
	ck_assert_uint_eq(pv_trace_stats(x.t)->hlt_stops, 0);
}

START_TEST(roundtrip_branches)
{
	roundtrip(PV_WL_BRANCHES, 200);
	ck_assert_uint_gt(pv_trace_gen_stats(x.t)->tnt, 50);
}
END_TEST

START_TEST(roundtrip_calls)
{
	roundtrip(PV_WL_CALLS, 5);     /* fib(8) */
}
END_TEST

START_TEST(roundtrip_indirect)
{
	roundtrip(PV_WL_INDIRECT, 60);
	ck_assert_uint_gt(pv_trace_gen_stats(x.t)->tip, 100);
}
END_TEST

START_TEST(roundtrip_exception_and_interrupt)
{
	struct tr_opts o;

	tr_opts(&o, PV_WL_EXCEPTION, 20);
	o.tp.irq_at = 40;
	tr_run(&x, &o);
	guest_done();
	ck_assert_uint_eq(pv_trace_mailbox(x.t)->breakpoints, 5);
	ck_assert_uint_eq(pv_trace_mailbox(x.t)->interrupts, 1);
	ck_assert_uint_eq(pv_trace_stats(x.t)->breakpoints, 5);
	ck_assert_uint_eq(pv_trace_stats(x.t)->irqs, 1);
	tr_decode(&x, 0);
	tr_check_equal(&x);
	ck_assert_uint_eq(x.dec.interrupts, 1);
}
END_TEST

START_TEST(roundtrip_all_chained_tables_no_retcomp)
{
	struct tr_opts o;

	tr_opts(&o, PV_WL_ALL, 700);
	o.aux_pages = 4;                /* watermark 8 KiB: a PMI midway */
	o.tp.entries_per_table = 2;     /* 2 tables chained by END */
	o.tp.ctl = PV_CTL_TRACEEN | PV_CTL_TOPA | PV_CTL_OS |
		   PV_CTL_BRANCHEN | PV_CTL_TSCEN | PV_CTL_DISRETC;
	tr_run(&x, &o);
	guest_done();
	tr_decode(&x, 0);
	tr_check_equal(&x);
	ck_assert_uint_ge(pv_trace_out_stats(x.t)->regions, 2);
	ck_assert_uint_gt(pv_trace_out_stats(x.t)->ends, 0);
	ck_assert_uint_gt(x.aux_recs, 1);
	ck_assert_uint_eq(x.aux_truncated, 0);
	/* The PMI at the 8 KiB watermark rang the host's doorbell. */
	ck_assert_uint_ge(pv_trace_aux_stats(x.t)->wakeups, 1);
	ck_assert_uint_eq(pv_trace_stats(x.t)->doorbells,
			  pv_trace_aux_stats(x.t)->wakeups);
	ck_assert_int_ge(vmm_doorbell_collect(x.vm, 0), 1);
}
END_TEST

START_TEST(snapshot_wraps_and_decodes_from_last_psb)
{
	static uint8_t buf[4096];
	struct rs_aux_snapshot s;
	struct tr_opts o;

	/* Indirect branches: ~0.27 trace bytes per instruction. */
	tr_opts(&o, PV_WL_INDIRECT, 900);
	o.aux_pages = 1;
	o.aux_mode = RS_MODE_OVERWRITE;
	tr_run(&x, &o);
	guest_done();
	ck_assert_uint_gt(pv_trace_out_stats(x.t)->bytes, sizeof(buf) + 1024);
	ck_assert_uint_gt(pv_trace_out_stats(x.t)->ends, 0);    /* wrapped */
	ck_assert_int_eq(rs_snapshot_aux(&s, vmm_region(x.vm), 0, buf,
					 sizeof(buf)), 0);
	ck_assert_uint_eq(s.len, sizeof(buf));
	x.aux = malloc(s.len);
	memcpy(x.aux, buf, s.len);
	x.aux_len = s.len;
	tr_decode(&x, 1);
	ck_assert_uint_eq(x.dec.errors, 0);
	tr_check_suffix(&x);
	ck_assert_uint_eq(x.dec.disabled, 1);
}
END_TEST

START_TEST(stop_truncates_and_decode_ends_cleanly)
{
	struct tr_opts o;

	tr_opts(&o, PV_WL_INDIRECT, 600);
	o.aux_pages = 1;
	o.drain = 0;                    /* nobody consumes: ToPA STOP */
	tr_run(&x, &o);
	guest_done();
	ck_assert_uint_ge(pv_trace_out_stats(x.t)->stops, 1);
	ck_assert_uint_ge(x.aux_truncated, 1);
	ck_assert(pv_trace_msr(x.t)->status & PV_STATUS_STOPPED);
	ck_assert_uint_eq(pv_trace_mailbox(x.t)->rdmsr_status &
			  PV_STATUS_STOPPED, PV_STATUS_STOPPED);
	/* The ring holds the first 4 KiB, cut mid-packet; the decode ends at
	 * the cut without an error and agrees with the ground truth. */
	ck_assert_uint_eq(x.aux_len, 4096);
	ck_assert_uint_eq(x.aux_pos, 0);
	tr_decode(&x, 0);
	ck_assert_uint_eq(x.dec.errors, 0);
	tr_check_prefix(&x);
	ck_assert_uint_lt(x.ndecoded, pv_trace_stats(x.t)->insns);
}
END_TEST

START_TEST(msr_rules_in_guest)
{
	struct tr_opts o;
	const struct pv_guest_mailbox *mb;

	tr_opts(&o, PV_WL_MSR_RULES, 0);
	tr_run(&x, &o);
	mb = pv_trace_mailbox(x.t);
	ck_assert_uint_eq(mb->phase, PV_PHASE_DONE);
	ck_assert_uint_eq(mb->gp_faults, 8);
	ck_assert_uint_eq(pv_trace_stats(x.t)->msr_gp, 8);
	ck_assert_uint_eq(mb->rdmsr_ctl, PV_CTL_TRACEEN | PV_CTL_TOPA |
			  PV_CTL_OS | PV_CTL_BRANCHEN);
	ck_assert_uint_eq(pv_trace_msr(x.t)->ctl & PV_CTL_TRACEEN, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt-trace");
	TCase *t = tcase_create("trace");
	SRunner *sr;
	int failed;

	tr_require_kvm();
	tcase_set_timeout(t, 120);
	tcase_add_checked_fixture(t, NULL, teardown);
	tcase_add_test(t, roundtrip_branches);
	tcase_add_test(t, roundtrip_calls);
	tcase_add_test(t, roundtrip_indirect);
	tcase_add_test(t, roundtrip_exception_and_interrupt);
	tcase_add_test(t, roundtrip_all_chained_tables_no_retcomp);
	tcase_add_test(t, snapshot_wraps_and_decodes_from_last_psb);
	tcase_add_test(t, stop_truncates_and_decode_ends_cleanly);
	tcase_add_test(t, msr_rules_in_guest);
	suite_add_tcase(s, t);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
