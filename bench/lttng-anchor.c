/* SPDX-License-Identifier: MIT */
/*
 * lttng-anchor N: N LTTng-UST tracepoints with a 64-byte payload, timed;
 * one JSON line.  bench/anchors.py runs it inside a live session (session
 * and consumer daemons running, the event enabled) and once without one.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_anchor_tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_util.h"

int main(int argc, char **argv)
{
	_Alignas(8) uint8_t buf[64];
	unsigned long long n;
	uint64_t t0, t1;
	char *end;

	n = argc == 2 ? strtoull(argv[1], &end, 0) : 0;
	if (!n || *end) {
		fprintf(stderr, "usage: lttng-anchor N\n");
		return 2;
	}
	memset(buf, 0x5a, sizeof(buf));
	t0 = host_now_ns();
	for (unsigned long long i = 0; i < n; i++) {
		memcpy(buf, &i, sizeof(i));
		lttng_ust_tracepoint(ringside_bench, rec, buf);
	}
	t1 = host_now_ns();
	printf("{\"loop\":\"lttng\",\"events\":%llu,\"ns_per_event\":%.1f}\n", n,
	       (double)(t1 - t0) / (double)n);
	return 0;
}
