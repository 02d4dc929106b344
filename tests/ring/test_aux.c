/* SPDX-License-Identifier: MIT */
/* rs_aux_*, rs_consumer_drain_aux, rs_snapshot_aux. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* The AUX stream's byte at position @pos: not periodic in any ring size. */
static uint8_t pat(uint64_t pos)
{
	return (uint8_t)((pos * 2654435761u) >> 13 ^ pos >> 9);
}

static void aux_ring_init(struct fx_ring *t, uint32_t aux_pages, uint32_t mode,
			  uint32_t watermark)
{
	struct rs_region_params p;

	fx_params(&p, 4, aux_pages);
	p.aux_mode = mode;
	p.aux_watermark = watermark;
	fx_ring_init(t, &p, 0);
}

/*
 * One AUX output of @len pattern bytes: begin(max @max), write @len, end.
 * Returns end's value; *@room gets begin's.
 */
static int aux_emit(struct fx_ring *t, uint64_t max, uint64_t len,
		    uint64_t flags, int64_t *room)
{
	static uint8_t buf[1 << 17];
	struct rs_aux_handle h;
	uint64_t pos = t->ctrl->aux_head;
	int64_t r, w;

	ck_assert_uint_le(len, sizeof(buf));
	for (uint64_t i = 0; i < len; i++)
		buf[i] = pat(pos + i);
	r = rs_aux_begin(&t->p, &h, max);
	ck_assert_int_ge(r, 0);
	if (room)
		*room = r;
	w = rs_aux_write(&t->p, &h, buf, len);
	ck_assert_int_eq(w, len < (uint64_t)r ? (int64_t)len : r);
	return rs_aux_end(&t->p, &h, flags);
}

/* The AUX records of the data ring, in order. */
static size_t aux_records(struct fx_ring *t, const struct rs_perf_aux **out,
			  size_t max)
{
	size_t n = 0;

	fx_drain_all(t->c, &t->log);
	for (size_t i = 0; i < t->log.n && n < max; i++)
		if (t->log.recs[i]->type == RS_PERF_RECORD_AUX) {
			ck_assert_uint_eq(t->log.recs[i]->size, sizeof(**out));
			out[n++] = (const void *)t->log.recs[i];
		}
	return n;
}

/* drain_aux sink: bytes must come in stream order, matching the pattern. */
struct aux_sink {
	uint64_t next;
	uint64_t bytes;
	unsigned chunks;
	int stop_ret;
};

static int aux_sink_fn(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct aux_sink *s = arg;
	const uint8_t *b = chunk;

	if (s->stop_ret)
		return s->stop_ret;
	FX_CHECK(pos == s->next && len > 0, "chunk [%llu, +%llu), expected %llu",
		 (unsigned long long)pos, (unsigned long long)len,
		 (unsigned long long)s->next);
	for (uint64_t i = 0; i < len; i++)
		FX_CHECK(b[i] == pat(pos + i), "byte at %llu",
			 (unsigned long long)(pos + i));
	s->next += len;
	s->bytes += len;
	s->chunks++;
	return 0;
}

