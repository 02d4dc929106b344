/* SPDX-License-Identifier: MIT */
/* rs_snapshot_*: normal rings oldest first, overwrite rings newest first,
 * and the live cut of what a writer may be overwriting. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define SEQ_HDR ((uint32_t)sizeof(struct rs_rec_seq))

struct snap_test {
	struct fx_ring t;
	struct rs_snapshot *s;
	uint8_t *buf;
	uint32_t *sizes;        /* size of record seq, as written */
	uint64_t n;             /* records written */
};

static void snap_init(struct snap_test *st, uint32_t data_pages, uint32_t mode)
{
	struct rs_region_params p;

	fx_params(&p, data_pages, 0);
	p.data_mode = mode;
	fx_ring_init(&st->t, &p, 0);
	st->s = rs_snapshot_alloc();
	ck_assert_ptr_nonnull(st->s);
	st->buf = malloc(st->t.data_size);
	ck_assert_ptr_nonnull(st->buf);
	st->sizes = NULL;
	st->n = 0;
}

static void snap_fini(struct snap_test *st)
{
	rs_snapshot_free(st->s);
	free(st->buf);
	free(st->sizes);
	fx_ring_fini(&st->t);
}

/* @count seq records of random size, remembering each size. */
static void write_records(struct snap_test *st, uint64_t count, uint64_t seed)
{
	uint64_t state = seed;

	st->sizes = realloc(st->sizes, (st->n + count) * sizeof(*st->sizes));
	ck_assert_ptr_nonnull(st->sizes);
	for (uint64_t i = 0; i < count; i++, st->n++) {
		uint32_t fill = (uint32_t)(fx_rand(&state) % 400);

		st->sizes[st->n] = rs_seq_size(fill);
		ck_assert_int_ge(fx_seq_output(&st->t.p, st->n, fill), 0);
	}
}

/* Newest records that fit whole in @window bytes, and their bytes. */
static uint64_t newest_fitting(const struct snap_test *st, uint64_t window,
			       uint64_t *bytes)
{
	uint64_t k = 0, b = 0;

	while (k < st->n && b + st->sizes[st->n - 1 - k] <= window)
		b += st->sizes[st->n - 1 - k++];
	*bytes = b;
	return k;
}

