/* SPDX-License-Identifier: MIT */
/*
 * ring-demo's processes: the scenes (demo_normal.c, demo_overwrite.c) fork
 * their producer and consumer through these, and the demo's main
 * (ring-demo.c) only runs the scenes, so calls go one way:
 * ring-demo -> scenes -> demo_proc.
 */
#include "demo.h"
#include "host_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
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
