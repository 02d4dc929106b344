/* SPDX-License-Identifier: MIT */
/*
 * ring-bench: what the ring costs, next to what this machine can copy.
 *
 * One JSON object per line.  Every ring figure comes with plain memcpy
 * moving the same bytes in the same shape (record-sized copies, same total),
 * because absolute numbers on a small shared VM mean little; the ratio is
 * what carries across machines.  docs/benchmarks.md explains each line.
 *
 *   env             the machine and the parameters
 *   memcpy_bulk     one big memcpy, in and out of cache: the physical limits
 *   producer        rs_producer_output while a consumer in another process,
 *                   on the other CPU, drains: in a busy loop ("busy_poll"),
 *                   or woken by the watermark doorbell ("doorbell")
 *   batching        synchronization per record during that run
 *   producer_local  the same calls with no concurrent consumer
 *   producer_timed, producer_local_timed
 *                   the producer lines (busy_poll and doorbell consumer,
 *                   and alone) with each record stamped by a clock read
 *                   as the guest agents read it: "clock" tsc or mono
 *   drain_local     rs_consumer_drain of a full ring this process filled
 *   drain_xproc     ... of a full ring a process on the other CPU filled
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t record_sizes[] = { 32, 64, 256 };

static int failures;

static double mb_per_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0.0;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_prod(const void *a, const void *b)
{
	return cmp_u64(&((const struct prod_result *)a)->ns,
		       &((const struct prod_result *)b)->ns);
}

static int cmp_timing(const void *a, const void *b)
{
	return cmp_u64(&((const struct timing *)a)->ns,
		       &((const struct timing *)b)->ns);
}

/* The 1-minute load average: other work on a 2-CPU machine skews
 * everything here, so the output says how busy it was. */
static double loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double v = -1.0;

	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = -1.0;
		fclose(f);
	}
	return v;
}

static void fail(const char *what, uint32_t size, int rc)
{
	failures++;
	printf("{\"bench\":\"error\",\"what\":\"%s\",\"record_size\":%u,"
	       "\"rc\":%d}\n", what, size, rc);
}

/* Run @fn @reps times into @t[] and leave the median in t[reps / 2]. */
typedef int (*timed_fn)(const struct bench_cfg *cfg, void *arg,
			struct timing *t);

static int median_of(const struct bench_cfg *cfg, timed_fn fn, void *arg,
		     struct timing *t)
{
	int i, rc;

	for (i = 0; i < cfg->reps; i++) {
		rc = fn(cfg, arg, &t[i]);
		if (rc < 0)
			return rc;
	}
	qsort(t, (size_t)cfg->reps, sizeof(*t), cmp_timing);
	return 0;
}

struct run_arg {
	struct host_region *hr;
	const struct rs_region_params *params;
	struct xshared *x;
	uint32_t size;
	int xproc;
};

static int timed_anchor_produce(const struct bench_cfg *cfg, void *arg,
				struct timing *t)
{
	const struct run_arg *a = arg;

	return anchor_produce(cfg->data_size, a->size, cfg->records, t);
}

static int timed_anchor_xcore(const struct bench_cfg *cfg, void *arg,
			      struct timing *t)
{
	const struct run_arg *a = arg;

	return anchor_xcore(cfg, a->size, t);
}

static int timed_producer_local(const struct bench_cfg *cfg, void *arg,
				struct timing *t)
{
	const struct run_arg *a = arg;

	return run_producer_local(cfg, a->hr, a->params, a->size, t);
}

static int timed_drain(const struct bench_cfg *cfg, void *arg, struct timing *t)
{
	const struct run_arg *a = arg;

	return run_drain(cfg, a->hr, a->params, a->size, a->xproc, a->x, t);
}

static int timed_anchor_drain(const struct bench_cfg *cfg, void *arg,
			      struct timing *t)
{
	const struct run_arg *a = arg;
	uint64_t fit = cfg->data_size / a->size;

	return anchor_drain(cfg, a->size,
			    (uint32_t)((cfg->records + fit - 1) / fit),
			    a->xproc, a->x, t);
}