/* Take a snapshot and check it is seq @first, @first + @step, ... */
static uint64_t take_and_walk(struct snap_test *st, uint64_t first, int step)
{
	const struct rs_perf_header *rec;
	uint64_t k = 0;
	int ret;

	ck_assert_int_eq(rs_snapshot_take(st->s, &st->t.f.region, 0, st->buf,
					  st->t.data_size), 0);
	while ((ret = rs_snapshot_next(st->s, &rec)) == 1) {
		ck_assert_uint_le(k, st->n);
		ck_assert_uint_eq(fx_seq_of(rec), first + (uint64_t)((int64_t)k * step));
		k++;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(rs_snapshot_next(st->s, &rec), 0);
	ck_assert_uint_eq(rs_snapshot_stats(st->s)->records, k);
	return k;
}

START_TEST(snapshot_normal_oldest_first)
{
	struct snap_test st;
	uint64_t bytes = 0;

	snap_init(&st, 1, RS_MODE_NORMAL);
	write_records(&st, 10, 1);
	st.t.log.stop_at = 3;
	st.t.log.stop_ret = -1;
	ck_assert_int_eq(rs_consumer_drain(st.t.c, fx_log_record, &st.t.log), -1);
	st.t.log.stop_ret = 0;

	ck_assert_uint_eq(take_and_walk(&st, 3, 1), 7);
	for (uint64_t i = 3; i < 10; i++)
		bytes += st.sizes[i];
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->bytes, bytes);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->cut_bytes, 0);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 0);
	/* nothing consumed: the consumer still gets all seven */
	ck_assert_uint_eq(st.t.ctrl->data_tail, st.sizes[0] + st.sizes[1] + st.sizes[2]);
	ck_assert_uint_eq(fx_drain_all(st.t.c, &st.t.log), 7);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_normal_wrapped)
{
	struct snap_test st;

	snap_init(&st, 1, RS_MODE_NORMAL);
	for (int round = 0; round < 20; round++) {
		uint64_t first = st.n;

		write_records(&st, 6, 100 + (uint64_t)round);
		ck_assert_uint_eq(take_and_walk(&st, first, 1), 6);
		ck_assert_uint_eq(fx_drain_all(st.t.c, &st.t.log), 6);
	}
	ck_assert_uint_gt(st.t.ctrl->data_head, 2 * st.t.data_size);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_normal_lost)
{
	struct snap_test st;
	uint64_t seq = 0;

	snap_init(&st, 1, RS_MODE_NORMAL);
	while (fx_seq_output(&st.t.p, seq, 24) >= 0)
		seq++;
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(fx_seq_output(&st.t.p, ++seq, 24), -rse_no_space);
	fx_drain_all(st.t.c, &st.t.log);
	ck_assert_int_ge(fx_seq_output(&st.t.p, ++seq, 24), 0);
	ck_assert_int_eq(rs_snapshot_take(st.s, &st.t.f.region, 0, st.buf,
					  st.t.data_size), 0);
	while (rs_snapshot_next(st.s, &(const struct rs_perf_header *){ 0 }) == 1)
		;
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->records, 2);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->lost, 7);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_normal_pending_reservation)
{
	struct snap_test st;
	struct rs_handle h;

	/* reserved but not committed: beyond data_head, not returned */
	snap_init(&st, 1, RS_MODE_NORMAL);
	write_records(&st, 5, 3);
	ck_assert_int_eq(rs_producer_reserve(&st.t.p, &h, 128), 0);
	ck_assert_uint_eq(take_and_walk(&st, 0, 1), 5);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->cut_bytes, 0);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_overwrite_not_wrapped)
{
	struct snap_test st;

	/* the unwritten, zeroed part of the area is not records */
	snap_init(&st, 2, RS_MODE_OVERWRITE);
	ck_assert_uint_eq(take_and_walk(&st, 0, -1), 0);
	write_records(&st, 5, 4);
	ck_assert_uint_eq(take_and_walk(&st, 4, -1), 5);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 0);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->overwritten, 0);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->cut_bytes, 0);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_overwrite_wrapped)
{
	struct snap_test st;
	uint64_t bytes, k;

	snap_init(&st, 1, RS_MODE_OVERWRITE);
	write_records(&st, 500 + (uint64_t)_i, 5 + (uint64_t)_i);
	k = newest_fitting(&st, st.t.data_size, &bytes);
	ck_assert_uint_eq(take_and_walk(&st, st.n - 1, -1), k);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->bytes, bytes);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->overwritten,
			  bytes != st.t.data_size);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 0);
	snap_fini(&st);
}
END_TEST

/*
 * A writer that has reserved bytes may already be writing them over the
 * oldest data; a live snapshot must return only what lies outside them.
 */
struct live_case {
	uint32_t res[3];        /* nested reservations, outermost first */
	int nres;
};

static const struct live_case live_cases[] = {
	{ { 48 }, 1 },
	{ { 400 }, 1 },
	{ { 2048 }, 1 },
	{ { 4096 - 8 }, 1 },
	{ { 0 }, 1 },           /* computed: the cut falls on a record boundary */
	{ { 400, 48 }, 2 },
	{ { 2048, 1024, 64 }, 3 },
};

