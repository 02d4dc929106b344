/* SPDX-License-Identifier: MIT */
/* The ring measurements of ring-bench. */
#include "bench.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ringside/producer_inline.h"

#define ROUNDS_FAILED (~0u)

/*
 * Put a forked child on @cpu from the parent, before the parent spins on a
 * flag the child sets: under a real-time policy (docs/benchmarks.md) the
 * child, still on the parent's CPU, would otherwise never run.
 */
static void pin_child(pid_t pid, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(pid, sizeof(set), &set);
}

/* Involuntary context switches of this process so far: how often another
 * task took its CPU, the main source of noise on a 2-CPU machine. */
static uint64_t preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_nivcsw;
}

const char *bench_clock_name(int clock)
{
	return clock == BENCH_CLOCK_TSC ? "tsc" :
	       clock == BENCH_CLOCK_MONO ? "mono" : NULL;
}

int bench_clock_have(int clock)
{
#if defined(__x86_64__)
	return clock == BENCH_CLOCK_NONE || clock == BENCH_CLOCK_TSC ||
	       clock == BENCH_CLOCK_MONO;
#else
	return clock == BENCH_CLOCK_NONE || clock == BENCH_CLOCK_MONO;
#endif
}

uint32_t proto_seq_off(uint32_t type)
{
	return type == RS_RECORD_MARKER ?
		(uint32_t)offsetof(struct rs_rec_marker, pid) :
		(uint32_t)offsetof(struct rs_rec_seq, seq);
}

int proto_build(struct rec_proto *r, uint32_t size, int clock)
{
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->clock = clock;
	if (!bench_clock_have(clock))
		return -EINVAL;
	if (size >= sizeof(struct rs_rec_seq) && size <= sizeof(r->buf)) {
		r->type = RS_RECORD_SEQ;
		r->seq_off = proto_seq_off(r->type);
		r->time_off = (uint32_t)offsetof(struct rs_rec_seq, time);
		return rs_seq_build(r->buf, 0, 0, 0,
				    size - (uint32_t)sizeof(struct rs_rec_seq)) ==
			       (int)size ? 0 : -EINVAL;
	}
	if (size == sizeof(struct rs_rec_marker)) {
		struct rs_rec_marker m = {
			.header = { RS_RECORD_MARKER, 0, (uint16_t)size },
		};

		r->type = RS_RECORD_MARKER;
		r->seq_off = proto_seq_off(r->type);
		r->time_off = (uint32_t)offsetof(struct rs_rec_marker, time);
		memcpy(r->buf, &m, sizeof(m));
		return 0;
	}
	return -EINVAL;
}

/* The clocks as the agents read them: the payload's bare rdtsc (no
 * fence), and clock_gettime, which glibc answers in the vDSO. */
static inline uint64_t read_tsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

static inline uint64_t read_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int proto_output(struct rs_producer *p, struct rec_proto *r, uint64_t seq)
{
	uint64_t t;

	memcpy(r->buf + r->seq_off, &seq, sizeof(seq));
	if (r->clock != BENCH_CLOCK_NONE) {
		t = r->clock == BENCH_CLOCK_TSC ? read_tsc() : read_mono();
		memcpy(r->buf + r->time_off, &t, sizeof(t));
	}
	return rs_producer_output_inline(p, r->type, 0, r->buf + 8, r->size - 8);
}

void wait_flag(const atomic_uint *flag, unsigned v, int yield)
{
	while (atomic_load_explicit(flag, memory_order_acquire) < v) {
		if (yield)
			sched_yield();
		else
			host_cpu_relax();
	}
}

/* Counts what the consumer delivers and checks the sequence numbers. */
struct count_ctx {
	uint64_t records;
	uint64_t bytes;
	uint64_t next_seq;
	uint64_t gaps;
	uint64_t bad;
};

static int count_record(const struct rs_perf_header *h, void *arg)
{
	struct count_ctx *c = arg;
	uint64_t seq;

	if (h->type == RS_PERF_RECORD_LOST)
		return 0;   /* counted by the consumer's stats */
	memcpy(&seq, (const uint8_t *)h + proto_seq_off(h->type), sizeof(seq));
	if (seq < c->next_seq)
		c->bad++;
	else
		c->gaps += seq - c->next_seq;
	c->next_seq = seq + 1;
	c->records++;
	c->bytes += h->size;
	return 0;
}