START_TEST(aux_normal_roundtrip)
{
	struct fx_ring t;
	const struct rs_perf_aux *rec[4];
	struct aux_sink sink = { 0 };
	int64_t room;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, 1000, 1000, 0, &room), 0);
	ck_assert_int_eq(room, 1000);
	ck_assert_uint_eq(t.ctrl->aux_head, 1000);
	ck_assert_uint_eq(aux_records(&t, rec, 4), 1);
	ck_assert_uint_eq(rec[0]->aux_offset % t.aux_size, 0);
	ck_assert_uint_eq(rec[0]->aux_size, 1000);
	ck_assert_uint_eq(rec[0]->flags, 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 1000);
	ck_assert_uint_eq(sink.bytes, 1000);
	ck_assert_uint_eq(t.ctrl->aux_tail, 1000);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_records, 1);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_bytes, 1000);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_truncated, 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_begin_room)
{
	struct fx_ring t;
	int64_t room;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, UINT64_MAX, 3000, 0, &room), 0);
	ck_assert_int_eq(room, (int64_t)t.aux_size);
	/* the consumer has not moved aux_tail: only the rest is free */
	ck_assert_int_ge(aux_emit(&t, UINT64_MAX, 0, 0, &room), 0);
	ck_assert_int_eq(room, (int64_t)t.aux_size - 3000);
	ck_assert_int_ge(aux_emit(&t, 10, 0, 0, &room), 0);
	ck_assert_int_eq(room, 10);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_truncated_no_room)
{
	struct fx_ring t;
	const struct rs_perf_aux *rec[4];
	struct aux_sink sink = { 0 };
	int64_t room;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, t.aux_size, t.aux_size, 0, &room), 0);
	ck_assert_int_eq(room, (int64_t)t.aux_size);
	/* aux_tail not moved: nothing fits, the output is cut to nothing */
	ck_assert_int_ge(aux_emit(&t, 100, 100, 0, &room), 0);
	ck_assert_int_eq(room, 0);
	ck_assert_uint_eq(t.ctrl->aux_head, t.aux_size);
	ck_assert_uint_eq(aux_records(&t, rec, 4), 2);
	ck_assert_uint_eq(rec[0]->flags & RS_PERF_AUX_FLAG_TRUNCATED, 0);
	ck_assert_uint_eq(rec[1]->flags & RS_PERF_AUX_FLAG_TRUNCATED,
			  RS_PERF_AUX_FLAG_TRUNCATED);
	ck_assert_uint_eq(rec[1]->aux_size, 0);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_truncated, 1);
	ck_assert_uint_eq(t.ctrl->ext.aux_truncated, 1);
	/* the consumer frees the area; output works again */
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink),
			 (int64_t)t.aux_size);
	ck_assert_int_ge(aux_emit(&t, 100, 100, 0, &room), 0);
	ck_assert_int_eq(room, 100);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 100);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_write_truncates)
{
	struct fx_ring t;
	const struct rs_perf_aux *rec[4];
	struct aux_sink sink = { 0 };
	int64_t room;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, 100, 150, 0, &room), 0);
	ck_assert_int_eq(room, 100);
	ck_assert_uint_eq(t.ctrl->aux_head, 100);
	ck_assert_uint_eq(aux_records(&t, rec, 4), 1);
	ck_assert_uint_eq(rec[0]->aux_size, 100);
	ck_assert_uint_eq(rec[0]->flags, RS_PERF_AUX_FLAG_TRUNCATED);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 100);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_end_flags_passthrough)
{
	struct fx_ring t;
	const struct rs_perf_aux *rec[4];

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, 64, 64, RS_PERF_AUX_FLAG_PARTIAL, NULL), 0);
	ck_assert_int_ge(aux_emit(&t, 64, 64, RS_PERF_AUX_FLAG_COLLISION, NULL), 0);
	ck_assert_int_ge(aux_emit(&t, 64, 65, RS_PERF_AUX_FLAG_PARTIAL, NULL), 0);
	ck_assert_uint_eq(aux_records(&t, rec, 4), 3);
	ck_assert_uint_eq(rec[0]->flags, RS_PERF_AUX_FLAG_PARTIAL);
	ck_assert_uint_eq(rec[1]->flags, RS_PERF_AUX_FLAG_COLLISION);
	ck_assert_uint_eq(rec[2]->flags,
			  RS_PERF_AUX_FLAG_PARTIAL | RS_PERF_AUX_FLAG_TRUNCATED);
	ck_assert_uint_eq(rec[1]->aux_offset % t.aux_size, 64);
	ck_assert_uint_eq(rec[2]->aux_offset % t.aux_size, 128);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_partial, 2);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_truncated, 1);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_records, 3);
	fx_ring_fini(&t);
}
END_TEST

/*
 * perf's rule: wake when head - wakeup >= watermark, then wakeup = head
 * rounded down to the watermark; from 0 that is "a multiple was reached".
 * rs_aux_end also passes on the doorbell of the data ring, which its AUX
 * record may be the one to cross (ring.h documents only the AUX one).
 */
static int crossed(uint64_t old, uint64_t new, uint64_t wm)
{
	return new / wm > old / wm;
}

