/* SPDX-License-Identifier: MIT */
/* rs_consumer_*: batches, aborts, and a guest that lies about its ring. */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static void ring_init(struct fx_ring *t, uint32_t data_pages)
{
	struct rs_region_params p;

	fx_params(&p, data_pages, 1);
	fx_ring_init(t, &p, 0);
}

/* @n seq records from @seq on, @size bytes each. */
static void put(struct fx_ring *t, uint64_t seq, uint64_t n, uint32_t size)
{
	for (uint64_t i = 0; i < n; i++)
		ck_assert_int_ge(fx_seq_output(&t->p, seq + i,
					       size - sizeof(struct rs_rec_seq)), 0);
}

/* Every byte the producer published is either delivered or counted. */
static void check_conservation(const struct fx_ring *t)
{
	const struct rs_cons_stats *st = rs_consumer_stats(t->c);

	ck_assert_uint_eq(st->bytes + st->corrupt_bytes, t->ctrl->data_head);
}

START_TEST(drain_abort)
{
	struct fx_ring t;
	const int64_t stop = 2 * _i; /* refuse the first, or the third */

	ring_init(&t, 1);
	put(&t, 0, 5, 64);
	t.log.stop_at = (size_t)stop;
	t.log.stop_ret = -42;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), -42);
	ck_assert_uint_eq(t.log.n, stop);
	/* the refused record and those after it stay in the ring */
	ck_assert_uint_eq(t.ctrl->data_tail, 64 * stop);
	ck_assert_uint_eq(rs_consumer_pending(t.c), 64 * (5 - stop));
	ck_assert_uint_eq(rs_consumer_stats(t.c)->records, stop);
	t.log.stop_ret = 0;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 5 - stop);
	for (uint64_t i = 0; i < 5; i++)
		ck_assert_uint_eq(fx_seq_of(t.log.recs[i]), i);
	ck_assert_uint_eq(t.ctrl->data_tail, 5 * 64);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->records, 5);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->bytes, 5 * 64);
	fx_ring_fini(&t);
}
END_TEST

/* A producer that writes while the consumer is inside a batch. */
struct batch_arg {
	struct fx_ring *t;
	uint64_t seen;
};

static int batch_fn(const struct rs_perf_header *rec, void *arg)
{
	struct batch_arg *b = arg;

	ck_assert_uint_eq(fx_seq_of(rec), b->seen);
	if (b->seen++ == 0)
		ck_assert_int_ge(fx_seq_output(&b->t->p, 3, 24), 0);
	return 0;
}

START_TEST(drain_reads_head_once)
{
	struct fx_ring t;
	struct batch_arg b = { &t, 0 };

	ring_init(&t, 1);
	put(&t, 0, 3, 64);
	ck_assert_int_eq(rs_consumer_drain(t.c, batch_fn, &b), 3);
	ck_assert_uint_eq(t.ctrl->data_tail, 3 * 64);
	ck_assert_int_eq(rs_consumer_drain(t.c, batch_fn, &b), 1);
	ck_assert_uint_eq(b.seen, 4);
	fx_ring_fini(&t);
}
END_TEST

/* How a guest can lie about data_head, given the consumer's tail. */
static uint64_t bad_head(int kind, uint64_t real, uint64_t tail, uint64_t size)
{
	switch (kind) {
	case 0: return tail + size + 8;   /* claims more than the ring */
	case 1: return tail - 8;          /* behind the tail, inside a record */
	case 2: return tail - 128;        /* behind, where delivered records start */
	case 3: return UINT64_MAX;
	default: return real ^ (1ull << 63);
	}
}

/*
 * One scribble over data_head, then the producer publishes its own head
 * again.  The consumer must count the lie, never hand out a record twice,
 * never move its tail back, and deliver what is committed after the
 * producer recovered.
 */
