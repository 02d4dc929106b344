/* SPDX-License-Identifier: MIT */
/* rs_producer_*: reservation, commit, loss accounting, watermark, overwrite. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "ringside/producer_inline.h"

#define SEQ_HDR ((uint32_t)sizeof(struct rs_rec_seq))

static void ring_init(struct fx_ring *t, uint32_t data_pages, uint32_t mode,
		      uint32_t watermark)
{
	struct rs_region_params p;

	fx_params(&p, data_pages, 0);
	p.data_mode = mode;
	p.data_watermark = watermark;
	fx_ring_init(t, &p, 0);
}

/* A seq record of exactly @size bytes (>= 40, multiple of 8). */
static int output_sized(struct rs_producer *p, uint64_t seq, uint32_t size)
{
	return fx_seq_output(p, seq, size - SEQ_HDR);
}

/*
 * Walks delivered records the way a consumer of the stream must be able to:
 * every gap in the sequence is explained, exactly, by the LOST records
 * before the next delivered record.
 */
struct seq_model {
	uint64_t expected;      /* next seq if nothing is lost */
	uint64_t delivered;
	uint64_t lost;
	uint64_t lost_records;
	size_t next;            /* first log entry not yet checked */
};

static void model_check(struct seq_model *m, const struct fx_log *l)
{
	for (; m->next < l->n; m->next++) {
		const struct rs_perf_header *r = l->recs[m->next];

		if (r->type == RS_PERF_RECORD_LOST) {
			const struct rs_perf_lost *lost = (const void *)r;

			ck_assert_uint_eq(r->size, sizeof(*lost));
			ck_assert_uint_gt(lost->lost, 0);
			m->expected += lost->lost;
			m->lost += lost->lost;
			m->lost_records++;
			continue;
		}
		ck_assert_uint_eq(fx_seq_of(r), m->expected);
		m->expected++;
		m->delivered++;
	}
}

START_TEST(reserve_exact_fill)
{
	struct fx_ring t;
	uint64_t seq = 0, state = 0x1234 + (uint64_t)_i;
	struct seq_model m = { 0 };

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	/* varied sizes that end exactly at the last byte of the area */
	while (t.ctrl->data_head < t.data_size) {
		uint64_t rem = t.data_size - t.ctrl->data_head;
		uint32_t size = SEQ_HDR + 8 * (uint32_t)(fx_rand(&state) % 24);

		if (rem <= 2 * 256)
			size = rem >= 2 * SEQ_HDR ? SEQ_HDR : (uint32_t)rem;
		ck_assert_int_ge(output_sized(&t.p, seq++, size), 0);
	}
	ck_assert_uint_eq(t.ctrl->data_head, t.data_size);
	/* full: even the smallest record is dropped, and counted */
	ck_assert_int_eq(rs_producer_output(&t.p, RS_PERF_RECORD_SAMPLE, 0, NULL, 0),
			 -rse_no_space);
	ck_assert_int_eq(fx_seq_output(&t.p, seq++, 0), -rse_no_space);
	ck_assert_uint_eq(t.ctrl->data_head, t.data_size);
	ck_assert_uint_eq(rs_producer_lost(&t.p), 2);

	/* seq counts the dropped seq record, not the dropped empty one */
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), seq - 1);
	model_check(&m, &t.log);
	ck_assert_uint_eq(m.delivered, seq - 1);
	ck_assert_uint_eq(m.lost_records, 0);
	ck_assert_uint_eq(t.ctrl->data_tail, t.data_size);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(reserve_wrap)
{
	struct fx_ring t;
	struct seq_model m = { 0 };
	uint64_t wrapped = 0;
	const uint32_t size = 200;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (uint64_t seq = 0; seq < 3 * t.data_size / size; seq++) {
		uint64_t pos = t.ctrl->data_head;

		ck_assert_int_ge(output_sized(&t.p, seq, size), 0);
		if (pos / t.data_size != (pos + size - 1) / t.data_size)
			wrapped++;
		ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
		model_check(&m, &t.log);
	}
	ck_assert_uint_ge(wrapped, 2);
	ck_assert_uint_eq(m.delivered, t.log.n);
	fx_ring_fini(&t);
}
END_TEST