static uint64_t data_wm(const struct fx_ring *t)
{
	return fx_header(&t->f)->config.data_watermark;
}
static void check_aux_wakeups(struct fx_ring *t, uint64_t wm, uint64_t bytes,
			      uint64_t seed)
{
	uint64_t state = seed, woke = 0, exact = 0;
	struct aux_sink sink = { 0 };

	while (t->ctrl->aux_head < bytes) {
		uint64_t old = t->ctrl->aux_head;
		uint64_t len = 1 + fx_rand(&state) % (wm * 3 / 4);
		uint64_t dold = t->ctrl->data_head;
		int due, ret;

		/* now and then land exactly on a boundary */
		if (fx_rand(&state) % 8 == 0)
			len = wm - old % wm;
		exact += (old + len) % wm == 0;
		ret = aux_emit(t, len, len, 0, NULL);
		due = crossed(old, old + len, wm) ||
		      crossed(dold, t->ctrl->data_head, data_wm(t));
		ck_assert_msg(ret == due, "aux head %llu -> %llu, wm %llu: got %d",
			      (unsigned long long)old,
			      (unsigned long long)(old + len),
			      (unsigned long long)wm, ret);
		woke += (uint64_t)ret;
		ck_assert_int_eq(rs_consumer_drain_aux(t->c, aux_sink_fn, &sink),
				 (int64_t)len);
		fx_drain_all(t->c, &t->log);
		fx_log_fini(&t->log);
	}
	ck_assert_uint_ge(woke, bytes / wm - 1);
	ck_assert_uint_gt(exact, 0);
}

START_TEST(aux_end_wakeup)
{
	struct fx_ring t;

	aux_ring_init(&t, 4, RS_MODE_NORMAL, 1000);
	check_aux_wakeups(&t, 1000, 30 * t.aux_size, 3);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_end_wakeup_rounded)
{
	struct fx_ring t;
	const int want[] = { 0, 0, 0, 1, 0, 0, 1 };

	/* 300-byte steps: a wakeup at 1200 resets to 1000, not to 1200, so
	 * 2100 wakes again (900 past 1200, 1100 past 1000). */
	aux_ring_init(&t, 4, RS_MODE_NORMAL, 1000);
	ck_assert_uint_gt(data_wm(&t), 7 * sizeof(struct rs_perf_aux));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_int_eq(aux_emit(&t, 300, 300, 0, NULL), want[i]);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_end_wakeup_default)
{
	struct fx_ring t;

	aux_ring_init(&t, 2, RS_MODE_NORMAL, 0);
	check_aux_wakeups(&t, t.aux_size / 2, 20 * t.aux_size, 5);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_snapshot_mode)
{
	struct fx_ring t;
	uint64_t state = 17, total = 0;
	int64_t room;

	aux_ring_init(&t, 1, RS_MODE_OVERWRITE, 0);
	while (total < 10 * t.aux_size) {
		uint64_t len = 1 + fx_rand(&state) % (t.aux_size + 500);
		uint64_t max = len + fx_rand(&state) % 100;

		uint64_t dold = t.ctrl->data_head;
		int ret = aux_emit(&t, max, len, 0, &room);

		/* no tail, no AUX wakeup: a zero watermark is never divided
		 * by; only the data ring's doorbell may come back */
		ck_assert_int_eq(ret, crossed(dold, t.ctrl->data_head, data_wm(&t)));
		ck_assert_int_eq(room, (int64_t)(max < t.aux_size ? max : t.aux_size));
		total += len < (uint64_t)room ? len : (uint64_t)room;
		ck_assert_uint_eq(t.ctrl->aux_head, total);
		fx_drain_all(t.c, &t.log);
		ck_assert_uint_eq(t.log.recs[t.log.n - 1]->type, RS_PERF_RECORD_AUX);
		ck_assert_uint_ne(((struct rs_perf_aux *)t.log.recs[t.log.n - 1])->flags &
				  RS_PERF_AUX_FLAG_OVERWRITE, 0);
		fx_log_fini(&t.log);
	}
	ck_assert_uint_eq(t.ctrl->aux_tail, 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn,
					       &(struct aux_sink){ 0 }), -rse_mode);
	fx_ring_fini(&t);
}
END_TEST

static void check_aux_copy(const uint8_t *buf, const struct rs_aux_snapshot *a)
{
	for (uint64_t i = 0; i < a->len; i++)
		FX_CHECK(buf[i] == pat(a->start + i), "snapshot byte %llu",
			 (unsigned long long)i);
}

