/* SPDX-License-Identifier: MIT */
/* Guest claims against host facts (capture/src/cap_tally.c): sums that saturate
 * instead of wrapping, LOST counts over the bounds flagged and left out,
 * times outside the window flagged and left out of the span. */
#include <stdint.h>
#include <string.h>

#include <check.h>

#include "ringside/capture.h"

static struct cap_tally t;

static void lost(uint32_t ring, uint64_t time, uint64_t n)
{
	struct rs_perf_lost l = { { RS_PERF_RECORD_LOST, 0, sizeof(l) }, ring, n };

	cap_tally_add(&t, ring, time, &l.header);
}

/* 64 bytes of a record of type @type: moves the ring's position on (the
 * drain's "after the attach" rule). */
static void record64(uint32_t ring, uint64_t time, uint32_t type)
{
	uint64_t rec[8] = { 0 };
	struct rs_perf_header h = { type, 0, sizeof(rec) };

	memcpy(rec, &h, sizeof(h));
	cap_tally_add(&t, ring, time, (const struct rs_perf_header *)(void *)rec);
}

/* A sequence record (its checksum aside): a record with its own time. */
static void filler(uint32_t ring, uint64_t time)
{
	record64(ring, time, RS_RECORD_SEQ);
}

/* A type ringside does not know: filed under another record's time. */
static void untimed(uint32_t ring, uint64_t time)
{
	record64(ring, time, 99);
}

static void bounds(uint32_t kind, uint64_t start, uint64_t end, int times)
{
	struct cap_tally_bounds b;

	memset(&b, 0, sizeof(b));
	b.kind = kind;
	b.start_ns = start;
	b.end_ns = end;
	b.times_host = times;
	b.slack_ns = 10;
	b.data_size[0] = b.data_size[1] = 64;
	b.aux_size[0] = 4096;
	cap_tally_init(&t, 2, 0);
	cap_tally_set_bounds(&t, &b);
}

START_TEST(tally_sums_saturate)
{
	struct cap_tally_ring sum;

	cap_tally_init(&t, 2, 0);   /* no bounds: nothing flagged, only summed */
	lost(0, 1, UINT64_MAX);
	lost(0, 2, 5);
	lost(1, 3, UINT64_MAX - 1);
	ck_assert_uint_eq(t.ring[0].lost, UINT64_MAX);
	ck_assert_uint_eq(t.ring[1].lost, UINT64_MAX - 1);
	cap_tally_total(&t, &sum);
	ck_assert_uint_eq(sum.lost, UINT64_MAX);
	ck_assert_uint_eq(sum.records, 3);
	ck_assert_uint_eq(cap_tally_flagged(&sum), 0);
	ck_assert_uint_eq(cap_tally_sat_add(UINT64_MAX, UINT64_MAX), UINT64_MAX);
	ck_assert_uint_eq(cap_tally_sat_add(1, 2), 3);
}
END_TEST

START_TEST(tally_lost_over_uptime_flagged)
{
	bounds(PDF_HOST_SNAPSHOT, 900, 1000, 0);
	lost(0, 1, 999);
	lost(0, 2, 2);                  /* 1001 > 1 per ns of 1000 ns */
	lost(0, 3, 1);
	lost(0, 4, 2219460346403425822ull);
	lost(0, 5, UINT64_MAX);
	ck_assert_uint_eq(t.ring[0].lost, 1000);
	ck_assert_uint_eq(t.ring[0].flag_lost, 3);
	ck_assert_uint_eq(t.ring[0].by_class[PDF_RREC_LOST], 5);
}
END_TEST

START_TEST(tally_lost_after_attach_bounded_by_window)
{
	bounds(PDF_HOST_DRAIN, 1000000, 1000100, 0);
	/* the ring's old content (its size: 64 bytes) may be older than
	 * the attach: only the uptime bounds its counts */
	lost(0, 1, 5000);
	filler(0, 2);
	filler(0, 3);
	/* this one's previous record starts 88 bytes in: written after the
	 * attach, so its drops fit in the 100 ns of the recording */
	lost(0, 4, 60);
	lost(0, 5, 40);
	lost(0, 6, 1);                  /* 101 > 100 */
	ck_assert_uint_eq(t.ring[0].lost, 5100);
	ck_assert_uint_eq(t.ring[0].flag_lost, 1);
	/* another ring has its own window */
	lost(1, 1, 100);
	ck_assert_uint_eq(t.ring[1].flag_lost, 0);
}
END_TEST

START_TEST(tally_times_outside_window_flagged)
{
	bounds(PDF_HOST_DRAIN, 1000, 2000, 1);
	filler(0, 5);                   /* old content: may predate the attach */
	filler(0, 2010);                /* within the slack */
	filler(0, 2011);                /* after the last read */
	filler(0, 989);                 /* after the attach, 1 ns too early */
	filler(0, 990);
	filler(0, UINT64_MAX);
	ck_assert_uint_eq(t.ring[0].flag_time, 3);
	ck_assert_uint_eq(t.ring[0].first_time, 5);
	ck_assert_uint_eq(t.ring[0].last_time, 2010);
	ck_assert_uint_eq(t.ring[0].records, 6);
}
END_TEST