START_TEST(drain_corrupt_head)
{
	struct fx_ring t;
	uint64_t real, tail;

	ring_init(&t, 1);
	put(&t, 0, 4, 64);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 4);
	put(&t, 4, 3, 64);
	real = t.ctrl->data_head;
	tail = t.ctrl->data_tail;
	t.ctrl->data_head = bad_head(_i, real, tail, t.data_size);

	ck_assert_uint_eq(rs_consumer_pending(t.c), 0);
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 0);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->corrupt, 1);
	ck_assert_uint_eq(t.log.n, 4);

	put(&t, 7, 1, 64);
	ck_assert_uint_eq(t.ctrl->data_head, real + 64);
	fx_drain_all(t.c, &t.log);
	for (size_t i = 1; i < t.log.n; i++)
		ck_assert_msg(fx_seq_of(t.log.recs[i]) > fx_seq_of(t.log.recs[i - 1]),
			      "seq %llu delivered after seq %llu",
			      (unsigned long long)fx_seq_of(t.log.recs[i]),
			      (unsigned long long)fx_seq_of(t.log.recs[i - 1]));
	ck_assert_uint_eq(fx_seq_of(t.log.recs[t.log.n - 1]), 7);
	ck_assert_msg((int64_t)(t.ctrl->data_tail - tail) >= 0,
		      "data_tail moved back from %llu to %llu",
		      (unsigned long long)tail, (unsigned long long)t.ctrl->data_tail);
	ck_assert_uint_ge(rs_consumer_stats(t.c)->corrupt, 1);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(drain_head_inside_record)
{
	struct fx_ring t;
	uint64_t real;

	ring_init(&t, 1);
	put(&t, 0, 3, 64);
	real = t.ctrl->data_head;
	/* plausible, but cuts the last record */
	t.ctrl->data_head = real - 24;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 2);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->corrupt, 1);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->corrupt_bytes, 40);
	/* The consumer now stands inside the cut record: what it reads there is
	 * garbage, and the batch that holds it is lost; the next one is not. */
	put(&t, 3, 1, 64);
	fx_drain_all(t.c, &t.log);
	put(&t, 4, 1, 64);
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[t.log.n - 1]), 4);
	ck_assert_uint_ge(rs_consumer_stats(t.c)->corrupt, 1);
	check_conservation(&t);
	fx_ring_fini(&t);
}
END_TEST

/* Ways to spoil the header of the second of three 64-byte records. */
static const uint16_t bad_sizes[] = {
	0,      /* zero */
	4,      /* below a header */
	12,     /* not a multiple of 8 */
	65,
	136,    /* past the head: only 128 bytes remain */
	65528,
	65535,
};

START_TEST(drain_malformed_header)
{
	struct fx_ring t;
	struct rs_perf_header *h;
	const struct rs_cons_stats *st;

	ring_init(&t, 1);
	put(&t, 0, 3, 64);
	h = (struct rs_perf_header *)(t.data + 64);
	h->size = bad_sizes[_i];
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 1);
	st = rs_consumer_stats(t.c);
	ck_assert_uint_eq(st->corrupt, 1);
	ck_assert_uint_eq(st->corrupt_bytes, 128);
	ck_assert_uint_eq(t.ctrl->data_tail, 3 * 64);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[0]), 0);
	/* the consumer keeps going once the producer writes sane records */
	put(&t, 3, 2, 64);
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 2);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[1]), 3);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[2]), 4);
	ck_assert_uint_eq(st->corrupt, 1);
	check_conservation(&t);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(drain_malformed_at_wrap)
{
	struct fx_ring t;
	uint64_t pos;

	/* a malformed header right after a record that wraps */
	ring_init(&t, 1);
	put(&t, 0, 63, 64);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 63);
	/* a 72-byte record at 4032 ends at 4104, past the end */
	put(&t, 63, 1, 72);
	pos = t.ctrl->data_head;
	put(&t, 64, 2, 64);
	ck_assert_uint_eq(pos, 4032 + 72);
	((struct rs_perf_header *)(t.data + pos % t.data_size))->size = 4;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 1);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->corrupt, 1);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->corrupt_bytes, 128);
	check_conservation(&t);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(drain_ignores_shared_tail)
{
	struct fx_ring t;

	/* data_tail is the host's; the consumer trusts only its own copy */
	ring_init(&t, 1);
	put(&t, 0, 4, 64);
	t.ctrl->data_tail = 12345;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 4);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[0]), 0);
	ck_assert_uint_eq(t.ctrl->data_tail, 4 * 64);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->corrupt, 0);
	fx_ring_fini(&t);
}
END_TEST

