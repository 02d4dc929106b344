/* SPDX-License-Identifier: MIT */
/*
 * The Linux agent's rings (guest-agent/linux/agent_ring.c): a normal ring
 * full of records its consumer has not taken waits for room while the
 * consumer drains (its tail moved lately), publishing first what it held
 * back; it drops at once when nobody drains, and stops waiting for a
 * consumer that made no room in the time it was given.  Every record is
 * written or counted dropped.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

#define BODY 200u   /* a sample's size with a short call chain */

static void *mem;
static struct rs_region region;
static struct agent_ring r;

/* One normal ring of one page, its agent_ring as the agent sets it up. */
static void setup(void)
{
	struct rs_region_params params;
	uint64_t size;

	ck_assert_int_eq(rs_region_params_init(&params, 1, 1, 0, RS_MODE_NORMAL,
					       RS_MODE_NORMAL), 0);
	ck_assert_int_eq(rs_region_size(&params, &size), 0);
	mem = aligned_alloc(RS_PAGE_SIZE, size);
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(rs_region_layout(mem, size, &params), 0);
	ck_assert_int_eq(rs_region_enable(mem), 0);
	ck_assert_int_eq(rs_region_open(&region, mem, size), 0);
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(rs_producer_init(&r.prod, &region, 0), 0);
	agent_ring_batch(&r, &region);
	r.wait_max_ms = AGENT_RING_WAIT_MS;
}

static void teardown(void)
{
	free(mem);
}

/* The host's consumer: everything published taken. */
static void host_takes_all(void)
{
	struct rs_ctrl_page *c = r.prod.ring.ctrl;

	__atomic_store_n(&c->data_tail, __atomic_load_n(&c->data_head,
							__ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/* Records into @r until the room for the next one is what the agent
 * asks before it writes (a LOST record's and a batch slot's beside it);
 * how many. */
static uint32_t fill(void)
{
	static const uint8_t body[BODY];
	const uint64_t need = sizeof(struct rs_perf_header) + BODY + 7u +
			      sizeof(struct rs_perf_lost) + sizeof(uint64_t);
	uint32_t n = 0;

	while (r.prod.head - r.prod.ring.ctrl->data_tail + need <=
	       r.prod.ring.data_size) {
		ck_assert_int_eq(agent_ring_put(&r, RS_PERF_RECORD_SAMPLE, 0, body,
						BODY), 0);
		n++;
	}
	return n;
}

/* A pass that wrote, the host drained it, the agent looked: a consumer
 * that drains. */
static void consumer_seen_draining(void)
{
	fill();
	agent_ring_publish(&r);
	host_takes_all();
	agent_ring_publish(&r);
	ck_assert_uint_ne(r.tail_seen, 0);
}

static void *one_more(void *arg)
{
	static const uint8_t body[BODY];

	(void)arg;
	return (void *)(intptr_t)agent_ring_put(&r, RS_PERF_RECORD_SAMPLE, 0,
						 body, BODY);
}

/* The ring full while its consumer drains: the record waits until the
 * consumer took what was published, and goes in; nothing dropped.  The
 * consumer takes only once the agent waits, however long that takes. */
START_TEST(waits_for_a_draining_consumer)
{
	pthread_t t;
	void *ret;

	r.wait_max_ms = UINT32_MAX;   /* no timing: the test decides */
	consumer_seen_draining();
	fill();
	ck_assert_int_eq(pthread_create(&t, NULL, one_more, NULL), 0);
	while (!__atomic_load_n(&r.waits, __ATOMIC_ACQUIRE))
		sched_yield();
	/* it published what it held back before it waited */
	ck_assert_uint_eq(__atomic_load_n(&r.prod.ring.ctrl->data_head,
					  __ATOMIC_ACQUIRE), r.prod.head);
	host_takes_all();
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_int_eq((int)(intptr_t)ret, 0);
	ck_assert_uint_eq(r.waits, 1);
	ck_assert_uint_eq(r.wait_fails, 0);
	ck_assert_uint_eq(r.dropped, 0);
	ck_assert_uint_eq(rs_producer_lost(&r.prod), 0);
}
END_TEST

/* Nobody ever drained it: the record is dropped at once, counted. */
START_TEST(drops_without_a_consumer)
{
	static const uint8_t body[BODY];
	uint32_t n = fill();

	agent_ring_publish(&r);
	ck_assert_uint_gt(n, 0);
	while (agent_ring_put(&r, RS_PERF_RECORD_SAMPLE, 0, body, BODY) == 0)
		n++;
	ck_assert_uint_eq(r.waits, 0);
	ck_assert_uint_eq(r.dropped, 1);
	ck_assert_uint_eq(r.written, n);
}
END_TEST

/* A consumer that drained, then stopped: one wait, as long as it was
 * given, then the record is dropped, and no more waits until its tail
 * moves again; then it is waited for again. */
START_TEST(gives_up_on_a_stopped_consumer)
{
	static const uint8_t body[BODY];
	uint64_t written;

	r.wait_max_ms = 3;
	consumer_seen_draining();
	fill();
	written = r.written;
	while (agent_ring_put(&r, RS_PERF_RECORD_SAMPLE, 0, body, BODY) == 0)
		;
	ck_assert_uint_eq(r.waits, 1);
	ck_assert_uint_eq(r.wait_fails, 1);
	ck_assert_uint_ge(r.waited_ms, 3);
	ck_assert_uint_eq(r.dropped, 1);
	ck_assert_int_ne(agent_ring_put(&r, RS_PERF_RECORD_SAMPLE, 0, body, BODY), 0);
	ck_assert_uint_eq(r.waits, 1);
	ck_assert_uint_eq(r.dropped, 2);
	ck_assert_uint_ge(r.written + 0, written);
	/* it drains again: seen at the next pass's look */
	host_takes_all();
	agent_ring_publish(&r);
	fill();
	ck_assert_int_ne(agent_ring_put(&r, RS_PERF_RECORD_SAMPLE, 0, body, BODY), 0);
	ck_assert_uint_eq(r.waits, 2);
	ck_assert_uint_eq(r.wait_fails, 2);
}
END_TEST

/* An overwrite ring never waits: it keeps the newest. */
START_TEST(overwrite_never_waits)
{
	static const uint8_t body[BODY];

	r.prod.ring.data_mode = RS_MODE_OVERWRITE;
	r.tail_seen = 1;
	r.looks = r.tail_look = 1;
	ck_assert_uint_eq(r.waits, 0);
	for (int i = 0; i < 100; i++)
		(void)agent_ring_put(&r, RS_PERF_RECORD_SAMPLE, 0, body, BODY);
	ck_assert_uint_eq(r.waits, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent_ring");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, waits_for_a_draining_consumer);
	tcase_add_test(tc, drops_without_a_consumer);
	tcase_add_test(tc, gives_up_on_a_stopped_consumer);
	tcase_add_test(tc, overwrite_never_waits);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
