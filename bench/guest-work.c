/* SPDX-License-Identifier: MIT */
/*
 * The fixed CPU-bound work of bench/guest-overhead.sh, run inside the guest
 * (static, from the benchmark's initramfs):
 *
 *   guest-work ROUNDS [WORKERS]     WORKERS processes (default: one per
 *                                   online CPU), ROUNDS rounds each
 *   guest-work --calibrate SECS     the ROUNDS for about SECS seconds of
 *                                   one worker, measured here and now
 *
 * A round mixes a 64 KiB buffer through three levels of calls (round,
 * block, mix: never inlined, frame pointers kept), so that sampled call
 * chains have something to walk.  Prints one line:
 *
 *   GW rounds=N workers=W wall_ns=T user_us=U sys_us=S check=X
 *
 * wall_ns from before the first fork to after the last wait
 * (CLOCK_MONOTONIC), user_us and sys_us the workers' (RUSAGE_CHILDREN),
 * check the workers' result (the same for the same work; status 1 when
 * two workers disagree).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUF_WORDS 8192u          /* 64 KiB of 64-bit words */
#define BLOCK_WORDS 512u

static uint64_t buf[BUF_WORDS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t gw_mix(uint64_t *w, uint32_t n, uint64_t acc) __attribute__((noinline));
uint64_t gw_block(uint32_t at, uint64_t acc) __attribute__((noinline));
uint64_t gw_round(uint64_t acc) __attribute__((noinline));

uint64_t gw_mix(uint64_t *w, uint32_t n, uint64_t acc)
{
	for (uint32_t i = 0; i < n; i++) {
		acc ^= w[i];
		acc *= 0x9e3779b97f4a7c15ull;
		acc ^= acc >> 29;
		w[i] = acc;
	}
	return acc;
}

uint64_t gw_block(uint32_t at, uint64_t acc)
{
	return gw_mix(&buf[at], BLOCK_WORDS, acc + at);
}

uint64_t gw_round(uint64_t acc)
{
	for (uint32_t at = 0; at < BUF_WORDS; at += BLOCK_WORDS)
		acc = gw_block(at, acc);
	return acc;
}

static uint64_t work(uint64_t rounds)
{
	uint64_t acc = 1;

	for (uint32_t i = 0; i < BUF_WORDS; i++)
		buf[i] = i;
	for (uint64_t r = 0; r < rounds; r++)
		acc = gw_round(acc);
	return acc;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *v == 0 || *v > max ? -1 : 0;
}

static int calibrate(uint64_t secs)
{
	uint64_t rounds = 4, t0, dt;

	for (;;) {
		t0 = now_ns();
		(void)work(rounds);
		dt = now_ns() - t0;
		if (dt >= 500000000ull || rounds > (1ull << 40))
			break;
		rounds *= 2;
	}
	printf("%llu\n", (unsigned long long)
	       (rounds * secs * 1000000000ull / (dt ? dt : 1) + 1));
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t rounds, workers, t0, t1, check = 0;
	struct rusage ru;
	uint32_t started = 0, agree = 1;
	int pfd[2];
	long cpus;

	if (argc == 3 && !strcmp(argv[1], "--calibrate")) {
		if (parse_u64(argv[2], 3600, &rounds))
			goto usage;
		return calibrate(rounds);
	}
	if (argc < 2 || argc > 3 || parse_u64(argv[1], 1ull << 40, &rounds))
		goto usage;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	workers = cpus > 0 ? (uint64_t)cpus : 1;
	if (argc == 3 && parse_u64(argv[2], 256, &workers))
		goto usage;
	if (pipe(pfd)) {
		perror("guest-work: pipe");
		return 1;
	}
	t0 = now_ns();
	for (uint64_t i = 0; i < workers; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("guest-work: fork");
			break;
		}
		if (pid == 0) {
			uint64_t acc = work(rounds);

			close(pfd[0]);
			if (write(pfd[1], &acc, sizeof(acc)) != (ssize_t)sizeof(acc))
				_exit(1);
			_exit(0);
		}
		started++;
	}
	close(pfd[1]);
	for (uint32_t i = 0; i < started; i++) {
		uint64_t acc;

		if (read(pfd[0], &acc, sizeof(acc)) != (ssize_t)sizeof(acc))
			agree = 0;
		else if (i == 0)
			check = acc;
		else if (acc != check)
			agree = 0;
	}
	while (wait(NULL) > 0)
		;
	t1 = now_ns();
	if (getrusage(RUSAGE_CHILDREN, &ru)) {
		perror("guest-work: getrusage");
		return 1;
	}
	printf("GW rounds=%llu workers=%u wall_ns=%llu user_us=%llu sys_us=%llu "
	       "check=%016llx\n", (unsigned long long)rounds, started,
	       (unsigned long long)(t1 - t0),
	       (unsigned long long)ru.ru_utime.tv_sec * 1000000ull +
	       (unsigned long long)ru.ru_utime.tv_usec,
	       (unsigned long long)ru.ru_stime.tv_sec * 1000000ull +
	       (unsigned long long)ru.ru_stime.tv_usec,
	       (unsigned long long)check);
	return started == workers && agree ? 0 : 1;
usage:
	fprintf(stderr, "usage: guest-work ROUNDS [WORKERS] | --calibrate SECS\n");
	return 2;
}
