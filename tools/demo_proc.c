/* SPDX-License-Identifier: MIT */
/*
 * ring-demo's processes: the scenes (demo_normal.c, demo_overwrite.c) set
 * up, fork and wait for their producer and consumer through these, and
 * the demo's main (ring-demo.c) only runs the scenes, so calls go one way:
 * ring-demo -> scenes -> demo_proc.
 */
#include "demo.h"
#include "host_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int demo_fork(int (*fn)(void *arg), void *arg, int cpu, unsigned timeout_s)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid)
		return pid;
	/* A hung child must not hang the demo: SIGALRM ends it. */
	alarm(timeout_s);
	if (cpu >= 0)
		host_pin_cpu(cpu);
	_exit(fn(arg));
}

int demo_wait(int pid)
{
	int status;

	if (pid <= 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status)) {
		printf("  process %d killed by signal %d%s\n", pid,
		       WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		return -1;
	}
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

void demo_sleep_us(uint64_t us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000u),
		.tv_nsec = (long)(us % 1000000u) * 1000,
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void *demo_setup(struct host_region *hr, const char *name,
		 const struct rs_region_params *params, uint64_t size)
{
	int rc = host_region_create(hr, name, params);
	void *sh;

	if (rc < 0) {
		printf("  region: %s\n", rc == -EPROTO ?
		       rs_error_str(hr->ring_err) : strerror(-rc));
		return NULL;
	}
	sh = host_shared_alloc(size);
	if (!sh) {
		printf("  setup: %s\n", strerror(errno));
		host_region_destroy(hr);
	}
	return sh;
}

int demo_pair(const struct demo_env *env, int (*producer)(void *arg),
	      int (*consumer)(void *arg), void *arg, const char *consumer_is)
{
	int prod, cons, rc;

	prod = demo_fork(producer, arg, env->cpu[0], 5);
	cons = demo_fork(consumer, arg, env->cpu[1], 5);
	/* nothing would drain the ring, or tell the producer to stop */
	if (cons < 0 && prod > 0)
		kill(prod, SIGKILL);
	printf("  producer pid %d (CPU %d), %s pid %d (CPU %d)\n\n", prod,
	       env->cpu[0], consumer_is, cons, env->cpu[1]);
	rc = demo_wait(prod);
	rc |= demo_wait(cons);
	return rc;
}

int demo_check(const char *what, int ok)
{
	if (!ok)
		printf("  CHECK FAILED: %s\n", what);
	return ok;
}