/* Runs @op and fails if it changed a byte of the region other than the
 * 8 bytes at @allowed. */
static void check_writes_only(struct fx_ring *t, void (*op)(struct fx_ring *),
			      const void *allowed)
{
	uint8_t *before = malloc(t->f.size);
	size_t off = (size_t)((const uint8_t *)allowed - t->f.mem);

	ck_assert_ptr_nonnull(before);
	memcpy(before, t->f.mem, t->f.size);
	op(t);
	for (size_t i = 0; i < t->f.size; i++)
		if (i < off || i >= off + 8)
			ck_assert_msg(before[i] == t->f.mem[i],
				      "consumer wrote region byte %zu", i);
	free(before);
}

static void op_drain(struct fx_ring *t)
{
	(void)rs_consumer_drain(t->c, fx_log_record, &t->log);
}

static int aux_nop(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	(void)chunk;
	(void)len;
	(void)pos;
	(void)arg;
	return 0;
}

static void op_drain_aux(struct fx_ring *t)
{
	ck_assert_int_ge(rs_consumer_drain_aux(t->c, aux_nop, NULL), 0);
}

START_TEST(drain_never_writes_head)
{
	struct fx_ring t;
	struct rs_aux_handle h;
	uint8_t b[100] = { 0 };

	ring_init(&t, 1);
	put(&t, 0, 5, 64);
	check_writes_only(&t, op_drain, &t.ctrl->data_tail);
	put(&t, 5, 2, 64);
	t.ctrl->data_head += 4 * t.data_size;
	check_writes_only(&t, op_drain, &t.ctrl->data_tail);
	t.ctrl->data_head -= 4 * t.data_size;
	((struct rs_perf_header *)(t.data + t.ctrl->data_tail % t.data_size))->size = 3;
	check_writes_only(&t, op_drain, &t.ctrl->data_tail);

	ck_assert_int_eq(rs_aux_begin(&t.p, &h, sizeof(b)), sizeof(b));
	ck_assert_int_eq(rs_aux_write(&t.p, &h, b, sizeof(b)), sizeof(b));
	ck_assert_int_ge(rs_aux_end(&t.p, &h, 0), 0);
	check_writes_only(&t, op_drain_aux, &t.ctrl->aux_tail);
	ck_assert_uint_eq(t.ctrl->aux_tail, sizeof(b));
	fx_ring_fini(&t);
}
END_TEST

static void aux_put(struct fx_ring *t, uint64_t len)
{
	struct rs_aux_handle h;
	uint8_t b[256] = { 0 };

	ck_assert_uint_le(len, sizeof(b));
	ck_assert_int_eq(rs_aux_begin(&t->p, &h, len), (int64_t)len);
	ck_assert_int_eq(rs_aux_write(&t->p, &h, b, len), (int64_t)len);
	ck_assert_int_ge(rs_aux_end(&t->p, &h, 0), 0);
}

struct aux_count {
	uint64_t next;
};

static int aux_count_fn(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct aux_count *a = arg;

	(void)chunk;
	ck_assert_uint_eq(pos, a->next);
	a->next += len;
	return 0;
}

