/* SPDX-License-Identifier: MIT */
/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS): the producer rings a due
 * doorbell only when the consumer does not say it polls; the consumer
 * re-reads the heads after it says it is about to sleep.  Each interleaving
 * of the two sides' steps is played here one after the other, in one
 * thread: the model in abi/model/ checks all of them.
 */
#include <string.h>

#include "fixture.h"

#define REC 64u   /* bytes per record */

/* One ring of 4 KiB, watermark 1 KiB (a doorbell due every 16 records),
 * with the feature offered or not. */
static void ring_init(struct fx_ring *t, int feature, uint32_t aux_pages)
{
	struct rs_region_params p;

	fx_params(&p, 1, aux_pages);
	p.data_watermark = 1024;
	p.features = feature ? RS_FEATURE_EVENT_SUPPRESS : 0;
	fx_ring_init(t, &p, 0);
}

/* @n records, draining as it goes; returns how many commits said "ring". */
static unsigned produce(struct fx_ring *t, uint64_t *seq, unsigned n)
{
	unsigned rung = 0;
	int r;

	for (unsigned i = 0; i < n; i++) {
		r = fx_seq_output(&t->p, (*seq)++, REC - sizeof(struct rs_rec_seq));
		FX_CHECK(r >= 0, "record %u: %d", i, r);
		rung += r == 1;
		if (t->ctrl->data_head - t->ctrl->data_tail > 2048)
			fx_drain_all(t->c, &t->log);
	}
	return rung;
}

static struct rs_ring_state state_of(const struct fx_ring *t)
{
	struct rs_ring_state st;
	struct rs_ring ring;

	ck_assert_int_eq(rs_region_ring(&t->f.region, 0, &ring), 0);
	ck_assert_int_eq(rs_ring_state_read(&ring, &st), 0);
	return st;
}

START_TEST(layout_offers_feature)
{
	struct rs_region_params p;
	struct fx_ring t;
	uint64_t size;

	/* rs_region_params_init offers what the library knows */
	ck_assert_int_eq(rs_region_params_init(&p, 1, 1, 0, RS_MODE_NORMAL,
					       RS_MODE_NORMAL), 0);
	ck_assert_uint_eq(p.features, RS_FEATURES_KNOWN);
	/* a bit no host knows is refused */
	p.features = 1u << 31;
	ck_assert_int_eq(rs_region_size(&p, &size), -rse_invalid);
	ring_init(&t, 1, 0);
	ck_assert_uint_eq(fx_header(&t.f)->config.features,
			  RS_FEATURE_EVENT_SUPPRESS);
	ck_assert_uint_eq(rs_region_config(&t.f.region)->features,
			  RS_FEATURE_EVENT_SUPPRESS);
	/* the layout leaves the word at "ring" */
	ck_assert_uint_eq(t.ctrl->host.consumer, RS_CONSUMER_WAKE);
	ck_assert_uint_eq(offsetof(struct rs_ctrl_page, host) % 128, 0);
	fx_ring_fini(&t);
}
END_TEST

/* Without the feature the word is not read: a producer rings as before,
 * whatever the consumer (or a guest) wrote there. */
START_TEST(feature_off_rings)
{
	struct fx_ring t;
	uint64_t seq = 0;

	ring_init(&t, 0, 0);
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_uint_eq(t.ctrl->host.consumer, RS_CONSUMER_POLLING);
	ck_assert_uint_eq(produce(&t, &seq, 160), 10);
	ck_assert_uint_eq(state_of(&t).doorbells, 10);
	ck_assert_uint_eq(state_of(&t).suppressed, 0);
	fx_ring_fini(&t);
}
END_TEST

