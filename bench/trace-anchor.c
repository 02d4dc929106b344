/* SPDX-License-Identifier: MIT */
/*
 * trace-anchor: the loops the kernel's tracers are measured with, for
 * bench/anchors.py.  Each prints one JSON line with the nanoseconds per
 * call of its loop; anchors.py runs it bare and traced and subtracts.
 *
 *   trace-anchor close N         close(-1) N times: one syscall, no work
 *   trace-anchor write PATH N    write 64 bytes to PATH N times
 *                                (trace_marker, or /dev/null for bare)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_util.h"

static int parse_count(const char *s, unsigned long long *n)
{
	char *end;

	*n = strtoull(s, &end, 0);
	return *end || !*n ? -1 : 0;
}

static int loop_close(unsigned long long n)
{
	uint64_t t0 = host_now_ns(), t1;

	for (unsigned long long i = 0; i < n; i++)
		(void)close(-1);
	t1 = host_now_ns();
	printf("{\"loop\":\"close\",\"calls\":%llu,\"ns_per_call\":%.1f}\n", n,
	       (double)(t1 - t0) / (double)n);
	return 0;
}

static int loop_write(const char *path, unsigned long long n)
{
	char msg[64];
	uint64_t t0, t1;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "trace-anchor: %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(msg, 'r', sizeof(msg));
	msg[sizeof(msg) - 1] = '\n';
	t0 = host_now_ns();
	for (unsigned long long i = 0; i < n; i++) {
		if (write(fd, msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
			fprintf(stderr, "trace-anchor: write %s: %s\n", path,
				strerror(errno));
			close(fd);
			return 1;
		}
	}
	t1 = host_now_ns();
	close(fd);
	printf("{\"loop\":\"write\",\"path\":\"%s\",\"calls\":%llu,"
	       "\"ns_per_call\":%.1f}\n", path, n, (double)(t1 - t0) / (double)n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long n;

	if (argc == 3 && !strcmp(argv[1], "close") && !parse_count(argv[2], &n))
		return loop_close(n);
	if (argc == 4 && !strcmp(argv[1], "write") && !parse_count(argv[3], &n))
		return loop_write(argv[2], n);
	fprintf(stderr, "usage: trace-anchor close N | write PATH N\n");
	return 2;
}