/* SAMPLE with an empty sample_type: a record with no body at all. */
START_TEST(output_zero_body)
{
	struct fx_ring t;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(rs_producer_output(&t.p, RS_PERF_RECORD_SAMPLE,
					    RS_PERF_MISC_USER, NULL, 0), 0);
	ck_assert_uint_eq(t.ctrl->data_head, sizeof(struct rs_perf_header));
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
	ck_assert_uint_eq(t.log.recs[0]->size, sizeof(struct rs_perf_header));
	ck_assert_uint_eq(t.log.recs[0]->type, RS_PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(t.log.recs[0]->misc, RS_PERF_MISC_USER);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(output_padded_body)
{
	struct fx_ring t;
	const char body[] = "odd";

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_ge(rs_producer_output(&t.p, RS_PERF_RECORD_SAMPLE, 0, body, 3), 0);
	ck_assert_uint_eq(t.ctrl->data_head, 16);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
	ck_assert_uint_eq(t.log.recs[0]->size, 16);
	ck_assert_int_eq(memcmp(t.log.recs[0] + 1, body, 3), 0);
	fx_ring_fini(&t);
}
END_TEST

/*
 * Every body length up to 200 bytes over stale ring bytes, records laid
 * so that some wrap, batched and not: the body arrives as given and the
 * bytes up to the record's aligned size read as zero.
 */
START_TEST(output_every_length)
{
	struct fx_ring t;
	uint8_t body[200];
	uint32_t len, n = 0;

	/* _i bit 0: a batch; bit 1: the caller's copy in line */
	int batch = _i & 1, in_line = _i & 2;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	if (batch)
		ck_assert_int_eq(rs_producer_set_batch(&t.p, 512), 0);
	for (len = 0; len < sizeof(body); len++)
		body[len] = (uint8_t)(len * 7 + 1);
	for (int lap = 0; lap < 3; lap++) {
		/* what an earlier lap left, behind the consumer */
		memset(t.data, 0xa5, t.data_size);
		if (batch)
			ck_assert_int_eq(rs_producer_set_batch(&t.p, 0), 0);
		if (batch)
			ck_assert_int_eq(rs_producer_set_batch(&t.p, 512), 0);
		for (len = (uint32_t)lap; len <= sizeof(body); len += 3) {
			const struct rs_perf_header *r;
			uint32_t size = (8 + len + 7) & ~7u;
			static const uint8_t zero[8];

			ck_assert_int_ge(in_line ?
				rs_producer_output_inline(&t.p,
					RS_PERF_RECORD_SAMPLE, (uint16_t)len,
					body, len) :
				rs_producer_output(&t.p,
					RS_PERF_RECORD_SAMPLE, (uint16_t)len,
					body, len), 0);
			ck_assert_int_ge(rs_producer_flush(&t.p), 0);
			ck_assert_int_eq(fx_drain_all(t.c, &t.log), 1);
			r = t.log.recs[t.log.n - 1];
			ck_assert_uint_eq(r->type, RS_PERF_RECORD_SAMPLE);
			ck_assert_uint_eq(r->misc, len);
			ck_assert_uint_eq(r->size, size);
			ck_assert_int_eq(memcmp(r + 1, body, len), 0);
			ck_assert_int_eq(memcmp((const uint8_t *)(r + 1) + len,
						zero, size - 8 - len), 0);
			n++;
		}
	}
	ck_assert_uint_eq(t.ctrl->ext.produced, n);
	fx_ring_fini(&t);
}
END_TEST

/* The copy in line refuses what rs_producer_output refuses, with the same
 * error, and writes nothing then. */
START_TEST(output_inline_refuses)
{
	static uint8_t big[RS_RECORD_MAX + 8];
	struct fx_ring t;
	uint64_t body[4] = { 1, 2, 3, 4 };
	struct {
		uint32_t type, len;
		const void *body;
	} c[] = {
		{ RS_PERF_RECORD_SAMPLE, 8, NULL },          /* no body */
		{ RS_PERF_RECORD_LOST, 8, body },            /* too short */
		{ RS_PERF_RECORD_AUX, 0, body },
		{ RS_PERF_RECORD_SAMPLE, RS_RECORD_MAX, big }, /* too big */
		{ RS_PERF_RECORD_SAMPLE, RS_RECORD_MAX + 1, big },
	};

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int want = rs_producer_output(&t.p, c[i].type, 0, c[i].body,
					      c[i].len);

		ck_assert_int_lt(want, 0);
		ck_assert_int_eq(rs_producer_output_inline(&t.p, c[i].type, 0,
							   c[i].body, c[i].len),
				 want);
	}
	ck_assert_int_eq(rs_producer_output_inline(NULL, RS_PERF_RECORD_SAMPLE,
						   0, body, 8), -rse_invalid);
	ck_assert_uint_eq(rs_producer_head(&t.p), 0);
	ck_assert_uint_eq(t.p.nest, 0);
	ck_assert_uint_eq(rs_producer_lost(&t.p), 0);
	fx_ring_fini(&t);
}
END_TEST

/* rs_producer_has_room measures from the producer's head, reads the
 * consumer's tail when its cached one says no, and leaves the cached one
 * as it was; a tail past the head frees nothing; an overwrite ring always
 * has room. */
START_TEST(has_room_looks_only)
{
	struct fx_ring t;
	uint64_t cached;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size), 1);
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size + 1), 0);
	for (uint64_t i = 0; i < 3; i++)
		ck_assert_int_ge(output_sized(&t.p, i, 1024), 0);
	ck_assert_uint_eq(rs_producer_head(&t.p), 3072);
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size - 3072), 1);
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size - 3071), 0);
	/* the consumer takes two records: room by the tail it wrote */
	cached = t.p.tail_cache;
	t.ctrl->data_tail = 2048;
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size - 1024), 1);
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size - 1023), 0);
	ck_assert_uint_eq(t.p.tail_cache, cached);
	/* a tail the producer never wrote up to */
	t.ctrl->data_tail = 3072 + 8;
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size - 1024), 0);
	ck_assert_int_eq(rs_producer_has_room(NULL, 8), 0);
	fx_ring_fini(&t);

	ring_init(&t, 1, RS_MODE_OVERWRITE, 0);
	for (uint64_t i = 0; i < 8; i++)
		ck_assert_int_ge(output_sized(&t.p, i, 1024), 0);
	ck_assert_int_eq(rs_producer_has_room(&t.p, t.data_size), 1);
	fx_ring_fini(&t);
}
END_TEST

/*
 * The largest record a ring takes leaves room for a LOST record beside it,
 * so a pending loss can always go out in front of the next record: 16
 * pages are not enough for RS_RECORD_MAX, 32 are.  ring.h says "larger
 * than the ring"; the implementation's rule is the one tested.
 */
#define LOST_SIZE ((uint32_t)sizeof(struct rs_perf_lost))

