/* SPDX-License-Identifier: MIT */
/*
 * hostview's analysis on synthetic event streams: intervals of each
 * state, steal, the longest preemptions, migrations, exits by reason,
 * losses, threads that end, events out of order; and a stream of raw
 * records through walk, decode and track, as the recorder runs them.
 * Needs no privilege.
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "rec_build.h"
#include "ringside/hv_parse.h"
#include "ringside/hv_track.h"

static struct hv_ev ev(uint32_t type, uint64_t time, uint32_t cpu)
{
	struct hv_ev e = { .type = type, .time = time, .cpu = cpu, .tid = 7 };

	return e;
}

static struct hv_ev kvm(uint32_t type, uint64_t time, uint32_t isa,
			uint32_t reason)
{
	struct hv_ev e = ev(type, time, 0);

	e.isa = isa;
	e.reason = reason;
	return e;
}

struct ivs {
	struct hv_interval iv[64];
	uint32_t n;
	int fail_at;             /* return 5 from this interval on (1-based) */
};

static int keep(void *arg, const struct hv_interval *iv)
{
	struct ivs *s = arg;

	if (s->n < 64)
		s->iv[s->n] = *iv;
	s->n++;
	return s->fail_at && (int)s->n >= s->fail_at ? 5 : 0;
}

static void feed_all(struct hv_track *t, const struct hv_ev *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(hv_track_feed(t, &e[i]), 0);
}

static void iv_is(const struct hv_interval *iv, uint64_t a, uint64_t b,
		  uint32_t state, uint32_t cpu, uint32_t open)
{
	ck_assert_uint_eq(iv->start, a);
	ck_assert_uint_eq(iv->end, b);
	ck_assert_uint_eq(iv->state, state);
	ck_assert_uint_eq(iv->cpu, cpu);
	ck_assert_uint_eq(iv->open, open);
}

START_TEST(intervals_and_steal)
{
	const struct hv_ev e[] = {
		ev(HV_EV_SWITCH_IN, 100, 0),
		ev(HV_EV_PREEMPT, 200, 0),
		ev(HV_EV_SWITCH_IN, 350, 1),      /* migrated while runnable */
		ev(HV_EV_SWITCH_OUT, 400, 1),
		ev(HV_EV_SWITCH_IN, 1000, 1),
		ev(HV_EV_PREEMPT, 1100, 1),
		ev(HV_EV_SWITCH_IN, 1600, 1),
	};
	struct hv_track t;
	struct ivs s = { .n = 0 };

	hv_track_init(&t, keep, &s);
	feed_all(&t, e, sizeof(e) / sizeof(e[0]));
	ck_assert_int_eq(hv_track_finish(&t, 2000), 0);
	ck_assert_uint_eq(s.n, 7);
	iv_is(&s.iv[0], 100, 200, HV_ST_RUNNING, 0, 0);
	iv_is(&s.iv[1], 200, 350, HV_ST_RUNNABLE, 0, 0);
	iv_is(&s.iv[2], 350, 400, HV_ST_RUNNING, 1, 0);
	iv_is(&s.iv[3], 400, 1000, HV_ST_BLOCKED, 1, 0);
	iv_is(&s.iv[4], 1000, 1100, HV_ST_RUNNING, 1, 0);
	iv_is(&s.iv[5], 1100, 1600, HV_ST_RUNNABLE, 1, 0);
	iv_is(&s.iv[6], 1600, 2000, HV_ST_RUNNING, 1, 1);
	ck_assert_uint_eq(t.state_ns[HV_ST_RUNNING], 650);
	ck_assert_uint_eq(hv_track_steal(&t), 650);
	ck_assert_uint_eq(t.state_ns[HV_ST_BLOCKED], 600);
	ck_assert_uint_eq(t.state_ns[HV_ST_UNKNOWN], 0);
	ck_assert_uint_eq(t.preempts, 2);
	ck_assert_uint_eq(t.blocks, 1);
	ck_assert_uint_eq(t.switches_in, 4);
	ck_assert_uint_eq(t.migrations, 1);
	ck_assert_uint_eq(t.unmatched, 0);
	ck_assert_uint_eq(t.first, 100);
	ck_assert_uint_eq(t.last, 1600);
	ck_assert_uint_eq(t.ntop, 2);
	ck_assert_uint_eq(t.top[0].ns, 500);
	ck_assert_uint_eq(t.top[0].start, 1100);
	ck_assert_uint_eq(t.top[0].cpu_out, 1);
	ck_assert_uint_eq(t.top[0].cpu_in, 1);
	ck_assert_uint_eq(t.top[1].ns, 150);
	ck_assert_uint_eq(t.top[1].cpu_out, 0);
	ck_assert_uint_eq(t.top[1].cpu_in, 1);
}
END_TEST

