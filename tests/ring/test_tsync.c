/* SPDX-License-Identifier: MIT */
/*
 * Time synchronization (tsync.c): a host thread and a "guest" thread in
 * one process share a region.  The guest's clock is the host's
 * CLOCK_MONOTONIC plus a known offset; the host must recover it within
 * the bound it reports.  A guest that never answers times out; hostile
 * guests (wrong seq, huge times, time going backwards or leaping, random
 * scribbling) are refused and counted, never a crash or a hang.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "ringside/shared.h"

#define OFFSET_NS 5000000000ll   /* the guest's clock: host + 5 s */

static struct fx_region f;

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t host_now(void *arg)
{
	(void)arg;
	return mono();
}

static void host_relax(void *arg)
{
	struct timespec ts = { 0, 20000 };

	(void)arg;
	nanosleep(&ts, NULL);
}

static const struct rs_tsync_clock host_clk = { host_now, host_relax, NULL };

/* How the guest thread misbehaves. */
enum guest_kind {
	G_HONEST,
	G_WRONG_SEQ,     /* echoes a seq never asked */
	G_HUGE,          /* answers with a time >= 2^63 */
	G_BACKWARDS,     /* each answer older than the last */
	G_LEAP,          /* each answer a second ahead of the last */
	G_SCRIBBLE,      /* random bytes over all the time_sync cells */
};

struct guest {
	enum guest_kind kind;
	volatile int stop;
	uint64_t answers;
	uint64_t fake;   /* G_BACKWARDS / G_LEAP: the next time claimed */
	uint64_t rng;    /* G_SCRIBBLE */
	struct rs_tsync_guest st;
};

static uint64_t guest_now(void *arg)
{
	struct guest *g = arg;

	switch (g->kind) {
	case G_HUGE:     /* and moving, like any clock */
		return UINT64_MAX - 1000000000ull + g->fake++;
	case G_BACKWARDS:
		return g->fake -= 1000000;
	case G_LEAP:
		return g->fake += 1000000000ull;
	default:
		return mono() + OFFSET_NS;
	}
}

static struct rs_time_sync *cells(void)
{
	return &((struct rs_region_header *)(void *)f.mem)->time_sync;
}

/* One turn of the guest: what it does whenever it gets to run. */
static void guest_step(struct guest *g, struct rs_tsync_guest *st,
		       uint64_t max_ns)
{
	struct rs_tsync_clock clk = { guest_now, NULL, g };

	if (g->kind == G_SCRIBBLE) {
		uint64_t *w = (uint64_t *)(void *)cells();

		for (int i = 0; i < 16; i++) {
			g->rng ^= g->rng << 13, g->rng ^= g->rng >> 7,
			g->rng ^= g->rng << 17;
			rs_shared_store(&w[g->rng % 16], g->rng);
		}
		return;
	}
	if (g->kind == G_WRONG_SEQ) {
		uint64_t s = rs_shared_load(&cells()->seq);

		rs_shared_store(&cells()->guest_time, mono());
		rs_shared_store(&cells()->echo, s + 0x20000 + 77);  /* beyond any step */
		return;
	}
	if (rs_tsync_guest_pending(&f.region) == 1) {
		int n = rs_tsync_guest_answer(st, &f.region, &clk, max_ns);

		ck_assert_int_ge(n, 0);
		g->answers += (uint64_t)n;
	}
}

static void guest_begin(struct guest *g, enum guest_kind kind)
{
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->rng = 0x9e3779b97f4a7c15ull;
	g->fake = kind == G_HUGE ? 0 : mono() + OFFSET_NS + 100000000000ull;
	rs_tsync_guest_init(&g->st, RS_TSYNC_CLOCK_MONOTONIC);
}

