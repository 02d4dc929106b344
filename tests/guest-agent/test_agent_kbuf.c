/* SPDX-License-Identifier: MIT */
/*
 * The Linux agent's reading of the kernel's perf buffers
 * (guest-agent/linux/kbuf.c) over buffers laid out here as the kernel lays
 * them out: every record's time (a sample's own, the sample_id trailer's
 * of the others), the trailer taken off what the rings get, records that
 * wrap the buffer's end copied whole, a pass bounded in bytes, and the
 * CPUs' passes merged by time, so that a FORK on one CPU comes before the
 * child's samples on another, the samples between such records in runs
 * read in place.
 */
#include <check.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "agent_opts.h"

#define DATA 4096u
#define TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	      PERF_SAMPLE_CPU)

static struct kbuf kb[2];

static void buf_new(struct kbuf *k, uint64_t type, uint64_t start)
{
	memset(k, 0, offsetof(struct kbuf, rec));
	k->base = aligned_alloc(RS_PAGE_SIZE, RS_PAGE_SIZE + DATA);
	ck_assert_ptr_nonnull(k->base);
	memset(k->base, 0, RS_PAGE_SIZE + DATA);
	k->data_size = DATA;
	k->sample_type = type;
	k->tail = start;
	((struct perf_event_mmap_page *)k->base)->data_head = start;
	((struct perf_event_mmap_page *)k->base)->data_tail = start;
}

static void buf_free(struct kbuf *k)
{
	free(k->base);
	k->base = NULL;
}

/* @len bytes of @rec at the buffer's head, wrapping; the head moved. */
static void put(struct kbuf *k, const void *rec, size_t len)
{
	struct perf_event_mmap_page *pg = k->base;
	uint8_t *data = (uint8_t *)k->base + RS_PAGE_SIZE;
	size_t i;

	for (i = 0; i < len; i++)
		data[(pg->data_head + i) & (DATA - 1)] = ((const uint8_t *)rec)[i];
	pg->data_head += len;
}

/* A sample of @pid at @time (TYPE's layout). */
static void sample(struct kbuf *k, uint32_t pid, uint64_t time)
{
	struct {
		struct rs_perf_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
	} r = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) },
		0x401000, pid, pid, time, 0, 0 };

	put(k, &r, sizeof(r));
}

/* A FORK of @pid with the trailer of TYPE: TID, TIME (@time), CPU. */
static void fork_rec(struct kbuf *k, uint32_t pid, uint64_t time)
{
	struct {
		struct rs_perf_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		uint32_t tpid, ttid;
		uint64_t ttime;
		uint32_t cpu, res;
	} r = { { PERF_RECORD_FORK, 0, sizeof(r) }, pid, 1, pid, 1, time,
		1, 1, time, 0, 0 };

	put(k, &r, sizeof(r));
}

/* A COMM of @pid named @name, with the trailer of TYPE at @time. */
static void comm_rec(struct kbuf *k, uint32_t pid, const char *name,
		     uint64_t time)
{
	struct {
		struct rs_perf_header h;
		uint32_t pid, tid;
		char comm[8];
		uint32_t tpid, ttid;
		uint64_t ttime;
		uint32_t cpu, res;
	} r;

	memset(&r, 0, sizeof(r));
	r.h = (struct rs_perf_header){ PERF_RECORD_COMM, 0, sizeof(r) };
	r.pid = r.tid = r.tpid = r.ttid = pid;
	strncpy(r.comm, name, sizeof(r.comm) - 1);
	r.ttime = time;
	put(k, &r, sizeof(r));
}