START_TEST(open_preemption_at_finish)
{
	const struct hv_ev e[] = {
		ev(HV_EV_SWITCH_OUT, 50, 2),      /* first: running before, unknown */
		ev(HV_EV_SWITCH_IN, 60, 2),
		ev(HV_EV_PREEMPT, 70, 2),
	};
	struct hv_track t;
	struct ivs s = { .n = 0 };

	hv_track_init(&t, keep, &s);
	feed_all(&t, e, 3);
	ck_assert_int_eq(hv_track_finish(&t, 0), 0);      /* at the last event */
	ck_assert_uint_eq(hv_track_steal(&t), 0);
	ck_assert_uint_eq(t.ntop, 0);                      /* no time: none */
	hv_track_init(&t, keep, &s);
	s.n = 0;
	feed_all(&t, e, 3);
	ck_assert_int_eq(hv_track_finish(&t, 170), 0);
	ck_assert_uint_eq(hv_track_steal(&t), 100);
	ck_assert_uint_eq(t.ntop, 1);
	ck_assert_uint_eq(t.top[0].cpu_in, UINT32_MAX);
	ck_assert_uint_eq(t.unmatched, 0);
	iv_is(&s.iv[s.n - 1], 70, 170, HV_ST_RUNNABLE, 2, 1);
	/* an end before the last event is the last event */
	hv_track_init(&t, NULL, NULL);
	feed_all(&t, e, 3);
	ck_assert_int_eq(hv_track_finish(&t, 10), 0);
	ck_assert_uint_eq(hv_track_steal(&t), 0);
}
END_TEST

START_TEST(exits_by_reason)
{
	const struct hv_ev e[] = {
		ev(HV_EV_SWITCH_IN, 1, 0),
		kvm(HV_EV_KVM_EXIT, 10, HV_ISA_VMX, 30),
		kvm(HV_EV_KVM_ENTRY, 15, 0, 0),
		kvm(HV_EV_KVM_EXIT, 20, HV_ISA_VMX, 30),
		kvm(HV_EV_KVM_ENTRY, 22, 0, 0),
		kvm(HV_EV_KVM_EXIT, 30, HV_ISA_VMX, 12),
		kvm(HV_EV_KVM_UEXIT, 31, 0, 2),
		kvm(HV_EV_KVM_UEXIT, 40, 0, 2),
		kvm(HV_EV_KVM_ENTRY, 50, 0, 0),   /* after HLT: 20 ns */
		kvm(HV_EV_KVM_ENTRY, 60, 0, 0),   /* no exit before: nothing */
	};
	struct hv_track t;

	hv_track_init(&t, NULL, NULL);
	feed_all(&t, e, sizeof(e) / sizeof(e[0]));
	ck_assert_uint_eq(t.exits, 3);
	ck_assert_uint_eq(t.uexits, 2);
	ck_assert_uint_eq(t.nreasons, 3);
	ck_assert_uint_eq(t.reasons[0].type, HV_EV_KVM_EXIT);
	ck_assert_uint_eq(t.reasons[0].reason, 30);
	ck_assert_uint_eq(t.reasons[0].count, 2);
	ck_assert_uint_eq(t.reasons[0].ns, 7);
	ck_assert_uint_eq(t.reasons[1].reason, 12);
	ck_assert_uint_eq(t.reasons[1].count, 1);
	ck_assert_uint_eq(t.reasons[1].ns, 20);
	ck_assert_uint_eq(t.reasons[2].type, HV_EV_KVM_UEXIT);
	ck_assert_uint_eq(t.reasons[2].count, 2);
	ck_assert_str_eq(hv_name_exit(t.reasons[0].type, t.reasons[0].isa,
				      t.reasons[0].reason), "IO_INSTRUCTION");
	ck_assert_str_eq(hv_name_exit(t.reasons[2].type, 0, 2), "IO");
}
END_TEST