START_TEST(snapshot_live_cut)
{
	static _Alignas(8) uint8_t rec[3][RS_RECORD_MAX];
	const struct live_case *lc = &live_cases[_i];
	struct snap_test st;
	struct rs_handle h[3];
	uint32_t res[3];
	uint64_t r = 0, bytes, k, head;

	snap_init(&st, 2, RS_MODE_OVERWRITE);
	write_records(&st, 800, 6 + (uint64_t)_i);
	head = st.t.ctrl->data_head;
	memcpy(res, lc->res, sizeof(res));
	if (!res[0]) {
		bytes = 0;
		for (uint64_t i = 0; i < 10; i++)
			bytes += st.sizes[st.n - 1 - i];
		res[0] = (uint32_t)(st.t.data_size - bytes);
	}
	for (int i = 0; i < lc->nres; i++) {
		ck_assert_int_eq(rs_seq_build(rec[i], st.n + (uint64_t)i, 0, 0,
					      res[i] - SEQ_HDR), (int)res[i]);
		ck_assert_int_eq(rs_producer_reserve(&st.t.p, &h[i], res[i]), 0);
		/* half written: already over the oldest records */
		ck_assert_int_eq(rs_producer_write(&st.t.p, &h[i], rec[i], res[i] / 2), 0);
		r += res[i];
	}
	ck_assert_uint_eq(st.t.ctrl->data_head, head);
	ck_assert_uint_eq(head - st.t.ctrl->ext.write_head, r);

	k = newest_fitting(&st, st.t.data_size - r, &bytes);
	if (!lc->res[0])
		ck_assert_uint_eq(k, 10);
	ck_assert_uint_eq(take_and_walk(&st, st.n - 1, -1), k);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->cut_bytes, r);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->bytes, bytes);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 0);

	/* committed, inner first, the reservations become the newest records */
	for (int i = lc->nres - 1; i >= 0; i--) {
		ck_assert_int_eq(rs_producer_write(&st.t.p, &h[i], rec[i] + res[i] / 2,
						   res[i] - res[i] / 2), 0);
		ck_assert_int_ge(rs_producer_commit(&st.t.p, &h[i]), 0);
	}
	st.sizes = realloc(st.sizes, (st.n + 3) * sizeof(*st.sizes));
	for (int i = 0; i < lc->nres; i++)
		st.sizes[st.n++] = res[i];
	ck_assert_uint_eq(st.t.ctrl->ext.write_head, st.t.ctrl->data_head);
	k = newest_fitting(&st, st.t.data_size, &bytes);
	ck_assert_uint_eq(take_and_walk(&st, st.n - 1, -1), k);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->cut_bytes, 0);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_corrupt_header)
{
	struct snap_test st;
	uint64_t pos;

	/* overwrite ring: the walk stops at a malformed header, counted */
	snap_init(&st, 1, RS_MODE_OVERWRITE);
	write_records(&st, 300, 8);
	pos = st.t.ctrl->data_head;
	for (int i = 0; i < 3; i++)
		pos += st.sizes[st.n - 1 - (uint64_t)i];
	((struct rs_perf_header *)(st.t.data + pos % st.t.data_size))->size = 12;
	ck_assert_uint_eq(take_and_walk(&st, st.n - 1, -1), 3);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 1);
	snap_fini(&st);

	/* normal ring: same, oldest first */
	snap_init(&st, 1, RS_MODE_NORMAL);
	write_records(&st, 5, 9);
	pos = st.sizes[0] + st.sizes[1];
	((struct rs_perf_header *)(st.t.data + pos))->size = 0;
	ck_assert_uint_eq(take_and_walk(&st, 0, 1), 2);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 1);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_zero_header_wrapped)
{
	struct snap_test st;

	/* A zero header ends the walk quietly only where the ring was never
	 * written.  After a wrap there is no such place: it is a scribble,
	 * and the records behind it are lost, so it must be counted. */
	snap_init(&st, 1, RS_MODE_OVERWRITE);
	write_records(&st, 300, 12);
	ck_assert_uint_gt(0 - st.t.ctrl->data_head, st.t.data_size);
	((struct rs_perf_header *)(st.t.data + st.t.ctrl->data_head % st.t.data_size))->size = 0;
	ck_assert_uint_eq(take_and_walk(&st, st.n - 1, -1), 0);
	ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 1);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_hostile_head)
{
	struct snap_test st;
	const uint64_t heads[] = { 3 * 4096, UINT64_MAX, 8, 1ull << 63 };

	/* heads the guest may write; a few bytes only, or far too many */
	snap_init(&st, 1, RS_MODE_NORMAL);
	write_records(&st, 5, 10);
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		st.t.ctrl->data_head = heads[i];
		ck_assert_uint_eq(take_and_walk(&st, 0, 1), 0);
		ck_assert_uint_eq(rs_snapshot_stats(st.s)->corrupt, 1);
	}
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_take_null)
{
	struct snap_test st;

	snap_init(&st, 1, RS_MODE_OVERWRITE);
	ck_assert_int_eq(rs_snapshot_take(NULL, &st.t.f.region, 0, st.buf,
					  st.t.data_size), -rse_invalid);
	ck_assert_int_eq(rs_snapshot_take(st.s, NULL, 0, st.buf, st.t.data_size),
			 -rse_invalid);
	ck_assert_int_eq(rs_snapshot_take(st.s, &st.t.f.region, 0, NULL,
					  st.t.data_size), -rse_invalid);
	ck_assert_int_eq(rs_snapshot_take(st.s, &st.t.f.region, 1, st.buf,
					  st.t.data_size), -rse_invalid);
	ck_assert_int_eq(rs_snapshot_take(st.s, &st.t.f.region, 0, st.buf,
					  st.t.data_size - 8), -rse_too_small);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_next_null)
{
	struct snap_test st;
	const struct rs_perf_header *rec;

	snap_init(&st, 1, RS_MODE_OVERWRITE);
	write_records(&st, 3, 11);
	ck_assert_int_eq(rs_snapshot_take(st.s, &st.t.f.region, 0, st.buf,
					  st.t.data_size), 0);
	ck_assert_int_eq(rs_snapshot_next(NULL, &rec), -rse_invalid);
	ck_assert_int_eq(rs_snapshot_next(st.s, NULL), -rse_invalid);
	/* the refused calls did not advance the walk */
	for (uint64_t i = 0; i < 3; i++) {
		ck_assert_int_eq(rs_snapshot_next(st.s, &rec), 1);
		ck_assert_uint_eq(fx_seq_of(rec), 2 - i);
	}
	ck_assert_int_eq(rs_snapshot_next(st.s, &rec), 0);
	snap_fini(&st);
}
END_TEST