/* The same for aux_head. */
START_TEST(drain_aux_corrupt_head)
{
	struct fx_ring t;
	struct aux_count cnt = { 0 };

	ring_init(&t, 1);
	aux_put(&t, 100);
	t.ctrl->aux_head = 2 * t.aux_size + 8;
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_count_fn, &cnt), 0);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_corrupt, 1);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_bytes, 0);
	/* the producer publishes its own aux_head with its next output */
	aux_put(&t, 50);
	ck_assert_uint_eq(t.ctrl->aux_head, 150);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_count_fn, &cnt), 150);
	ck_assert_uint_eq(cnt.next, 150);
	ck_assert_uint_eq(t.ctrl->aux_tail, 150);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(pending_counts)
{
	struct fx_ring t;

	ring_init(&t, 1);
	ck_assert_uint_eq(rs_consumer_pending(t.c), 0);
	put(&t, 0, 3, 64);
	ck_assert_uint_eq(rs_consumer_pending(t.c), 3 * 64);
	t.ctrl->data_head = t.data_size * 3;
	ck_assert_uint_eq(rs_consumer_pending(t.c), 0);
	t.ctrl->data_head = 3 * 64;
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(rs_consumer_pending(t.c), 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(consumer_init_resume)
{
	struct fx_ring t;
	struct rs_consumer c2;

	ring_init(&t, 1);
	put(&t, 0, 10, 64);
	t.log.stop_at = 4;
	t.log.stop_ret = -1;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), -1);
	t.log.stop_ret = 0;
	/* a second consumer starts where the first one's tail is */
	ck_assert_int_eq(rs_consumer_init(&c2, &t.f.region, 0), 0);
	ck_assert_int_eq(rs_consumer_drain(&c2, fx_log_record, &t.log), 6);
	for (uint64_t i = 0; i < 10; i++)
		ck_assert_uint_eq(fx_seq_of(t.log.recs[i]), i);
	rs_consumer_fini(&c2);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(consumer_refuses_overwrite)
{
	struct fx_ring t;
	struct rs_region_params p;
	struct rs_consumer c;

	fx_params(&p, 1, 0);
	p.data_mode = RS_MODE_OVERWRITE;
	fx_ring_init(&t, &p, 0);
	ck_assert_int_eq(rs_consumer_init(&c, &t.f.region, 0), 0);
	ck_assert_int_ge(fx_seq_output(&t.p, 0, 0), 0);
	ck_assert_int_eq(rs_consumer_drain(&c, fx_log_record, &t.log), -rse_mode);
	ck_assert_uint_eq(t.log.n, 0);
	rs_consumer_fini(&c);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(consumer_init_null)
{
	struct fx_ring t;
	struct rs_consumer c;

	ring_init(&t, 1);
	ck_assert_int_eq(rs_consumer_init(NULL, &t.f.region, 0), -rse_invalid);
	ck_assert_int_eq(rs_consumer_init(&c, NULL, 0), -rse_invalid);
	ck_assert_int_eq(rs_consumer_init(&c, &t.f.region, 1), -rse_invalid);
	ck_assert_ptr_null(rs_consumer_alloc(NULL, 0));
	ck_assert_ptr_null(rs_consumer_alloc(&t.f.region, 1));
	rs_consumer_fini(NULL);
	rs_consumer_free(NULL);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(drain_null)
{
	struct fx_ring t;

	ring_init(&t, 1);
	put(&t, 0, 1, 64);
	ck_assert_int_eq(rs_consumer_drain(NULL, fx_log_record, &t.log), -rse_invalid);
	ck_assert_int_eq(rs_consumer_drain(t.c, NULL, NULL), -rse_invalid);
	/* nothing consumed by the refused calls */
	ck_assert_uint_eq(t.ctrl->data_tail, 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 1);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(pending_null)
{
	ck_assert_uint_eq(rs_consumer_pending(NULL), 0);
}
END_TEST

START_TEST(stats_null)
{
	struct fx_ring t;

	ring_init(&t, 1);
	ck_assert_ptr_null(rs_consumer_stats(NULL));
	ck_assert_ptr_nonnull(rs_consumer_stats(t.c));
	ck_assert_uint_eq(rs_consumer_stats(t.c)->records, 0);
	fx_ring_fini(&t);
}
END_TEST

/* ---- a region restored under the consumer (save/restore, migration) ----
 * "save": a copy of the region's bytes at one moment; "restore": a new
 * region (another memfd, another mapping) holding that copy, which the
 * consumer reattaches to, as QEMU restores a guest's region. */

struct restored {
	struct fx_region f;
	struct rs_producer p;   /* the restored guest's producer */
	struct rs_ctrl_page *ctrl;
};

static void restore(struct restored *r, const struct fx_ring *t,
		    const uint8_t *copy)
{
	struct rs_region_params p;

	fx_params(&p, (uint32_t)(t->data_size / RS_PAGE_SIZE),
		  (uint32_t)(t->aux_size / RS_PAGE_SIZE));
	fx_region_init(&r->f, &p, 0);
	ck_assert_uint_eq(r->f.size, t->f.size);
	if (copy)
		memcpy(r->f.mem, copy, r->f.size);
	fx_region_reopen(&r->f);
	r->ctrl = fx_ctrl(&r->f, 0);
	ck_assert_int_eq(rs_producer_init(&r->p, &r->f.region, 0), 0);
}

static uint8_t *save(const struct fx_ring *t)
{
	uint8_t *copy = malloc(t->f.size);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, t->f.mem, t->f.size);
	return copy;
}

/* The copy was taken after the consumer took 4 of 10 records; it took the
 * other 6 before the guest stopped: they come back behind the restored
 * tail and are not delivered again; what the guest writes next is. */
START_TEST(reattach_tail_back)
{
	struct fx_ring t;
	struct restored r;
	const struct rs_cons_stats *st;
	uint8_t *copy;

	ring_init(&t, 1);
	put(&t, 0, 10, 64);
	t.log.stop_at = 4;
	t.log.stop_ret = -1;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), -1);
	t.log.stop_ret = 0;
	copy = save(&t);
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), 6);
	restore(&r, &t, copy);
	ck_assert_uint_eq(r.ctrl->data_tail, 4 * 64);
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0),
			 RS_REATTACH_TAIL_BACK);
	/* our tail written back at once: the producer gets its room */
	ck_assert_uint_eq(r.ctrl->data_tail, 10 * 64);
	st = rs_consumer_stats(t.c);
	ck_assert_uint_eq(st->reattaches, 1);
	ck_assert_uint_eq(st->tail_back, 1);
	ck_assert_uint_eq(st->skip_records, 6);
	ck_assert_uint_eq(st->skip_bytes, 6 * 64);
	ck_assert_uint_eq(st->skip_unframed, 0);
	ck_assert_uint_eq(st->head_back + st->tail_ahead + st->corrupt, 0);
	/* the guest's count as copied: what we hold before the new ones */
	ck_assert_uint_eq(r.ctrl->ext.produced, 10);
	ck_assert_uint_eq(st->records, 10);
	for (uint64_t i = 10; i < 13; i++)
		ck_assert_int_ge(fx_seq_output(&r.p, i, 64 - sizeof(struct rs_rec_seq)), 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 3);
	ck_assert_uint_eq(t.log.n, 13);
	for (uint64_t i = 0; i < 13; i++)
		ck_assert_uint_eq(fx_seq_of(t.log.recs[i]), i);
	free(copy);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* The tails were where we left them: nothing to do, nothing counted. */
