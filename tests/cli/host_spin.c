/* SPDX-License-Identifier: MIT */
/*
 * A program of the host for cli_hostnames.sh to profile with the host's
 * own perf: a fixed amount of work in two functions of its own, named
 * in every profile of it (however fast the machine, each runs for as
 * many iterations).
 */
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) uint64_t rs_host_spin_alpha(uint64_t n);
__attribute__((noinline)) uint64_t rs_host_spin_beta(uint64_t n);

__attribute__((noinline)) uint64_t rs_host_spin_alpha(uint64_t n)
{
	volatile uint64_t x = 1;
	uint64_t i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) uint64_t rs_host_spin_beta(uint64_t n)
{
	volatile uint64_t x = 3;
	uint64_t i;

	for (i = 0; i < n; i++)
		x ^= x << 13 ^ x >> 7 ^ i;
	return x;
}

int main(void)
{
	uint64_t r = rs_host_spin_alpha(100000000ull) ^
		     rs_host_spin_beta(100000000ull);

	printf("%llu\n", (unsigned long long)(r & 1));
	return 0;
}