int run_rounds(const struct bench_cfg *cfg, const struct round_ops *ops,
	       uint32_t rounds, int xproc, struct xshared *x, struct timing *t)
{
	int yield = cfg->prod_cpu < 0, rc = 0, status;
	uint64_t t0, t1;
	pid_t pid = -1;
	int64_t n;
	uint32_t k;

	t->ns = t->bytes = 0;
	if (xproc) {
		atomic_store(&x->want, 0);
		atomic_store(&x->filled, 0);
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0) {
			if (cfg->cons_cpu >= 0)
				host_pin_cpu(cfg->cons_cpu);
			for (k = 1; k <= rounds; k++) {
				wait_flag(&x->want, k, yield);
				if (ops->fill(ops->arg) < 0) {
					atomic_store(&x->filled, ROUNDS_FAILED);
					_exit(1);
				}
				atomic_store_explicit(&x->filled, k,
						      memory_order_release);
			}
			_exit(0);
		}
		pin_child(pid, cfg->cons_cpu);
	}
	for (k = 1; k <= rounds; k++) {
		if (xproc) {
			atomic_store_explicit(&x->want, k, memory_order_release);
			wait_flag(&x->filled, k, yield);
			if (atomic_load(&x->filled) == ROUNDS_FAILED) {
				rc = -EIO;
				break;
			}
		} else if (ops->fill(ops->arg) < 0) {
			rc = -EIO;
			break;
		}
		t0 = host_now_ns();
		n = ops->drain(ops->arg);
		t1 = host_now_ns();
		if (n < 0) {
			rc = -EIO;
			break;
		}
		t->ns += t1 - t0;
		t->bytes += (uint64_t)n;
	}
	if (pid > 0) {
		if (rc < 0)
			kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) < 0)
			return -errno;
		if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status)))
			rc = -EIO;
	}
	return rc;
}

/* A ring with a producer and a consumer on it, for the round-based runs. */
struct ring_ctx {
	struct rs_region region;
	struct rs_producer prod;
	struct rs_consumer *cons;
	struct rec_proto proto;
	struct count_ctx count;
	uint64_t seq;
	uint64_t fit;          /* records of this size in a full ring */
};

static int ring_ctx_init(struct ring_ctx *r, const struct bench_cfg *cfg,
			 struct host_region *hr,
			 const struct rs_region_params *params, uint32_t size)
{
	memset(r, 0, sizeof(*r));
	if (proto_build(&r->proto, size, cfg->clock) < 0 ||
	    host_region_reset(hr, params) < 0 ||
	    rs_region_open(&r->region, hr->mem, hr->size) < 0 ||
	    rs_producer_init(&r->prod, &r->region, 0) < 0 ||
	    rs_producer_set_batch(&r->prod, cfg->batch) < 0)
		return -EINVAL;
	r->cons = rs_consumer_alloc(&r->region, 0);
	if (!r->cons)
		return -ENOMEM;
	/* A batch keeps a header slot free after the last record. */
	r->fit = (cfg->data_size - (cfg->batch ? sizeof(uint64_t) : 0)) / size;
	return 0;
}

static int fill_ring(void *arg)
{
	struct ring_ctx *r = arg;
	uint64_t i;
	int rc;

	for (i = 0; i < r->fit; i++) {
		rc = proto_output(&r->prod, &r->proto, r->seq++);
		if (rc < 0)
			return rc;
	}
	/* The end of a burst: the rest of it becomes visible. */
	rc = rs_producer_flush(&r->prod);
	return rc < 0 ? rc : 0;
}

/* Drain the r->fit records just produced; bytes drained. */
static int64_t drain_ring(void *arg)
{
	struct ring_ctx *r = arg;
	uint64_t before = r->count.bytes, want = r->count.records + r->fit;
	int n;

	while (r->count.records < want) {
		n = rs_consumer_drain(r->cons, count_record, &r->count);
		if (n <= 0)
			return n < 0 ? n : -EIO; /* the fill must be visible */
	}
	return (int64_t)(r->count.bytes - before);
}

