/* SPDX-License-Identifier: MIT */
/*
 * The cross-core anchor ("xcore_copy"): the bytes of the producer lines,
 * moved from one CPU to the other with nothing of the ring around them.
 * A writer copies records of one size into a buffer of the ring's size; a
 * reader forked onto the other CPU copies them out as they come.  Positions
 * are exchanged per batch, as the ring's head is: the writer publishes its
 * position every @cfg->batch bytes (and when it must wait), the reader its
 * own after each pass.  The writer waits for room instead of dropping, so
 * every record crosses.  Like the ring's producer (ring/src/ring_internal.h)
 * the writer asks for its lines 4 KiB ahead for ownership (PREFETCHW: GCC
 * emits it for a write prefetch in a function built for "prfchw").  No headers, no checks, no
 * callback: what is left of a ring producer's cost beside a live consumer
 * after this is the ring.
 */
#include "bench.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define AHEAD 4096u

struct xcore_shared {
	_Alignas(64) _Atomic uint64_t head;    /* writer's published position */
	_Alignas(64) _Atomic uint64_t tail;    /* reader's published position */
	_Alignas(64) atomic_uint ready;
	_Alignas(64) atomic_uint done;
	_Alignas(64) uint64_t taken;           /* bytes the reader copied */
	_Alignas(64) uint8_t buf[];
};

static void reader(struct xcore_shared *s, uint64_t buf_size, uint32_t size,
		   int cpu)
{
	_Alignas(64) uint8_t out[512];
	uint64_t tail = 0, head;

	if (cpu >= 0)
		host_pin_cpu(cpu);
	atomic_store(&s->ready, 1);
	for (;;) {
		head = atomic_load_explicit(&s->head, memory_order_acquire);
		if (head == tail) {
			if (atomic_load_explicit(&s->done, memory_order_acquire) &&
			    atomic_load_explicit(&s->head, memory_order_acquire) == tail)
				break;
			host_cpu_relax();
			continue;
		}
		for (; tail != head; tail += size)
			plain_memcpy(out, s->buf + (tail & (buf_size - 1)), size);
		atomic_store_explicit(&s->tail, tail, memory_order_release);
	}
	s->taken = tail;
	_exit(0);
}

#if defined(__x86_64__)
__attribute__((target("prfchw")))
#endif
int anchor_xcore(const struct bench_cfg *cfg, uint32_t size, struct timing *t)
{
	uint64_t buf_size = cfg->data_size, records = cfg->records;
	uint64_t batch = cfg->batch ? cfg->batch : size;
	uint64_t head = 0, published = 0, tail_cache = 0, i, t0, line;
	_Alignas(64) uint8_t rec[512];
	struct xcore_shared *s;
	int status, rc = 0;
	pid_t pid;

	if (size > sizeof(rec) || buf_size % size || cfg->cons_cpu < 0)
		return -EINVAL;
	s = host_shared_alloc(sizeof(*s) + buf_size);
	if (!s)
		return -errno;
	memset(rec, 0x5a, sizeof(rec));
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto out;
	}
	if (pid == 0)
		reader(s, buf_size, size, cfg->cons_cpu);
	/* The reader onto its CPU from here, before this spins on its flag:
	 * under a real-time policy it would never run on this CPU. */
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cfg->cons_cpu, &set);
		(void)sched_setaffinity(pid, sizeof(set), &set);
	}
	wait_flag(&s->ready, 1, 0);
	t0 = host_now_ns();
	for (i = 0; i < records; i++) {
		if (head + size - tail_cache > buf_size) {
			/* Full as far as we know: publish, then wait for room. */
			atomic_store_explicit(&s->head, head, memory_order_release);
			published = head;
			while (head + size -
			       (tail_cache = atomic_load_explicit(
					&s->tail, memory_order_acquire)) > buf_size)
				host_cpu_relax();
		}
		for (line = (head + AHEAD + 63) & ~(uint64_t)63;
		     line < head + size + AHEAD; line += 64)
			__builtin_prefetch(s->buf + (line & (buf_size - 1)), 1, 3);
		plain_memcpy(s->buf + (head & (buf_size - 1)), rec, size);
		head += size;
		if (head - published >= batch) {
			atomic_store_explicit(&s->head, head, memory_order_release);
			published = head;
		}
	}
	atomic_store_explicit(&s->head, head, memory_order_release);
	t->ns = host_now_ns() - t0;
	t->bytes = records * size;
	atomic_store_explicit(&s->done, 1, memory_order_release);
	if (waitpid(pid, &status, 0) < 0)
		rc = -errno;
	else if (!WIFEXITED(status) || WEXITSTATUS(status) || s->taken != head)
		rc = -EIO;
out:
	host_shared_free(s, sizeof(*s) + buf_size);
	return rc;
}