START_TEST(reasons_bounded)
{
	struct hv_track t;

	hv_track_init(&t, NULL, NULL);
	for (uint32_t i = 0; i < HV_REASONS + 12; i++) {
		struct hv_ev e = kvm(HV_EV_KVM_EXIT, i, HV_ISA_SVM, i);

		ck_assert_int_eq(hv_track_feed(&t, &e), 0);
	}
	/* a full table: the entry after an uncounted exit adds nothing */
	{
		struct hv_ev e = kvm(HV_EV_KVM_ENTRY, 1000, 0, 0);

		ck_assert_int_eq(hv_track_feed(&t, &e), 0);
	}
	ck_assert_uint_eq(t.nreasons, HV_REASONS);
	ck_assert_uint_eq(t.reasons_other, 12);
	ck_assert_uint_eq(t.exits, HV_REASONS + 12);
	for (uint32_t i = 0; i < HV_REASONS; i++)
		ck_assert_uint_eq(t.reasons[i].ns, 0);
}
END_TEST

START_TEST(top_keeps_longest)
{
	static const uint64_t durs[] = { 5, 90, 3, 70, 70, 1, 100, 20, 60, 2,
					 80, 10, 40 };
	const size_t n = sizeof(durs) / sizeof(durs[0]);
	struct hv_track t;
	uint64_t now = 1000;

	hv_track_init(&t, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		struct hv_ev in = ev(HV_EV_SWITCH_IN, now, 0);
		struct hv_ev out = ev(HV_EV_PREEMPT, now + 1, 0);

		ck_assert_int_eq(hv_track_feed(&t, &in), 0);
		ck_assert_int_eq(hv_track_feed(&t, &out), 0);
		now += 1 + durs[i];
	}
	{
		struct hv_ev in = ev(HV_EV_SWITCH_IN, now, 0);

		ck_assert_int_eq(hv_track_feed(&t, &in), 0);
	}
	ck_assert_uint_eq(t.ntop, HV_TOP);
	ck_assert_uint_eq(t.top[0].ns, 100);
	ck_assert_uint_eq(t.top[1].ns, 90);
	ck_assert_uint_eq(t.top[2].ns, 80);
	ck_assert_uint_eq(t.top[3].ns, 70);
	ck_assert_uint_eq(t.top[4].ns, 70);
	/* of equal ones, the earlier first */
	ck_assert_uint_lt(t.top[3].start, t.top[4].start);
	ck_assert_uint_eq(t.top[5].ns, 60);
	ck_assert_uint_eq(t.top[6].ns, 40);
	ck_assert_uint_eq(t.top[7].ns, 20);
	ck_assert_uint_eq(hv_track_steal(&t), 551);
	ck_assert_uint_eq(t.preempts, n);
}
END_TEST

START_TEST(loss_makes_unknown)
{
	struct hv_ev e[] = {
		ev(HV_EV_SWITCH_IN, 100, 0),
		ev(HV_EV_LOST, 200, 0),
		ev(HV_EV_SWITCH_IN, 300, 0),
		ev(HV_EV_PREEMPT, 400, 0),
		ev(HV_EV_LOST, 450, 0),
		ev(HV_EV_SWITCH_IN, 500, 0),
	};
	struct hv_track t;
	struct ivs s = { .n = 0 };

	e[1].count = 5;
	e[4].count = 2;
	hv_track_init(&t, keep, &s);
	feed_all(&t, e, sizeof(e) / sizeof(e[0]));
	ck_assert_uint_eq(t.lost, 7);
	ck_assert_uint_eq(t.state_ns[HV_ST_UNKNOWN], 150);
	ck_assert_uint_eq(t.state_ns[HV_ST_RUNNING], 200);
	/* the preemption cut by the loss counts up to it, and no further */
	ck_assert_uint_eq(hv_track_steal(&t), 50);
	ck_assert_uint_eq(t.top[0].cpu_in, UINT32_MAX);
	ck_assert_uint_eq(t.unmatched, 0);
	iv_is(&s.iv[1], 200, 300, HV_ST_UNKNOWN, 0, 0);
}
END_TEST