int run_drain(const struct bench_cfg *cfg, struct host_region *hr,
	      const struct rs_region_params *params, uint32_t size, int xproc,
	      struct xshared *x, struct timing *t)
{
	struct ring_ctx r;
	struct round_ops ops = { fill_ring, drain_ring, &r };
	uint32_t rounds;
	int rc;

	rc = ring_ctx_init(&r, cfg, hr, params, size);
	if (rc < 0)
		goto out;
	rounds = (uint32_t)((cfg->records + r.fit - 1) / r.fit);
	rc = run_rounds(cfg, &ops, rounds, xproc, x, t);
	if (!rc && (r.count.gaps || r.count.bad || rs_consumer_stats(r.cons)->corrupt))
		rc = -EIO;
out:
	rs_consumer_free(r.cons);
	return rc;
}

int run_producer_local(const struct bench_cfg *cfg, struct host_region *hr,
		       const struct rs_region_params *params, uint32_t size,
		       struct timing *t)
{
	struct ring_ctx r;
	uint64_t t0, t1, done = 0;
	int rc;

	t->ns = t->bytes = 0;
	rc = ring_ctx_init(&r, cfg, hr, params, size);
	while (!rc && done < cfg->records) {
		t0 = host_now_ns();
		rc = fill_ring(&r);
		t1 = host_now_ns();
		t->ns += t1 - t0;
		t->bytes += r.fit * size;
		done += r.fit;
		if (!rc && drain_ring(&r) < 0)
			rc = -EIO;
	}
	if (!rc && (r.count.gaps || r.count.bad))
		rc = -EIO;
	rs_consumer_free(r.cons);
	return rc;
}

/* How long CONS_ADAPTIVE polls an empty ring before it blocks: longer
 * than the producer takes to publish a batch, shorter than a wakeup. */
#define ADAPTIVE_SPIN_NS 50000u

/*
 * The sleeping consumers' wait, event suppression's protocol (docs/abi.md):
 * CONS_ADAPTIVE first polls; then both say they are about to sleep
 * (rs_consumer_sleep_prepare: WAKE, full fence, the heads once more) and
 * sleep only when nothing moved; awake, they say they poll.  The producer
 * rings only when rs_producer_output says so: never while the consumer
 * polls.
 */
static void sleep_wait(struct rs_consumer *c, int efd, int spin,
		       struct xshared *x)
{
	uint64_t t0 = host_now_ns(), v;

	while (spin) {
		if (rs_consumer_pending(c) ||
		    atomic_load_explicit(&x->done, memory_order_acquire))
			return;
		host_cpu_relax();
		if (host_now_ns() - t0 >= ADAPTIVE_SPIN_NS)
			break;
	}
	if (!rs_consumer_sleep_prepare(c) &&
	    !atomic_load_explicit(&x->done, memory_order_acquire) &&
	    read(efd, &v, sizeof(v)) == sizeof(v))
		x->res.wakeups++;
	rs_consumer_awake(c);
}

/* The forked consumer of run_producer: drains until the producer is done
 * and the ring is empty, in a busy loop, woken by the doorbell, or
 * polling for a while before it waits for the doorbell. */
