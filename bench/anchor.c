/* SPDX-License-Identifier: MIT */
/*
 * The anchors: plain memcpy moving the same bytes in the same shapes as the
 * ring does, so each ring figure can be read as a fraction of what this
 * machine can copy.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * libc's memcpy, called, as the ring's copies are.  Left to itself GCC
 * expands a copy it can bound (size <= 512) into `rep movsq`, which costs
 * ~9 ns to start on this machine and would make the anchor the slow side.
 */
void *(*volatile plain_memcpy)(void *, const void *, size_t) = memcpy;

/* Keeps the compiler from dropping copies nobody reads. */
static inline void sink(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

int anchor_produce(uint64_t ring_size, uint32_t size, uint64_t records,
		   struct timing *t)
{
	_Alignas(64) uint8_t rec[512];
	uint64_t i, pos = 0, t0;
	uint8_t *ring;

	if (size > sizeof(rec) || size > ring_size)
		return -EINVAL;
	ring = aligned_alloc(64, ring_size);
	if (!ring)
		return -ENOMEM;
	memset(ring, 0, ring_size);
	memset(rec, 0x5a, sizeof(rec));
	t0 = host_now_ns();
	for (i = 0; i < records; i++) {
		plain_memcpy(ring + pos, rec, size);
		sink(ring);
		pos += size;
		if (pos + size > ring_size)
			pos = 0;
	}
	t->ns = host_now_ns() - t0;
	t->bytes = records * size;
	free(ring);
	return 0;
}

struct drain_anchor {
	uint8_t *buf;          /* shared, so a child's fill is seen here */
	uint64_t buf_size;
	uint32_t size;
	uint64_t fit;
	_Alignas(64) uint8_t rec[512];
	_Alignas(64) uint8_t out[512];
};

static int anchor_fill(void *arg)
{
	struct drain_anchor *a = arg;
	uint64_t i;

	for (i = 0; i < a->fit; i++)
		plain_memcpy(a->buf + i * a->size, a->rec, a->size);
	sink(a->buf);
	return 0;
}

static int64_t anchor_take(void *arg)
{
	struct drain_anchor *a = arg;
	uint64_t i;

	for (i = 0; i < a->fit; i++) {
		plain_memcpy(a->out, a->buf + i * a->size, a->size);
		sink(a->out);
	}
	return (int64_t)(a->fit * a->size);
}

int anchor_drain(const struct bench_cfg *cfg, uint32_t size, uint32_t rounds,
		 int xproc, struct xshared *x, struct timing *t)
{
	struct drain_anchor *a;
	struct round_ops ops;
	int rc;

	if (size > sizeof(a->rec) || size > cfg->data_size)
		return -EINVAL;
	a = aligned_alloc(64, sizeof(*a));
	if (!a)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	a->buf_size = cfg->data_size;
	a->buf = host_shared_alloc(a->buf_size);
	if (!a->buf) {
		free(a);
		return -ENOMEM;
	}
	a->size = size;
	a->fit = cfg->data_size / size;
	memset(a->rec, 0x5a, sizeof(a->rec));
	ops.fill = anchor_fill;
	ops.drain = anchor_take;
	ops.arg = a;
	rc = run_rounds(cfg, &ops, rounds, xproc, x, t);
	host_shared_free(a->buf, a->buf_size);
	free(a);
	return rc;
}

int anchor_bulk(uint64_t bytes, uint32_t loops, struct timing *t)
{
	uint8_t *src = aligned_alloc(64, bytes), *dst = aligned_alloc(64, bytes);
	uint64_t t0;
	uint32_t i;
	int rc = -ENOMEM;

	if (!src || !dst)
		goto out;
	memset(src, 0x5a, bytes);
	memset(dst, 0, bytes);
	t0 = host_now_ns();
	for (i = 0; i < loops; i++) {
		plain_memcpy(dst, src, bytes);
		sink(dst);
	}
	t->ns = host_now_ns() - t0;
	t->bytes = bytes * loops;
	rc = 0;
out:
	free(src);
	free(dst);
	return rc;
}