/* Every attempted record was delivered or counted lost, exactly once. */
static int prod_ok(const struct prod_result *r, uint64_t *missing)
{
	const struct cons_result *c = &r->cons;

	/* Missing: gaps between delivered records plus the dropped tail. */
	*missing = c->seq_gaps + (r->records - c->seq_next);
	return c->delivered + c->lost == r->records && c->lost == r->dropped &&
	       *missing == c->lost && !c->seq_bad && !c->corrupt;
}

static void bench_producer(const struct bench_cfg *cfg, struct run_arg *a,
			   enum cons_wait wait, const struct timing *anchor)
{
	const char *how = wait == CONS_DOORBELL ? "doorbell" :
			  wait == CONS_ADAPTIVE ? "adaptive" : "busy_poll";
	const char *clk = bench_clock_name(cfg->clock);
	struct prod_result res[16], tmp, *m;
	const struct cons_result *c;
	double mbs, anchor_mbs;
	uint64_t missing;
	int i, rc, ok = 1, clean, n;

	for (i = 0; i < cfg->reps; i++) {
		rc = run_producer(cfg, a->hr, a->params, a->size, wait, a->x,
				  &res[i]);
		if (rc < 0) {
			fail("producer", a->size, rc);
			return;
		}
		ok &= prod_ok(&res[i], &missing);
	}
	if (!ok)
		failures++;
	/* A repetition that lost records mostly measures a consumer that
	 * was off its CPU, and a drop is cheaper than a record.  Report the
	 * median of the clean ones (nothing lost) when there are any. */
	qsort(res, (size_t)cfg->reps, sizeof(res[0]), cmp_prod);
	for (i = 0, clean = 0; i < cfg->reps; i++) {
		if (!res[i].cons.lost) {
			tmp = res[clean];
			res[clean++] = res[i];
			res[i] = tmp;
		}
	}
	n = clean ? clean : cfg->reps;
	qsort(res, (size_t)n, sizeof(res[0]), cmp_prod);
	m = &res[n / 2];
	c = &m->cons;
	mbs = mb_per_s(m->records * a->size, m->ns);
	anchor_mbs = mb_per_s(anchor->bytes, anchor->ns);
	prod_ok(m, &missing);
	printf("{\"bench\":\"producer%s\",%s%s%s\"consumer\":\"%s\","
	       "\"record_size\":%u,"
	       "\"records\":%llu,\"reps\":%d,\"clean_reps\":%d,"
	       "\"ns_per_record\":%.2f,\"ns_per_record_min\":%.2f,"
	       "\"ns_per_record_max\":%.2f,\"records_per_s\":%.0f,"
	       "\"mb_per_s\":%.0f,\"memcpy_mb_per_s\":%.0f,"
	       "\"ratio_to_memcpy\":%.3f,\"delivered\":%llu,\"lost\":%llu,"
	       "\"lost_records\":%llu,\"dropped\":%llu,\"seq_missing\":%llu,"
	       "\"doorbells\":%llu,\"corrupt\":%llu,"
	       "\"consumer_mb_per_s\":%.0f,\"producer_preempted\":%llu,"
	       "\"consumer_preempted\":%llu,\"check\":\"%s\"}\n",
	       clk ? "_timed" : "", clk ? "\"clock\":\"" : "", clk ? clk : "",
	       clk ? "\"," : "",
	       how, a->size, (unsigned long long)m->records, cfg->reps, clean,
	       (double)m->ns / (double)m->records,
	       (double)res[0].ns / (double)res[0].records,
	       (double)res[n - 1].ns / (double)res[n - 1].records,
	       (double)m->records * 1e9 / (double)m->ns, mbs, anchor_mbs,
	       ratio(mbs, anchor_mbs), (unsigned long long)c->delivered,
	       (unsigned long long)c->lost, (unsigned long long)c->lost_records,
	       (unsigned long long)m->dropped, (unsigned long long)missing,
	       (unsigned long long)m->doorbells,
	       (unsigned long long)c->corrupt, mb_per_s(c->bytes, c->ns),
	       (unsigned long long)m->preempted,
	       (unsigned long long)c->preempted, ok ? "ok" : "FAIL");

