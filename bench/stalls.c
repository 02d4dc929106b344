/* SPDX-License-Identifier: MIT */
/*
 * How long this machine takes its CPUs away from a running thread.  A
 * thread pinned to each CPU the benchmark uses reads CLOCK_MONOTONIC in a
 * loop; a step between two reads longer than any the loop itself takes is
 * time the thread did not run (an interrupt, another task, or, in a VM, the
 * host running something else on that vCPU's core, which guests here do not
 * see as steal).  A ring loses records when the consumer is away for
 * longer than the producer takes to fill it, so these steps are what a
 * loss-free run needs the ring to outlast.
 */
#include "bench.h"

#include <pthread.h>
#include <stdio.h>

/* Steps are counted from 5 us; each bound below is "longer than". */
static const uint64_t bounds_ns[] = { 5000, 20000, 50000, 100000, 1000000 };
#define NR_BOUNDS (sizeof(bounds_ns) / sizeof(bounds_ns[0]))

struct stall_arg {
	int cpu;
	uint64_t run_ns;
	uint64_t over[NR_BOUNDS];
	uint64_t away_ns;      /* the sum of the steps over 5 us */
	uint64_t longest_ns;
	int err;
};

static void *stall_thread(void *p)
{
	struct stall_arg *a = p;
	uint64_t start, prev, now, step;
	size_t i;

	if (a->cpu >= 0 && host_pin_cpu(a->cpu) < 0) {
		a->err = 1;
		return NULL;
	}
	start = prev = host_now_ns();
	do {
		now = host_now_ns();
		step = now - prev;
		prev = now;
		if (step <= bounds_ns[0])
			continue;
		a->away_ns += step;
		if (step > a->longest_ns)
			a->longest_ns = step;
		for (i = 0; i < NR_BOUNDS && step > bounds_ns[i]; i++)
			a->over[i]++;
	} while (now - start < a->run_ns);
	return NULL;
}

int bench_stalls(const struct bench_cfg *cfg, uint64_t run_ms)
{
	struct stall_arg arg[2] = {
		{ .cpu = cfg->prod_cpu, .run_ns = run_ms * 1000000 },
		{ .cpu = cfg->cons_cpu, .run_ns = run_ms * 1000000 },
	};
	pthread_t tid[2];
	int n = cfg->cons_cpu >= 0 ? 2 : 1, started = 0, i, rc = 0;

	for (i = 0; i < n; i++) {
		if (pthread_create(&tid[i], NULL, stall_thread, &arg[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (started < n)
		return -1;
	for (i = 0; i < n; i++) {
		const struct stall_arg *a = &arg[i];

		if (a->err) {
			rc = -1;
			continue;
		}
		printf("{\"bench\":\"stalls\",\"cpu\":%d,\"ms\":%llu,"
		       "\"over_5us\":%llu,\"over_20us\":%llu,\"over_50us\":%llu,"
		       "\"over_100us\":%llu,\"over_1ms\":%llu,"
		       "\"longest_us\":%.1f,\"away_fraction\":%.4f}\n",
		       a->cpu, (unsigned long long)run_ms,
		       (unsigned long long)a->over[0],
		       (unsigned long long)a->over[1],
		       (unsigned long long)a->over[2],
		       (unsigned long long)a->over[3],
		       (unsigned long long)a->over[4], a->longest_ns / 1e3,
		       (double)a->away_ns / (double)a->run_ns);
	}
	return rc;
}