START_TEST(thread_end_and_unmatched)
{
	const struct hv_ev e[] = {
		ev(HV_EV_SWITCH_IN, 100, 0),
		ev(HV_EV_SWITCH_IN, 150, 0),       /* in while running */
		ev(HV_EV_SWITCH_OUT, 200, 0),
		ev(HV_EV_SWITCH_OUT, 210, 0),      /* out while out */
		ev(HV_EV_EXIT, 250, 0),
		ev(HV_EV_EXIT, 260, 0),            /* once is enough */
	};
	struct hv_track t;
	struct ivs s = { .n = 0 };

	hv_track_init(&t, keep, &s);
	feed_all(&t, e, sizeof(e) / sizeof(e[0]));
	ck_assert_int_eq(hv_track_finish(&t, 1000), 0);
	ck_assert_uint_eq(t.unmatched, 2);
	ck_assert_uint_eq(t.state_ns[HV_ST_RUNNING], 100);
	ck_assert_uint_eq(t.state_ns[HV_ST_BLOCKED], 50);
	ck_assert_uint_eq(t.state_ns[HV_ST_GONE], 0);      /* never closed */
	ck_assert_uint_eq(t.state, HV_ST_GONE);
	iv_is(&s.iv[s.n - 1], 210, 250, HV_ST_BLOCKED, 0, 0);
}
END_TEST

START_TEST(out_of_order_skipped)
{
	const struct hv_ev e[] = {
		ev(HV_EV_SWITCH_IN, 100, 0),
		ev(HV_EV_SWITCH_OUT, 200, 0),
		ev(HV_EV_SWITCH_IN, 150, 0),
		ev(HV_EV_SWITCH_IN, 300, 0),
	};
	struct hv_track t;

	hv_track_init(&t, NULL, NULL);
	feed_all(&t, e, 4);
	ck_assert_uint_eq(t.out_of_order, 1);
	ck_assert_uint_eq(t.switches_in, 2);
	ck_assert_uint_eq(t.state_ns[HV_ST_BLOCKED], 100);
	/* time 0 is a time like any other */
	hv_track_init(&t, NULL, NULL);
	{
		struct hv_ev a = ev(HV_EV_SWITCH_IN, 0, 0);
		struct hv_ev b = ev(HV_EV_PREEMPT, 0, 0);
		struct hv_ev c = ev(HV_EV_SWITCH_IN, 9, 0);

		ck_assert_int_eq(hv_track_feed(&t, &a), 0);
		ck_assert_int_eq(hv_track_feed(&t, &b), 0);
		ck_assert_int_eq(hv_track_feed(&t, &c), 0);
	}
	ck_assert_uint_eq(hv_track_steal(&t), 9);
	ck_assert_uint_eq(t.out_of_order, 0);
}
END_TEST

START_TEST(callback_stops)
{
	const struct hv_ev e[] = {
		ev(HV_EV_SWITCH_IN, 100, 0),
		ev(HV_EV_SWITCH_OUT, 200, 0),
		ev(HV_EV_SWITCH_IN, 300, 0),
	};
	struct hv_track t;
	struct ivs s = { .fail_at = 1 };

	hv_track_init(&t, keep, &s);
	ck_assert_int_eq(hv_track_feed(&t, &e[0]), 0);
	ck_assert_int_eq(hv_track_feed(&t, &e[1]), 5);
	ck_assert_int_eq(hv_track_feed(&t, &e[2]), 5);
	ck_assert_int_eq(hv_track_finish(&t, 400), 5);
}
END_TEST

START_TEST(track_null)
{
	struct hv_track t;
	struct hv_ev e = ev(HV_EV_SWITCH_IN, 1, 0);

	hv_track_init(NULL, NULL, NULL);
	hv_track_init(&t, NULL, NULL);
	ck_assert_int_eq(hv_track_feed(NULL, &e), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_track_feed(&t, NULL), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_track_finish(NULL, 0), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_track_finish(&t, 0), 0);        /* empty: fine */
	ck_assert_int_eq(hv_track_finish(&t, 0), HV_ERR(hve_invalid));
	ck_assert_int_eq(hv_track_feed(&t, &e), HV_ERR(hve_invalid));
	ck_assert_uint_eq(t.state_ns[HV_ST_RUNNING], 0);
	ck_assert_ptr_null(hv_name_exit(HV_EV_NONE, 0, 0));
}
END_TEST