START_TEST(times_and_trailers)
{
	const struct rs_perf_header *rec;
	uint64_t time;

	buf_new(&kb[0], TYPE, 0);
	sample(&kb[0], 5, 100);
	comm_rec(&kb[0], 5, "gzip", 200);
	agent_kbuf_begin(&kb[0], DATA);
	rec = agent_kbuf_peek(&kb[0], &time);
	ck_assert_ptr_nonnull(rec);
	ck_assert_uint_eq(rec->type, PERF_RECORD_SAMPLE);
	ck_assert_uint_eq(rec->size, 40);         /* a sample keeps it all */
	ck_assert_uint_eq(time, 100);
	/* peeked again: the same, not copied twice */
	ck_assert_ptr_eq(agent_kbuf_peek(&kb[0], &time), rec);
	agent_kbuf_next(&kb[0]);
	rec = agent_kbuf_peek(&kb[0], &time);
	ck_assert_uint_eq(rec->type, PERF_RECORD_COMM);
	ck_assert_uint_eq(rec->size, 8 + 8 + 8);  /* the trailer is off */
	ck_assert_str_eq((const char *)(rec + 1) + 8, "gzip");
	ck_assert_uint_eq(time, 200);
	agent_kbuf_next(&kb[0]);
	ck_assert_ptr_null(agent_kbuf_peek(&kb[0], &time));
	agent_kbuf_end(&kb[0]);
	ck_assert_uint_eq(((struct perf_event_mmap_page *)kb[0].base)->data_tail,
			  40 + 48);
	buf_free(&kb[0]);

	/* events without a time: none, the trailer off all the same */
	buf_new(&kb[0], PERF_SAMPLE_TID, 0);
	{
		struct {
			struct rs_perf_header h;
			uint32_t pid, tid;
			char comm[8];
			uint32_t tpid, ttid;
		} r = { { PERF_RECORD_COMM, 0, sizeof(r) }, 7, 7, "sh", 7, 7 };

		put(&kb[0], &r, sizeof(r));
	}
	agent_kbuf_begin(&kb[0], DATA);
	rec = agent_kbuf_peek(&kb[0], &time);
	ck_assert_uint_eq(rec->size, 24);
	ck_assert_uint_eq(time, 0);
	agent_kbuf_end(&kb[0]);
	buf_free(&kb[0]);
}
END_TEST

/* A record across the buffer's end, and a pass bounded in bytes: what is
 * left waits for the next pass. */
START_TEST(wrap_and_bound)
{
	const struct rs_perf_header *rec;
	uint64_t time;
	int n = 0;

	buf_new(&kb[0], TYPE, DATA - 16);          /* the first one wraps */
	sample(&kb[0], 5, 100);
	sample(&kb[0], 6, 101);
	sample(&kb[0], 7, 102);
	agent_kbuf_begin(&kb[0], 80);                    /* two of them */
	while ((rec = agent_kbuf_peek(&kb[0], &time)) != NULL) {
		uint32_t pid;

		memcpy(&pid, (const uint8_t *)(rec + 1) + 8, 4);
		ck_assert_uint_eq(pid, 5u + (uint32_t)n);
		ck_assert_uint_eq(time, 100u + (uint64_t)n);
		agent_kbuf_next(&kb[0]);
		n++;
	}
	agent_kbuf_end(&kb[0]);
	ck_assert_int_eq(n, 2);
	agent_kbuf_begin(&kb[0], 80);
	ck_assert_ptr_nonnull(agent_kbuf_peek(&kb[0], &time));
	ck_assert_uint_eq(time, 102);
	agent_kbuf_end(&kb[0]);
	buf_free(&kb[0]);
}
END_TEST

static struct { uint32_t cpu; uint32_t type; uint64_t time; } seen_recs[64];
static unsigned nr_seen, nr_runs, nr_thr_seen;

static void take(const struct rs_perf_header *rec, uint32_t cpu, void *arg)
{
	struct kbuf *const *k = arg;

	ck_assert_uint_lt(nr_seen, 64);
	seen_recs[nr_seen].cpu = cpu;
	seen_recs[nr_seen].type = rec->type;
	seen_recs[nr_seen].time = k[cpu]->time;
	nr_seen++;
}

/* A run: whole samples one after the other in @cpu's buffer, in place,
 * and its threads: the first sample's, then one at each change. */
