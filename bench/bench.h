/* SPDX-License-Identifier: MIT */
/* ring-bench's parts: anchors (anchor.c), ring runs (runs.c), main. */
#ifndef RINGSIDE_BENCH_H
#define RINGSIDE_BENCH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"
#include "host_util.h"

struct bench_cfg {
	uint64_t records;      /* records per measurement */
	uint32_t data_pages;   /* data area of the benchmark ring */
	uint64_t data_size;
	int reps;              /* repetitions; the median is reported */
	uint32_t batch;        /* rs_producer_set_batch: bytes per data_head store */
	int prod_cpu;          /* -1: not pinned (one CPU) */
	int cons_cpu;
	uint32_t stall_ms;     /* the "stalls" lines' duration; 0: none */
	int clock;             /* enum bench_clock: what stamps each record */
};

/*
 * What the producer stamps each record with, read per record as the
 * guest agents read it: nothing (the untimed lines), the TSC by a bare
 * rdtsc (the freestanding payload), or CLOCK_MONOTONIC through the vDSO
 * (the Linux agent and ringside-mark).
 */
enum bench_clock {
	BENCH_CLOCK_NONE,
	BENCH_CLOCK_TSC,
	BENCH_CLOCK_MONO,
};

/* "tsc", "mono"; NULL for BENCH_CLOCK_NONE. */
const char *bench_clock_name(int clock);
/* 1 when this machine has @clock (the TSC: x86-64 only). */
int bench_clock_have(int clock);

/* One prebuilt record of the size under test.  Sizes >= 40 are
 * RS_RECORD_SEQ, 32 is an RS_RECORD_MARKER.  The producer writes a
 * sequence number into each (the SEQ's seq, the marker's pid/tid) and,
 * timed, the clock into its time field.  The SEQ checksum is not
 * recomputed per record: that would time rs_seq_build, not the ring. */
struct rec_proto {
	_Alignas(8) uint8_t buf[512];
	uint32_t size;
	uint32_t type;
	uint32_t seq_off;      /* byte offsets in buf */
	uint32_t time_off;
	int clock;             /* enum bench_clock */
};

int proto_build(struct rec_proto *r, uint32_t size, int clock);
/* Where a record of @type that proto_build made has its sequence number. */
uint32_t proto_seq_off(uint32_t type);

/* The "stalls" lines (stalls.c): for @run_ms, how often and for how long
 * each of the benchmark's CPUs was taken from a thread pinned to it.
 * -1 when a thread could not be started or pinned. */
int bench_stalls(const struct bench_cfg *cfg, uint64_t run_ms);

/* One record through rs_producer_output.  Its return. */
int proto_output(struct rs_producer *p, struct rec_proto *r, uint64_t seq);

/*
 * Cross-process flags of the benchmark itself (not part of the ring), in a
 * MAP_SHARED mapping; each on its own cache line so they do not disturb
 * the ring's lines or each other.
 */
struct cons_result {
	uint64_t delivered;    /* non-LOST records */
	uint64_t bytes;
	uint64_t lost;         /* sum of LOST records */
	uint64_t lost_records;
	uint64_t corrupt;
	uint64_t batches;      /* rs_cons_stats.batches */
	uint64_t drain_calls;
	uint64_t empty_drains;
	uint64_t seq_gaps;     /* records missing between delivered ones */
	uint64_t seq_next;     /* last delivered sequence number + 1 */
	uint64_t seq_bad;      /* sequence went backwards */
	uint64_t ns;           /* consumer's wall time, go .. last drain */
	uint64_t wakeups;      /* doorbell mode: blocking reads that returned */
	uint64_t preempted;    /* involuntary context switches: noise */
	int64_t err;
};

struct xshared {
	_Alignas(64) atomic_uint ready;
	_Alignas(64) atomic_uint go;
	_Alignas(64) atomic_uint done;
	_Alignas(64) atomic_uint want;   /* rounds: parent asks for fill k */
	_Alignas(64) atomic_uint filled; /* rounds: child has filled k */
	_Alignas(64) struct cons_result res;
};