START_TEST(reattach_same)
{
	struct fx_ring t;
	struct restored r;
	uint8_t *copy;

	ring_init(&t, 1);
	put(&t, 0, 5, 64);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 5);
	put(&t, 5, 2, 64);
	copy = save(&t);
	restore(&r, &t, copy);
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0), 0);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->skip_records, 0);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->reattaches, 1);
	ck_assert_uint_eq(rs_consumer_pending(t.c), 2 * 64);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 2);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[6]), 6);
	free(copy);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* The copy predates records the consumer took (an older image of what we
 * read; never a save of a stopped guest): resumed at the restored tail,
 * what it holds delivered, and what cannot be known counted. */
START_TEST(reattach_head_back)
{
	struct fx_ring t;
	struct restored r;
	const struct rs_cons_stats *st;
	uint8_t *copy;

	ring_init(&t, 1);
	put(&t, 0, 5, 64);
	copy = save(&t);
	put(&t, 5, 5, 64);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 10);
	restore(&r, &t, copy);
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0),
			 RS_REATTACH_TAIL_BACK | RS_REATTACH_HEAD_BACK);
	st = rs_consumer_stats(t.c);
	ck_assert_uint_eq(st->skip_records + st->skip_bytes, 0);
	ck_assert_uint_eq(st->unsure_records, 5);
	ck_assert_uint_eq(st->unsure_bytes, 5 * 64);
	ck_assert_uint_eq(st->head_back, 1);
	ck_assert_uint_eq(st->head_back_bytes, 5 * 64);
	ck_assert_uint_eq(r.ctrl->data_tail, 0);
	for (uint64_t i = 100; i < 103; i++)
		ck_assert_int_ge(fx_seq_output(&r.p, i, 64 - sizeof(struct rs_rec_seq)), 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 8);
	for (uint64_t i = 0; i < 5; i++)
		ck_assert_uint_eq(fx_seq_of(t.log.recs[10 + i]), i);
	for (uint64_t i = 0; i < 3; i++)
		ck_assert_uint_eq(fx_seq_of(t.log.recs[15 + i]), 100 + i);
	ck_assert_uint_eq(st->corrupt, 0);
	free(copy);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* A region laid out anew (the domain booted afresh, not restored): its
 * records from 0 on are delivered, none skipped; those it had before the
 * reattach are the ones that cannot be known not to repeat. */
