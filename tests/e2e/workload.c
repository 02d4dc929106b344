/* SPDX-License-Identifier: MIT */
/*
 * The e2e guest workload, run from the initramfs as "rs-workload" (its comm
 * name).  It prints its pid, then does STEPS steps of busy work, marking
 * each ("step K", id 1) and the end ("done", id 2).  The busy work is
 * hot_loop(), where nearly all of its user samples must land.  With --panic it marks
 * "panic" (id 3, synchronously: the marker is in the ring before it
 * returns) and crashes the guest kernel through /proc/sysrq-trigger.
 * With --panic AGENT_PID it first stops the agent (SIGSTOP): the race a
 * user-space agent loses at times, lost every time, so that the crash
 * path's samples are only in the kernel's perf buffer, where the host's
 * snapshot must find them.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ringside/mark.h"

#define STEP_NS 50000000ull   /* 50 ms of CPU per step */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Iterations of hot_loop() between two looks at the clock: nearly all of
 * the workload's user time is in hot_loop, whatever the clock costs.
 * Read at run time, so that the compiler makes no copy of hot_loop for a
 * constant count (a "hot_loop.constprop.0" the e2e check would not name). */
static volatile uint64_t hot_iters = 20000;

/* The work the samples land in: exported, never inlined, in the symbol
 * table of the unstripped static binary, so that perf names it from the
 * guest's mappings (tests/e2e/e2e_libvirt.sh, --symfs). */
uint64_t hot_loop(uint64_t iters, uint64_t acc) __attribute__((noinline));

uint64_t hot_loop(uint64_t iters, uint64_t acc)
{
	for (uint64_t i = 0; i < iters; i++)
		acc = acc * 6364136223846793005ull + 1442695040888963407ull;
	return acc;
}

static uint64_t spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns, acc = 1;

	while (now_ns() < end)
		acc = hot_loop(hot_iters, acc);
	return acc;
}

static int mark(struct rs_marker *m, uint32_t id, const char *text,
		uint32_t flags)
{
	int err = rs_mark_send(m, id, text, (uint32_t)strlen(text), flags);

	if (err)
		fprintf(stderr, "rs-workload: marker %u: %s\n", id, strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 20;
	int panic = argc > 2 && !strcmp(argv[2], "--panic");
	int agent = panic && argc > 3 ? atoi(argv[3]) : 0;
	volatile uint64_t sink = 0;
	struct rs_marker m;
	char text[64];
	int i, fd;

	printf("E2E-WORKLOAD pid=%d\n", (int)getpid());
	fflush(stdout);
	if (rs_mark_open(&m, NULL)) {
		fprintf(stderr, "rs-workload: no marker socket\n");
		return 1;
	}
	for (i = 0; i < steps; i++) {
		sink += spin(STEP_NS);
		snprintf(text, sizeof(text), "step %d", i);
		if (mark(&m, 1, text, 0))
			return 1;
	}
	if (mark(&m, 2, "done", RS_MARK_SYNC))
		return 1;
	if (!panic)
		return 0;
	if (mark(&m, 3, "panic", RS_MARK_SYNC))
		return 1;
	if (agent > 0 && kill(agent, SIGSTOP))
		perror("rs-workload: stopping the agent");
	printf("E2E-PANIC%s\n", agent > 0 ? " agent stopped" : "");
	fflush(stdout);
	/* out of the serial port before the crash: a panic prints its own
	 * lines but not what a tty still held, and the harness waits for
	 * this one (not a tty: nothing to wait for) */
	(void)tcdrain(STDOUT_FILENO);
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0 || write(fd, "c", 1) != 1)
		perror("rs-workload: sysrq-trigger");
	return 1;
}
