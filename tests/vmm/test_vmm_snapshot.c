// SPDX-License-Identifier: MIT
/*
 * Snapshots: overwrite rings read stable (vCPUs paused) and live, a normal
 * ring whose guest publishes per batch read paused mid-batch, and the
 * flight recorder of a guest that hung, halted for good or triple-faulted.
 */
#include <errno.h>
#include <stdint.h>

#include "vmm_fixture.h"

static struct vt t;

static void teardown(void)
{
	vt_fini(&t);
}

static uint64_t seq_attempted(uint32_t id)
{
	struct rs_vmm_vcpu_info info;

	ck_assert_int_eq(vmm_cpu_info(t.vm, id, &info), 0);
	return info.report.seq_attempted;
}

static void overwrite_params(void)
{
	vt_params(&t.p);
	t.p.nr_vcpus = 2;
	t.p.data_pages = 2;
	t.p.data_mode = RS_MODE_OVERWRITE;
	t.p.boot.records = 3000;
}

/* Paused: the newest record is exactly the last one the guest attempted,
 * and the ring holds an unbroken run of the newest records. */
START_TEST(overwrite_stable)
{
	int taken = 0;

	overwrite_params();
	vt_boot(&t, 1);
	while (vmm_wait(t.vm, 30) == -ETIMEDOUT || taken < 1) {
		for (uint32_t r = 0; r < 2; r++) {
			struct vt_ring s;
			uint64_t n;

			ck_assert_int_eq(vmm_pause(t.vm), 0);
			n = seq_attempted(r);
			s = vt_snapshot(&t, r, 0);
			ck_assert_int_eq(vmm_resume(t.vm), 0);
			if (n == 0)
				continue;
			/* Record n - 1 is committed, or still being written
			 * (then it is not in the ring and n - 2 is newest). */
			if (n == 1 && s.seq == 0)
				continue;
			ck_assert_uint_gt(s.seq, 0);
			ck_assert_uint_ge(s.newest_seq + 2, n);
			ck_assert_uint_le(s.newest_seq + 1, n);
			ck_assert_uint_eq(s.next_seq, s.newest_seq + 1 - s.seq);
		}
		taken++;
	}
	for (uint32_t r = 0; r < 2; r++) {
		struct vt_ring s = vt_snapshot(&t, r, 1);

		ck_assert_uint_eq(s.newest_seq, 2999);
		/* 8 KiB of 56-byte SEQ and 40-byte SAMPLE records. */
		ck_assert_uint_gt(s.seq, 100);
	}
}
END_TEST

/* Live: no pause, a guest that never stops writing.  Whatever each
 * snapshot returns is intact and consecutive, at least as new as the guest
 * was before the copy and no newer than after it.  A snapshot that lost
 * the whole ring to the writer during its copy (a reader descheduled
 * meanwhile) returns nothing and says so.  With the writer held, the same
 * live path returns the newest records and cuts at most the one record the
 * pause caught in flight. */
START_TEST(overwrite_live)
{
	uint64_t newest = 0, n;
	struct vt_ring s;

	overwrite_params();
	t.p.nr_vcpus = 1;
	t.p.boot.records = UINT32_MAX;
	vt_boot(&t, 1);
	/* seq_attempted 2: record 0 is in, 1 at most in flight */
	vt_wait_seq(&t, 0, 1);
	for (int i = 0; i < 20; i++) {
		uint64_t before = seq_attempted(0), after;

		s = vt_snapshot(&t, 0, 0);
		after = seq_attempted(0);
		if (!s.seq) {
			ck_assert_uint_gt(s.cut_bytes, 0);
		} else {
			/* record before - 1 was at least in flight before the copy */
			ck_assert_uint_ge(s.newest_seq + 2, before);
			ck_assert_uint_lt(s.newest_seq, after);
			ck_assert_uint_ge(s.newest_seq, newest);
			newest = s.newest_seq;
		}
		/* let the guest move on before the next one */
		vt_wait_seq(&t, 0, after);
	}
	/* past 8 KiB: the ring has wrapped */
	vt_wait_seq(&t, 0, 400);
	ck_assert_int_eq(vmm_pause(t.vm), 0);
	n = seq_attempted(0);
	s = vt_snapshot(&t, 0, 0);
	ck_assert_int_eq(vmm_resume(t.vm), 0);
	/* at most the one record the pause caught in flight (SEQ is the
	 * largest here) */
	ck_assert_uint_le(s.cut_bytes, rs_seq_size(t.p.boot.fill));
	ck_assert_uint_gt(s.seq, 100);
	ck_assert_uint_ge(s.newest_seq + 2, n);
	ck_assert_uint_le(s.newest_seq + 1, n);
	ck_assert_uint_ge(s.newest_seq, newest);
	ck_assert_int_eq(vmm_stop(t.vm), 0);
}
END_TEST

/*
 * A normal ring whose guest publishes data_head per 16 KiB, nobody
 * draining, paused at five points while it writes: every record committed
 * before the pause is in the stable snapshot, 0 .. newest without a gap,
 * whether or not data_head had caught up with it (records past data_head
 * are found by their seals).  Once the ring is full the guest drops, and
 * the snapshot then holds what fit.
 */