START_TEST(output_max_size)
{
	struct fx_ring t;
	uint8_t *body = malloc(RS_RECORD_MAX);
	const uint32_t body_len = RS_RECORD_MAX - sizeof(struct rs_perf_header);

	ck_assert_ptr_nonnull(body);
	for (uint32_t i = 0; i < body_len; i++)
		body[i] = (uint8_t)(i * 31 + 7);
	ring_init(&t, 32, RS_MODE_NORMAL, 0);
	for (int round = 0; round < 4; round++) {
		const struct rs_perf_header *r;

		ck_assert_int_ge(rs_producer_output(&t.p, RS_RECORD_MARKER, 0,
						    body, body_len), 0);
		ck_assert_int_ge(fx_seq_output(&t.p, (uint64_t)round,
					       RS_RECORD_MAX - SEQ_HDR), 0);
		/* full now: this one is dropped */
		ck_assert_int_eq(rs_producer_output(&t.p, RS_RECORD_MARKER, 0,
						    body, body_len), -rse_no_space);
		ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 2);
		r = t.log.recs[t.log.n - 2];
		ck_assert_uint_eq(r->size, RS_RECORD_MAX);
		ck_assert_int_eq(memcmp(r + 1, body, body_len), 0);
		ck_assert_uint_eq(fx_seq_of(t.log.recs[t.log.n - 1]), (uint64_t)round);
		ck_assert_uint_eq(t.log.recs[t.log.n - 1]->size, RS_RECORD_MAX);
		fx_flush_lost_written(&t);
		ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
		ck_assert_uint_eq(t.log.recs[t.log.n - 1]->type, RS_PERF_RECORD_LOST);
	}
	free(body);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(reserve_too_big)
{
	struct fx_ring t;
	struct rs_handle h;
	static uint8_t body[RS_RECORD_MAX + 16];

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, RS_RECORD_MAX + 8), -rse_too_big);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, UINT32_MAX - 7), -rse_too_big);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, (uint32_t)t.data_size + 8),
			 -rse_too_big);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, (uint32_t)t.data_size),
			 -rse_too_big);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h,
					     (uint32_t)t.data_size - LOST_SIZE + 8),
			 -rse_too_big);
	ck_assert_int_eq(rs_producer_output(&t.p, RS_RECORD_MARKER, 0, body,
					    RS_RECORD_MAX - 7), -rse_too_big);
	ck_assert_int_eq(rs_producer_output(&t.p, RS_RECORD_MARKER, 0, body,
					    UINT32_MAX - 3), -rse_too_big);
	ck_assert_uint_eq(t.ctrl->data_head, 0);
	ck_assert_uint_eq(rs_producer_lost(&t.p), 0);
	/* still usable, and the largest record this ring takes fits */
	ck_assert_int_ge(output_sized(&t.p, 0, (uint32_t)t.data_size - LOST_SIZE), 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[0]), 0);
	ck_assert_uint_eq(t.log.recs[0]->size, t.data_size - LOST_SIZE);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(reserve_largest_after_loss)
{
	struct fx_ring t;
	struct seq_model m = { 0 };
	const uint32_t big = 4096 - LOST_SIZE;
	uint64_t seq = 0;

	/* a stream of the largest records still gets its LOST records out */
	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (int round = 0; round < 5; round++) {
		ck_assert_int_ge(output_sized(&t.p, seq++, big), 0);
		ck_assert_int_eq(output_sized(&t.p, seq++, big), -rse_no_space);
		fx_drain_all(t.c, &t.log);
		model_check(&m, &t.log);
	}
	ck_assert_uint_eq(m.lost, 4);
	ck_assert_uint_eq(m.delivered, 5);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(reserve_invalid_size)
{
	struct fx_ring t;
	struct rs_handle h;
	const uint32_t bad[] = { 0, 1, 4, 7, 12, 65 };

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(rs_producer_reserve(&t.p, &h, bad[i]), -rse_invalid);
	ck_assert_uint_eq(t.ctrl->data_head, 0);
	ck_assert_uint_eq(rs_producer_lost(&t.p), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(reserve_nested)
{
	struct fx_ring t;
	struct rs_handle a, b;
	_Alignas(8) uint8_t ra[64], rb[48];

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_seq_build(ra, 0, 0, 0, 64 - SEQ_HDR), 64);
	ck_assert_int_eq(rs_seq_build(rb, 1, 0, 0, 48 - SEQ_HDR), 48);

	ck_assert_int_eq(rs_producer_reserve(&t.p, &a, 64), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &a, ra, 32), 0);
	/* an interrupt handler nests a whole record inside A */
	ck_assert_int_eq(rs_producer_reserve(&t.p, &b, 48), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &b, rb, 48), 0);
	ck_assert_int_eq(rs_producer_commit(&t.p, &b), 0);
	/* A is not written yet: publishing B's end would expose it */
	ck_assert_uint_eq(t.ctrl->data_head, 0);
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 0);

	ck_assert_int_eq(rs_producer_write(&t.p, &a, ra + 32, 32), 0);
	ck_assert_int_ge(rs_producer_commit(&t.p, &a), 0);
	ck_assert_uint_eq(t.ctrl->data_head, 64 + 48);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 2);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[0]), 0);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[1]), 1);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(reserve_nested_deep)
{
	struct fx_ring t;
	struct rs_handle h[8];
	_Alignas(8) uint8_t rec[8][64];
	struct seq_model m = { 0 };

	/* outer-most reserved first; inner ones commit first */
	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(rs_seq_build(rec[i], (uint64_t)i, 0, 0, 24), 64);
		ck_assert_int_eq(rs_producer_reserve(&t.p, &h[i], 64), 0);
	}
	for (int i = 7; i >= 0; i--) {
		ck_assert_int_eq(rs_producer_write(&t.p, &h[i], rec[i], 64), 0);
		ck_assert_int_ge(rs_producer_commit(&t.p, &h[i]), 0);
		ck_assert_uint_eq(t.ctrl->data_head, i ? 0 : 8 * 64);
	}
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 8);
	model_check(&m, &t.log);
	ck_assert_uint_eq(m.delivered, 8);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(commit_unbalanced)
{
	struct fx_ring t;
	struct rs_handle h = { 0 };
	_Alignas(8) uint8_t rec[64];

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_commit(&t.p, &h), -rse_nesting);
	ck_assert_int_eq(rs_seq_build(rec, 0, 0, 0, 24), 64);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, 64), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, rec, 64), 0);
	ck_assert_int_ge(rs_producer_commit(&t.p, &h), 0);
	ck_assert_int_eq(rs_producer_commit(&t.p, &h), -rse_nesting);
	ck_assert_uint_eq(t.ctrl->data_head, 64);
	/* the producer is still usable */
	ck_assert_int_ge(fx_seq_output(&t.p, 1, 0), 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 2);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(commit_zero_fills)
{
	struct fx_ring t;
	struct rs_handle h;
	_Alignas(8) uint8_t rec[64];
	const uint8_t *got;

	/* ring.h: bytes not written read as zero, never as the old data */
	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	memset(t.data, 0xab, t.data_size);
	memset(rec, 0x11, sizeof(rec));
	((struct rs_perf_header *)rec)->type = RS_PERF_RECORD_SAMPLE;
	((struct rs_perf_header *)rec)->size = 64;
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, 64), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, rec, 20), 0);
	ck_assert_int_ge(rs_producer_commit(&t.p, &h), 0);
	ck_assert_uint_eq(t.ctrl->data_head, 64);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
	got = (const uint8_t *)t.log.recs[0];
	ck_assert_int_eq(memcmp(got, rec, 20), 0);
	for (int i = 20; i < 64; i++)
		ck_assert_uint_eq(got[i], 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(write_past_reservation)
{
	struct fx_ring t;
	struct rs_handle h;
	_Alignas(8) uint8_t rec[128] = { 0 };

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, 64), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, rec, 65), -rse_invalid);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, rec, 60), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, rec, 8), -rse_invalid);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, rec, UINT32_MAX), -rse_invalid);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, rec, 4), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(output_lost_exact)
{
	struct fx_ring t;
	struct seq_model m = { 0 };
	uint64_t seq = 0;
	const uint64_t drops = 5 + (uint64_t)_i * 1000;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (int round = 0; round < 3; round++) {
		uint64_t before = rs_producer_lost(&t.p);

		while (fx_seq_output(&t.p, seq, 24) >= 0)
			seq++;
		seq++; /* the one that failed was attempted */
		for (uint64_t i = 1; i < drops; i++)
			ck_assert_int_eq(fx_seq_output(&t.p, seq++, 24), -rse_no_space);
		ck_assert_uint_eq(rs_producer_lost(&t.p), before + drops);
		ck_assert_uint_eq(t.ctrl->ext.lost, before + drops);

		fx_drain_all(t.c, &t.log);
		model_check(&m, &t.log);
		/* the LOST record goes in with the next record, before it */
		ck_assert_int_ge(fx_seq_output(&t.p, seq++, 24), 0);
		fx_drain_all(t.c, &t.log);
		ck_assert_uint_eq(t.log.recs[t.log.n - 2]->type, RS_PERF_RECORD_LOST);
		ck_assert_uint_eq(((struct rs_perf_lost *)t.log.recs[t.log.n - 2])->lost,
				  drops);
		model_check(&m, &t.log);
	}
	ck_assert_uint_eq(m.lost, 3 * drops);
	ck_assert_uint_eq(m.lost_records, 3);
	ck_assert_uint_eq(m.expected, seq);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->lost, 3 * drops);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->lost_records, 3);
	fx_ring_fini(&t);
}
END_TEST

