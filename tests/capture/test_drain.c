/* SPDX-License-Identifier: MIT */
/*
 * The drain (capture/src/cap_drain.c) over a region in memory: what a ring
 * held when the recording attached is counted as predating it, its
 * losses (and those of the LOST the producer writes first after the
 * attach) kept apart from the recording's; records without a time of
 * their own at the head of a ring are filed under the next timed one's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <linux/perf_event.h>

#include "ringside/capture.h"
#include "ringside/ring.h"

#include "cap_internal.h"

struct fixture {
	void *mem;
	uint64_t size;
	struct rs_region region;
	struct rs_producer p;
	uint64_t seq, attempted;
};

static struct fixture f;

static void region_make(uint32_t data_pages)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = data_pages,
		.data_mode = RS_MODE_NORMAL,
		.aux_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST,
	};

	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(rs_region_size(&params, &f.size), 0);
	f.mem = aligned_alloc(RS_PAGE_SIZE, f.size);
	ck_assert_ptr_nonnull(f.mem);
	ck_assert_int_eq(rs_region_layout(f.mem, f.size, &params), 0);
	ck_assert_int_eq(rs_region_enable(f.mem), 0);
	ck_assert_int_eq(rs_region_open(&f.region, f.mem, f.size), 0);
	ck_assert_int_eq(rs_producer_init(&f.p, &f.region, 0), 0);
}

/* @n sequence records attempted (some may be lost: the ring is full). */
static void put_seqs(uint32_t n)
{
	_Alignas(8) uint8_t buf[RS_RECORD_MAX];

	while (n--) {
		int size = rs_seq_build(buf, f.seq, 1000 + f.seq, 0, 0);

		f.seq++;
		f.attempted++;
		ck_assert_int_gt(size, 8);
		(void)rs_producer_output(&f.p, RS_RECORD_SEQ, 0, buf + 8,
					 (uint32_t)size - 8);
	}
}

static void put_comm(void)
{
	struct { uint32_t pid, tid; char comm[16]; } c = { 42, 42, "gzip" };

	ck_assert_int_eq(rs_producer_output(&f.p, PERF_RECORD_COMM, 0, &c,
					    sizeof(c)), 0);
	f.attempted++;
}

/*
 * A ring that filled before anybody drained it, drained by a first
 * recording that stopped, filled again; a second recording attaches.
 * What the ring held then is in its file, counted; the LOST among it and
 * the LOST written first after the attach are not, their counts are; a
 * LOST of the recording's own time is in the file.  Every record the
 * producer attempted is delivered or lost, exactly once.
 */
START_TEST(drain_early_records_and_losses)
{
	struct pdf_host_facts h;
	struct cap_tally t1, t2;
	struct cap_drain d1, d2;
	struct cap_err e = { 0 };
	uint64_t lost1, lost2, lost3, held, taken1, own;
	const struct pdf_host_ring *hr = &h.ring[0];

	region_make(1);
	put_seqs(150);                     /* 4 KiB of 40-byte records */
	lost1 = rs_producer_lost(&f.p);
	ck_assert_uint_gt(lost1, 0);
	/* a first recording takes what there is and stops */
	cap_tally_init(&t1, 1, 0);
	ck_assert_int_eq(cap_drain_init(&d1, &f.region, 0, NULL, &t1), 0);
	taken1 = (uint64_t)cap_drain_pass(&d1, &e);
	ck_assert_uint_eq(taken1 + lost1, 150);
	cap_drain_fini(&d1);
	/* the LOST and 10 records, then full again */
	put_seqs(10);
	put_seqs(150);
	lost2 = rs_producer_lost(&f.p) - lost1;
	ck_assert_uint_gt(lost2, 0);

	cap_tally_init(&t2, 1, 0);
	ck_assert_int_eq(cap_drain_init(&d2, &f.region, 0, NULL, &t2), 0);
	held = (uint64_t)cap_drain_pass(&d2, &e);
	/* the LOST of the first fill was in the ring, not in the file */
	cap_drain_host_facts(&d2, &h);
	ck_assert_uint_eq(hr->early_lost_records, 1);
	ck_assert_uint_eq(hr->early_lost, lost1);
	ck_assert_uint_eq(hr->early_records, t2.ring[0].records);
	ck_assert_uint_eq(t2.ring[0].by_class[PDF_RREC_LOST], 0);
	ck_assert_uint_eq(held, hr->early_records + 1);
	/* the LOST the producer writes first now: drops before the attach */
	put_seqs(1);
	ck_assert_int_eq(cap_drain_pass(&d2, &e), 2);
	cap_drain_host_facts(&d2, &h);
	ck_assert_uint_eq(hr->early_lost_records, 2);
	ck_assert_uint_eq(hr->early_lost, lost1 + lost2);
	ck_assert_uint_eq(t2.ring[0].by_class[PDF_RREC_LOST], 0);
	/* full again during the recording: that LOST is the recording's */
	put_seqs(200);
	lost3 = rs_producer_lost(&f.p) - lost1 - lost2;
	ck_assert_uint_gt(lost3, 0);
	ck_assert_int_gt(cap_drain_pass(&d2, &e), 0);
	put_seqs(1);
	ck_assert_int_eq(cap_drain_pass(&d2, &e), 2);
	cap_drain_host_facts(&d2, &h);
	ck_assert_uint_eq(hr->early_lost, lost1 + lost2);
	ck_assert_uint_eq(t2.ring[0].by_class[PDF_RREC_LOST], 1);
	ck_assert_uint_eq(t2.ring[0].lost, lost3);
	ck_assert_uint_eq(hr->early_flagged, 0);
	/* delivered + lost == produced, the first recording's share too */
	own = t2.ring[0].records - t2.ring[0].by_class[PDF_RREC_LOST];
	ck_assert_uint_eq(taken1 + own + hr->early_lost + t2.ring[0].lost,
			  f.attempted);
	cap_drain_fini(&d2);
	free(f.mem);
}
END_TEST