	/* The timed lines are about the producer's cost alone. */
	if (clk)
		return;
	/* Each drain reads data_head once; each non-empty one publishes
	 * data_tail once.  How often the producer re-read data_tail is in
	 * its private state, which the API does not expose: null. */
	printf("{\"bench\":\"batching\",\"consumer\":\"%s\",\"record_size\":%u,"
	       "\"records\":%llu,\"wakeups\":%llu,\"drain_calls\":%llu,"
	       "\"empty_drains\":%llu,\"batches\":%llu,"
	       "\"records_per_batch\":%.1f,\"head_reads_per_record\":%.4f,"
	       "\"tail_publications_per_record\":%.4f,"
	       "\"doorbells_per_record\":%.6f,"
	       "\"doorbells_rung\":%llu,\"doorbells_suppressed\":%llu,"
	       "\"doorbells_due\":%llu,\"doorbells_per_million\":%.2f,"
	       "\"due_per_million\":%.2f,"
	       "\"ns_per_doorbell\":%.0f,\"doorbell_ns_per_record\":%.2f,"
	       "\"producer_tail_reads_per_record\":null}\n",
	       how, a->size, (unsigned long long)c->delivered,
	       (unsigned long long)c->wakeups,
	       (unsigned long long)c->drain_calls,
	       (unsigned long long)c->empty_drains,
	       (unsigned long long)c->batches,
	       ratio((double)(c->delivered + c->lost_records), (double)c->batches),
	       ratio((double)c->drain_calls, (double)c->delivered),
	       ratio((double)c->batches, (double)c->delivered),
	       ratio((double)m->doorbells, (double)m->records),
	       (unsigned long long)m->rung,
	       (unsigned long long)m->suppressed,
	       (unsigned long long)(m->doorbells + m->suppressed),
	       1e6 * ratio((double)m->doorbells, (double)m->records),
	       1e6 * ratio((double)(m->doorbells + m->suppressed),
			   (double)m->records),
	       ratio((double)m->doorbell_ns, (double)m->rung),
	       ratio((double)m->doorbell_ns, (double)m->records));
}

static void print_timed(const char *bench, const struct bench_cfg *cfg,
			uint32_t size, const struct timing *t,
			const struct timing *anchor)
{
	const struct timing *m = &t[cfg->reps / 2];
	const char *clk = bench_clock_name(cfg->clock);
	uint64_t records = m->bytes / size;
	double mbs = mb_per_s(m->bytes, m->ns);
	double anchor_mbs = mb_per_s(anchor->bytes, anchor->ns);

	printf("{\"bench\":\"%s\",%s%s%s\"record_size\":%u,\"records\":%llu,"
	       "\"reps\":%d,\"ns_per_record\":%.2f,\"ns_per_record_min\":%.2f,"
	       "\"ns_per_record_max\":%.2f,\"records_per_s\":%.0f,"
	       "\"mb_per_s\":%.0f,\"gb_per_s\":%.2f,\"memcpy_mb_per_s\":%.0f,"
	       "\"ratio_to_memcpy\":%.3f}\n",
	       bench, clk ? "\"clock\":\"" : "", clk ? clk : "",
	       clk ? "\"," : "", size, (unsigned long long)records, cfg->reps,
	       (double)m->ns / (double)records,
	       (double)t[0].ns / (double)records,
	       (double)t[cfg->reps - 1].ns / (double)records,
	       (double)records * 1e9 / (double)m->ns, mbs, mbs / 1e3,
	       anchor_mbs, ratio(mbs, anchor_mbs));
}

/*
 * Equal records: the producer lines again, each record stamped with a
 * clock read as the guest agents read it (bench.h, enum bench_clock), as
 * every other tracer's event is.
 */
static void bench_timed(const struct bench_cfg *cfg, struct run_arg *a,
			const struct timing *anchor)
{
	struct timing ring[16];
	struct bench_cfg tc;
	int clock, rc;

	for (clock = BENCH_CLOCK_TSC; clock <= BENCH_CLOCK_MONO; clock++) {
		if (!bench_clock_have(clock))
			continue;
		tc = *cfg;
		tc.clock = clock;
		bench_producer(&tc, a, CONS_BUSY_POLL, anchor);
		bench_producer(&tc, a, CONS_DOORBELL, anchor);
		rc = median_of(&tc, timed_producer_local, a, ring);
		if (rc < 0)
			fail("producer_local_timed", a->size, rc);
		else
			print_timed("producer_local_timed", &tc, a->size, ring,
				    anchor);
	}
}