START_TEST(snapshot_aux_normal)
{
	struct fx_ring t;
	struct rs_aux_snapshot a;
	struct aux_sink sink = { 0 };
	uint8_t *buf;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	buf = malloc(t.aux_size);
	ck_assert_int_ge(aux_emit(&t, 3000, 3000, 0, NULL), 0);
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.head, 3000);
	ck_assert_uint_eq(a.start, 0);
	ck_assert_uint_eq(a.len, 3000);
	ck_assert_uint_eq(a.cut_bytes, 0);
	check_aux_copy(buf, &a);
	/* nothing consumed */
	ck_assert_uint_eq(t.ctrl->aux_tail, 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 3000);

	/* [tail, head) across the end of the area, oldest byte first */
	ck_assert_int_ge(aux_emit(&t, 3000, 3000, 0, NULL), 0);
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.head, 6000);
	ck_assert_uint_eq(a.start, 3000);
	ck_assert_uint_eq(a.len, 3000);
	check_aux_copy(buf, &a);
	free(buf);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(snapshot_aux_overwrite)
{
	struct fx_ring t;
	struct rs_aux_snapshot a;
	struct rs_aux_handle h;
	uint8_t *buf;
	uint64_t total = 0;
	uint8_t junk[700];

	aux_ring_init(&t, 1, RS_MODE_OVERWRITE, 0);
	buf = malloc(t.aux_size);
	/* not wrapped yet: everything written */
	ck_assert_int_eq(aux_emit(&t, 1000, 1000, 0, NULL), 0);
	total += 1000;
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.head, total);
	ck_assert_uint_eq(a.start, 0);
	ck_assert_uint_eq(a.len, total);
	check_aux_copy(buf, &a);

	while (total < 5 * t.aux_size + 123) {
		ck_assert_int_eq(aux_emit(&t, 999, 999, 0, NULL), 0);
		total += 999;
	}
	/* wrapped, writer idle: the newest aux_size bytes */
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.head, total);
	ck_assert_uint_eq(a.len, t.aux_size);
	ck_assert_uint_eq(a.start, total - t.aux_size);
	ck_assert_uint_eq(a.cut_bytes, 0);
	check_aux_copy(buf, &a);

	/* a writer inside begin..end may be overwriting the oldest 1000 */
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 1000), 1000);
	memset(junk, 0xee, sizeof(junk));
	ck_assert_int_eq(rs_aux_write(&t.p, &h, junk, sizeof(junk)), sizeof(junk));
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.head, total);
	ck_assert_uint_eq(a.cut_bytes, 1000);
	ck_assert_uint_eq(a.len, t.aux_size - 1000);
	ck_assert_uint_eq(a.start, total + 1000 - t.aux_size);
	check_aux_copy(buf, &a);
	ck_assert_int_eq(rs_aux_end(&t.p, &h, 0), 0);
	free(buf);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(snapshot_aux_overwrite_unwrapped_live)
{
	struct fx_ring t;
	struct rs_aux_snapshot a;
	struct rs_aux_handle h;
	uint8_t *buf, junk[500];

	/* Not wrapped yet: a writer at [1000, 2000) lands on bytes never
	 * written, so all 1000 written bytes are safe. */
	aux_ring_init(&t, 1, RS_MODE_OVERWRITE, 0);
	buf = malloc(t.aux_size);
	ck_assert_int_eq(aux_emit(&t, 1000, 1000, 0, NULL), 0);
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 1000), 1000);
	memset(junk, 0xee, sizeof(junk));
	ck_assert_int_eq(rs_aux_write(&t.p, &h, junk, sizeof(junk)), sizeof(junk));
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.head, 1000);
	ck_assert_uint_eq(a.start, 0);
	ck_assert_uint_eq(a.len, 1000);
	ck_assert_uint_eq(a.cut_bytes, 0);
	check_aux_copy(buf, &a);
	ck_assert_int_eq(rs_aux_end(&t.p, &h, 0), 0);
	free(buf);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(snapshot_aux_overwrite_short_write)
{
	struct fx_ring t;
	struct rs_aux_snapshot a;
	uint8_t *buf;
	uint64_t total = 0;

	/* outputs that use less than their room; then the writer is idle */
	aux_ring_init(&t, 1, RS_MODE_OVERWRITE, 0);
	buf = malloc(t.aux_size);
	while (total < 3 * t.aux_size) {
		ck_assert_int_eq(aux_emit(&t, 1000, 700, 0, NULL), 0);
		total += 700;
	}
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.head, total);
	ck_assert_uint_eq(a.cut_bytes, 0);
	ck_assert_uint_eq(a.len, t.aux_size);
	check_aux_copy(buf, &a);
	free(buf);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(snapshot_aux_corrupt_head)
{
	struct fx_ring t;
	struct rs_aux_snapshot a;
	uint8_t *buf;

	/* normal mode, aux_head more than a ring past aux_tail: nothing in
	 * the copy can be trusted (ring.h does not list -rse_corrupt yet) */
	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	buf = malloc(t.aux_size);
	ck_assert_int_ge(aux_emit(&t, 100, 100, 0, NULL), 0);
	t.ctrl->aux_head = t.aux_size + 200;
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size),
			 -rse_corrupt);
	t.ctrl->aux_head = 100;
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size), 0);
	ck_assert_uint_eq(a.len, 100);
	free(buf);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(drain_aux_wrap)
{
	struct fx_ring t;
	struct aux_sink sink = { 0 };
	uint64_t state = 23;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, 3000, 3000, 0, NULL), 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 3000);
	ck_assert_uint_eq(sink.chunks, 1);
	ck_assert_int_ge(aux_emit(&t, 3000, 3000, 0, NULL), 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 3000);
	ck_assert_uint_eq(sink.chunks, 3);
	ck_assert_uint_eq(t.ctrl->aux_tail, 6000);
	/* several outputs per drain, random sizes, many wraps */
	for (int i = 0; i < 300; i++) {
		uint64_t want = 0;

		for (int k = 0; k < 3; k++) {
			uint64_t len = fx_rand(&state) % (t.aux_size / 3);

			ck_assert_int_ge(aux_emit(&t, len, len, 0, NULL), 0);
			want += len;
		}
		ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink),
				 (int64_t)want);
		/* and the AUX records, so that none is dropped */
		fx_drain_all(t.c, &t.log);
		fx_log_fini(&t.log);
	}
	ck_assert_uint_eq(rs_producer_lost(&t.p), 0);
	ck_assert_uint_eq(sink.next, t.ctrl->aux_head);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_bytes, sink.bytes);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(drain_aux_abort)
{
	struct fx_ring t;
	struct aux_sink sink = { .stop_ret = -5 };

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, 500, 500, 0, NULL), 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), -5);
	ck_assert_uint_eq(t.ctrl->aux_tail, 0);
	sink.stop_ret = 0;
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 500);
	ck_assert_uint_eq(t.ctrl->aux_tail, 500);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_skip_in_place)
{
	struct fx_ring t;
	struct rs_aux_handle h;
	struct aux_sink sink = { 0 };
	const struct rs_perf_aux *rec[4];

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(aux_emit(&t, 4000, 4000, 0, NULL), 0);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 4000);
	/* a PMU writes 512 bytes straight into the area, across its end */
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 512), 512);
	for (uint64_t i = 0; i < 512; i++)
		t.aux[(4000 + i) % t.aux_size] = pat(4000 + i);
	ck_assert_int_eq(rs_aux_skip(&t.p, &h, 512), 512);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	ck_assert_uint_eq(t.ctrl->aux_head, 4512);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 512);
	ck_assert_uint_eq(aux_records(&t, rec, 4), 2);
	ck_assert_uint_eq(rec[1]->aux_size, 512);
	ck_assert_uint_eq(rec[1]->aux_offset % t.aux_size, 4000 % t.aux_size);
	/* skipping past the room stops at the room */
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_eq(rs_aux_skip(&t.p, &h, 101), 100);
	ck_assert_int_eq(rs_aux_skip(&t.p, &h, 1), 0);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	ck_assert_uint_eq(t.ctrl->aux_head, 4612);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_end_record_dropped)
{
	struct fx_ring t;
	struct aux_sink sink = { 0 };
	uint64_t seq = 0, lost;

	/* 64-byte records fill the data area to the last byte */
	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	while (fx_seq_output(&t.p, seq, 24) >= 0)
		seq++;
	ck_assert_uint_eq(t.ctrl->data_head, t.data_size);
	lost = rs_producer_lost(&t.p);
	ck_assert_int_eq(aux_emit(&t, 256, 256, 0, NULL), -rse_no_space);
	ck_assert_uint_eq(rs_producer_lost(&t.p), lost + 1);
	/* the bytes are published even though their record is not */
	ck_assert_uint_eq(t.ctrl->aux_head, 256);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn, &sink), 256);
	fx_drain_all(t.c, &t.log);
	fx_flush_lost_written(&t);
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(t.log.recs[t.log.n - 1]->type, RS_PERF_RECORD_LOST);
	ck_assert_uint_eq(((struct rs_perf_lost *)t.log.recs[t.log.n - 1])->lost,
			  lost + 1);
	fx_ring_fini(&t);
}
END_TEST

