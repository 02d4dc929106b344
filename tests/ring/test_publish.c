/* SPDX-License-Identifier: MIT */
/*
 * data_head published per batch (rs_producer_set_batch, rs_producer_flush)
 * and the sealed records past it: a snapshot of a producer that stopped
 * between two publications still finds every committed record, never a
 * torn one, never a stale one from an earlier lap, and a scribbled header
 * stops the walk; the consumer sees everything once the head is flushed,
 * and delivered + lost == produced.
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define FILL 40u /* SEQ records of rs_seq_size(40) = 80 bytes */

struct pub_test {
	struct fx_ring t;
	struct rs_snapshot *s;
	uint8_t *buf;
	uint32_t rec_size;
	uint64_t seq;       /* next seq to write */
};

static void pub_init(struct pub_test *pt, uint32_t data_pages, uint32_t batch)
{
	struct rs_region_params p;

	fx_params(&p, data_pages, 0);
	fx_ring_init(&pt->t, &p, 0);
	ck_assert_int_eq(rs_producer_set_batch(&pt->t.p, batch), 0);
	pt->s = rs_snapshot_alloc();
	ck_assert_ptr_nonnull(pt->s);
	pt->buf = malloc(pt->t.data_size);
	ck_assert_ptr_nonnull(pt->buf);
	pt->rec_size = rs_seq_size(FILL);
	pt->seq = 0;
}

static void pub_fini(struct pub_test *pt)
{
	rs_snapshot_free(pt->s);
	free(pt->buf);
	fx_ring_fini(&pt->t);
}

static void put(struct pub_test *pt, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++)
		ck_assert_int_ge(fx_seq_output(&pt->t.p, pt->seq++, FILL), 0);
}

/* Snapshot; the records must be seq @first, @first + 1, ...; their count. */
static uint64_t snap(struct pub_test *pt, uint64_t first)
{
	const struct rs_perf_header *rec;
	uint64_t k = 0;
	int ret;

	ck_assert_int_eq(rs_snapshot_take(pt->s, &pt->t.f.region, 0, pt->buf,
					  pt->t.data_size), 0);
	while ((ret = rs_snapshot_next(pt->s, &rec)) == 1)
		ck_assert_uint_eq(fx_seq_of(rec), first + k++);
	ck_assert_int_eq(ret, 0);
	return k;
}

static uint64_t slot(const struct pub_test *pt, uint64_t pos)
{
	uint64_t v;

	fx_ring_read(pt->t.data, pt->t.data_size, pos, &v, sizeof(v));
	return v;
}

START_TEST(publish_lags_until_flush)
{
	struct pub_test pt;

	pub_init(&pt, 4, 4096);
	put(&pt, 10); /* 800 bytes: below the batch */
	ck_assert_uint_eq(pt.t.ctrl->data_head, 0);
	/* the produced hint goes out with data_head */
	ck_assert_uint_eq(pt.t.ctrl->ext.produced, 0);
	ck_assert_uint_eq(fx_drain_all(pt.t.c, &pt.t.log), 0);
	/* the stopped producer's records are all in a snapshot */
	ck_assert_uint_eq(snap(&pt, 0), 10);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed_bytes, 10 * pt.rec_size);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed, 10);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->corrupt, 0);
	ck_assert_uint_eq(slot(&pt, 10 * pt.rec_size), 0);

	ck_assert_int_eq(rs_producer_flush(&pt.t.p), 0);
	ck_assert_uint_eq(pt.t.ctrl->data_head, 10 * pt.rec_size);
	ck_assert_uint_eq(pt.t.ctrl->ext.produced, 10);
	ck_assert_uint_eq(fx_drain_all(pt.t.c, &pt.t.log), 10);
	for (size_t i = 0; i < 10; i++)
		ck_assert_uint_eq(fx_seq_of(pt.t.log.recs[i]), i);
	/* a flush with nothing new publishes the same head */
	ck_assert_int_eq(rs_producer_flush(&pt.t.p), 0);
	ck_assert_uint_eq(pt.t.ctrl->data_head, 10 * pt.rec_size);
	pub_fini(&pt);
}
END_TEST

