/* SPDX-License-Identifier: MIT */
/*
 * Nesting under real interrupts: a timer signal handler writes records into
 * the same ring while the main flow is between reserve and commit (as a
 * guest interrupt handler would on a vCPU).  A consumer in another process
 * drains concurrently.  Both streams must arrive in order, intact, and
 * delivered + lost must equal what both produced.
 */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ringside/ring.h"

/* Scaled down under valgrind, which runs the producer ~50x slower. */
static uint32_t main_records(void)
{
	return getenv("RS_UNDER_VALGRIND") ? 20000u : 300000u;
}

struct shared_result {
	uint64_t produced[2];
	uint64_t nested;          /* handler ran inside a main reservation */
	uint64_t delivered[2];
	uint64_t lost;
	uint64_t bad;             /* torn, out of order or foreign records */
	uint64_t corrupt;
	volatile int producer_done;
};

static struct rs_producer producer;
static volatile sig_atomic_t in_reservation;
static struct shared_result *res;
static _Alignas(8) uint8_t handler_buf[256];

static void emit(uint32_t who, uint8_t *buf, uint32_t fill)
{
	int size = rs_seq_build(buf, res->produced[who], 0, who, fill);

	rs_producer_output(&producer, RS_RECORD_SEQ, 0,
			   buf + sizeof(struct rs_perf_header),
			   (uint32_t)size - sizeof(struct rs_perf_header));
	res->produced[who]++;
}

static void on_timer(int sig)
{
	(void)sig;
	if (in_reservation)
		res->nested++;
	emit(1, handler_buf, (uint32_t)(res->produced[1] % 48));
}

/* The main stream writes each record in pieces, so the handler often
 * lands between reserve and commit. */
static void emit_main(uint8_t *buf, uint32_t fill)
{
	int size = rs_seq_build(buf, res->produced[0], 0, 0, fill);
	struct rs_handle h;
	uint32_t half = ((uint32_t)size / 2) & ~7u;

	in_reservation = 1;
	if (rs_producer_reserve(&producer, &h, (uint32_t)size) == 0) {
		rs_producer_write(&producer, &h, buf, half);
		rs_producer_write(&producer, &h, buf + half, (uint32_t)size - half);
		rs_producer_commit(&producer, &h);
	}
	in_reservation = 0;
	res->produced[0]++;
}

struct check_state {
	uint64_t next[2];
};

static int on_record(const struct rs_perf_header *rec, void *arg)
{
	struct check_state *st = arg;
	const struct rs_rec_seq *s = (const struct rs_rec_seq *)rec;

	if (rec->type == RS_PERF_RECORD_LOST) {
		res->lost += ((const struct rs_perf_lost *)rec)->lost;
		return 0;
	}
	if (!rs_seq_check(rec) || s->producer > 1 || s->seq < st->next[s->producer]) {
		res->bad++;
		return 0;
	}
	st->next[s->producer] = s->seq + 1;
	res->delivered[s->producer]++;
	return 0;
}

static void consume(struct rs_region *region)
{
	struct rs_consumer *c = rs_consumer_alloc(region, 0);
	struct check_state st = { { 0, 0 } };
	int quiet = 0;

	if (!c)
		_exit(2);
	while (!res->producer_done || quiet < 3) {
		int n = rs_consumer_drain(c, on_record, &st);

		if (n < 0)
			_exit(3);
		quiet = n ? 0 : quiet + (res->producer_done ? 1 : 0);
		if (!n)
			usleep(50);
	}
	res->corrupt = rs_consumer_stats(c)->corrupt;
	rs_consumer_free(c);
	_exit(0);
}

static void produce(void)
{
	struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	struct itimerspec its = { { 0, 20000 }, { 0, 20000 } };
	uint8_t buf[512] __attribute__((aligned(8)));
	timer_t timer;
	uint32_t i;

	sigaction(SIGALRM, &sa, NULL);
	ck_assert_int_eq(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);
	ck_assert_int_eq(timer_settime(timer, 0, &its, NULL), 0);
	for (i = 0; i < main_records(); i++)
		emit_main(buf, i % 200);
	timer_delete(timer);
	while (rs_producer_flush_lost(&producer) == -rse_no_space)
		usleep(100);
}

START_TEST(producer_nested_signal)
{
	struct rs_region_params p = {
		.size = sizeof(p), .nr_rings = 1, .data_pages = 16,
		.data_mode = RS_MODE_NORMAL,
	};
	struct rs_region region;
	uint64_t size;
	void *mem;
	pid_t pid;
	int status;

	ck_assert_int_eq(rs_region_size(&p, &size), 0);
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_ptr_ne(res, MAP_FAILED);
	ck_assert_int_eq(rs_region_layout(mem, size, &p), 0);
	ck_assert_int_eq(rs_region_open(&region, mem, size), 0);
	ck_assert_int_eq(rs_producer_init(&producer, &region, 0), 0);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		consume(&region);
	produce();
	res->producer_done = 1;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	ck_assert_uint_gt(res->nested, 0);
	ck_assert_uint_eq(res->bad, 0);
	ck_assert_uint_eq(res->corrupt, 0);
	ck_assert_uint_eq(res->delivered[0] + res->delivered[1] + res->lost,
			  res->produced[0] + res->produced[1]);
	ck_assert_uint_eq(res->lost, rs_producer_lost(&producer));
	munmap(mem, size);
	munmap(res, sizeof(*res));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nesting_signal");
	TCase *tc = tcase_create("signal");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, producer_nested_signal);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