/* Records of random size against a consumer that takes a random number of
 * them at a time: every attempt is either delivered or counted lost. */
START_TEST(output_lost_random)
{
	struct fx_ring t;
	struct seq_model m = { 0 };
	uint64_t seq = 0, dropped = 0, state = 0x9e3779b97f4a7c15ull + (uint64_t)_i;

	ring_init(&t, 2, RS_MODE_NORMAL, 0);
	for (int step = 0; step < 20000; step++) {
		uint64_t r = fx_rand(&state);

		if (r % 4) {
			int ret = fx_seq_output(&t.p, seq++, (uint32_t)(r >> 8) % 600);

			if (ret == -rse_no_space)
				dropped++;
			else
				ck_assert_int_ge(ret, 0);
		} else {
			/* take up to a few records, leave the rest */
			t.log.stop_at = t.log.n + (r >> 8) % 6;
			t.log.stop_ret = -1000;
			int n = rs_consumer_drain(t.c, fx_log_record, &t.log);

			ck_assert(n >= 0 || n == -1000);
			t.log.stop_ret = 0;
			model_check(&m, &t.log);
		}
	}
	for (int i = 0; rs_producer_flush_lost(&t.p) < 0; i++) {
		ck_assert_int_lt(i, 2);
		fx_drain_all(t.c, &t.log);
	}
	fx_drain_all(t.c, &t.log);
	model_check(&m, &t.log);
	ck_assert_uint_gt(dropped, 0);
	ck_assert_uint_gt(m.delivered, 0);
	ck_assert_uint_eq(m.lost, dropped);
	ck_assert_uint_eq(rs_producer_lost(&t.p), dropped);
	ck_assert_uint_eq(m.expected, seq);
	ck_assert_uint_eq(m.delivered + m.lost, seq);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(flush_lost)
{
	struct fx_ring t;
	uint64_t seq = 0;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_flush_lost(&t.p), 0);
	while (fx_seq_output(&t.p, seq, 0) >= 0)
		seq++;
	ck_assert_int_eq(rs_producer_flush_lost(&t.p), -rse_no_space);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), seq);
	fx_flush_lost_written(&t);
	ck_assert_int_eq(rs_producer_flush_lost(&t.p), 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
	ck_assert_uint_eq(t.log.recs[seq]->type, RS_PERF_RECORD_LOST);
	ck_assert_uint_eq(((struct rs_perf_lost *)t.log.recs[seq])->lost, 1);
	/* nothing pending any more: the next record comes alone */
	ck_assert_int_ge(fx_seq_output(&t.p, seq + 1, 0), 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[seq + 1]), seq + 1);
	fx_ring_fini(&t);
}
END_TEST