START_TEST(publish_per_batch)
{
	struct pub_test pt;
	uint64_t total = 0, last = 0, publications = 0;

	pub_init(&pt, 4, 1024);
	for (int i = 0; i < 100; i++) {
		put(&pt, 1);
		total += pt.rec_size;
		if (pt.t.ctrl->data_head != last) {
			/* published: everything committed so far */
			ck_assert_uint_eq(pt.t.ctrl->data_head, total);
			last = total;
			publications++;
		}
		ck_assert_uint_lt(total - pt.t.ctrl->data_head, 1024);
		fx_drain_all(pt.t.c, &pt.t.log);
	}
	ck_assert_uint_ge(publications, total / (1024 + pt.rec_size));
	ck_assert_int_eq(rs_producer_flush(&pt.t.p), 0);
	ck_assert_uint_eq(fx_drain_all(pt.t.c, &pt.t.log) + last / pt.rec_size, 100);
	ck_assert_uint_eq(pt.t.log.n, 100);
	pub_fini(&pt);
}
END_TEST

/* A record the writer has not committed has no header in the ring: a
 * snapshot stops in front of it, whatever its body holds. */
START_TEST(publish_torn_not_taken)
{
	static _Alignas(8) uint8_t rec[512];
	struct pub_test pt;
	struct rs_handle h;
	uint64_t pos;

	pub_init(&pt, 4, 4096);
	put(&pt, 3);
	pos = 3 * pt.rec_size;
	ck_assert_int_eq(rs_seq_build(rec, 3, 1, 0, FILL), (int)pt.rec_size);
	ck_assert_int_eq(rs_producer_reserve(&pt.t.p, &h, pt.rec_size), 0);
	/* all of it, header included, or half of it: a writer that stopped */
	ck_assert_int_eq(rs_producer_write(&pt.t.p, &h, rec, _i ? pt.rec_size : 20), 0);
	ck_assert_uint_eq(slot(&pt, pos), 0);
	ck_assert_uint_eq(snap(&pt, 0), 3);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->corrupt, 0);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed_bytes, pos);
	/* committed, it is there */
	ck_assert_int_eq(rs_producer_commit(&pt.t.p, &h), 0);
	pt.seq = 4;
	if (_i) {
		ck_assert_uint_eq(snap(&pt, 0), 4);
	} else {
		ck_assert_int_eq(rs_snapshot_take(pt.s, &pt.t.f.region, 0, pt.buf,
						  pt.t.data_size), 0);
		ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed_bytes,
				  pos + pt.rec_size);
	}
	pub_fini(&pt);
}
END_TEST

/* Laps of records drained, then a few not published: the snapshot has
 * exactly those, not the older records that are still in the ring after
 * them. */
START_TEST(publish_no_stale_lap)
{
	struct pub_test pt;
	uint64_t first, head;

	pub_init(&pt, 1, 1024);
	for (int lap = 0; lap < 7; lap++) {
		put(&pt, 20);
		ck_assert_int_ge(rs_producer_flush(&pt.t.p), 0);
		ck_assert_uint_eq(fx_drain_all(pt.t.c, &pt.t.log), 20);
	}
	ck_assert_uint_gt(pt.t.ctrl->data_head, 2 * pt.t.data_size);
	first = pt.seq;
	head = pt.t.ctrl->data_head;
	put(&pt, (uint64_t)_i);
	ck_assert_uint_eq(pt.t.ctrl->data_head, head);
	/* one lap back, right after the new records, lies an old one */
	ck_assert_uint_eq(snap(&pt, first), (uint64_t)_i);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed_bytes, _i * pt.rec_size);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->corrupt, 0);
	pub_fini(&pt);
}
END_TEST

/* A ring filled to the last record that fits, drained, then a few
 * records not published: the header slot after them was the oldest
 * record's before the consumer freed it, and is cleared all the same. */
START_TEST(publish_full_ring_no_stale)
{
	struct pub_test pt;
	uint64_t first, n = 0;
	int ret;

	pub_init(&pt, 1, 2048);
	/* 64-byte records: 63 fit with the slot, the 64th would end at
	 * exactly tail + size */
	while ((ret = fx_seq_output(&pt.t.p, pt.seq, 24)) >= 0)
		pt.seq++, n++;
	ck_assert_int_eq(ret, -rse_no_space);
	ck_assert_uint_eq(n, pt.t.data_size / 64 - 1);
	ck_assert_uint_eq(pt.t.ctrl->data_head, n * 64);
	ck_assert_uint_eq(fx_drain_all(pt.t.c, &pt.t.log), n);
	first = ++pt.seq;
	/* the LOST record, then _i + 1 records over where the oldest lap's
	 * records were (the first crosses the watermark: published) */
	for (int i = 0; i <= _i; i++)
		ck_assert_int_ge(fx_seq_output(&pt.t.p, pt.seq++, 24), 0);
	ck_assert_int_eq(rs_snapshot_take(pt.s, &pt.t.f.region, 0, pt.buf,
					  pt.t.data_size), 0);
	for (uint64_t k = 0; k < (uint64_t)_i + 2; k++) {
		const struct rs_perf_header *rec;

		ck_assert_int_eq(rs_snapshot_next(pt.s, &rec), 1);
		if (k == 0) {
			ck_assert_uint_eq(rec->type, RS_PERF_RECORD_LOST);
			ck_assert_uint_eq(((const struct rs_perf_lost *)rec)->lost, 1);
		} else {
			ck_assert_uint_eq(fx_seq_of(rec), first + k - 1);
		}
	}
	ck_assert_int_eq(rs_snapshot_next(pt.s, &(const struct rs_perf_header *){ 0 }), 0);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->corrupt, 0);
	pub_fini(&pt);
}
END_TEST

