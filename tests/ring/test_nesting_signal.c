/* SPDX-License-Identifier: MIT */
/*
 * Nested writers: a handler on the writer's own CPU (a guest interrupt, a
 * signal) writes into the same ring while the main flow is inside a
 * reservation.  Each window of the producer where that changes the path
 * is reached on purpose, through the library's test hooks
 * (ring/src/test_hook.h), never by a timer's luck:
 *
 * - nest_*: the hook writes the nested record itself, once, at one point;
 *   the ring must then hold exactly the records, LOST counts and head the
 *   design says.
 * - rotate_*: a nested record at every point in turn, over many records,
 *   normal and overwrite rings: order, doorbells and accounting exact.
 * - signal_*: the hook raises a real signal whose handler writes, while a
 *   consumer in another process drains concurrently.
 */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "barrier.h"
#include "ringside/ring.h"
#include "test_hook.h"

/* Where the next nested write goes: a hook point, or one of these. */
enum {
	AT_WRITE = RS_HOOK_MAX,   /* between the two halves of the outer write */
	AT_NONE,                  /* no nested write for this record */
	AT_MAX
};

#define SEQ_HDR ((uint32_t)sizeof(struct rs_rec_seq))

struct region {
	void *mem;
	uint64_t size;
	struct rs_region region;
	struct rs_ctrl_page *ctrl;
	uint64_t watermark;
};

static struct rs_producer producer;
static struct region rg;