/* ---- records to analysis, as the recorder runs them ---- */

struct pipe_state {
	struct hv_layout l;
	struct hv_ev ev[64];
	uint32_t n;
	uint32_t bad;
};

static int to_events(void *arg, const void *rec, uint32_t len)
{
	struct pipe_state *p = arg;

	if (hv_decode(&p->l, rec, len, &p->ev[p->n]))
		p->bad++;
	else
		p->n++;
	return 0;
}

START_TEST(records_to_steal)
{
	/* A flight recorder: written downward, read newest first, then
	 * reversed, then analysed. */
	uint8_t data[1024] = { 0 }, rec[128];
	struct pipe_state *p = calloc(1, sizeof(*p));
	uint64_t head = 0;
	struct hv_track t;
	struct hv_walk w;
	uint32_t n;
	struct {
		int kind;                /* SW_*, or 9: a kvm exit */
		uint64_t time;
		uint32_t cpu;
	} script[] = {
		{ SW_IN, 1000, 0 }, { 9, 1010, 0 }, { SW_PREEMPT, 1100, 0 },
		{ SW_IN, 5100, 1 }, { SW_OUT, 5200, 1 }, { SW_IN, 6000, 1 },
		{ SW_PREEMPT, 6050, 1 }, { SW_IN, 6150, 1 },
	};

	test_layout(&p->l);
	for (size_t i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		if (script[i].kind == 9)
			n = rec_sample(rec, ID_EXIT, 7, script[i].time,
				       script[i].cpu, 64, 1, HV_ISA_VMX);
		else
			n = rec_switch(rec, script[i].kind, 7, script[i].time,
				       script[i].cpu);
		head -= n;
		for (uint32_t k = 0; k < n; k++)
			data[(head + k) & (sizeof(data) - 1)] = rec[k];
	}
	ck_assert_int_eq(hv_ring_walk_backward(data, sizeof(data), head,
					       0 - head, to_events, p, &w), 0);
	ck_assert_uint_eq(p->bad, 0);
	ck_assert_uint_eq(p->n, 8);
	for (uint32_t i = 0; i < p->n / 2; i++) {
		struct hv_ev x = p->ev[i];

		p->ev[i] = p->ev[p->n - 1 - i];
		p->ev[p->n - 1 - i] = x;
	}
	hv_track_init(&t, NULL, NULL);
	for (uint32_t i = 0; i < p->n; i++)
		ck_assert_int_eq(hv_track_feed(&t, &p->ev[i]), 0);
	ck_assert_int_eq(hv_track_finish(&t, 0), 0);
	ck_assert_uint_eq(hv_track_steal(&t), 4000 + 100);
	ck_assert_uint_eq(t.top[0].ns, 4000);
	ck_assert_uint_eq(t.top[0].cpu_out, 0);
	ck_assert_uint_eq(t.top[0].cpu_in, 1);
	ck_assert_uint_eq(t.migrations, 1);
	ck_assert_uint_eq(t.exits, 1);
	ck_assert_str_eq(hv_name_exit(HV_EV_KVM_EXIT, t.reasons[0].isa,
				      t.reasons[0].reason), "EXTERNAL_INTERRUPT");
	ck_assert_uint_eq(t.out_of_order, 0);
	free(p);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hostview_track");
	TCase *c = tcase_create("track");

	tcase_add_test(c, intervals_and_steal);
	tcase_add_test(c, open_preemption_at_finish);
	tcase_add_test(c, exits_by_reason);
	tcase_add_test(c, reasons_bounded);
	tcase_add_test(c, top_keeps_longest);
	tcase_add_test(c, loss_makes_unknown);
	tcase_add_test(c, thread_end_and_unmatched);
	tcase_add_test(c, out_of_order_skipped);
	tcase_add_test(c, callback_stops);
	tcase_add_test(c, track_null);
	tcase_add_test(c, records_to_steal);
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
