/* SPDX-License-Identifier: MIT */
/*
 * ring-demo's two scenes.  Each forks a producer process and a consumer
 * process on one memfd region; the children report through a MAP_SHARED
 * block and the parent prints, so the output does not interleave.
 */
#ifndef RINGSIDE_DEMO_H
#define RINGSIDE_DEMO_H

#include <stdint.h>

struct host_region;
struct rs_region_params;

struct demo_env {
	int cpu[2];        /* producer, consumer; -1 when not pinned */
};

/* ---- demo_proc.c: the scenes' processes ---- */

/* A scene's region @name in a memfd, laid out with @params, and @size
 * zeroed bytes its processes share: that block, or NULL after saying what
 * failed (then nothing is left to free). */
void *demo_setup(struct host_region *hr, const char *name,
		 const struct rs_region_params *params, uint64_t size);

/* Fork a scene's @producer and @consumer, each given @arg, on @env's
 * CPUs, say their pids (@consumer_is: what the consumer is) and wait for
 * both; a producer without a consumer is killed.  0 when both exited
 * with 0, else -1. */
int demo_pair(const struct demo_env *env, int (*producer)(void *arg),
	      int (*consumer)(void *arg), void *arg, const char *consumer_is);

/* A check of a scene's report: a line when it failed; @ok. */
int demo_check(const char *what, int ok);

/* A child that runs @fn(@arg) on @cpu and exits with its return; it is
 * killed by SIGALRM after @timeout_s.  The pid, or -errno. */
int demo_fork(int (*fn)(void *arg), void *arg, int cpu, unsigned timeout_s);

/* Wait for @pid; 0 when it exited with 0, else -1. */
int demo_wait(int pid);

void demo_sleep_us(uint64_t us);

/* ---- demo_normal.c, demo_overwrite.c: the scenes ---- */

/* 0 when every check of the scene passed, 1 when one failed, < 0 setup. */
int demo_normal(const struct demo_env *env);
int demo_overwrite(const struct demo_env *env);

#endif /* RINGSIDE_DEMO_H */