START_TEST(batched_normal_paused)
{
	struct rs_vmm_vcpu_info info;
	struct rs_ring ring;
	uint64_t n = 0;

	vt_params(&t.p);
	t.p.data_pages = 64;
	t.p.boot.records = UINT32_MAX;
	t.p.boot.sample_every = 0;
	t.p.boot.data_batch = 16384;
	vt_boot(&t, 1);
	ck_assert_int_eq(rs_region_ring(vmm_region(t.vm), 0, &ring), 0);
	for (int i = 0; i < 5; i++) {
		struct vt_ring s;

		n = vt_wait_seq(&t, 0, n + 100);
		ck_assert_int_eq(vmm_pause(t.vm), 0);
		ck_assert_int_eq(vmm_cpu_info(t.vm, 0, &info), 0);
		s = vt_snapshot(&t, 0, 0);
		ck_assert_int_eq(vmm_resume(t.vm), 0);
		ck_assert(ring.ctrl->ext.flags & RS_EXT_SEALED);
		ck_assert_uint_eq(s.skipped_seqs, 0);
		ck_assert_uint_eq(s.seq, s.next_seq);
		/* Records 0 .. seq_attempted - 2 are in or counted dropped;
		 * the last one the pause may have caught in flight. */
		ck_assert_uint_le(s.seq + info.report.dropped,
				  info.report.seq_attempted);
		ck_assert_uint_ge(s.seq + info.report.dropped + 1,
				  info.report.seq_attempted);
		n = info.report.seq_attempted;
	}
	ck_assert_int_eq(vmm_stop(t.vm), 0);
}
END_TEST

/* Normal ring, nobody draining, guest dead: the snapshot returns all of
 * its records, 0 .. N-1. */
static void check_flight_recorder(uint32_t records)
{
	for (uint32_t r = 0; r < t.p.nr_vcpus; r++) {
		struct vt_ring s = vt_snapshot(&t, r, 1);

		ck_assert_uint_eq(s.seq, records);
		ck_assert_uint_eq(s.skipped_seqs, 0);
		ck_assert_uint_eq(s.newest_seq, records - 1);
	}
}

static void dead_params(uint32_t workload, uint32_t mode)
{
	vt_params(&t.p);
	t.p.nr_vcpus = 2;
	t.p.data_pages = 16;
	t.p.data_mode = mode;
	t.p.boot.workload = workload;
	t.p.boot.records = 400;
}

START_TEST(hung_guest_snapshot)
{
	struct rs_vmm_vcpu_info info;

	dead_params(RS_WL_HANG, RS_MODE_NORMAL);
	vt_boot(&t, 1);
	vt_wait_phase(&t, 0, RS_PHASE_DONE, 0);
	vt_wait_phase(&t, 1, RS_PHASE_DONE, 0);
	check_flight_recorder(400);
	/* Still spinning with interrupts off, and pausable again. */
	ck_assert_int_eq(vmm_cpu_info(t.vm, 0, &info), 0);
	ck_assert_uint_eq(info.state, RS_VCPU_RUNNING);
	ck_assert_uint_gt(info.exits.kicks, 0);
	check_flight_recorder(400);
	ck_assert_int_eq(vmm_stop(t.vm), 0);
	check_flight_recorder(400);
}
END_TEST

START_TEST(halted_guest_snapshot)
{
	dead_params(RS_WL_HALT, RS_MODE_NORMAL);
	vt_boot(&t, 1);
	vt_wait_state(&t, 0, RS_VCPU_HALTED);
	vt_wait_state(&t, 1, RS_VCPU_HALTED);
	check_flight_recorder(400);
}
END_TEST

START_TEST(crashed_guest_snapshot)
{
	struct rs_vmm_vcpu_info info;

	dead_params(RS_WL_CRASH, RS_MODE_NORMAL);
	vt_boot(&t, 1);
	vt_wait_state(&t, 0, RS_VCPU_SHUTDOWN);
	vt_wait_state(&t, 1, RS_VCPU_SHUTDOWN);
	ck_assert_int_eq(vmm_cpu_info(t.vm, 1, &info), 0);
	ck_assert_uint_eq(info.report.phase, RS_PHASE_DONE);
	ck_assert_uint_eq(info.done, 0);
	check_flight_recorder(400);
}
END_TEST

/* The flight recorder proper: an overwrite ring that wrapped many times,
 * then a triple fault; the newest records before the crash are there. */
START_TEST(crashed_guest_overwrite)
{
	dead_params(RS_WL_CRASH, RS_MODE_OVERWRITE);
	t.p.data_pages = 1;
	t.p.boot.records = 1000;
	vt_boot(&t, 1);
	vt_wait_state(&t, 0, RS_VCPU_SHUTDOWN);
	vt_wait_state(&t, 1, RS_VCPU_SHUTDOWN);
	for (uint32_t r = 0; r < 2; r++) {
		struct vt_ring s = vt_snapshot(&t, r, 1);

		ck_assert_uint_eq(s.newest_seq, 999);
		ck_assert_uint_gt(s.seq, 30);
		ck_assert_uint_eq(s.next_seq, 1000 - s.seq);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm_snapshot");
	TCase *tc = tcase_create("snapshot");
	SRunner *sr;
	int failed;

	vt_require_kvm();
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, overwrite_stable);
	tcase_add_test(tc, overwrite_live);
	tcase_add_test(tc, batched_normal_paused);
	tcase_add_test(tc, hung_guest_snapshot);
	tcase_add_test(tc, halted_guest_snapshot);
	tcase_add_test(tc, crashed_guest_snapshot);
	tcase_add_test(tc, crashed_guest_overwrite);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