/* An AUX wakeup that falls on a dropped record is not lost: the next
 * rs_aux_end that places its record reports it. */
START_TEST(aux_end_drop_keeps_wakeup)
{
	struct fx_ring t;
	uint64_t seq = 0;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 1000);
	while (fx_seq_output(&t.p, seq, 24) >= 0)
		seq++;
	ck_assert_int_eq(aux_emit(&t, 1200, 1200, 0, NULL), -rse_no_space);
	ck_assert_uint_eq(t.ctrl->aux_head, 1200);
	fx_drain_all(t.c, &t.log);
	ck_assert_int_eq(aux_emit(&t, 100, 100, 0, NULL), 1);
	ck_assert_int_eq(aux_emit(&t, 100, 100, 0, NULL), 0);
	/* LOST (the SEQ that found the ring full, and the AUX record), then
	 * the two AUX records */
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(t.log.recs[t.log.n - 3]->type, RS_PERF_RECORD_LOST);
	ck_assert_uint_eq(((struct rs_perf_lost *)t.log.recs[t.log.n - 3])->lost, 2);
	ck_assert_uint_eq(t.log.recs[t.log.n - 2]->type, RS_PERF_RECORD_AUX);
	ck_assert_uint_eq(t.log.recs[t.log.n - 1]->type, RS_PERF_RECORD_AUX);
	fx_ring_fini(&t);
}
END_TEST