static void take_run(const uint8_t *recs, uint32_t len, uint32_t nr,
		     const struct kbuf_thread *thr, uint32_t nr_thr,
		     uint32_t cpu, void *arg)
{
	struct kbuf *const *k = arg;
	const uint8_t *data = (const uint8_t *)k[cpu]->base + RS_PAGE_SIZE;
	uint32_t off = 0, n = 0, j = 0, v[2];

	ck_assert(recs >= data && recs + len <= data + k[cpu]->data_size);
	nr_runs++;
	while (off < len) {
		const struct rs_perf_header *h = (const void *)(recs + off);
		uint64_t t;

		ck_assert_uint_eq(h->type, PERF_RECORD_SAMPLE);
		ck_assert_uint_le(off + h->size, len);
		memcpy(&t, recs + off + 24, 8);      /* TYPE: ip, tid, time */
		memcpy(v, recs + off + 16, 8);
		if (!off || v[0] != thr[j - 1].pid || v[1] != thr[j - 1].tid) {
			ck_assert_uint_lt(j, nr_thr);
			ck_assert_uint_eq(thr[j].pid, v[0]);
			ck_assert_uint_eq(thr[j].tid, v[1]);
			j++;
		}
		ck_assert_uint_lt(nr_seen, 64);
		seen_recs[nr_seen].cpu = cpu;
		seen_recs[nr_seen].type = h->type;
		seen_recs[nr_seen].time = t;
		nr_seen++;
		off += h->size;
		n++;
	}
	ck_assert_uint_eq(n, nr);
	ck_assert_uint_eq(j, nr_thr);
	nr_thr_seen += nr_thr;
}

static const struct kbuf_sink sink = { take, take_run };

/* Two CPUs: the parent forks on CPU 1 at 20, the child runs on CPU 0
 * from 30.  Read CPU by CPU, the child's samples would come before its
 * FORK; merged, the FORK after every older sample and before every newer
 * one, on both CPUs (ties: the lower CPU's sample first). */
START_TEST(merged_by_time)
{
	struct kbuf *k[3] = { &kb[0], NULL, &kb[1] };
	static const struct { uint32_t cpu, type; uint64_t time; } want[] = {
		{ 0, PERF_RECORD_SAMPLE, 10 },
		{ 0, PERF_RECORD_SAMPLE, 20 },
		{ 2, PERF_RECORD_SAMPLE, 10 },
		{ 2, PERF_RECORD_FORK, 20 },
		{ 0, PERF_RECORD_COMM, 30 },
		{ 0, PERF_RECORD_SAMPLE, 40 },
		{ 2, PERF_RECORD_SAMPLE, 50 },
	};
	unsigned i;

	buf_new(&kb[0], TYPE, 0);
	buf_new(&kb[1], TYPE, 128);
	sample(&kb[0], 1, 10);
	sample(&kb[0], 1, 20);
	comm_rec(&kb[0], 9, "awk", 30);
	sample(&kb[0], 9, 40);
	sample(&kb[1], 1, 10);
	fork_rec(&kb[1], 9, 20);
	sample(&kb[1], 1, 50);
	nr_seen = 0;
	ck_assert_int_eq(agent_kbuf_drain_runs(k, 3, &sink, k), 2);
	ck_assert_uint_eq(nr_seen, 7);
	for (i = 0; i < 7; i++) {
		ck_assert_uint_eq(seen_recs[i].cpu, want[i].cpu);
		ck_assert_uint_eq(seen_recs[i].type, want[i].type);
		ck_assert_uint_eq(seen_recs[i].time, want[i].time);
	}
	/* both tails given back */
	ck_assert_uint_eq(((struct perf_event_mmap_page *)kb[0].base)->data_tail,
			  ((struct perf_event_mmap_page *)kb[0].base)->data_head);
	ck_assert_uint_eq(((struct perf_event_mmap_page *)kb[1].base)->data_tail,
			  ((struct perf_event_mmap_page *)kb[1].base)->data_head);
	/* nothing new: nothing */
	nr_seen = 0;
	ck_assert_int_eq(agent_kbuf_drain_runs(k, 3, &sink, k), 0);
	ck_assert_uint_eq(nr_seen, 0);
	buf_free(&kb[0]);
	buf_free(&kb[1]);
}
END_TEST

/* @n samples of times 100.. from @start: a pass gives @records of them
 * one by one and the rest in @runs runs, every one in time order. */
static void run_case(uint64_t start, unsigned n, int records, unsigned runs)
{
	struct kbuf *k[1] = { &kb[0] };
	unsigned i;

	buf_new(&kb[0], TYPE, start);
	for (i = 0; i < n; i++)
		sample(&kb[0], 5 + i, 100 + i);
	nr_seen = nr_runs = nr_thr_seen = 0;
	ck_assert_int_eq(agent_kbuf_drain_runs(k, 1, &sink, k), records);
	ck_assert_uint_eq(nr_seen, n);
	ck_assert_uint_eq(nr_runs, runs);
	/* a thread each sample in a run (and a copied one is not in one) */
	ck_assert_uint_eq(nr_thr_seen, n - (unsigned)records);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(seen_recs[i].time, 100 + i);
	buf_free(&kb[0]);
}