static void bench_size(const struct bench_cfg *cfg, struct run_arg *a)
{
	struct timing ring[16], anchor[16], produce;
	int rc;

	rc = median_of(cfg, timed_anchor_produce, a, anchor);
	if (rc < 0) {
		fail("memcpy_produce", a->size, rc);
		return;
	}
	produce = anchor[cfg->reps / 2];
	bench_producer(cfg, a, CONS_BUSY_POLL, &anchor[cfg->reps / 2]);
	bench_producer(cfg, a, CONS_DOORBELL, &anchor[cfg->reps / 2]);
	bench_producer(cfg, a, CONS_ADAPTIVE, &anchor[cfg->reps / 2]);
	if (cfg->cons_cpu >= 0) {
		rc = median_of(cfg, timed_anchor_xcore, a, ring);
		if (rc < 0)
			fail("xcore_copy", a->size, rc);
		else
			print_timed("xcore_copy", cfg, a->size, ring,
				    &anchor[cfg->reps / 2]);
	}

	rc = median_of(cfg, timed_producer_local, a, ring);
	if (rc < 0) {
		fail("producer_local", a->size, rc);
		return;
	}
	print_timed("producer_local", cfg, a->size, ring, &anchor[cfg->reps / 2]);
	bench_timed(cfg, a, &produce);

	for (a->xproc = 0; a->xproc <= 1; a->xproc++) {
		const char *name = a->xproc ? "drain_xproc" : "drain_local";

		rc = median_of(cfg, timed_anchor_drain, a, anchor);
		if (rc >= 0)
			rc = median_of(cfg, timed_drain, a, ring);
		if (rc < 0) {
			fail(name, a->size, rc);
			return;
		}
		print_timed(name, cfg, a->size, ring, &anchor[cfg->reps / 2]);
	}
}

static void bench_bulk(const char *what, uint64_t bytes, uint32_t loops)
{
	struct timing t;
	int rc = anchor_bulk(bytes, loops, &t);

	if (rc < 0) {
		fail(what, 0, rc);
		return;
	}
	printf("{\"bench\":\"memcpy_bulk\",\"what\":\"%s\",\"bytes\":%llu,"
	       "\"loops\":%u,\"mb_per_s\":%.0f,\"gb_per_s\":%.2f}\n", what,
	       (unsigned long long)bytes, loops, mb_per_s(t.bytes, t.ns),
	       mb_per_s(t.bytes, t.ns) / 1e3);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ring-bench [--records N] [--quick] [--reps R] "
		   "[--data-pages P]\n"
		   "  --records N     records per measurement (default 2000000)\n"
		   "  --quick         200000 records, 3 repetitions\n"
		   "  --reps R        repetitions, median reported (1..15, default 5)\n"
		   "  --data-pages P  data area in 4 KiB pages, power of two "
		   "(default 64)\n"
		   "  --batch B       bytes per data_head publication, 0 = per "
		   "record\n"
		   "                  (default: a sixteenth of the data area)\n"
		   "  --stall-ms MS   how long the \"stalls\" lines watch each CPU "
		   "(default 2000,\n"
		   "                  --quick 200; 0 = not at all)\n");
}

