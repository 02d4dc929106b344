/* SPDX-License-Identifier: MIT */
/*
 * Proof that ring/ needs nothing from libc: a static program linked with
 * -nostdlib against the freestanding build.  It supplies only what GCC may
 * call in a freestanding environment (memcpy, memmove, memset, memcmp), as
 * the guest agent does, then lays out a region, attaches as a guest agent
 * would, produces, drains and checks.
 * Exit status 0 means every check passed.
 */
#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"
#include "ringside/shared.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void _start(void);

void *memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (d < s)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	while (n--)
		*d++ = (uint8_t)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

static _Noreturn void sys_exit(long code)
{
	__asm__ volatile("syscall" : : "a"(231L), "D"(code) : "rcx", "r11", "memory");
	for (;;)
		;
}

#define REGION_SIZE (64u * 1024)
static _Alignas(4096) uint8_t region_mem[REGION_SIZE];
static struct rs_region region;
static struct rs_producer producer;
static struct rs_consumer consumer;
static _Alignas(8) uint8_t rec_buf[256];
static uint64_t seen, next_seq;

static int on_record(const struct rs_perf_header *rec, void *arg)
{
	const struct rs_rec_seq *s = (const struct rs_rec_seq *)rec;

	(void)arg;
	if (rec->type == RS_RECORD_SEQ) {
		if (!rs_seq_check(rec) || s->seq != next_seq)
			return -1;
		next_seq++;
	}
	seen++;
	return 0;
}

static int run(void)
{
	struct rs_region_params p = {
		.size = sizeof(p), .nr_rings = 1, .data_pages = 4,
		.trace_mask = RS_TRACE_TEST,
	};
	struct rs_config cfg;
	uint32_t word = 0;
	uint64_t seq;
	int size;

	if (rs_region_layout(region_mem, REGION_SIZE, &p) < 0 ||
	    rs_region_enable(region_mem) < 0 ||
	    rs_region_open(&region, region_mem, REGION_SIZE) < 0)
		return 1;
	if (rs_guest_enabled(&region) != 1 ||
	    rs_guest_attach(&region, RS_AGENT_FREESTANDING, 1, &cfg) != 1 ||
	    rs_guest_heartbeat(&region) < 0)
		return 2;
	rs_shared_store32(&word, 1);
	if (rs_shared_load32(&word) != 1)
		return 2;
	if (rs_producer_init(&producer, &region, 0) < 0 ||
	    rs_consumer_init(&consumer, &region, 0) < 0)
		return 3;
	for (seq = 0; seq < 1000; seq++) {
		size = rs_seq_build(rec_buf, seq, seq, 0, (uint32_t)(seq % 100));
		if (size < 0)
			return 4;
		if (rs_producer_output(&producer, RS_RECORD_SEQ, 0,
				       rec_buf + sizeof(struct rs_perf_header),
				       (uint32_t)size - sizeof(struct rs_perf_header)) < 0)
			return 5;
		if (seq % 16 == 15 && rs_consumer_drain(&consumer, on_record, 0) < 0)
			return 6;
	}
	if (rs_consumer_drain(&consumer, on_record, 0) < 0 ||
	    rs_guest_detach(&region) < 0)
		return 7;
	return seen == 1000 && next_seq == 1000 ? 0 : 8;
}

void _start(void)
{
	sys_exit(run());
}