/* Headers past data_head are guest claims: one that is misaligned, too
 * short or runs past a ring from the tail stops the walk, counted. */
START_TEST(publish_scribbled_header)
{
	static const uint16_t bad[] = { 4, 13, 0xfff8, 0x1000 };
	struct pub_test pt;
	struct rs_perf_header h;
	uint64_t pos;

	pub_init(&pt, 1, 2048);
	put(&pt, 5);
	ck_assert_uint_eq(pt.t.ctrl->data_head, 0);
	pos = 2 * pt.rec_size;
	memcpy(&h, pt.t.data + pos, sizeof(h));
	h.size = bad[_i];
	memcpy(pt.t.data + pos, &h, sizeof(h));
	ck_assert_uint_eq(snap(&pt, 0), 2);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->corrupt, 1);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed_bytes, pos);
	pub_fini(&pt);
}
END_TEST

/* A ring whose producer does not seal its records (an older agent): past
 * data_head there may be anything, so nothing is taken from there. */
START_TEST(publish_unsealed_ring)
{
	struct pub_test pt;

	pub_init(&pt, 4, 4096);
	put(&pt, 6);
	ck_assert_uint_ne(pt.t.ctrl->ext.flags & RS_EXT_SEALED, 0);
	pt.t.ctrl->ext.flags &= ~(uint64_t)RS_EXT_SEALED;
	ck_assert_uint_eq(snap(&pt, 0), 0);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed_bytes, 0);
	ck_assert_uint_eq(rs_snapshot_stats(pt.s)->sealed, 0);
	pub_fini(&pt);
}
END_TEST

/*
 * A ring that overflows again and again, drained in steps the producer
 * cannot see: every record is delivered or counted in a LOST record, once,
 * and the published head is never more than a batch behind what the
 * consumer could have had.
 */
START_TEST(publish_accounting_exact)
{
	struct pub_test pt;
	uint64_t state = 7 + (uint64_t)_i, produced = 0, dropped = 0, next = 0;
	uint64_t delivered = 0, lost = 0;
	int ret;

	pub_init(&pt, 1, _i ? 512 : 1016);
	for (int step = 0; step < 400; step++) {
		uint64_t burst = fx_rand(&state) % 90;

		for (uint64_t i = 0; i < burst; i++, produced++) {
			ret = fx_seq_output(&pt.t.p, produced, FILL);
			if (ret == -rse_no_space)
				dropped++;
			else
				ck_assert_int_ge(ret, 0);
		}
		if (fx_rand(&state) % 4 == 0)
			ck_assert_int_ge(rs_producer_flush(&pt.t.p), 0);
		fx_drain_all(pt.t.c, &pt.t.log);
	}
	ck_assert_int_ge(rs_producer_flush(&pt.t.p), 0);
	fx_drain_all(pt.t.c, &pt.t.log);
	while ((ret = rs_producer_flush_lost(&pt.t.p)) != 0) {
		ck_assert_int_gt(ret, 0);
		fx_drain_all(pt.t.c, &pt.t.log);
	}
	ck_assert_uint_gt(dropped, 0);
	for (size_t i = 0; i < pt.t.log.n; i++) {
		const struct rs_perf_header *r = pt.t.log.recs[i];

		if (r->type == RS_PERF_RECORD_LOST) {
			lost += ((const struct rs_perf_lost *)r)->lost;
			continue;
		}
		/* in order; every gap covered by a LOST count below */
		ck_assert_uint_ge(fx_seq_of(r), next);
		next = fx_seq_of(r) + 1;
		delivered++;
	}
	ck_assert_uint_eq(delivered + lost, produced);
	ck_assert_uint_eq(lost, dropped);
	ck_assert_uint_eq(rs_producer_lost(&pt.t.p), dropped);
	ck_assert_uint_eq(rs_consumer_stats(pt.t.c)->lost, dropped);
	ck_assert_uint_eq(rs_consumer_stats(pt.t.c)->corrupt, 0);
	pub_fini(&pt);
}
END_TEST