START_TEST(reattach_fresh_region)
{
	struct fx_ring t;
	struct restored r;
	const struct rs_cons_stats *st;

	ring_init(&t, 1);
	put(&t, 0, 30, 64);   /* wraps a 4 KiB ring */
	ck_assert_uint_ge(fx_drain_all(t.c, &t.log), 1);
	restore(&r, &t, NULL);
	ck_assert_int_ge(fx_seq_output(&r.p, 7, 0), 0);
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0),
			 RS_REATTACH_TAIL_BACK | RS_REATTACH_HEAD_BACK);
	st = rs_consumer_stats(t.c);
	ck_assert_uint_eq(st->skip_bytes, 0);
	ck_assert_uint_eq(st->unsure_records, 1);
	ck_assert_uint_eq(st->head_back_bytes, t.ctrl->data_head - r.ctrl->data_head);
	ck_assert_int_ge(fx_seq_output(&r.p, 8, 0), 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 2);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[t.log.n - 2]), 7);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[t.log.n - 1]), 8);
	ck_assert_uint_eq(st->corrupt, 0);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* A restored tail ahead of ours (not ours: another reader's, or another
 * history's): resume there, and count the bytes never read here. */
START_TEST(reattach_tail_ahead)
{
	struct fx_ring t;
	struct restored r;
	uint8_t *copy;

	ring_init(&t, 1);
	put(&t, 0, 10, 64);
	t.log.stop_at = 2;
	t.log.stop_ret = -1;
	ck_assert_int_eq(rs_consumer_drain(t.c, fx_log_record, &t.log), -1);
	t.log.stop_ret = 0;
	copy = save(&t);
	restore(&r, &t, copy);
	r.ctrl->data_tail = 6 * 64;
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0),
			 RS_REATTACH_TAIL_AHEAD);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->tail_ahead_bytes, 4 * 64);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->skip_bytes, 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 4);
	ck_assert_uint_eq(fx_seq_of(t.log.recs[2]), 6);
	free(copy);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* Restored bytes that are not what we delivered (the guest changed them):
 * the walk counts what it cannot frame, and the reattach goes on. */
START_TEST(reattach_unframed_skip)
{
	struct fx_ring t;
	struct restored r;
	uint8_t *copy;
	struct rs_perf_header *h;

	ring_init(&t, 1);
	put(&t, 0, 4, 64);
	copy = save(&t);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 4);
	restore(&r, &t, copy);
	h = (struct rs_perf_header *)(fx_data(&r.f, 0) + 128);
	h->size = 0;
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0),
			 RS_REATTACH_TAIL_BACK);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->skip_records, 2);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->skip_unframed, 128);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->skip_bytes, 256);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->corrupt, 0);
	ck_assert_uint_eq(r.ctrl->data_tail, 256);
	free(copy);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* A restored head more than a ring past its tail: counted as at init. */