/* With it, and a consumer that never published a state: rings. */
START_TEST(feature_on_silent_consumer_rings)
{
	struct fx_ring t;
	uint64_t seq = 0;

	ring_init(&t, 1, 0);
	ck_assert_uint_eq(produce(&t, &seq, 160), 10);
	ck_assert_uint_eq(state_of(&t).suppressed, 0);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(polling_no_doorbell)
{
	struct fx_ring t;
	uint64_t seq = 0;
	struct rs_ring_state st;

	ring_init(&t, 1, 0);
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_uint_eq(produce(&t, &seq, 1600), 0);
	st = state_of(&t);
	ck_assert_uint_eq(st.doorbells, 0);
	ck_assert_uint_eq(st.suppressed, 100);  /* every one was due */
	ck_assert_uint_eq(st.consumer, RS_CONSUMER_POLLING);
	/* nothing else changes: every record is delivered */
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(t.log.n, 1600);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(sleeping_rings)
{
	struct fx_ring t;
	uint64_t seq = 0;

	ring_init(&t, 1, 0);
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_uint_eq(produce(&t, &seq, 32), 0);
	fx_drain_all(t.c, &t.log);
	/* drained: it may sleep, and says so */
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	ck_assert_uint_eq(t.ctrl->host.consumer, RS_CONSUMER_WAKE);
	/* the next due doorbell rings, and so does every one after it while
	 * the consumer sleeps */
	ck_assert_uint_eq(produce(&t, &seq, 48), 3);
	ck_assert_uint_eq(state_of(&t).doorbells, 3);
	ck_assert_uint_eq(state_of(&t).suppressed, 2);
	/* woken: polling again, doorbells skipped again */
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_uint_eq(produce(&t, &seq, 16), 0);
	ck_assert_uint_eq(state_of(&t).suppressed, 3);
	fx_ring_fini(&t);
}
END_TEST

/*
 * The interleaving the re-check is for: the producer published and read
 * "polling" (no doorbell), then the consumer says it is about to sleep.
 * Its re-check sees the head and it must not sleep; once it drained, it
 * may.
 */
START_TEST(recheck_sees_head)
{
	struct fx_ring t;
	uint64_t seq = 0;

	ring_init(&t, 1, 0);
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_uint_eq(produce(&t, &seq, 16), 0);   /* due, suppressed */
	ck_assert_uint_eq(state_of(&t).suppressed, 1);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 1);
	/* it drains instead of sleeping (nothing tells it to say POLLING
	 * first: WAKE only costs doorbells) */
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(t.log.n, 16);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	/* records below the next multiple of the watermark: no doorbell
	 * fell due, so none was skipped, and it may sleep: the one at the
	 * multiple rings */
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_uint_eq(produce(&t, &seq, 15), 0);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	ck_assert_uint_eq(produce(&t, &seq, 1), 1);
	/* polling again, across the multiple: skipped, and the re-check
	 * says so even though the consumer had drained part of it */
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_uint_eq(produce(&t, &seq, 8), 0);
	fx_drain_all(t.c, &t.log);
	ck_assert_uint_eq(produce(&t, &seq, 8), 0);
	ck_assert_uint_eq(state_of(&t).suppressed, 2);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 1);
	fx_drain_all(t.c, &t.log);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	fx_ring_fini(&t);
}
END_TEST

/* A head that is nonsense does not keep the host awake: the drain
 * ignores it, and so does the re-check. */
START_TEST(recheck_hostile_head)
{
	struct fx_ring t;
	uint64_t seq = 0;

	ring_init(&t, 1, 0);
	ck_assert_uint_eq(produce(&t, &seq, 4), 0);
	fx_drain_all(t.c, &t.log);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	t.ctrl->data_head += 2 * t.data_size;          /* too far ahead */
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	t.ctrl->data_head -= 2 * t.data_size + 64;     /* behind the tail */
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	t.ctrl->data_head += 64 + t.data_size;         /* a full ring: real */
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 1);
	fx_ring_fini(&t);
}
END_TEST

/* The AUX watermark's doorbell follows the same rule, and the re-check
 * looks at aux_head too. */
START_TEST(aux_suppressed_and_recheck)
{
	static uint8_t buf[2048];
	struct rs_aux_handle h;
	struct fx_ring t;
	int r;

	ring_init(&t, 1, 1);                 /* AUX watermark: half, 2 KiB */
	ck_assert_int_eq(rs_consumer_awake(t.c), 0);
	ck_assert_int_ge(rs_aux_begin(&t.p, &h, sizeof(buf)), 2048);
	ck_assert_int_eq(rs_aux_write(&t.p, &h, buf, sizeof(buf)), 2048);
	r = rs_aux_end(&t.p, &h, 0);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(state_of(&t).suppressed, 1);
	/* the AUX bytes are pending even after the data ring is drained */
	fx_drain_all(t.c, &t.log);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 1);
	fx_ring_fini(&t);

	ring_init(&t, 1, 1);
	ck_assert_int_eq(rs_consumer_sleep_prepare(t.c), 0);
	ck_assert_int_ge(rs_aux_begin(&t.p, &h, sizeof(buf)), 2048);
	ck_assert_int_eq(rs_aux_write(&t.p, &h, buf, sizeof(buf)), 2048);
	ck_assert_int_eq(rs_aux_end(&t.p, &h, 0), 1);
	ck_assert_uint_eq(state_of(&t).suppressed, 0);
	/* rung: counted like the data area's */
	ck_assert_uint_eq(state_of(&t).doorbells, 1);
	fx_ring_fini(&t);
}
END_TEST

START_TEST(null_args)
{
	ck_assert_int_eq(rs_consumer_sleep_prepare(NULL), -rse_invalid);
	ck_assert_int_eq(rs_consumer_awake(NULL), -rse_invalid);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("suppress");
	TCase *tc = fx_tcase(s, "suppress");

	tcase_add_test(tc, layout_offers_feature);
	tcase_add_test(tc, feature_off_rings);
	tcase_add_test(tc, feature_on_silent_consumer_rings);
	tcase_add_test(tc, polling_no_doorbell);
	tcase_add_test(tc, sleeping_rings);
	tcase_add_test(tc, recheck_sees_head);
	tcase_add_test(tc, recheck_hostile_head);
	tcase_add_test(tc, aux_suppressed_and_recheck);
	tcase_add_test(tc, null_args);
	return fx_run(s);
}
