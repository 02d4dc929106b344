// SPDX-License-Identifier: MIT
/*
 * Delivery across a real VM boundary: the guest agent on every vCPU writes
 * its ring, the host drains it woken by doorbells, and every record is
 * delivered once, in order, or counted lost.
 *
 * The guest may run 1000x faster or slower than the host's consumer: a
 * case that asserts "nothing lost" either has a ring that holds the whole
 * workload or makes the guest wait for room (boot.wait_space); a case
 * that asserts losses drains only once the guest has finished.
 */
#include <stdlib.h>
#include <time.h>

#include "vmm_fixture.h"

static struct vt t;

static void teardown(void)
{
	vt_fini(&t);
}

/* 2000 records through a 16 KiB ring, wrapping ~8 times: the guest waits
 * for room, so every record arrives, in order. */
START_TEST(deliver_one_vcpu)
{
	struct rs_vmm_vcpu_info info;

	vt_params(&t.p);
	t.p.boot.records = 2000;
	t.p.boot.wait_space = 1;
	vt_boot(&t, 1);
	vt_run(&t, 1);
	vt_check_accounting(&t, 0);
	ck_assert_uint_eq(t.rings[0].seq, 2000);
	ck_assert_uint_eq(t.rings[0].lost, 0);
	ck_assert_uint_eq(t.rings[0].samples, 2000 / 8);
	ck_assert_int_eq(vmm_cpu_info(t.vm, 0, &info), 0);
	ck_assert_uint_eq(info.report.space_gave_up, 0);
	ck_assert_uint_gt(rs_consumer_stats(t.cons[0])->bytes, 4 * RS_PAGE_SIZE);
}
END_TEST

START_TEST(deliver_vcpus_aux)
{
	vt_params(&t.p);
	t.p.nr_vcpus = 3;
	t.p.aux_pages = 2;
	t.p.boot.records = 1200;
	t.p.boot.aux_every = 4;
	t.p.boot.aux_bytes = 300;
	vt_boot(&t, 1);
	vt_run(&t, 1);
	for (uint32_t r = 0; r < 3; r++) {
		struct rs_vmm_vcpu_info info;

		vt_check_accounting(&t, r);
		ck_assert_int_eq(vmm_cpu_info(t.vm, r, &info), 0);
		ck_assert_uint_eq(info.report.aux_outputs, 300);
		ck_assert_uint_gt(t.rings[r].aux_bytes, 0);
		ck_assert_uint_eq(info.state, RS_VCPU_HALTED);
		ck_assert_uint_eq(info.done, 1);
		ck_assert_uint_eq(info.done_value, info.report.attempted);
	}
}
END_TEST

/* The host does not drain until the burst is over: the ring overflows, the
 * producer drops and counts, and one LOST record carries the count.  AUX
 * records are among the dropped (their data ring is full), and the guest
 * counts them as the LOST records do. */
START_TEST(deliver_burst_counts_losses)
{
	vt_params(&t.p);
	t.p.nr_vcpus = 2;
	t.p.data_pages = 1;
	t.p.aux_pages = 1;
	t.p.boot.workload = RS_WL_BURST;
	t.p.boot.records = 600;
	t.p.boot.aux_every = 4;
	t.p.boot.aux_bytes = 100;
	vt_boot(&t, 1);
	vt_wait_phase(&t, 0, RS_PHASE_FLUSHING, 0);
	vt_wait_phase(&t, 1, RS_PHASE_FLUSHING, 0);
	vt_run(&t, 1);
	for (uint32_t r = 0; r < 2; r++) {
		struct rs_vmm_vcpu_info info;

		vt_check_accounting(&t, r);
		ck_assert_int_eq(vmm_cpu_info(t.vm, r, &info), 0);
		ck_assert_uint_eq(t.rings[r].lost_recs, 1);
		ck_assert_uint_gt(t.rings[r].seq, 0);
		ck_assert_uint_gt(t.rings[r].aux_recs, 0);
		/* 600 + 75 + 150 records do not fit in 4 KiB */
		ck_assert_uint_eq(info.report.attempted, 600 + 600 / 8 + 600 / 4);
		ck_assert_uint_lt(t.rings[r].aux_recs, 600 / 4);
		ck_assert_uint_gt(t.rings[r].lost, 600);
	}
}
END_TEST

/* Doorbells: one per watermark crossing, each one an eventfd signal from
 * KVM and none an exit to user space. */