START_TEST(snapshot_stats_null)
{
	ck_assert_ptr_null(rs_snapshot_stats(NULL));
}
END_TEST

START_TEST(snapshot_alloc_untaken)
{
	const struct rs_perf_header *rec;
	struct rs_snapshot *fresh = rs_snapshot_alloc();

	/* a snapshot never taken has nothing to return */
	ck_assert_ptr_nonnull(fresh);
	ck_assert_int_le(rs_snapshot_next(fresh, &rec), 0);
	ck_assert_uint_eq(rs_snapshot_stats(fresh)->records, 0);
	rs_snapshot_free(fresh);
	rs_snapshot_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = fx_tcase(s, "snapshot");

	tcase_add_test(tc, snapshot_normal_oldest_first);
	tcase_add_test(tc, snapshot_normal_wrapped);
	tcase_add_test(tc, snapshot_normal_lost);
	tcase_add_test(tc, snapshot_normal_pending_reservation);
	tcase_add_test(tc, snapshot_overwrite_not_wrapped);
	tcase_add_loop_test(tc, snapshot_overwrite_wrapped, 0, 4);
	tcase_add_loop_test(tc, snapshot_live_cut, 0,
			    sizeof(live_cases) / sizeof(live_cases[0]));
	tcase_add_test(tc, snapshot_corrupt_header);
	tcase_add_test(tc, snapshot_zero_header_wrapped);
	tcase_add_test(tc, snapshot_hostile_head);
	tcase_add_test(tc, snapshot_take_null);
	tcase_add_test(tc, snapshot_next_null);
	tcase_add_test(tc, snapshot_stats_null);
	tcase_add_test(tc, snapshot_alloc_untaken);
	return fx_run(s);
}