static void consumer_child(const struct bench_cfg *cfg, struct host_region *hr,
			   int efd, enum cons_wait wait, struct xshared *x)
{
	struct cons_result *res = &x->res;
	struct count_ctx count = { 0 };
	const struct rs_cons_stats *st;
	struct rs_region region;
	struct rs_consumer *c;
	int n, yield = cfg->cons_cpu < 0;
	uint64_t t0;

	if (cfg->cons_cpu >= 0)
		host_pin_cpu(cfg->cons_cpu);
	host_region_prefault(hr);
	if (rs_region_open(&region, hr->mem, hr->size) < 0)
		_exit(2);
	c = rs_consumer_alloc(&region, 0);
	if (!c)
		_exit(2);
	/* awake from the start: a polling consumer stays so throughout */
	rs_consumer_awake(c);
	atomic_store(&x->ready, 1);
	wait_flag(&x->go, 1, yield);
	t0 = host_now_ns();
	res->preempted = preemptions();
	for (;;) {
		if (wait != CONS_BUSY_POLL)
			sleep_wait(c, efd, wait == CONS_ADAPTIVE, x);
		/* Busy poll: one drain per turn.  The others: until empty. */
		do {
			n = rs_consumer_drain(c, count_record, &count);
			res->drain_calls++;
		} while (wait != CONS_BUSY_POLL && n > 0);
		if (n < 0) {
			res->err = n;
			break;
		}
		if (n > 0)
			continue;
		res->empty_drains++;
		/* done is stored after the producer's last commit: one more
		 * empty drain after seeing it means everything was drained. */
		if (atomic_load_explicit(&x->done, memory_order_acquire)) {
			n = rs_consumer_drain(c, count_record, &count);
			res->drain_calls++;
			if (n == 0)
				break;
			if (n < 0) {
				res->err = n;
				break;
			}
			continue;
		}
		if (wait != CONS_BUSY_POLL)
			continue;
		if (yield)
			sched_yield();
		else
			host_cpu_relax();
	}
	res->ns = host_now_ns() - t0;
	res->preempted = preemptions() - res->preempted;
	st = rs_consumer_stats(c);
	res->delivered = count.records;
	res->bytes = count.bytes;
	res->seq_gaps = count.gaps;
	res->seq_next = count.next_seq;
	res->seq_bad = count.bad;
	res->lost = st->lost;
	res->lost_records = st->lost_records;
	res->corrupt = st->corrupt;
	res->batches = st->batches;
	rs_consumer_free(c);
	_exit(res->err ? 1 : 0);
}

static void doorbell(int efd)
{
	uint64_t one = 1;

	if (efd >= 0 && write(efd, &one, sizeof(one)) != sizeof(one))
		abort(); /* an eventfd write cannot fail short of overflow */
}

int run_producer(const struct bench_cfg *cfg, struct host_region *hr,
		 const struct rs_region_params *params, uint32_t size,
		 enum cons_wait wait, struct xshared *x,
		 struct prod_result *out)
{
	struct rs_region region;
	struct rs_producer p;
	struct rec_proto proto;
	int rc = 0, status, efd = -1, yield = cfg->prod_cpu < 0;
	uint64_t i, t0, t1;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	memset(x, 0, sizeof(*x));
	if (proto_build(&proto, size, cfg->clock) < 0 || host_region_reset(hr, params) < 0 ||
	    rs_region_open(&region, hr->mem, hr->size) < 0 ||
	    rs_producer_init(&p, &region, 0) < 0 ||
	    rs_producer_set_batch(&p, cfg->batch) < 0)
		return -EINVAL;
	if (wait != CONS_BUSY_POLL && (efd = eventfd(0, EFD_CLOEXEC)) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0)
		consumer_child(cfg, hr, efd, wait, x);
	pin_child(pid, cfg->cons_cpu);

	wait_flag(&x->ready, 1, yield);
	atomic_store(&x->go, 1);
	out->preempted = preemptions();
	t0 = host_now_ns();
	for (i = 0; i < cfg->records; i++) {
		rc = proto_output(&p, &proto, i);
		if (rc > 0) {
			out->doorbells++;
			if (efd >= 0) {
				t1 = host_now_ns();
				doorbell(efd);
				out->doorbell_ns += host_now_ns() - t1;
				out->rung++;
			}
		} else if (rc == -rse_no_space) {
			out->dropped++;
		} else if (rc < 0) {
			break;
		}
	}
	t1 = host_now_ns();
	out->preempted = preemptions() - out->preempted;
	out->records = i;
	out->ns = t1 - t0;
	out->suppressed = p.suppressed;
	/* The end of the burst: publish what the batch held back; then the
	 * count of the last drops still has to reach the consumer. */
	if (rc >= 0 || rc == -rse_no_space) {
		if (rs_producer_flush(&p) == 1) {
			out->doorbells++;
			doorbell(efd);
		}
		while ((rc = rs_producer_flush_lost(&p)) == -rse_no_space)
			host_cpu_relax();
		if (rc == 2) {
			out->doorbells++;
			doorbell(efd);
		}
	}
	atomic_store_explicit(&x->done, 1, memory_order_release);
	doorbell(efd);
	if (waitpid(pid, &status, 0) < 0) {
		rc = -errno;
		goto out;
	}
	out->cons = x->res;
	rc = rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ? -EIO : 0;
out:
	if (efd >= 0)
		close(efd);
	return rc;
}