/* A producer that holds records before it writes them (a Linux agent's
 * kernel buffers, up to a beat): after the attach, a record may be that
 * much older than the window, no more. */
START_TEST(tally_times_held_back_allowed)
{
	bounds(PDF_HOST_DRAIN, 5000, 6000, 1);
	t.bounds.held_ns = 3000;
	filler(0, 5);                   /* old content */
	filler(0, 1990);                /* held 3000 ns, within the slack */
	filler(0, 1989);                /* 1 ns more than that */
	filler(0, 6010);
	ck_assert_uint_eq(t.ring[0].flag_time, 1);
}
END_TEST

/* A ring's span is its timed records': the others (COMM, MMAP2, LOST) are
 * filed under a neighbour's time, or 0 before the first. */
START_TEST(tally_span_from_timed_records)
{
	struct cap_tally_ring sum;

	cap_tally_init(&t, 2, 0);
	untimed(0, 0);
	filler(0, 4100);
	untimed(0, 4100);
	lost(0, 4100, 3);
	filler(0, 4200);
	untimed(0, 9000);
	untimed(1, 0);
	ck_assert_uint_eq(t.ring[0].first_time, 4100);
	ck_assert_uint_eq(t.ring[0].last_time, 4200);
	ck_assert_int_eq(t.ring[1].have_time, 0);
	ck_assert_uint_eq(t.ring[0].records, 6);
	cap_tally_total(&t, &sum);
	ck_assert_uint_eq(sum.first_time, 4100);
	ck_assert_uint_eq(sum.last_time, 4200);
	ck_assert_uint_eq(sum.records, 7);
}
END_TEST

START_TEST(tally_times_unchecked_in_guest_clock)
{
	bounds(PDF_HOST_SNAPSHOT, 1000, 2000, 0);
	filler(0, UINT64_MAX);
	ck_assert_uint_eq(t.ring[0].flag_time, 0);
	ck_assert_uint_eq(t.ring[0].last_time, UINT64_MAX);
}
END_TEST

START_TEST(tally_aux_over_area_flagged)
{
	struct rs_perf_aux a = { { RS_PERF_RECORD_AUX, 0, sizeof(a) }, 0, 4096, 0 };

	bounds(PDF_HOST_SNAPSHOT, 0, 1000, 0);
	cap_tally_add(&t, 0, 1, &a.header);
	a.aux_size = 4097;
	cap_tally_add(&t, 0, 1, &a.header);
	a.aux_size = UINT64_MAX;
	cap_tally_add(&t, 0, 1, &a.header);
	ck_assert_uint_eq(t.ring[0].aux_bytes, 4096);
	ck_assert_uint_eq(t.ring[0].flag_aux, 2);
}
END_TEST

START_TEST(tally_bounds_from_file_info)
{
	static struct pdf_info info;
	struct cap_tally_bounds b;

	memset(&info, 0, sizeof(info));
	cap_tally_bounds_from_info(&b, &info);
	ck_assert_uint_eq(b.kind, PDF_HOST_NONE);
	info.host.kind = PDF_HOST_DRAIN;
	info.host.nr_rings = 1;
	info.host.start_ns = 1000000000;
	info.host.end_ns = 3000000000;
	info.host.ring[0].data_size = 4096;
	info.clock.state = PDF_CLOCK_SYNCED;
	info.clock.nr = 1;
	info.clock.pt[0].bound_ns = 5000;
	cap_tally_bounds_from_info(&b, &info);
	ck_assert_uint_eq(b.kind, PDF_HOST_DRAIN);
	ck_assert_int_eq(b.times_host, 1);
	ck_assert_uint_eq(b.data_size[0], 4096);
	/* twice the sync's bound, 1 ms, 1000 ppm of the 2 s window */
	ck_assert_uint_eq(b.slack_ns, 10000 + 1000000 + 2000000);
	info.clock.state = PDF_CLOCK_NO_ANSWER;
	cap_tally_bounds_from_info(&b, &info);
	ck_assert_int_eq(b.times_host, 0);
	/* host time by a VMM's conversion, with no measured bound */
	info.clock.state = PDF_CLOCK_HOST;
	info.clock.nr = 0;
	cap_tally_bounds_from_info(&b, &info);
	ck_assert_int_eq(b.times_host, 0);
	info.host.end_ns = 1;           /* ends before it starts: nothing */
	cap_tally_bounds_from_info(&b, &info);
	ck_assert_uint_eq(b.kind, PDF_HOST_NONE);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tally");
	TCase *c = tcase_create("tally");

	tcase_add_test(c, tally_sums_saturate);
	tcase_add_test(c, tally_lost_over_uptime_flagged);
	tcase_add_test(c, tally_lost_after_attach_bounded_by_window);
	tcase_add_test(c, tally_times_outside_window_flagged);
	tcase_add_test(c, tally_times_held_back_allowed);
	tcase_add_test(c, tally_times_unchecked_in_guest_clock);
	tcase_add_test(c, tally_span_from_timed_records);
	tcase_add_test(c, tally_aux_over_area_flagged);
	tcase_add_test(c, tally_bounds_from_file_info);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