static void *guest_main(void *arg)
{
	struct guest *g = arg;

	while (!g->stop) {
		struct timespec ts = { 0, 100000 };

		guest_step(g, &g->st, 50000000ull);
		if (g->kind == G_SCRIBBLE)
			continue;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static pthread_t start_guest(struct guest *g, enum guest_kind kind)
{
	pthread_t t;

	guest_begin(g, kind);
	ck_assert_int_eq(pthread_create(&t, NULL, guest_main, g), 0);
	return t;
}

static void stop_guest(struct guest *g, pthread_t t)
{
	g->stop = 1;
	pthread_join(t, NULL);
}

static void setup(void)
{
	struct rs_region_params p;

	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, FX_GUARD);
}

static void teardown(void)
{
	fx_region_fini(&f);
}

/* Rounds are given all the time they need: a loaded test machine may
 * preempt either thread for many milliseconds, which widens a round's
 * bound but must not fail a test. */
static void params(struct rs_tsync_params *p, uint64_t wait_ms)
{
	rs_tsync_params_init(p);
	p->wait_ns = wait_ms * 1000000ull;
	p->round_ns = 500000000ull;
}

static void show(const char *what, int ret, const struct rs_tsync_result *r)
{
	fprintf(stderr, "%s: ret %d offset %lld bound %llu rounds %u pings %u "
		"timeouts %u wrong_seq %u torn %u backwards %u implausible %u "
		"inconsistent %u\n", what, ret, (long long)r->offset,
		(unsigned long long)r->bound, r->rounds, r->pings, r->timeouts,
		r->wrong_seq, r->torn, r->backwards, r->implausible,
		r->inconsistent);
}

START_TEST(tsync_layout)
{
	ck_assert_uint_eq(offsetof(struct rs_region_header, time_sync), 640);
	ck_assert_uint_eq(offsetof(struct rs_time_sync, echo), 64);
	ck_assert_uint_eq(sizeof(struct rs_time_sync), 128);
	/* laid out closed */
	ck_assert_int_eq(rs_tsync_guest_pending(&f.region), 0);
	ck_assert_int_eq(rs_tsync_guest_pending(NULL), -rse_invalid);
}
END_TEST

START_TEST(tsync_offset_recovered)
{
	struct rs_tsync_params p;
	struct rs_tsync_result r;
	struct guest g;
	pthread_t t = start_guest(&g, G_HONEST);
	int64_t err;
	int ret;

	params(&p, 2000);
	ret = rs_tsync_host_run(f.mem, &p, &host_clk, &r);
	stop_guest(&g, t);
	show("honest", ret, &r);
	ck_assert_int_eq(ret, 0);
	err = r.offset - OFFSET_NS;
	ck_assert_uint_ge(r.rounds, 1);
	ck_assert_uint_le(r.rounds, p.max_rounds);
	/* stopped at 16 rounds only with a bound within the target */
	if (r.rounds == p.rounds && r.rounds < p.max_rounds)
		ck_assert_uint_le(r.bound, p.target_ns);
	ck_assert_msg(rs_tsync_refused(&r) == 0, "refused: seq %u torn %u "
		      "backwards %u implausible %u", r.wrong_seq, r.torn,
		      r.backwards, r.implausible);
	ck_assert_uint_eq(r.inconsistent, 0);
	ck_assert_uint_eq(r.guest_clock, RS_TSYNC_CLOCK_MONOTONIC);
	ck_assert_msg((err < 0 ? -err : err) <= (int64_t)r.bound,
		      "offset %lld, bound %llu", (long long)r.offset,
		      (unsigned long long)r.bound);
	/* host_time and guest_time describe the same instant */
	ck_assert_int_eq((int64_t)(r.guest_time - r.host_time), r.offset);
	/* window closed */
	ck_assert_uint_eq(cells()->request, 0);
	ck_assert_uint_ge(g.answers, r.rounds);
}
END_TEST

START_TEST(tsync_no_answer_times_out)
{
	struct rs_tsync_params p;
	struct rs_tsync_result r;
	uint64_t t0 = mono(), took;

	params(&p, 100);
	ck_assert_int_eq(rs_tsync_host_run(f.mem, &p, &host_clk, &r),
			 -rse_timeout);
	took = mono() - t0;
	/* the window stays open its whole timeout (how much longer is the
	 * scheduler's business, so no upper bound is asserted) */
	ck_assert_uint_ge(took, 100000000ull);
	ck_assert_uint_eq(r.rounds, 0);
	ck_assert_uint_eq(r.pings, 1);
	ck_assert_uint_eq(r.timeouts, 1);
	ck_assert_uint_eq(cells()->request, 0);
	ck_assert_str_eq(rs_error_str(-rse_timeout),
			 "the other side did not answer in time");
}
END_TEST

START_TEST(tsync_invalid)
{
	struct rs_tsync_params p;
	struct rs_tsync_result r;
	struct rs_tsync_guest g;

	params(&p, 10);
	ck_assert_int_eq(rs_tsync_host_run(NULL, &p, &host_clk, &r), -rse_invalid);
	ck_assert_int_eq(rs_tsync_host_run(f.mem, NULL, &host_clk, &r), -rse_invalid);
	ck_assert_int_eq(rs_tsync_host_run(f.mem, &p, NULL, &r), -rse_invalid);
	ck_assert_int_eq(rs_tsync_host_run(f.mem, &p, &host_clk, NULL), -rse_invalid);
	ck_assert_int_eq(rs_tsync_host_run(f.mem + 8, &p, &host_clk, &r), -rse_invalid);
	p.rounds = RS_TSYNC_MAX_ROUNDS + 1;
	ck_assert_int_eq(rs_tsync_host_run(f.mem, &p, &host_clk, &r), -rse_invalid);
	p.rounds = 16;
	p.max_rounds = RS_TSYNC_MAX_ROUNDS + 1;
	ck_assert_int_eq(rs_tsync_host_run(f.mem, &p, &host_clk, &r), -rse_invalid);
	p.max_rounds = 0;   /* means: exactly rounds */
	p.rounds = 0;
	ck_assert_int_eq(rs_tsync_host_run(f.mem, &p, &host_clk, &r), -rse_invalid);
	rs_tsync_guest_init(&g, 1);
	ck_assert_int_eq(rs_tsync_guest_answer(&g, NULL, &host_clk, 1), -rse_invalid);
	ck_assert_int_eq(rs_tsync_guest_answer(NULL, &f.region, &host_clk, 1), -rse_invalid);
	/* no window: nothing to answer, at once */
	ck_assert_int_eq(rs_tsync_guest_answer(&g, &f.region, &host_clk, 1000000000ull), 0);
}
END_TEST

/* The guest side alone: each seq answered once, the burst bounded. */
START_TEST(tsync_guest_answers_once)
{
	struct rs_time_sync *ts = cells();
	struct rs_tsync_guest g;
	uint64_t t0;

	rs_tsync_guest_init(&g, RS_TSYNC_CLOCK_MONOTONIC);
	ts->seq = 41;
	rs_shared_store32(&ts->request, 7);
	ck_assert_int_eq(rs_tsync_guest_pending(&f.region), 1);
	t0 = mono();
	ck_assert_int_eq(rs_tsync_guest_answer(&g, &f.region, &host_clk, 20000000ull), 1);
	ck_assert_uint_eq(ts->echo, 41);
	ck_assert_uint_eq(ts->window, 7);
	ck_assert_uint_eq(ts->guest_clock, RS_TSYNC_CLOCK_MONOTONIC);
	ck_assert_uint_ge(ts->guest_time, t0);
	/* the same seq again: no second answer */
	ck_assert_int_eq(rs_tsync_guest_answer(&g, &f.region, &host_clk, 1000000ull), 0);
	ts->seq = 42;
	ck_assert_int_eq(rs_tsync_guest_answer(&g, &f.region, &host_clk, 1000000ull), 1);
	ck_assert_uint_eq(ts->echo, 42);
	ck_assert_uint_eq(ts->answers, 2);
}
END_TEST

/* The hostile guests run in the host's own thread, one turn each time the
 * host reads its clock (it does while it waits for an answer): every ping
 * meets the guest, however the machine schedules threads, so what is
 * refused and counted does not depend on whether a second thread got to
 * run in time. */
static uint64_t host_now_guest_turn(void *arg)
{
	guest_step(arg, &((struct guest *)arg)->st, 0);
	return mono();
}

static void hostile(enum guest_kind kind, struct rs_tsync_result *r, int *ret)
{
	struct rs_tsync_params p;
	struct guest g;
	struct rs_tsync_clock clk = { host_now_guest_turn, NULL, &g };

	guest_begin(&g, kind);
	params(&p, 200);
	*ret = rs_tsync_host_run(f.mem, &p, &clk, r);
	show("hostile", *ret, r);
	/* bounded by pings, not by time: max_rounds + the extra pings */
	ck_assert_uint_le(r->pings, p.max_rounds + 32);
}

START_TEST(tsync_hostile_wrong_seq)
{
	struct rs_tsync_result r;
	int ret;

	hostile(G_WRONG_SEQ, &r, &ret);
	ck_assert_int_eq(ret, -rse_timeout);
	ck_assert_uint_eq(r.rounds, 0);
	ck_assert_uint_gt(r.wrong_seq, 0);
}
END_TEST

START_TEST(tsync_hostile_huge_time)
{
	struct rs_tsync_result r;
	int ret;

	hostile(G_HUGE, &r, &ret);
	ck_assert_int_eq(ret, -rse_corrupt);
	ck_assert_uint_eq(r.rounds, 0);
	ck_assert_uint_gt(r.implausible, 0);
}
END_TEST

START_TEST(tsync_hostile_backwards)
{
	struct rs_tsync_result r;
	int ret;

	hostile(G_BACKWARDS, &r, &ret);
	/* the first answer has nothing to compare with; none after it counts */
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(r.rounds, 1);
	ck_assert_uint_gt(r.backwards, 0);
}
END_TEST

START_TEST(tsync_hostile_leap)
{
	struct rs_tsync_result r;
	int ret;

	hostile(G_LEAP, &r, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(r.rounds, 1);
	ck_assert_uint_gt(r.implausible, 0);
}
END_TEST

START_TEST(tsync_hostile_scribble)
{
	struct rs_tsync_result r;
	int ret;

	hostile(G_SCRIBBLE, &r, &ret);
	/* anything may come of it but a crash or a hang; what was used is
	 * within the rules: a result is never built from zero rounds */
	ck_assert(ret == 0 || ret == -rse_timeout || ret == -rse_corrupt);
	if (ret == 0)
		ck_assert_uint_gt(r.rounds, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tsync");
	TCase *tc = fx_tcase(s, "tsync");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tsync_layout);
	tcase_add_test(tc, tsync_offset_recovered);
	tcase_add_test(tc, tsync_no_answer_times_out);
	tcase_add_test(tc, tsync_invalid);
	tcase_add_test(tc, tsync_guest_answers_once);
	tcase_add_test(tc, tsync_hostile_wrong_seq);
	tcase_add_test(tc, tsync_hostile_huge_time);
	tcase_add_test(tc, tsync_hostile_backwards);
	tcase_add_test(tc, tsync_hostile_leap);
	tcase_add_test(tc, tsync_hostile_scribble);
	return fx_run(s);
}