/*
 * A writer nested into a reservation: its record lies past the outer
 * one's, which has no header yet.  A snapshot then stops at the outer
 * record (the nested one is not reachable until it commits); after the
 * outer commit both are there, and the head is published only by flush.
 */
START_TEST(publish_nested)
{
	static _Alignas(8) uint8_t rec[512];
	struct pub_test pt;
	struct rs_handle h;

	pub_init(&pt, 4, 4096);
	put(&pt, 2);
	ck_assert_int_eq(rs_producer_reserve(&pt.t.p, &h, pt.rec_size), 0);
	ck_assert_int_eq(fx_seq_output(&pt.t.p, 3, FILL), 0);
	ck_assert_int_eq(rs_producer_flush(&pt.t.p), -rse_nesting);
	ck_assert_uint_eq(snap(&pt, 0), 2);
	ck_assert_int_eq(rs_seq_build(rec, 2, 1, 0, FILL), (int)pt.rec_size);
	ck_assert_int_eq(rs_producer_write(&pt.t.p, &h, rec, pt.rec_size), 0);
	ck_assert_int_eq(rs_producer_commit(&pt.t.p, &h), 0);
	pt.seq = 4;
	ck_assert_uint_eq(pt.t.ctrl->data_head, 0);
	ck_assert_uint_eq(snap(&pt, 0), 4);
	ck_assert_int_eq(rs_producer_flush(&pt.t.p), 0);
	ck_assert_uint_eq(pt.t.ctrl->data_head, 4 * pt.rec_size);
	ck_assert_uint_eq(fx_drain_all(pt.t.c, &pt.t.log), 4);
	pub_fini(&pt);
}
END_TEST

/* The doorbell is due at the watermark whatever the batch, and the head
 * is published with it: a woken consumer finds the records. */
START_TEST(publish_doorbell_publishes)
{
	struct pub_test pt;
	uint64_t wm;
	int ret = 0;

	pub_init(&pt, 4, 8192);
	wm = fx_header(&pt.t.f)->config.data_watermark;
	while (ret == 0) {
		ret = fx_seq_output(&pt.t.p, pt.seq++, FILL);
		ck_assert_int_ge(ret, 0);
	}
	ck_assert_int_eq(ret, 1);
	ck_assert_uint_ge(pt.t.ctrl->data_head, wm);
	ck_assert_uint_eq(pt.t.ctrl->data_head, pt.seq * pt.rec_size);
	ck_assert_uint_eq(fx_drain_all(pt.t.c, &pt.t.log), pt.seq);
	pub_fini(&pt);
}
END_TEST

START_TEST(publish_args)
{
	struct rs_region_params p;
	struct fx_ring t;

	fx_params(&p, 1, 0);
	fx_ring_init(&t, &p, 0);
	ck_assert_int_eq(rs_producer_set_batch(NULL, 64), -rse_invalid);
	ck_assert_int_eq(rs_producer_set_batch(&t.p, (uint32_t)t.data_size), -rse_invalid);
	ck_assert_int_eq(rs_producer_set_batch(&t.p, (uint32_t)t.data_size / 2), 0);
	ck_assert_int_eq(rs_producer_set_batch(&t.p, 0), 0);
	ck_assert_int_eq(rs_producer_flush(NULL), -rse_invalid);
	fx_ring_fini(&t);

	p.data_mode = RS_MODE_OVERWRITE;
	fx_ring_init(&t, &p, 0);
	ck_assert_int_eq(rs_producer_set_batch(&t.p, 64), -rse_mode);
	ck_assert_int_eq(rs_producer_flush(&t.p), 0);
	fx_ring_fini(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("publish");
	TCase *tc = fx_tcase(s, "core");

	tcase_add_test(tc, publish_lags_until_flush);
	tcase_add_test(tc, publish_per_batch);
	tcase_add_loop_test(tc, publish_torn_not_taken, 0, 2);
	tcase_add_loop_test(tc, publish_no_stale_lap, 0, 6);
	tcase_add_loop_test(tc, publish_full_ring_no_stale, 0, 4);
	tcase_add_loop_test(tc, publish_scribbled_header, 0, 4);
	tcase_add_test(tc, publish_unsealed_ring);
	tcase_add_loop_test(tc, publish_accounting_exact, 0, 2);
	tcase_add_test(tc, publish_nested);
	tcase_add_test(tc, publish_doorbell_publishes);
	tcase_add_test(tc, publish_args);
	return fx_run(s);
}
