/* SPDX-License-Identifier: MIT */
/*
 * ring-demo: the ring protocol between two real host processes.
 *
 * What it shows: a producer and a consumer process sharing one trace region
 * in a memfd, through the same library a guest agent and the host use;
 * exact loss accounting when the ring overruns; AUX output with
 * truncation; doorbells; live and stable flight-recorder snapshots.
 * What it does not: there is no VM.  The producer is a host process using
 * the guest side of the library, the doorbell is an eventfd standing in for
 * KVM_IOEVENTFD, and "stable" means the writer has stopped, which is what
 * pausing the vCPUs gives.  Exit 0 only when every check passes.
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

int main(void)
{
	struct demo_env env = { { -1, -1 } };
	int cpus[2], a, b;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (host_cpu_ids(cpus, 2) >= 2) {
		env.cpu[0] = cpus[0];
		env.cpu[1] = cpus[1];
	}
	printf("ringside ring demo: two host processes share one trace region.\n"
	       "No VM here: the producer is a host process using the guest side "
	       "of the ring\nlibrary; the doorbell is an eventfd standing in for "
	       "KVM_IOEVENTFD.\n\n");
	a = demo_normal(&env);
	b = demo_overwrite(&env);
	printf("result: normal %s, overwrite %s\n", a ? "FAIL" : "PASS",
	       b ? "FAIL" : "PASS");
	return a || b ? 1 : 0;
}