START_TEST(reattach_corrupt_head)
{
	struct fx_ring t;
	struct restored r;
	uint8_t *copy;

	ring_init(&t, 1);
	put(&t, 0, 3, 64);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 3);
	copy = save(&t);
	restore(&r, &t, copy);
	r.ctrl->data_head = 3 * 64 + 5 * t.data_size;
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0) &
			 RS_REATTACH_CORRUPT, RS_REATTACH_CORRUPT);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->bad_heads, 1);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->skip_bytes, 0);
	ck_assert_uint_eq(rs_consumer_pending(t.c), 0);
	free(copy);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* The AUX area: the bytes behind the restored aux_tail are not given again. */
START_TEST(reattach_aux)
{
	struct fx_ring t;
	struct restored r;
	struct aux_count cnt = { 0 };
	uint8_t *copy;

	ring_init(&t, 1);
	aux_put(&t, 100);
	copy = save(&t);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_count_fn, &cnt), 100);
	restore(&r, &t, copy);
	ck_assert_uint_eq(r.ctrl->aux_tail, 0);
	ck_assert_int_eq(rs_consumer_reattach(t.c, &r.f.region, 0),
			 RS_REATTACH_TAIL_BACK);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->aux_skip_bytes, 100);
	ck_assert_uint_eq(r.ctrl->aux_tail, 100);
	ck_assert_int_eq(rs_consumer_drain_aux(t.c, aux_count_fn, &cnt), 0);
	free(copy);
	fx_region_fini(&r.f);
	fx_ring_fini(&t);
}
END_TEST

/* Another geometry is another region: refused, the consumer unchanged. */
START_TEST(reattach_geometry)
{
	struct fx_ring t;
	struct fx_region other;
	struct rs_region_params p;

	ring_init(&t, 1);
	fx_params(&p, 2, 1);
	fx_region_init(&other, &p, 0);
	put(&t, 0, 2, 64);
	ck_assert_int_eq(rs_consumer_reattach(t.c, &other.region, 0),
			 -rse_geometry);
	ck_assert_int_eq(rs_consumer_reattach(t.c, &other.region, 5),
			 -rse_invalid);
	ck_assert_int_eq(rs_consumer_reattach(NULL, &other.region, 0),
			 -rse_invalid);
	ck_assert_uint_eq(rs_consumer_stats(t.c)->reattaches, 0);
	ck_assert_uint_eq(fx_drain_all(t.c, &t.log), 2);
	fx_region_fini(&other);
	fx_ring_fini(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("consumer");
	TCase *tc = fx_tcase(s, "consumer");

	tcase_add_loop_test(tc, drain_abort, 0, 2);
	tcase_add_test(tc, drain_reads_head_once);
	tcase_add_loop_test(tc, drain_corrupt_head, 0, 5);
	tcase_add_test(tc, drain_head_inside_record);
	tcase_add_loop_test(tc, drain_malformed_header, 0,
			    sizeof(bad_sizes) / sizeof(bad_sizes[0]));
	tcase_add_test(tc, drain_malformed_at_wrap);
	tcase_add_test(tc, drain_ignores_shared_tail);
	tcase_add_test(tc, drain_never_writes_head);
	tcase_add_test(tc, drain_aux_corrupt_head);
	tcase_add_test(tc, pending_counts);
	tcase_add_test(tc, consumer_init_resume);
	tcase_add_test(tc, consumer_refuses_overwrite);
	tcase_add_test(tc, consumer_init_null);
	tcase_add_test(tc, drain_null);
	tcase_add_test(tc, pending_null);
	tcase_add_test(tc, stats_null);
	tcase_add_test(tc, reattach_tail_back);
	tcase_add_test(tc, reattach_same);
	tcase_add_test(tc, reattach_head_back);
	tcase_add_test(tc, reattach_fresh_region);
	tcase_add_test(tc, reattach_tail_ahead);
	tcase_add_test(tc, reattach_unframed_skip);
	tcase_add_test(tc, reattach_corrupt_head);
	tcase_add_test(tc, reattach_aux);
	tcase_add_test(tc, reattach_geometry);
	return fx_run(s);
}