/*
 * The guest agent's bookkeeping, deterministically: SEQ records with an AUX
 * output every 4th, a consumer that comes by every 500 steps, so the data
 * ring overflows in between.  A caller that counts a drop for every
 * -rse_no_space must count exactly what the LOST records add up to, AUX
 * records included, and delivered + lost == attempted.
 */
START_TEST(aux_end_drop_counted)
{
	struct fx_ring t;
	struct aux_sink sink = { 0 };
	uint64_t attempted = 0, dropped = 0, aux_dropped = 0, delivered = 0;
	int ret;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (uint64_t step = 0; step < 4000; step++) {
		ret = fx_seq_output(&t.p, step, 24);
		ck_assert(ret >= 0 || ret == -rse_no_space);
		attempted++;
		dropped += ret == -rse_no_space;
		if (step % 4 == 0) {
			ret = aux_emit(&t, 300, 300, 0, NULL);
			ck_assert(ret >= 0 || ret == -rse_no_space);
			attempted++;
			dropped += ret == -rse_no_space;
			aux_dropped += ret == -rse_no_space;
		}
		if (step % 500 == 499) {
			fx_drain_all(t.c, &t.log);
			ck_assert_int_ge(rs_consumer_drain_aux(t.c, aux_sink_fn,
							       &sink), 0);
		}
	}
	fx_drain_all(t.c, &t.log);
	fx_flush_lost_written(&t);
	fx_drain_all(t.c, &t.log);
	for (size_t i = 0; i < t.log.n; i++)
		delivered += t.log.recs[i]->type != RS_PERF_RECORD_LOST;
	ck_assert_msg(rs_consumer_stats(t.c)->lost == dropped,
		      "LOST records say %llu, the caller counted %llu",
		      (unsigned long long)rs_consumer_stats(t.c)->lost,
		      (unsigned long long)dropped);
	ck_assert_uint_eq(rs_producer_lost(&t.p), dropped);
	ck_assert_uint_eq(delivered + dropped, attempted);
	/* the case is reached: AUX records were among the dropped */
	ck_assert_uint_gt(aux_dropped, 0);
	ck_assert_uint_gt(dropped, aux_dropped);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_nesting)
{
	struct fx_ring t;
	struct rs_aux_handle h, h2;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_end(&t.p, &h, 0), -rse_nesting);
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_eq(rs_aux_begin(&t.p, &h2, 100), -rse_nesting);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	ck_assert_int_eq(rs_aux_end(&t.p, &h, 0), -rse_nesting);
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	fx_ring_fini(&t);
}
END_TEST