/* The default buffers: perf record's 128 pages a CPU while the CPUs'
 * buffers fit 64 MiB, then halved to fit, never below 16 pages. */
START_TEST(buffer_pages_budget)
{
	static const uint32_t cpus[] = { 1, 2, 64, 128, 129, 256, 512, 1024, 4096 };
	static const uint32_t want[] = { 128, 128, 128, 128, 64, 64, 32, 16, 16 };

	for (unsigned i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		uint32_t p = agent_opts_buffer_pages(cpus[i]);

		ck_assert_uint_eq(p, want[i]);
		ck_assert(p == 16 || (uint64_t)cpus[i] * p * RS_PAGE_SIZE <=
			  AGENT_BUFFERS_BYTES);
	}
}
END_TEST

/* Samples with nothing between them are one run, cut where the buffer
 * ends (a run lies in one piece); a sample across the end comes alone,
 * copied whole, in its place. */
START_TEST(runs_at_the_end)
{
	run_case(DATA - 3 * 40, 6, 0, 2);        /* 40-byte samples */
	run_case(DATA - 16, 3, 1, 1);             /* the first one wraps */
}
END_TEST

/* A CPU's samples cut by another CPU's FORK, then taken to the buffer's
 * end and past it: three runs, each of whole samples in time order, every
 * count right, the FORK between the samples older and newer than it. */
START_TEST(runs_cut_then_wrapped)
{
	struct kbuf *k[2] = { &kb[0], &kb[1] };
	static const uint64_t want[] = { 10, 20, 25, 30, 40, 50, 60 };
	unsigned i;

	buf_new(&kb[0], TYPE, DATA - 3 * 40);
	buf_new(&kb[1], TYPE, 0);
	for (i = 0; i < 6; i++)
		sample(&kb[0], 5, 10 * (i + 1));
	fork_rec(&kb[1], 9, 25);
	nr_seen = nr_runs = nr_thr_seen = 0;
	ck_assert_int_eq(agent_kbuf_drain_runs(k, 2, &sink, k), 1);
	ck_assert_uint_eq(nr_seen, 7);
	ck_assert_uint_eq(nr_runs, 3);
	ck_assert_uint_eq(nr_thr_seen, 3);    /* one thread, each run told */
	for (i = 0; i < 7; i++)
		ck_assert_uint_eq(seen_recs[i].time, want[i]);
	ck_assert_uint_eq(seen_recs[2].type, PERF_RECORD_FORK);
	ck_assert_uint_eq(kb[0].tail, DATA - 3 * 40 + 6 * 40);
	buf_free(&kb[0]);
	buf_free(&kb[1]);
}
END_TEST

/* The threads of each run, as the first walk found them: a run cut by
 * another CPU's FORK has its first sample's and the change inside it; the
 * run after the FORK starts with the thread sampled last before it, and
 * has the change back. */
START_TEST(runs_threads)
{
	struct kbuf *k[2] = { &kb[0], &kb[1] };
	static const uint32_t pids[] = { 7, 7, 8, 8, 7 };
	unsigned i;

	buf_new(&kb[0], TYPE, 0);
	buf_new(&kb[1], TYPE, 0);
	for (i = 0; i < 5; i++)
		sample(&kb[0], pids[i], 10 * (i + 1));
	fork_rec(&kb[1], 9, 35);
	nr_seen = nr_runs = nr_thr_seen = 0;
	ck_assert_int_eq(agent_kbuf_drain_runs(k, 2, &sink, k), 1);
	ck_assert_uint_eq(nr_seen, 6);
	ck_assert_uint_eq(nr_runs, 2);
	ck_assert_uint_eq(seen_recs[3].type, PERF_RECORD_FORK);
	ck_assert_uint_eq(nr_thr_seen, 4);    /* { 7, 8 }, then { 8, 7 } */
	buf_free(&kb[0]);
	buf_free(&kb[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent_kbuf");
	TCase *tc = tcase_create("kbuf");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, times_and_trailers);
	tcase_add_test(tc, wrap_and_bound);
	tcase_add_test(tc, merged_by_time);
	tcase_add_test(tc, runs_at_the_end);
	tcase_add_test(tc, runs_cut_then_wrapped);
	tcase_add_test(tc, runs_threads);
	tcase_add_test(tc, buffer_pages_budget);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