static int parse(int argc, char **argv, struct bench_cfg *cfg)
{
	static const struct option opts[] = {
		{ "records", required_argument, NULL, 'n' },
		{ "quick", no_argument, NULL, 'q' },
		{ "reps", required_argument, NULL, 'r' },
		{ "data-pages", required_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long records = 0, reps = 0, pages = 64, batch = ~0ull;
	unsigned long long stall_ms = ~0ull;
	int opt, quick = 0;
	char *end;

	while ((opt = getopt_long(argc, argv, "n:qr:p:b:s:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			records = strtoull(optarg, &end, 0);
			if (*end || !records)
				return -1;
			break;
		case 'q':
			quick = 1;
			break;
		case 'r':
			reps = strtoull(optarg, &end, 0);
			if (*end || !reps || reps > 15)
				return -1;
			break;
		case 'p':
			pages = strtoull(optarg, &end, 0);
			if (*end || !rs_is_pow2(pages) || pages > (1u << 20))
				return -1;
			break;
		case 'b':
			batch = strtoull(optarg, &end, 0);
			if (*end || batch > (1u << 30))
				return -1;
			break;
		case 's':
			stall_ms = strtoull(optarg, &end, 0);
			if (*end || stall_ms > 600000)
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind != argc)
		return -1;
	cfg->records = records ? records : quick ? 200000 : 2000000;
	cfg->reps = (int)(reps ? reps : quick ? 3 : 5);
	cfg->clock = BENCH_CLOCK_NONE;
	cfg->stall_ms = (uint32_t)(stall_ms != ~0ull ? stall_ms :
				   quick ? 200 : 2000);
	cfg->data_pages = (uint32_t)pages;
	cfg->data_size = pages * RS_PAGE_SIZE;
	cfg->batch = (uint32_t)(batch == ~0ull ? cfg->data_size / 16 : batch);
	if (cfg->batch > cfg->data_size / 2)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST,
		.features = RS_FEATURE_EVENT_SUPPRESS,
	};
	struct host_region hr = { .fd = -1 };
	struct bench_cfg cfg;
	struct run_arg arg;
	struct xshared *x;
	char model[128];
	int cpus[2], ncpu, rc;
	size_t i;

	if (parse(argc, argv, &cfg) < 0) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Producer and consumer on different CPUs when there are two; with
	 * one CPU the waits yield instead of spinning. */
	ncpu = host_cpu_ids(cpus, 2);
	cfg.prod_cpu = cfg.cons_cpu = -1;
	if (ncpu >= 2 && host_pin_cpu(cpus[0]) == 0) {
		cfg.prod_cpu = cpus[0];
		cfg.cons_cpu = cpus[1];
	}
	params.data_pages = cfg.data_pages;
	rc = host_region_create(&hr, "ringside-bench", &params);
	if (rc < 0) {
		fprintf(stderr, "ring-bench: region: %s\n",
			rc == -EPROTO ? rs_error_str(hr.ring_err) : strerror(-rc));
		return 2;
	}
	x = host_shared_alloc(sizeof(*x));
	if (!x) {
		fprintf(stderr, "ring-bench: shared block: %s\n", strerror(errno));
		host_region_destroy(&hr);
		return 2;
	}
	host_cpu_model(model, sizeof(model));
	printf("{\"bench\":\"env\",\"cpu\":\"%s\",\"cpus\":%d,\"pinned\":%s,"
	       "\"data_size\":%llu,\"batch\":%u,\"records\":%llu,\"reps\":%d,"
	       "\"clock\":\"CLOCK_MONOTONIC\",\"loadavg_1m\":%.2f}\n", model,
	       ncpu, cfg.prod_cpu >= 0 ? "true" : "false",
	       (unsigned long long)cfg.data_size, cfg.batch,
	       (unsigned long long)cfg.records, cfg.reps, loadavg());

	if (cfg.stall_ms && bench_stalls(&cfg, cfg.stall_ms) < 0) {
		printf("{\"bench\":\"error\",\"what\":\"stalls: a thread could not be started or pinned\"}\n");
		failures++;
	}
	bench_bulk("64MiB", 64u << 20, cfg.reps);
	bench_bulk("256KiB", 256u << 10, 400);
	for (i = 0; i < sizeof(record_sizes) / sizeof(record_sizes[0]); i++) {
		arg = (struct run_arg){ &hr, &params, x, record_sizes[i], 0 };
		bench_size(&cfg, &arg);
	}
	printf("{\"bench\":\"end\",\"loadavg_1m\":%.2f,\"failures\":%d}\n",
	       loadavg(), failures);
	host_shared_free(x, sizeof(*x));
	host_region_destroy(&hr);
	return failures ? 1 : 0;
}