static void region_init(uint32_t data_pages, uint32_t mode)
{
	struct rs_region_params p = {
		.size = sizeof(p), .nr_rings = 1, .data_pages = data_pages,
		.data_mode = mode,
	};
	struct rs_ring ring;

	ck_assert_int_eq(rs_region_size(&p, &rg.size), 0);
	rg.mem = mmap(NULL, rg.size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(rg.mem, MAP_FAILED);
	ck_assert_int_eq(rs_region_layout(rg.mem, rg.size, &p), 0);
	ck_assert_int_eq(rs_region_open(&rg.region, rg.mem, rg.size), 0);
	ck_assert_int_eq(rs_region_ring(&rg.region, 0, &ring), 0);
	rg.ctrl = ring.ctrl;
	rg.watermark = rs_region_config(&rg.region)->data_watermark;
	ck_assert_int_eq(rs_producer_init(&producer, &rg.region, 0), 0);
}

static void region_fini(void)
{
	rs_test_hook = NULL;
	munmap(rg.mem, rg.size);
}

/* 1: write_seq goes through rs_producer_output (its own way through
 * reserve and commit), and nothing is written "between". */
static int use_output;

/* One SEQ record of stream @who: reserve, write in two halves, commit. */
static int write_seq(uint32_t who, uint64_t seq, uint32_t fill,
		     void (*between)(void))
{
	_Alignas(8) uint8_t buf[512];
	int size = rs_seq_build(buf, seq, 0, who, fill);
	uint32_t half = ((uint32_t)size / 2) & ~7u;
	struct rs_handle h;
	int ret;

	ck_assert_int_gt(size, 0);
	if (use_output)
		return rs_producer_output(&producer, RS_RECORD_SEQ, 0, buf + 8,
					  (uint32_t)size - 8);
	ret = rs_producer_reserve(&producer, &h, (uint32_t)size);
	if (ret)
		return ret;
	rs_producer_write(&producer, &h, buf, half);
	if (between)
		between();
	rs_producer_write(&producer, &h, buf + half, (uint32_t)size - half);
	return rs_producer_commit(&producer, &h);
}

/* ---- what a drain or a snapshot saw ------------------------------------ */

struct seen {
	uint32_t type[64];        /* the first records, in order */
	uint64_t stream[64];      /* their stream, or their LOST count */
	uint32_t n;
	uint64_t next[2];         /* normal rings: next seq per stream */
	uint64_t delivered[2];
	uint64_t lost;
	uint64_t lost_zero;       /* LOST records that report 0 */
	uint64_t bad;             /* torn, out of order or foreign */
};

static void seen_one(struct seen *s, const struct rs_perf_header *rec, int backward)
{
	const struct rs_rec_seq *q = (const struct rs_rec_seq *)rec;
	uint64_t what;

	if (rec->type == RS_PERF_RECORD_LOST) {
		what = ((const struct rs_perf_lost *)rec)->lost;
		s->lost += what;
		s->lost_zero += what == 0;
	} else if (!rs_seq_check(rec) || q->producer > 1) {
		s->bad++;
		return;
	} else {
		what = q->producer;
		/* oldest first: seqs rise (drops leave gaps); newest first:
		 * each one below the last, since nothing is dropped */
		if (s->delivered[what] &&
		    (backward ? q->seq + 1 != s->next[what] : q->seq < s->next[what]))
			s->bad++;
		s->next[what] = backward ? q->seq : q->seq + 1;
		s->delivered[what]++;
	}
	if (s->n < 64) {
		s->type[s->n] = rec->type;
		s->stream[s->n++] = what;
	}
}

static int seen_fn(const struct rs_perf_header *rec, void *arg)
{
	seen_one(arg, rec, 0);
	return 0;
}

static void drain_all(struct rs_consumer *c, struct seen *s)
{
	int n;

	while ((n = rs_consumer_drain(c, seen_fn, s)) > 0)
		;
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(rs_consumer_stats(c)->corrupt, 0);
}

static void snapshot_all(struct seen *s, int backward)
{
	const struct rs_perf_header *rec;
	struct rs_snapshot *snap = rs_snapshot_alloc();
	void *buf = malloc(rg.ctrl->data_size);

	ck_assert_ptr_nonnull(snap);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(rs_snapshot_take(snap, &rg.region, 0, buf,
					  rg.ctrl->data_size), 0);
	while (rs_snapshot_next(snap, &rec) == 1)
		seen_one(s, rec, backward);
	ck_assert_uint_eq(rs_snapshot_stats(snap)->corrupt, 0);
	rs_snapshot_free(snap);
	free(buf);
}

/* ---- nest_*: one nested record at one point ----------------------------- */

static int armed = AT_NONE;       /* where the next nested write goes */
static uint64_t nested;           /* nested writes done */
static uint64_t nested_seq;       /* stream 1's next seq */
static int nested_ret;            /* what the nested write returned */
static uint64_t head_inside;      /* data_head as the nested writer left it */
static uint64_t head_max;         /* head only ever grows (normal mode) */
static uint64_t backward_heads;   /* ... and a head that went back */

static uint32_t nested_fill = 8; /* pattern bytes of a nested record */

static void nest_now(void)
{
	nested_ret = write_seq(1, nested_seq++, nested_fill, NULL);
	nested++;
	head_inside = rs_read_head(rg.ctrl);
}

static void nest_hook(struct rs_producer *p, enum rs_hook_point at)
{
	uint64_t head = rs_read_head(rg.ctrl);

	ck_assert_ptr_eq(p, &producer);
	if (producer.ring.data_mode == RS_MODE_NORMAL) {
		backward_heads += head < head_max;
		head_max = head > head_max ? head : head_max;
	}
	/* once: the nested writer passes the same points */
	if ((int)at == armed) {
		armed = AT_NONE;
		nest_now();
	}
}

static void nest_setup(uint32_t data_pages, uint32_t mode)
{
	region_init(data_pages, mode);
	ck_assert_uint_eq(rs_seq_size(8), 48);
	armed = AT_NONE;
	nested = nested_seq = 0;
	head_max = backward_heads = 0;
	rs_test_hook = nest_hook;
}

/*
 * The nested writer reserves between the outer one's read of head and its
 * cmpxchg: the cmpxchg fails, the outer writer retries above the nested
 * record, and nothing is published until the outer one commits.
 */
START_TEST(nest_reserve_read)
{
	struct rs_consumer *c;
	struct seen s = { 0 };

	nest_setup(1, RS_MODE_NORMAL);
	c = rs_consumer_alloc(&rg.region, 0);
	armed = RS_HOOK_RESERVE_READ;
	ck_assert_int_eq(write_seq(0, 0, 64 - SEQ_HDR, NULL), 0);
	ck_assert_uint_eq(nested, 1);
	ck_assert_int_eq(nested_ret, 0);
	ck_assert_uint_eq(head_inside, 0);
	ck_assert_uint_eq(rg.ctrl->data_head, 64 + 48);
	drain_all(c, &s);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.stream[0], 1);   /* the nested record first */
	ck_assert_uint_eq(s.stream[1], 0);
	ck_assert_uint_eq(s.bad, 0);
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/*
 * A LOST count is pending.  The nested writer comes after the outer one
 * took its space (LOST record included) but before it took the count: the
 * nested writer's LOST record carries the count, the outer one's says 0,
 * and the sum is exact.
 */
START_TEST(nest_reserve_taken)
{
	struct rs_consumer *c;
	struct seen s = { 0 };
	uint64_t seq = 0, head;

	nest_setup(1, RS_MODE_NORMAL);
	c = rs_consumer_alloc(&rg.region, 0);
	while (write_seq(0, seq, 64 - SEQ_HDR, NULL) >= 0)
		seq++;
	ck_assert_uint_eq(rs_producer_lost(&producer), 1);
	drain_all(c, &s);
	memset(&s, 0, sizeof(s));
	head = rg.ctrl->data_head;

	armed = RS_HOOK_RESERVE_TAKEN;
	ck_assert_int_ge(write_seq(0, ++seq, 64 - SEQ_HDR, NULL), 0);
	ck_assert_uint_eq(nested, 1);
	ck_assert_int_ge(nested_ret, 0);
	ck_assert_uint_eq(rg.ctrl->data_head, head + 2 * sizeof(struct rs_perf_lost)
			  + 64 + 48);
	drain_all(c, &s);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(s.type[0], RS_PERF_RECORD_LOST);
	ck_assert_uint_eq(s.stream[0], 0);   /* outer: the count was taken */
	ck_assert_uint_eq(s.stream[1], 0);
	ck_assert_uint_eq(s.type[2], RS_PERF_RECORD_LOST);
	ck_assert_uint_eq(s.stream[2], 1);   /* nested: the count */
	ck_assert_uint_eq(s.stream[3], 1);
	ck_assert_uint_eq(s.lost, rs_producer_lost(&producer));
	ck_assert_uint_eq(s.bad, 0);
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/*
 * The outer writer published its head and still holds the nest count: the
 * nested writer's commit must not publish (the count says it is inside),
 * and the outer one, seeing its private head moved, publishes again.
 */
START_TEST(nest_published)
{
	struct rs_consumer *c;
	struct seen s = { 0 };

	nest_setup(1, RS_MODE_NORMAL);
	c = rs_consumer_alloc(&rg.region, 0);
	armed = RS_HOOK_PUBLISHED;
	ck_assert_int_eq(write_seq(0, 0, 64 - SEQ_HDR, NULL), 0);
	ck_assert_uint_eq(nested, 1);
	ck_assert_int_eq(nested_ret, 0);
	ck_assert_uint_eq(head_inside, 64);  /* the outer head only */
	ck_assert_uint_eq(rg.ctrl->data_head, 64 + 48);
	drain_all(c, &s);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.stream[0], 0);
	ck_assert_uint_eq(s.stream[1], 1);
	ck_assert_uint_eq(backward_heads, 0);
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/*
 * The outer writer dropped the nest count but has not re-checked its
 * private head: the nested writer is outermost and publishes its own
 * record; the outer one sees the head moved and publishes it again, never
 * an older value.
 */
START_TEST(nest_unnested)
{
	struct rs_consumer *c;
	struct seen s = { 0 };

	nest_setup(1, RS_MODE_NORMAL);
	c = rs_consumer_alloc(&rg.region, 0);
	armed = RS_HOOK_UNNESTED;
	ck_assert_int_eq(write_seq(0, 0, 64 - SEQ_HDR, NULL), 0);
	ck_assert_uint_eq(nested, 1);
	ck_assert_int_eq(nested_ret, 0);
	ck_assert_uint_eq(head_inside, 64 + 48);
	ck_assert_uint_eq(rg.ctrl->data_head, 64 + 48);
	drain_all(c, &s);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.stream[0], 0);
	ck_assert_uint_eq(s.stream[1], 1);
	ck_assert_uint_eq(backward_heads, 0);
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/*
 * A reservation that does not fit still publishes what a nested writer
 * committed inside it.  When that record takes head across the watermark,
 * the doorbell is not lost with the dropped record: the next commit
 * reports it, and the producer's count stays the number of doorbells it
 * asked for.
 */
START_TEST(nest_published_on_drop)
{
	struct rs_consumer *c;
	struct seen s = { 0 };
	uint64_t seq = 0, bells = 0;

	nest_setup(1, RS_MODE_NORMAL);
	c = rs_consumer_alloc(&rg.region, 0);
	/* 4024 bytes: 62 records of 64, one of 56 */
	while (rg.ctrl->data_head < 62 * 64)
		bells += write_seq(0, seq++, 64 - SEQ_HDR, NULL) == 1;
	bells += write_seq(0, seq++, 56 - SEQ_HDR, NULL) == 1;
	ck_assert_uint_eq(rg.ctrl->data_head, 4096 - 72);
	ck_assert_uint_eq(bells, 1);
	/* 80 bytes do not fit; the nested 48 with the LOST record for those
	 * 80 do, and reach 4096 */
	armed = RS_HOOK_PUBLISHED;
	ck_assert_int_eq(write_seq(0, seq++, 80 - SEQ_HDR, NULL), -rse_no_space);
	ck_assert_uint_eq(nested, 1);
	ck_assert_int_eq(nested_ret, 0);
	ck_assert_uint_eq(rg.ctrl->data_head, 4096);
	ck_assert_uint_eq(rg.ctrl->ext.doorbells, bells);
	/* the next commit rings for the boundary at 4096 */
	drain_all(c, &s);
	ck_assert_int_eq(write_seq(0, seq++, 64 - SEQ_HDR, NULL), 1);
	bells++;
	ck_assert_uint_eq(rg.ctrl->ext.doorbells, bells);
	ck_assert_uint_eq(bells, rg.ctrl->data_head / rg.watermark);
	drain_all(c, &s);
	ck_assert_uint_eq(s.lost, 1);
	ck_assert_uint_eq(s.delivered[1], 1);
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/*
 * rs_producer_output with a batch, its common case: a nested record at
 * each point in turn lands where the design says, and one that takes head
 * across the watermark while the outer writer is leaving makes the outer
 * output report the doorbell (its private head re-checked), not the
 * record after it.
 */
START_TEST(nest_output)
{
	static const int at[] = { RS_HOOK_RESERVE_READ, RS_HOOK_RESERVE_TAKEN,
				  RS_HOOK_PUBLISHED, RS_HOOK_UNNESTED };
	struct rs_consumer *c;
	struct seen s = { 0 };
	uint64_t wm, seq = 0;

	nest_setup(1, RS_MODE_NORMAL);
	use_output = 1;
	ck_assert_int_eq(rs_producer_set_batch(&producer, 1024), 0);
	wm = producer.watermark;
	ck_assert_uint_ge(wm, 256);
	c = rs_consumer_alloc(&rg.region, 0);
	armed = at[_i];
	ck_assert_int_eq(write_seq(0, seq++, 64 - SEQ_HDR, NULL), 0);
	ck_assert_uint_eq(nested, 1);
	ck_assert_int_eq(nested_ret, 0);
	ck_assert_uint_eq(rs_producer_head(&producer), 64 + 48);
	ck_assert_int_eq(rs_producer_flush(&producer), 0);
	drain_all(c, &s);
	ck_assert_uint_eq(s.n, 2);
	/* a nested writer inside the reservation goes first */
	ck_assert_uint_eq(s.stream[0], _i < 1 ? 1 : 0);
	ck_assert_uint_eq(s.stream[1], _i < 1 ? 0 : 1);
	ck_assert_uint_eq(s.bad, 0);

	/* 64 bytes short of the watermark: the outer 40 stay below it, the
	 * nested 48 cross it */
	ck_assert_int_eq(write_seq(0, seq++, 80 - SEQ_HDR, NULL), 0);
	while (rs_producer_head(&producer) < wm - 64)
		ck_assert_int_eq(write_seq(0, seq++, 64 - SEQ_HDR, NULL), 0);
	ck_assert_uint_eq(rs_producer_head(&producer), wm - 64);
	ck_assert_int_eq(rs_producer_flush(&producer), 0);
	drain_all(c, &s);
	armed = RS_HOOK_PUBLISHED;
	ck_assert_int_eq(write_seq(0, seq++, 40 - SEQ_HDR, NULL), 1);
	ck_assert_uint_eq(nested, 2);
	ck_assert_int_eq(nested_ret, 0);   /* nested: the outer one rings */
	ck_assert_uint_eq(rs_producer_head(&producer), wm + 24);
	ck_assert_uint_eq(rg.ctrl->data_head, wm + 24);
	ck_assert_uint_eq(rg.ctrl->ext.doorbells, 1);
	drain_all(c, &s);
	ck_assert_uint_eq(s.bad, 0);
	ck_assert_uint_eq(s.delivered[0], seq);
	ck_assert_uint_eq(s.delivered[1], 2);
	use_output = 0;
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/*
 * Sealed records (a batch): the header slot after a reservation is
 * cleared after the space is taken.  A nested writer that comes between
 * the take and the clear reserves right behind the outer record and seals
 * its header in that very slot: the outer writer puts it back.  One that
 * comes before the take writes where the outer one meant to, with a larger
 * record: nothing of it is cleared.  Either way a snapshot before any
 * publication walks both records, and the drain after the flush too.
 */
START_TEST(nest_sealed_slot)
{
	struct rs_consumer *c;
	struct seen s = { 0 }, snap = { 0 };
	int outer_first = _i & 1;

	nest_setup(1, RS_MODE_NORMAL);
	use_output = _i >> 1;
	ck_assert_int_eq(rs_producer_set_batch(&producer, 1024), 0);
	c = rs_consumer_alloc(&rg.region, 0);
	/* what an earlier lap left: headers that look whole everywhere */
	for (uint64_t pos = 0; pos < producer.ring.data_size; pos += 8) {
		struct rs_perf_header stale = { RS_RECORD_SEQ, 0, 48 };

		memcpy(producer.ring.data + pos, &stale, sizeof(stale));
	}
	ck_assert_int_eq(rs_producer_set_batch(&producer, 0), 0);
	ck_assert_int_eq(rs_producer_set_batch(&producer, 1024), 0);
	nested_fill = outer_first ? 8 : 160;
	armed = outer_first ? RS_HOOK_RESERVE_TAKEN : RS_HOOK_RESERVE_READ;
	ck_assert_int_eq(write_seq(0, 0, 48 - SEQ_HDR, NULL), 0);
	nested_fill = 8;
	ck_assert_uint_eq(nested, 1);
	ck_assert_int_eq(nested_ret, 0);
	ck_assert_uint_eq(rg.ctrl->data_head, 0);
	snapshot_all(&snap, 0);
	ck_assert_uint_eq(snap.n, 2);
	ck_assert_uint_eq(snap.stream[0], outer_first ? 0 : 1);
	ck_assert_uint_eq(snap.stream[1], outer_first ? 1 : 0);
	ck_assert_uint_eq(snap.bad, 0);
	ck_assert_int_eq(rs_producer_flush(&producer), 0);
	drain_all(c, &s);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.bad, 0);
	use_output = 0;
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/* nest_deep: each level's first try to take is interrupted, once */
static int deep_level, deep_ret[8], deep_done[8];

static void deep_hook(struct rs_producer *p, enum rs_hook_point at)
{
	int level = ++deep_level;

	(void)p;
	if (at == RS_HOOK_RESERVE_READ && level < 6 && !deep_done[level]) {
		deep_done[level] = 1;
		deep_ret[level] = write_seq(1, nested_seq++, 8, NULL);
	}
	deep_level--;
}

/*
 * With a batch, a writer knows the slot of at most RS_NEST_MAX writers it
 * interrupted: one nested deeper than that drops its record, counted, and
 * the others go in whole.
 */
START_TEST(nest_deep)
{
	struct rs_consumer *c;
	struct seen s = { 0 };

	region_init(1, RS_MODE_NORMAL);
	nested_seq = 0;
	deep_level = 0;
	memset(deep_ret, 0, sizeof(deep_ret));
	memset(deep_done, 0, sizeof(deep_done));
	ck_assert_int_eq(rs_producer_set_batch(&producer, 1024), 0);
	c = rs_consumer_alloc(&rg.region, 0);
	rs_test_hook = deep_hook;
	ck_assert_int_eq(write_seq(0, 0, 8, NULL), 0);
	rs_test_hook = NULL;
	/* levels 2..4 went in, level 5 was one too deep */
	for (int level = 1; level < 4; level++)
		ck_assert_int_eq(deep_ret[level], 0);
	ck_assert_int_eq(deep_ret[4], -rse_nesting);
	ck_assert_uint_eq(rs_producer_lost(&producer), 1);
	ck_assert_int_eq(rs_producer_flush(&producer), 0);
	ck_assert_int_eq(write_seq(0, 1, 8, NULL), 0);
	ck_assert_int_eq(rs_producer_flush(&producer), 0);
	drain_all(c, &s);
	/* the innermost writer finishes first: stream 1's three records
	 * arrive newest first, two of them below the one before */
	ck_assert_uint_eq(s.bad, 2);
	ck_assert_uint_eq(s.delivered[0], 2);
	ck_assert_uint_eq(s.delivered[1], 3);
	ck_assert_uint_eq(s.lost, 1);
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/* ---- rotate_*: a nested record at every point in turn ------------------ */

static void nest_between(void)
{
	if (armed == AT_WRITE) {
		armed = AT_NONE;
		nest_now();
	}
}

/*
 * Records of varied sizes, a nested one at each point in turn, a consumer
 * that drains every 50 records (so the ring also fills and drops).  Every
 * record arrives in order or is counted lost, and the doorbells are
 * exactly one per watermark boundary that head crossed.
 */
START_TEST(rotate_normal)
{
	struct rs_consumer *c;
	struct seen s = { 0 };
	uint64_t produced = 0, dropped = 0, bells = 0, points[AT_MAX] = { 0 };
	int ret;

	nest_setup(2, RS_MODE_NORMAL);
	/* _i & 1: data_head published per 1 KiB batch, flushed before each
	 * drain; _i & 2: every record through rs_producer_output */
	if (_i & 1)
		ck_assert_int_eq(rs_producer_set_batch(&producer, 1024), 0);
	use_output = _i >> 1;
	c = rs_consumer_alloc(&rg.region, 0);
	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t before = nested;

		armed = (int)(i % AT_MAX);
		ret = write_seq(0, i, (uint32_t)(i * 37 % 200), nest_between);
		armed = AT_NONE;   /* a dropped record leaves its point unpassed */
		ck_assert(ret >= 0 || ret == -rse_no_space);
		produced++;
		dropped += ret == -rse_no_space;
		bells += ret == 1;
		if (nested != before) {
			ck_assert(nested_ret >= 0 || nested_ret == -rse_no_space);
			points[i % AT_MAX]++;
			produced++;
			dropped += nested_ret == -rse_no_space;
			bells += nested_ret == 1;
		}
		if (i % 50 == 49) {
			if (_i & 1) {
				ret = rs_producer_flush(&producer);
				ck_assert_int_ge(ret, 0);
				bells += ret == 1;
			}
			drain_all(c, &s);
		}
	}
	while ((ret = rs_producer_flush_lost(&producer)) == -rse_no_space)
		drain_all(c, &s);
	bells += ret == 2;
	ret = rs_producer_flush(&producer);
	ck_assert_int_ge(ret, 0);
	bells += ret == 1;
	drain_all(c, &s);

	/* commit and put_handle are on every path: nested every time there;
	 * reserve's points are passed only by reservations that fit */
	ck_assert_uint_eq(points[RS_HOOK_PUBLISHED], 20000 / AT_MAX);
	ck_assert_uint_eq(points[RS_HOOK_UNNESTED], 20000 / AT_MAX);
	ck_assert_uint_gt(points[RS_HOOK_RESERVE_READ], 0);
	ck_assert_uint_gt(points[RS_HOOK_RESERVE_TAKEN], 0);
	ck_assert_uint_eq(points[AT_WRITE] > 0, !use_output);
	ck_assert_uint_eq(points[AT_NONE], 0);
	ck_assert_uint_eq(s.bad, 0);
	ck_assert_uint_gt(dropped, 0);
	ck_assert_uint_eq(s.lost, dropped);
	ck_assert_uint_eq(s.lost, rs_producer_lost(&producer));
	ck_assert_uint_eq(s.delivered[0] + s.delivered[1] + s.lost, produced);
	ck_assert_uint_eq(bells, rg.ctrl->data_head / rg.watermark);
	ck_assert_uint_eq(bells, rg.ctrl->ext.doorbells);
	ck_assert_uint_eq(backward_heads, 0);
	use_output = 0;
	rs_consumer_free(c);
	region_fini();
}
END_TEST

/*
 * Overwrite ring (written backward): the same rotation; a snapshot from
 * head walks intact records, newest first, each stream's seqs falling
 * with none missing among the ones the ring still holds.
 */
START_TEST(rotate_overwrite)
{
	struct seen s = { 0 };
	uint64_t bytes = 0;

	nest_setup(4, RS_MODE_OVERWRITE);
	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t before = nested;

		armed = (int)(i % AT_MAX);
		ck_assert_int_eq(write_seq(0, i, (uint32_t)(i * 37 % 200),
					   nest_between), 0);
		bytes += rs_seq_size((uint32_t)(i * 37 % 200));
		if (nested != before) {
			ck_assert_int_eq(nested_ret, 0);
			bytes += rs_seq_size(8);
		}
	}
	ck_assert_uint_eq(nested, 3000 / AT_MAX * (AT_MAX - 1));
	ck_assert_uint_eq(-rg.ctrl->data_head, bytes);
	snapshot_all(&s, 1);
	ck_assert_uint_eq(s.bad, 0);
	ck_assert_uint_eq(s.lost, 0);
	ck_assert_uint_gt(s.delivered[0], 10);
	ck_assert_uint_gt(s.delivered[1], 10);
	/* newest first: the last record of each stream leads */
	ck_assert_uint_eq(s.delivered[0] + s.next[0], 3000);
	ck_assert_uint_eq(s.delivered[1] + s.next[1], nested);
	region_fini();
}
END_TEST

/* ---- signal_*: real signal handlers, a consumer in another process ----- */

struct shared_result {
	uint64_t delivered[2];
	uint64_t lost;
	uint64_t bad;
	uint64_t corrupt;
	uint32_t producer_done;
};

static struct shared_result *res;
static uint64_t raised, raised_at[AT_MAX], armed_at[AT_MAX];
static uint64_t landed;           /* handled before raise() returned */
/* Written by the handler: volatile, or the compiler may keep stale
 * copies across raise(). */
static volatile uint64_t produced[2];
static volatile sig_atomic_t in_handler, handled;

static void on_signal(int sig)
{
	uint64_t seq = produced[1];

	(void)sig;
	in_handler = 1;
	produced[1] = seq + 1;
	write_seq(1, seq, (uint32_t)(seq % 48), NULL);
	handled = 1;
	in_handler = 0;
}

static void raise_armed(int at)
{
	if (in_handler || at != armed)
		return;
	armed = AT_NONE;
	raised++;
	raised_at[at]++;
	handled = 0;
	/* POSIX: an unblocked signal a thread sends itself is handled
	 * before raise() returns, so it nests exactly here */
	raise(SIGUSR1);
	landed += handled;
}

static void signal_hook(struct rs_producer *p, enum rs_hook_point at)
{
	(void)p;
	raise_armed((int)at);
}

static void signal_between(void)
{
	raise_armed(AT_WRITE);
}

static uint32_t signal_records(void)
{
	/* valgrind runs the producer ~50x slower */
	return getenv("RS_UNDER_VALGRIND") ? 20000u : 200000u;
}

static void consume(void)
{
	struct rs_consumer *c = rs_consumer_alloc(&rg.region, 0);
	struct seen s = { 0 };
	int quiet = 0;

	if (!c)
		_exit(2);
	/* After the producer is done, one empty drain means everything. */
	while (quiet < 2) {
		int done = (int)rs_acquire(&res->producer_done);
		int n = rs_consumer_drain(c, seen_fn, &s);

		if (n < 0)
			_exit(3);
		quiet = n ? 0 : quiet + done;
		if (!n)
			usleep(50);
	}
	res->delivered[0] = s.delivered[0];
	res->delivered[1] = s.delivered[1];
	res->lost = s.lost;
	res->bad = s.bad;
	res->corrupt = rs_consumer_stats(c)->corrupt;
	rs_consumer_free(c);
	_exit(0);
}

START_TEST(signal_nested_concurrent_consumer)
{
	struct sigaction sa = { .sa_handler = on_signal };
	pid_t pid;
	int status;

	region_init(16, RS_MODE_NORMAL);
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(res, MAP_FAILED);
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		consume();
	rs_test_hook = signal_hook;
	for (uint32_t i = 0; i < signal_records(); i++) {
		armed = (int)(i % AT_MAX);
		armed_at[armed]++;
		write_seq(0, i, i % 200, signal_between);
		produced[0]++;
		armed = AT_NONE;
	}
	rs_test_hook = NULL;
	while (rs_producer_flush_lost(&producer) == -rse_no_space)
		usleep(100);
	rs_release(&res->producer_done, 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* every signal ran inside the reservation it was raised in */
	ck_assert_uint_eq(landed, raised);
	ck_assert_uint_eq(produced[1], raised);
	/* commit's points are on every path, drop or not */
	ck_assert_uint_eq(raised_at[RS_HOOK_PUBLISHED], armed_at[RS_HOOK_PUBLISHED]);
	ck_assert_uint_eq(raised_at[RS_HOOK_UNNESTED], armed_at[RS_HOOK_UNNESTED]);
	ck_assert_uint_gt(raised_at[RS_HOOK_PUBLISHED], 0);
	ck_assert_uint_eq(raised_at[AT_NONE], 0);
	ck_assert_uint_eq(res->bad, 0);
	ck_assert_uint_eq(res->corrupt, 0);
	ck_assert_uint_eq(res->delivered[0] + res->delivered[1] + res->lost,
			  produced[0] + produced[1]);
	ck_assert_uint_eq(res->lost, rs_producer_lost(&producer));
	munmap(res, sizeof(*res));
	region_fini();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nesting_signal");
	TCase *tc = tcase_create("nest");
	TCase *sig = tcase_create("signal");
	SRunner *sr;
	int failed;

	/* meson's timeout is the real bound */
	tcase_set_timeout(tc, 600);
	tcase_set_timeout(sig, 600);
	tcase_add_test(tc, nest_reserve_read);
	tcase_add_test(tc, nest_reserve_taken);
	tcase_add_test(tc, nest_published);
	tcase_add_test(tc, nest_unnested);
	tcase_add_test(tc, nest_published_on_drop);
	tcase_add_loop_test(tc, nest_output, 0, 4);
	tcase_add_loop_test(tc, nest_sealed_slot, 0, 4);
	tcase_add_test(tc, nest_deep);
	tcase_add_loop_test(tc, rotate_normal, 0, 4);
	tcase_add_test(tc, rotate_overwrite);
	tcase_add_test(sig, signal_nested_concurrent_consumer);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sig);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