/* A doorbell is due when the published head passes a multiple of wm. */
static void check_doorbells(struct fx_ring *t, uint64_t wm, uint64_t bytes,
			    uint64_t seed)
{
	uint64_t state = seed, rung = 0, expected = 0, seq = 0;

	while (t->ctrl->data_head < bytes) {
		uint64_t old = t->ctrl->data_head;
		uint32_t size = SEQ_HDR + 8 * (uint32_t)(fx_rand(&state) % 40);
		int ret, due;

		/* landing exactly on a multiple is left to the wakeup test */
		if ((old + size) % wm == 0)
			size += 8;
		due = (old + size) / wm > old / wm;
		ret = output_sized(&t->p, seq++, size);
		FX_CHECK(ret == due, "head %llu -> %llu, wm %llu: got %d",
			 (unsigned long long)old, (unsigned long long)(old + size),
			 (unsigned long long)wm, ret);
		expected += (uint64_t)due;
		rung += (uint64_t)(ret == 1);
		fx_drain_all(t->c, &t->log);
		fx_log_fini(&t->log);
	}
	ck_assert_uint_eq(rung, expected);
	ck_assert_uint_ge(rung, bytes / wm - 1);
	ck_assert_uint_eq(t->ctrl->ext.doorbells, rung);
}