/* rs_aux_announce: an overwrite area's limit, ahead of aux_head by what is
 * about to be written in place (at most the area); nothing in normal mode;
 * refused inside begin/end, where the begin's announcement holds. */
START_TEST(aux_announce)
{
	struct fx_ring t;
	struct rs_aux_handle h;

	aux_ring_init(&t, 1, RS_MODE_OVERWRITE, 0);
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_eq(rs_aux_skip(&t.p, &h, 100), 100);
	ck_assert_int_eq(rs_aux_announce(&t.p, 50), -rse_nesting);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	ck_assert_uint_eq(t.ctrl->ext.aux_write_limit, 100);
	ck_assert_int_eq(rs_aux_announce(&t.p, 300), 0);
	ck_assert_uint_eq(t.ctrl->ext.aux_write_limit, 400);
	ck_assert_int_eq(rs_aux_announce(&t.p, 1u << 20), 0);
	ck_assert_uint_eq(t.ctrl->ext.aux_write_limit, 100 + 4096);
	ck_assert_int_eq(rs_aux_announce(NULL, 1), -rse_invalid);
	fx_ring_fini(&t);
	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_announce(&t.p, 300), 0);
	ck_assert_uint_eq(t.ctrl->ext.aux_write_limit, 0);
	fx_ring_fini(&t);
	aux_ring_init(&t, 0, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_announce(&t.p, 300), -rse_mode);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_no_area)
{
	struct fx_ring t;
	struct rs_aux_handle h;
	struct rs_aux_snapshot a;
	uint8_t buf[64];

	aux_ring_init(&t, 0, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), -rse_mode);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_sink_fn,
					       &(struct aux_sink){ 0 }), -rse_mode);
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, sizeof(buf)),
			 -rse_mode);
	fx_ring_fini(&t);
}
END_TEST

/* The AUX-only producer (the QEMU PT plugin's): aux_head moves, the data
 * ring's state and contents stay exactly as the data producer left them. */