/* Wait for *@flag >= @v; yields when there is no second CPU to spin for. */
void wait_flag(const atomic_uint *flag, unsigned v, int yield);

/* A fill/drain pair timed over rounds: fill (untimed, maybe in a child on
 * the other CPU), then drain (timed, here). */
struct round_ops {
	int (*fill)(void *arg);        /* 0 or < 0 */
	int64_t (*drain)(void *arg);   /* bytes moved, < 0 error */
	void *arg;
};

struct timing {
	uint64_t ns;
	uint64_t bytes;
};

int run_rounds(const struct bench_cfg *cfg, const struct round_ops *ops,
	       uint32_t rounds, int xproc, struct xshared *x, struct timing *t);

/* ---- anchor.c: plain memcpy in the same shapes ---- */

/* libc's memcpy, called through a volatile pointer as the ring's copies
 * are calls (anchor.c says why); the anchors' only copy. */
extern void *(*volatile plain_memcpy)(void *, const void *, size_t);

/* @records copies of @size bytes from one hot record into a @ring_size
 * buffer, wrapping: what a producer moves. */
int anchor_produce(uint64_t ring_size, uint32_t size, uint64_t records,
		   struct timing *t);

/* Copy @ring_size / @size records of @size bytes out of a buffer that was
 * filled just before (by this process, or by a child on the other CPU when
 * @xproc): what a consumer moves. */
int anchor_drain(const struct bench_cfg *cfg, uint32_t size, uint32_t rounds,
		 int xproc, struct xshared *x, struct timing *t);

/* One big memcpy of @bytes, @loops times: the machine's bandwidth. */
int anchor_bulk(uint64_t bytes, uint32_t loops, struct timing *t);

/* anchor_xcore.c: @cfg->records copies of @size bytes into a buffer of the
 * ring's size while a reader on the other CPU copies them out, positions
 * exchanged per @cfg->batch bytes; the writer's time.  -EINVAL with one
 * CPU, -EIO when the reader did not take every byte. */
int anchor_xcore(const struct bench_cfg *cfg, uint32_t size, struct timing *t);

/* ---- runs.c: the ring ---- */

struct prod_result {
	uint64_t records;      /* attempted */
	uint64_t ns;
	uint64_t dropped;      /* -rse_no_space returns */
	uint64_t doorbells;    /* commit returned 1: ring */
	uint64_t suppressed;   /* due, not rung: the consumer polled
				* (RS_FEATURE_EVENT_SUPPRESS) */
	uint64_t rung;         /* eventfd writes in the timed loop */
	uint64_t doorbell_ns;  /* their time */
	uint64_t preempted;    /* involuntary context switches in the loop */
	struct cons_result cons;
};

/* How the forked consumer of run_producer waits for data. */
enum cons_wait {
	CONS_BUSY_POLL,   /* drain in a loop: lowest latency, most traffic */
	CONS_DOORBELL,    /* block on an eventfd the producer writes when
			   * commit returns 1 (head crossed the watermark
			   * while the consumer said it sleeps) */
	CONS_ADAPTIVE,    /* poll for a while after the ring went empty,
			   * then block as CONS_DOORBELL */
};

/* Producer here, consumer in a forked process on the other CPU. */
int run_producer(const struct bench_cfg *cfg, struct host_region *hr,
		 const struct rs_region_params *params, uint32_t size,
		 enum cons_wait wait, struct xshared *x,
		 struct prod_result *out);

/* Producer alone: bursts that fit the ring, drained untimed in between. */
int run_producer_local(const struct bench_cfg *cfg, struct host_region *hr,
		       const struct rs_region_params *params, uint32_t size,
		       struct timing *t);

/* Drain of a full ring, filled here (@xproc 0) or by a child on the other
 * CPU (@xproc 1). */
int run_drain(const struct bench_cfg *cfg, struct host_region *hr,
	      const struct rs_region_params *params, uint32_t size, int xproc,
	      struct xshared *x, struct timing *t);

#endif /* RINGSIDE_BENCH_H */