static void doorbells_at(uint32_t watermark)
{
	struct rs_vmm_vcpu_info info;
	struct rs_ctl_region guard;
	struct rs_ring_state st;
	struct rs_ring ring;
	uint64_t head, bells;

	/* 1500 records of 56 bytes fit in 128 KiB: nothing can be lost, and
	 * the guest never waits, so its only exits are done, hlt and its
	 * header writes. */
	vt_params(&t.p);
	t.p.data_pages = 32;
	t.p.data_watermark = watermark;
	t.p.boot.records = 1500;
	t.p.boot.sample_every = 0;
	vt_boot(&t, 1);
	vt_run(&t, 1);
	vt_check_accounting(&t, 0);
	ck_assert_uint_eq(t.rings[0].lost, 0);
	ck_assert_int_eq(vmm_cpu_info(t.vm, 0, &info), 0);
	ck_assert_int_eq(rs_region_ring(vmm_region(t.vm), 0, &ring), 0);
	ck_assert_int_eq(rs_ring_state_read(&ring, &st), 0);
	head = st.data_head;
	bells = vmm_doorbell_count(t.vm, 0);

	ck_assert_uint_eq(bells, info.report.doorbells);
	ck_assert_uint_eq(bells, ring.ctrl->ext.doorbells);
	/* Records are smaller than the watermark: one per boundary crossed. */
	ck_assert_uint_eq(bells, head / watermark);
	ck_assert_uint_gt(bells, 10);
	/* The only exits: the done port write and the final hlt, besides
	 * the header guard's (counted apart): the agent's writes to its own
	 * header fields (attach, heartbeats), applied; none to the host's. */
	ck_assert_int_eq(vmm_region_info(t.vm, &guard), 0);
	ck_assert_uint_eq(guard.header_guarded, 1);
	ck_assert_uint_eq(guard.header_refused, 0);
	ck_assert_uint_eq(info.header_refused, 0);
	ck_assert_uint_gt(guard.header_applied, 0);
	ck_assert_uint_eq(info.exits.mmio, 0);
	ck_assert_uint_eq(info.exits.doorbell_mmio, 0);
	ck_assert_uint_eq(info.exits.io, 1);
	ck_assert_uint_eq(info.exits.hlt, 1);
	ck_assert_uint_eq(info.exits.total, 2 + info.exits.kicks);
}

START_TEST(doorbell_watermark_512)
{
	doorbells_at(512);
}
END_TEST

START_TEST(doorbell_watermark_4096)
{
	doorbells_at(4096);
}
END_TEST

/* Guest TSC in the records converts to host time inside the run. */
START_TEST(time_conversion)
{
	struct timespec ts;
	uint64_t before, after, prev = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	before = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	/* 200 SEQ and 25 SAMPLE records fit in the 16 KiB ring: nothing to
	 * drain, nothing lost */
	vt_params(&t.p);
	t.p.boot.records = 200;
	vt_boot(&t, 1);
	ck_assert_uint_gt(vmm_tsc_khz(t.vm), 0);
	vt_run(&t, 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	after = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;

	struct vt_ring s = vt_snapshot(&t, 0, 1);
	ck_assert_uint_eq(s.seq, 200);
	/* Walk again for the times: oldest first, never decreasing. */
	const struct rs_perf_header *rec;
	struct rs_snapshot *snap = rs_snapshot_alloc();
	void *buf = malloc(4 * RS_PAGE_SIZE);

	ck_assert_int_eq(rs_snapshot_take(snap, vmm_region(t.vm), 0, buf,
					  4 * RS_PAGE_SIZE), 0);
	while (rs_snapshot_next(snap, &rec) == 1) {
		uint64_t ns;

		if (rec->type != RS_RECORD_SEQ)
			continue;
		ns = vmm_tsc_to_ns(t.vm, ((const struct rs_rec_seq *)rec)->time);
		/* Generous slack: the anchor is read once, around creation. */
		ck_assert_uint_ge(ns + 50000000ull, before);
		ck_assert_uint_le(ns, after + 50000000ull);
		ck_assert_uint_ge(ns, prev);
		prev = ns;
	}
	rs_snapshot_free(snap);
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm_deliver");
	TCase *tc = tcase_create("deliver");
	SRunner *sr;
	int failed;

	vt_require_kvm();
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, deliver_one_vcpu);
	tcase_add_test(tc, deliver_vcpus_aux);
	tcase_add_test(tc, deliver_burst_counts_losses);
	tcase_add_test(tc, doorbell_watermark_512);
	tcase_add_test(tc, doorbell_watermark_4096);
	tcase_add_test(tc, time_conversion);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