START_TEST(commit_watermark)
{
	struct fx_ring t;

	ring_init(&t, 4, RS_MODE_NORMAL, 1001);
	check_doorbells(&t, 1001, 40 * t.data_size, 7);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(commit_watermark_default)
{
	struct fx_ring t;

	ring_init(&t, 4, RS_MODE_NORMAL, 0);
	check_doorbells(&t, t.data_size / 2, 20 * t.data_size, 11);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(commit_watermark_nested)
{
	struct fx_ring t;
	struct rs_handle a, b;
	_Alignas(8) uint8_t rec[512];

	/* the doorbell goes with the commit that publishes the head */
	ring_init(&t, 1, RS_MODE_NORMAL, 256);
	ck_assert_int_eq(rs_seq_build(rec, 0, 0, 0, 512 - SEQ_HDR), 512);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &a, 512), 0);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &b, 512), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &b, rec, 512), 0);
	ck_assert_int_eq(rs_producer_commit(&t.p, &b), 0);
	ck_assert_int_eq(rs_producer_write(&t.p, &a, rec, 512), 0);
	ck_assert_int_eq(rs_producer_commit(&t.p, &a), 1);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(overwrite_head_newest)
{
	struct fx_ring t;
	uint64_t state = 99;

	ring_init(&t, 1, RS_MODE_OVERWRITE, 0);
	for (uint64_t seq = 0; seq < 2000; seq++) {
		uint32_t fill = (uint32_t)(fx_rand(&state) % 300);

		ck_assert_int_ge(fx_seq_output(&t.p, seq, fill), 0);
		ck_assert_uint_eq(fx_seq_of(fx_ring_record(&t, t.ctrl->data_head)), seq);
	}
	ck_assert_uint_eq(rs_producer_lost(&t.p), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(overwrite_snapshot_walk)
{
	struct fx_ring t;
	struct rs_snapshot *s = rs_snapshot_alloc();
	const struct rs_perf_header *rec;
	uint32_t *sizes;
	uint64_t state = 5 + (uint64_t)_i, n = 3000 + (uint64_t)_i * 7;
	uint64_t fit = 0, bytes = 0;
	uint8_t *buf;
	int ret;

	ring_init(&t, 2, RS_MODE_OVERWRITE, 0);
	buf = malloc(t.data_size);
	sizes = malloc(n * sizeof(*sizes));
	ck_assert_ptr_nonnull(s);
	for (uint64_t seq = 0; seq < n; seq++) {
		uint32_t fill = (uint32_t)(fx_rand(&state) % 500);

		sizes[seq] = rs_seq_size(fill);
		ck_assert_int_ge(fx_seq_output(&t.p, seq, fill), 0);
	}
	/* what the ring must still hold: the newest records that fit whole */
	while (fit < n && bytes + sizes[n - 1 - fit] <= t.data_size)
		bytes += sizes[n - 1 - fit++];

	ck_assert_int_eq(rs_snapshot_take(s, &t.f.region, 0, buf, t.data_size), 0);
	for (uint64_t i = 0; (ret = rs_snapshot_next(s, &rec)) == 1; i++)
		ck_assert_uint_eq(fx_seq_of(rec), n - 1 - i);
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(rs_snapshot_stats(s)->records, fit);
	ck_assert_uint_eq(rs_snapshot_stats(s)->bytes, bytes);
	ck_assert_uint_eq(rs_snapshot_stats(s)->corrupt, 0);
	ck_assert_uint_eq(rs_snapshot_stats(s)->cut_bytes, 0);
	ck_assert_uint_eq(rs_snapshot_stats(s)->overwritten, bytes != t.data_size);
	/* the walk consumed nothing */
	ck_assert_uint_eq(fx_seq_of(fx_ring_record(&t, t.ctrl->data_head)), n - 1);
	free(sizes);
	free(buf);
	rs_snapshot_free(s);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(producer_init_resume)
{
	struct fx_ring t;
	struct seq_model m = { 0 };
	struct rs_producer again;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	for (uint64_t seq = 0; seq < 50; seq++) {
		ck_assert_int_ge(fx_seq_output(&t.p, seq, 40), 0);
		if (seq % 20 == 0)
			fx_drain_all(t.c, &t.log);
	}
	ck_assert_int_eq(rs_producer_init(&again, &t.f.region, 0), 0);
	for (uint64_t seq = 50; seq < 60; seq++)
		ck_assert_int_ge(fx_seq_output(&again, seq, 40), 0);
	fx_drain_all(t.c, &t.log);
	model_check(&m, &t.log);
	ck_assert_uint_eq(m.delivered, 60);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(ring_state_read_hints)
{
	struct fx_ring t;
	struct rs_ring ring;
	struct rs_ring_state st;
	uint64_t seq = 0, rung = 0;

	/* what a tool shows is what the producer published */
	ring_init(&t, 1, RS_MODE_NORMAL, 512);
	for (; seq < 100; seq++) {
		int ret = fx_seq_output(&t.p, seq, 24);

		if (ret == -rse_no_space)
			continue;
		ck_assert_int_ge(ret, 0);
		rung += (uint64_t)ret;
	}
	ck_assert_int_eq(rs_region_ring(&t.f.region, 0, &ring), 0);
	ck_assert_int_eq(rs_ring_state_read(&ring, &st), 0);
	ck_assert_uint_eq(st.data_head, t.ctrl->data_head);
	ck_assert_uint_eq(st.data_tail, 0);
	ck_assert_uint_eq(st.produced, t.data_size / 64);
	ck_assert_uint_eq(st.lost, 100 - t.data_size / 64);
	ck_assert_uint_eq(st.lost, rs_producer_lost(&t.p));
	ck_assert_uint_eq(st.doorbells, rung);
	fx_drain_all(t.c, &t.log);
	ck_assert_int_eq(rs_ring_state_read(&ring, &st), 0);
	ck_assert_uint_eq(st.data_tail, st.data_head);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(ring_state_read_null)
{
	struct fx_ring t;
	struct rs_ring ring;
	struct rs_ring_state st;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_region_ring(&t.f.region, 0, &ring), 0);
	ck_assert_int_eq(rs_ring_state_read(NULL, &st), -rse_invalid);
	ck_assert_int_eq(rs_ring_state_read(&ring, NULL), -rse_invalid);
	ck_assert_int_eq(rs_ring_state_read(&(struct rs_ring){ 0 }, &st), -rse_invalid);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(producer_init_null)
{
	struct fx_ring t;
	struct rs_producer p;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_init(NULL, &t.f.region, 0), -rse_invalid);
	ck_assert_int_eq(rs_producer_init(&p, NULL, 0), -rse_invalid);
	ck_assert_int_eq(rs_producer_init(&p, &t.f.region, 1), -rse_invalid);
	ck_assert_int_eq(rs_producer_init(&p, &t.f.region, UINT32_MAX), -rse_invalid);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(reserve_null)
{
	struct fx_ring t;
	struct rs_handle h;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_reserve(NULL, &h, 64), -rse_invalid);
	ck_assert_int_eq(rs_producer_reserve(&t.p, NULL, 64), -rse_invalid);
	ck_assert_uint_eq(t.ctrl->data_head, 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(write_null)
{
	struct fx_ring t;
	struct rs_handle h;
	uint8_t rec[64] = { 0 };

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, 64), 0);
	ck_assert_int_eq(rs_producer_write(NULL, &h, rec, 8), -rse_invalid);
	ck_assert_int_eq(rs_producer_write(&t.p, NULL, rec, 8), -rse_invalid);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, NULL, 8), -rse_invalid);
	ck_assert_int_eq(rs_producer_write(&t.p, &h, NULL, 0), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(commit_null)
{
	struct fx_ring t;
	struct rs_handle h;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_reserve(&t.p, &h, 64), 0);
	ck_assert_int_eq(rs_producer_commit(NULL, &h), -rse_invalid);
	ck_assert_int_eq(rs_producer_commit(&t.p, NULL), -rse_invalid);
	ck_assert_uint_eq(t.ctrl->data_head, 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(output_null)
{
	struct fx_ring t;
	uint8_t body[8] = { 0 };

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	ck_assert_int_eq(rs_producer_output(NULL, RS_PERF_RECORD_SAMPLE, 0, body, 8),
			 -rse_invalid);
	/* a body that is not there is not a body of zeros */
	ck_assert_int_eq(rs_producer_output(&t.p, RS_PERF_RECORD_SAMPLE, 0, NULL, 8),
			 -rse_invalid);
	ck_assert_uint_eq(t.ctrl->data_head, 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(flush_lost_null)
{
	ck_assert_int_eq(rs_producer_flush_lost(NULL), -rse_invalid);
}
END_TEST

START_TEST(lost_null)
{
	ck_assert_uint_eq(rs_producer_lost(NULL), 0);
}
END_TEST


/* A run of @n SEQ records of random fill from @seq into @buf: its bytes. */
static uint32_t run_build(uint8_t *buf, uint64_t seq, uint32_t n,
			  uint64_t *state)
{
	uint32_t len = 0;

	for (uint32_t i = 0; i < n; i++) {
		int size = rs_seq_build(buf + len, seq + i, (seq + i) * 7 + 1, 0,
					(uint32_t)(fx_rand(state) % 300));

		ck_assert_int_gt(size, 0);
		len += (uint32_t)size;
	}
	return len;
}

typedef int (*run_fn)(struct rs_producer *, const void *, uint32_t, uint32_t);

/* The same records one by one into @a and in runs into @b, a batch on
 * both in normal mode: the two data areas, heads and counts come out byte
 * for byte the same, newest first in an overwrite ring as in a forward
 * one's order; and a consumer (normal mode) gets every record in order.
 * Runs as rs_producer_output_run takes them, then (_i 2, 3) as
 * rs_producer_output_walked does. */
START_TEST(run_same_bytes)
{
	uint32_t mode = (_i & 1) ? RS_MODE_OVERWRITE : RS_MODE_NORMAL;
	run_fn run = _i & 2 ? rs_producer_output_walked : rs_producer_output_run;
	static _Alignas(8) uint8_t buf[16384];
	struct fx_ring a, b;
	struct seq_model m = { 0 };
	uint64_t state = 17 + (uint64_t)_i, seq = 0;

	ring_init(&a, 4, mode, 0);
	ring_init(&b, 4, mode, 0);
	if (mode == RS_MODE_NORMAL) {
		ck_assert_int_eq(rs_producer_set_batch(&a.p, 2048), 0);
		ck_assert_int_eq(rs_producer_set_batch(&b.p, 2048), 0);
	}
	for (int round = 0; round < 300; round++) {
		uint32_t n = 1 + (uint32_t)(fx_rand(&state) % 20), len, off = 0;

		len = run_build(buf, seq, n, &state);
		for (uint32_t i = 0; i < n; i++) {
			const struct rs_perf_header *r = (const void *)(buf + off);

			ck_assert_int_ge(rs_producer_output(&a.p, r->type, r->misc,
							    r + 1, r->size - 8u), 0);
			off += r->size;
		}
		ck_assert_int_ge(run(&b.p, buf, len, n), 0);
		seq += n;
		if (mode == RS_MODE_NORMAL && round % 3 == 2) {
			fx_drain_all(a.c, &a.log);
			fx_drain_all(b.c, &b.log);
			model_check(&m, &b.log);
		}
	}
	ck_assert_int_ge(rs_producer_flush(&a.p), 0);
	ck_assert_int_ge(rs_producer_flush(&b.p), 0);
	ck_assert_uint_eq(rs_producer_head(&a.p), rs_producer_head(&b.p));
	ck_assert_uint_eq(a.ctrl->data_head, b.ctrl->data_head);
	ck_assert_uint_eq(a.ctrl->ext.produced, seq);
	ck_assert_uint_eq(b.ctrl->ext.produced, seq);
	ck_assert_mem_eq(a.data, b.data, a.data_size);
	if (mode == RS_MODE_NORMAL) {
		fx_drain_all(b.c, &b.log);
		model_check(&m, &b.log);
		ck_assert_uint_eq(m.delivered, seq);
		ck_assert_uint_eq(m.lost, 0);
	} else {
		/* the newest at head */
		ck_assert_uint_eq(fx_seq_of(fx_ring_record(&b, b.ctrl->data_head)),
				  seq - 1);
	}
	fx_ring_fini(&a);
	fx_ring_fini(&b);
}
END_TEST

/* A normal ring without room for the whole run takes none of it and
 * counts nothing; the caller writes them one by one, each that does not
 * fit counted, and the LOST record goes in front of the next run. */
START_TEST(run_no_space)
{
	static _Alignas(8) uint8_t buf[16384];
	struct fx_ring t;
	struct seq_model m = { 0 };
	uint64_t state = 3, seq = 0, dropped = 0;
	uint32_t len, off = 0, n = 4;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	while (fx_seq_output(&t.p, seq, 100) >= 0)
		seq++;
	dropped++;
	seq++;
	ck_assert_uint_eq(rs_producer_lost(&t.p), 1);
	len = run_build(buf, seq, n, &state);
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len, n), -rse_no_space);
	ck_assert_uint_eq(rs_producer_lost(&t.p), 1);
	for (uint32_t i = 0; i < n; i++) {
		const struct rs_perf_header *r = (const void *)(buf + off);

		ck_assert_int_eq(rs_producer_output(&t.p, r->type, r->misc,
						    r + 1, r->size - 8u), -rse_no_space);
		off += r->size;
		dropped++;
	}
	seq += n;
	ck_assert_uint_eq(rs_producer_lost(&t.p), dropped);
	fx_drain_all(t.c, &t.log);
	model_check(&m, &t.log);
	len = run_build(buf, seq, n, &state);
	ck_assert_int_ge(rs_producer_output_run(&t.p, buf, len, n), 0);
	seq += n;
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(t.log.recs[t.log.n - n - 1]->type, RS_PERF_RECORD_LOST);
	model_check(&m, &t.log);
	ck_assert_uint_eq(m.lost, dropped);
	ck_assert_uint_eq(m.delivered + m.lost, seq);
	fx_ring_fini(&t);
}
END_TEST

/* What is not a run of whole records is refused, and nothing written. */
START_TEST(run_invalid)
{
	static _Alignas(8) uint8_t buf[4096];
	struct rs_perf_header *h = (void *)buf;
	struct fx_ring t;
	uint64_t state = 5, head;
	uint32_t len, n;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	head = rs_producer_head(&t.p);
	len = run_build(buf, 0, 3, &state);
	ck_assert_int_eq(rs_producer_output_run(NULL, buf, len, 3), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_run(&t.p, NULL, len, 3), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len, 0), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len, 2), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len - 8, 3), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len + 8, 3), -rse_invalid);
	h->size += 4;                   /* not aligned */
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len, 3), -rse_invalid);
	h->size = 8;                    /* shorter than a SEQ record */
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len, 3), -rse_invalid);
	/* whole, but more than half the ring */
	for (len = 0, n = 0; len + 16 <= t.data_size / 2; n++)
		len += run_build(buf + len, n, 1, &state);
	ck_assert_int_eq(rs_producer_output_run(&t.p, buf, len, n), -rse_too_big);
	ck_assert_uint_eq(rs_producer_head(&t.p), head);
	ck_assert_uint_eq(rs_producer_lost(&t.p), 0);
	fx_ring_fini(&t);
}
END_TEST