START_TEST(aux_publish_only)
{
	struct fx_ring t;
	struct rs_producer ap;
	struct rs_aux_handle h;
	uint8_t before[4096], bytes[300];
	uint64_t flags_before;

	aux_ring_init(&t, 4, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(rs_producer_output(&t.p, RS_RECORD_PAD, 0, NULL, 0), 0);
	t.ctrl->ext.flags |= RS_EXT_SEALED;
	flags_before = t.ctrl->ext.flags;
	memcpy(before, t.ctrl, sizeof(before) < 4096 ? sizeof(before) : 4096);
	ck_assert_int_eq(rs_producer_init_aux(&ap, &t.f.region, 0), 0);
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = pat(i);
	ck_assert_int_eq(rs_aux_begin(&ap, &h, sizeof(bytes)), sizeof(bytes));
	ck_assert_int_eq(rs_aux_write(&ap, &h, bytes, sizeof(bytes)), sizeof(bytes));
	ck_assert_int_eq(rs_aux_publish(&ap, &h, 0), 0);
	ck_assert_uint_eq(t.ctrl->aux_head, sizeof(bytes));
	ck_assert_int_eq(memcmp(t.aux, bytes, sizeof(bytes)), 0);
	/* Nothing of the data side moved: head, tail, flags, records. */
	ck_assert_uint_eq(t.ctrl->data_head,
			  ((struct rs_ctrl_page *)(void *)before)->data_head);
	ck_assert_uint_eq(t.ctrl->ext.flags, flags_before);
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(t.log.n, 1);
	ck_assert_uint_eq(t.log.recs[0]->type, RS_RECORD_PAD);
	/* Misuse. */
	ck_assert_int_eq(rs_aux_publish(&ap, &h, 0), -rse_nesting);
	ck_assert_int_eq(rs_aux_publish(NULL, &h, 0), -rse_invalid);
	fx_ring_fini(&t);
	aux_ring_init(&t, 0, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_init_aux(&ap, &t.f.region, 0), -rse_mode);
	ck_assert_int_eq(rs_producer_init_aux(NULL, &t.f.region, 0), -rse_invalid);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_begin_null)
{
	struct fx_ring t;
	struct rs_aux_handle h;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_begin(NULL, &h, 100), -rse_invalid);
	ck_assert_int_eq(rs_aux_begin(&t.p, NULL, 100), -rse_invalid);
	/* a refused begin leaves no transaction open */
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_write_null)
{
	struct fx_ring t;
	struct rs_aux_handle h;
	uint8_t b[16] = { 0 };

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_write(&t.p, &h, b, 16), -rse_invalid); /* no begin */
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_eq(rs_aux_write(NULL, &h, b, 16), -rse_invalid);
	ck_assert_int_eq(rs_aux_write(&t.p, NULL, b, 16), -rse_invalid);
	ck_assert_int_eq(rs_aux_write(&t.p, &h, NULL, 16), -rse_invalid);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	ck_assert_uint_eq(t.ctrl->aux_head, 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_skip_null)
{
	struct fx_ring t;
	struct rs_aux_handle h;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_skip(&t.p, &h, 16), -rse_invalid); /* no begin */
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_eq(rs_aux_skip(NULL, &h, 16), -rse_invalid);
	ck_assert_int_eq(rs_aux_skip(&t.p, NULL, 16), -rse_invalid);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	ck_assert_uint_eq(t.ctrl->aux_head, 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(aux_end_null)
{
	struct fx_ring t;
	struct rs_aux_handle h;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_aux_begin(&t.p, &h, 100), 100);
	ck_assert_int_eq(rs_aux_end(NULL, &h, 0), -rse_invalid);
	ck_assert_int_eq(rs_aux_end(&t.p, NULL, 0), -rse_invalid);
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(drain_aux_null)
{
	struct fx_ring t;

	aux_ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_consumer_drain_aux(NULL, aux_sink_fn,
					       &(struct aux_sink){ 0 }), -rse_invalid);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, NULL, NULL), -rse_invalid);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(snapshot_aux_null)
{
	struct fx_ring t;
	struct rs_aux_snapshot a;
	uint8_t *buf;

	aux_ring_init(&t, 2, RS_MODE_NORMAL, 0);
	buf = malloc(t.aux_size);
	ck_assert_int_eq(rs_snapshot_aux(NULL, &t.f.region, 0, buf, t.aux_size),
			 -rse_invalid);
	ck_assert_int_eq(rs_snapshot_aux(&a, NULL, 0, buf, t.aux_size), -rse_invalid);
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, NULL, t.aux_size),
			 -rse_invalid);
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 1, buf, t.aux_size),
			 -rse_invalid);
	ck_assert_int_eq(rs_snapshot_aux(&a, &t.f.region, 0, buf, t.aux_size - 1),
			 -rse_too_small);
	free(buf);
	fx_ring_fini(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("aux");
	TCase *tc = fx_tcase(s, "aux");

	tcase_add_test(tc, aux_normal_roundtrip);
	tcase_add_test(tc, aux_begin_room);
	tcase_add_test(tc, aux_truncated_no_room);
	tcase_add_test(tc, aux_write_truncates);
	tcase_add_test(tc, aux_end_flags_passthrough);
	tcase_add_test(tc, aux_end_wakeup);
	tcase_add_test(tc, aux_end_wakeup_rounded);
	tcase_add_test(tc, aux_end_wakeup_default);
	tcase_add_test(tc, aux_snapshot_mode);
	tcase_add_test(tc, aux_announce);
	tcase_add_test(tc, snapshot_aux_normal);
	tcase_add_test(tc, snapshot_aux_overwrite);
	tcase_add_test(tc, snapshot_aux_overwrite_unwrapped_live);
	tcase_add_test(tc, snapshot_aux_overwrite_short_write);
	tcase_add_test(tc, snapshot_aux_corrupt_head);
	tcase_add_test(tc, drain_aux_wrap);
	tcase_add_test(tc, drain_aux_abort);
	tcase_add_test(tc, aux_skip_in_place);
	tcase_add_test(tc, aux_end_record_dropped);
	tcase_add_test(tc, aux_end_drop_counted);
	tcase_add_test(tc, aux_end_drop_keeps_wakeup);
	tcase_add_test(tc, aux_nesting);
	tcase_add_test(tc, aux_no_area);
	tcase_add_test(tc, aux_publish_only);
	tcase_add_test(tc, aux_begin_null);
	tcase_add_test(tc, aux_write_null);
	tcase_add_test(tc, aux_skip_null);
	tcase_add_test(tc, aux_end_null);
	tcase_add_test(tc, drain_aux_null);
	tcase_add_test(tc, snapshot_aux_null);
	return fx_run(s);
}
