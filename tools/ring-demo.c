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

#include <stdio.h>

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