/* A walked run is not walked again in a normal ring: what its length
 * says goes in, and a record that is not whole makes the consumer count
 * the rest corrupt, inside the data area, after every record before it.
 * An overwrite ring still refuses it, and nothing goes in. */
START_TEST(walked_unchecked)
{
	static _Alignas(8) uint8_t buf[4096];
	struct rs_perf_header *h;
	const struct rs_cons_stats *st;
	struct fx_ring t, o;
	struct seq_model m = { 0 };
	uint64_t state = 9, head;
	uint32_t len, len2;

	ring_init(&t, 1, RS_MODE_NORMAL, 0);
	len = run_build(buf, 0, 3, &state);
	ck_assert_int_eq(rs_producer_output_walked(NULL, buf, len, 3), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_walked(&t.p, NULL, len, 3), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_walked(&t.p, buf, len, 0), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_walked(&t.p, buf, 4, 3), -rse_invalid);
	ck_assert_int_eq(rs_producer_output_walked(&t.p, buf, len - 4, 3), -rse_invalid);
	ck_assert_uint_eq(rs_producer_head(&t.p), 0);
	/* good records, then a run whose second record claims past its end */
	ck_assert_int_ge(rs_producer_output_walked(&t.p, buf, len, 3), 0);
	len2 = run_build(buf, 3, 3, &state);
	h = (void *)(buf + ((struct rs_perf_header *)buf)->size);
	h->size = (uint16_t)(h->size + 4096);
	ck_assert_int_ge(rs_producer_output_walked(&t.p, buf, len2, 3), 0);
	ck_assert_int_ge(rs_producer_flush(&t.p), 0);
	ck_assert_uint_eq(rs_producer_head(&t.p), len + len2);
	fx_drain_all(t.c, &t.log);
	st = rs_consumer_stats(t.c);
	ck_assert_uint_eq(t.log.n, 4);       /* the three, and the run's first */
	model_check(&m, &t.log);
	ck_assert_uint_eq(m.delivered, 4);
	ck_assert_uint_eq(st->corrupt, 1);
	ck_assert_uint_eq(st->bytes + st->corrupt_bytes, len + len2);
	fx_ring_fini(&t);

	ring_init(&o, 1, RS_MODE_OVERWRITE, 0);
	head = rs_producer_head(&o.p);
	ck_assert_int_eq(rs_producer_output_walked(&o.p, buf, len2, 3), -rse_invalid);
	ck_assert_uint_eq(rs_producer_head(&o.p), head);
	fx_ring_fini(&o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("producer");
	TCase *tc = fx_tcase(s, "producer");

	tcase_add_loop_test(tc, reserve_exact_fill, 0, 8);
	tcase_add_test(tc, reserve_wrap);
	tcase_add_test(tc, output_zero_body);
	tcase_add_test(tc, output_padded_body);
	tcase_add_loop_test(tc, output_every_length, 0, 4);
	tcase_add_test(tc, output_inline_refuses);
	tcase_add_test(tc, output_max_size);
	tcase_add_test(tc, has_room_looks_only);
	tcase_add_test(tc, reserve_too_big);
	tcase_add_test(tc, reserve_largest_after_loss);
	tcase_add_test(tc, reserve_invalid_size);
	tcase_add_test(tc, reserve_nested);
	tcase_add_test(tc, reserve_nested_deep);
	tcase_add_test(tc, commit_unbalanced);
	tcase_add_test(tc, commit_zero_fills);
	tcase_add_test(tc, write_past_reservation);
	tcase_add_loop_test(tc, output_lost_exact, 0, 2);
	tcase_add_loop_test(tc, output_lost_random, 0, 4);
	tcase_add_test(tc, flush_lost);
	tcase_add_test(tc, commit_watermark);
	tcase_add_test(tc, commit_watermark_default);
	tcase_add_test(tc, commit_watermark_nested);
	tcase_add_test(tc, overwrite_head_newest);
	tcase_add_loop_test(tc, overwrite_snapshot_walk, 0, 4);
	tcase_add_test(tc, producer_init_resume);
	tcase_add_test(tc, ring_state_read_hints);
	tcase_add_test(tc, ring_state_read_null);
	tcase_add_test(tc, producer_init_null);
	tcase_add_test(tc, reserve_null);
	tcase_add_test(tc, write_null);
	tcase_add_test(tc, commit_null);
	tcase_add_test(tc, output_null);
	tcase_add_test(tc, flush_lost_null);
	tcase_add_test(tc, lost_null);
	tcase_add_loop_test(tc, run_same_bytes, 0, 4);
	tcase_add_test(tc, run_no_space);
	tcase_add_test(tc, run_invalid);
	tcase_add_test(tc, walked_unchecked);
	return fx_run(s);
}