/* An empty ring: nothing predates the recording; a LOST written first
 * after the attach still reports drops from before it. */
START_TEST(drain_nothing_early)
{
	struct pdf_host_facts h;
	struct cap_err e = { 0 };
	struct cap_tally t;
	struct cap_drain d;

	region_make(1);
	cap_tally_init(&t, 1, 0);
	ck_assert_int_eq(cap_drain_init(&d, &f.region, 0, NULL, &t), 0);
	put_seqs(5);
	ck_assert_int_eq(cap_drain_pass(&d, &e), 5);
	cap_drain_host_facts(&d, &h);
	ck_assert_uint_eq(h.ring[0].early_records, 0);
	ck_assert_uint_eq(h.ring[0].early_lost_records, 0);
	ck_assert_uint_eq(t.ring[0].records, 5);
	cap_drain_fini(&d);
	free(f.mem);
}
END_TEST

/* The times of a file's records, in its order: @n at most. */
static uint32_t file_times(const char *path, uint64_t *time, uint32_t *type,
			   uint32_t n)
{
	struct pdf_reader *r;
	struct pdf_event ev;
	uint32_t i = 0;

	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	while (pdf_reader_next(r, &ev) == 1 && i < n) {
		time[i] = ev.time;
		type[i++] = ev.rec->type;
	}
	pdf_reader_close(r);
	return i;
}

/*
 * A COMM before the ring's first timed record is filed under that
 * record's time, not 0; a COMM after it under the time before it; one
 * with no timed record after it under the ring's last time when the file
 * is completed (cap_drain_flush).  Their order is kept.
 */
START_TEST(drain_untimed_filed_under_next_time)
{
	struct pdf_writer_params wp = { .size = sizeof(wp), .nr_rings = 1 };
	char path[] = "/tmp/test_drain.XXXXXX";
	struct cap_err e = { 0 };
	struct pdf_writer *w;
	uint64_t time[8];
	uint32_t type[8], n;
	struct cap_tally t;
	struct cap_drain d;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	region_make(4);
	ck_assert_int_eq(pdf_writer_open(&w, path, &wp), 0);
	cap_tally_init(&t, 1, 0);
	ck_assert_int_eq(cap_drain_init(&d, &f.region, 0, w, &t), 0);
	put_comm();
	put_comm();
	ck_assert_int_eq(cap_drain_pass(&d, &e), 2);   /* taken, they wait */
	ck_assert_uint_eq(t.ring[0].records, 0);
	put_seqs(1);                               /* time 1000 */
	put_comm();
	put_seqs(1);                               /* time 1001 */
	put_comm();
	ck_assert_int_eq(cap_drain_pass(&d, &e), 4);
	ck_assert_uint_eq(t.ring[0].records, 6);
	ck_assert_int_eq(cap_drain_flush(&d, &e), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	/* the span is the timed records' */
	ck_assert_uint_eq(t.ring[0].first_time, 1000);
	ck_assert_uint_eq(t.ring[0].last_time, 1001);
	n = file_times(path, time, type, 8);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(type[0], PERF_RECORD_COMM);
	ck_assert_uint_eq(time[0], 1000);
	ck_assert_uint_eq(type[1], PERF_RECORD_COMM);
	ck_assert_uint_eq(time[1], 1000);
	ck_assert_uint_eq(type[2], RS_RECORD_SEQ);
	ck_assert_uint_eq(time[2], 1000);
	ck_assert_uint_eq(time[3], 1000);          /* the COMM after it */
	ck_assert_uint_eq(time[4], 1001);
	ck_assert_uint_eq(type[5], PERF_RECORD_COMM);
	ck_assert_uint_eq(time[5], 1001);
	cap_drain_fini(&d);
	unlink(path);
	free(f.mem);
}
END_TEST

/* A ring of untimed records only: they reach the file at its end. */
START_TEST(drain_untimed_only_flushed)
{
	struct pdf_writer_params wp = { .size = sizeof(wp), .nr_rings = 1 };
	char path[] = "/tmp/test_drain.XXXXXX";
	struct cap_err e = { 0 };
	struct pdf_writer *w;
	uint64_t time[4];
	uint32_t type[4];
	struct cap_tally t;
	struct cap_drain d;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	region_make(4);
	ck_assert_int_eq(pdf_writer_open(&w, path, &wp), 0);
	cap_tally_init(&t, 1, 0);
	ck_assert_int_eq(cap_drain_init(&d, &f.region, 0, w, &t), 0);
	put_comm();
	ck_assert_int_eq(cap_drain_pass(&d, &e), 1);
	ck_assert_uint_eq(t.ring[0].records, 0);
	ck_assert_int_eq(cap_drain_flush(&d, &e), 0);
	ck_assert_uint_eq(t.ring[0].records, 1);
	ck_assert_int_eq(t.ring[0].have_time, 0);  /* no span */
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_uint_eq(file_times(path, time, type, 4), 1);
	ck_assert_uint_eq(type[0], PERF_RECORD_COMM);
	cap_drain_fini(&d);
	unlink(path);
	free(f.mem);
}
END_TEST

static Suite *drain_suite(void)
{
	Suite *s = suite_create("drain");
	TCase *c = tcase_create("drain");

	tcase_add_test(c, drain_early_records_and_losses);
	tcase_add_test(c, drain_nothing_early);
	tcase_add_test(c, drain_untimed_filed_under_next_time);
	tcase_add_test(c, drain_untimed_only_flushed);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(drain_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
