/* SPDX-License-Identifier: MIT */
/*
 * rs_producer_output's common case, in line in the caller: a forward ring,
 * no LOST record pending, room by the cached tail, a record that does not
 * wrap and a body of at most RS_OUTPUT_INLINE_MAX bytes.  Without a call
 * the arguments stay in registers, the record's size and type checks fold
 * when they are constants, and the body is a few fixed-size moves.  The
 * steps are producer.c's, the same for rs_producer_output, which is this
 * path out of line: nest count, header slot claimed (with a batch), space
 * taken with the same-CPU cmpxchg, slot cleared (and a nested writer's
 * header put back), body, header sealed by store-release (noted for the
 * writers this one interrupted), produced counted, and put_handle's
 * no-doorbell/no-publication exit with its re-check of the private head.
 * Everything else goes to the library, out of line: the general way with
 * the nest count already held, or put_handle for a publication, a doorbell
 * or a writer nested in between.
 *
 * In this tree only: the ring's barriers (ringside/barrier.h) come with
 * it, and a build of this header belongs with the library it was built
 * with (it reads struct rs_producer's fields).  Not installed; an agent
 * built outside calls rs_producer_output.
 */
#ifndef RINGSIDE_PRODUCER_INLINE_H
#define RINGSIDE_PRODUCER_INLINE_H

#include <stdint.h>

#include "ringside/barrier.h"
#include "ringside/ring.h"

#ifdef RS_RING_TEST_HOOKS
#include "test_hook.h"
#else
#define RS_TEST_HOOK(p, at) do { } while (0)
#endif

/* Bodies up to this many bytes take the path in line. */
#define RS_OUTPUT_INLINE_MAX 64u

/* Smallest valid size of a record of @type (8 for types it does not know).
 * Inline: the consumer asks for every record. */
static inline uint32_t rs_record_min_size(uint32_t type)
{
	switch (type) {
	case RS_PERF_RECORD_LOST:
		return sizeof(struct rs_perf_lost);
	case RS_PERF_RECORD_AUX:
		return sizeof(struct rs_perf_aux);
	case RS_PERF_RECORD_ITRACE_START:
		return sizeof(struct rs_perf_itrace_start);
	case RS_PERF_RECORD_LOST_SAMPLES:
		return sizeof(struct rs_perf_lost_samples);
	case RS_RECORD_SEQ:
		return sizeof(struct rs_rec_seq);
	case RS_RECORD_MARKER:
		return sizeof(struct rs_rec_marker);
	default:
		return sizeof(struct rs_perf_header);
	}
}

/*
 * Prefetch for ownership (x86's PREFETCHW): a line the consumer on the
 * other core has read must be taken back from it before the producer can
 * write it again, and a store that waits for that stalls the producer once
 * its store buffer is full.  Asked for RS_PREFETCH_AHEAD bytes ahead of the
 * head, the line is on its way while the producer writes the ones before
 * it.  The instruction exists only where CPUID says so (every AMD64 CPU,
 * Intel since Broadwell); elsewhere nothing is prefetched.
 */
#ifndef RS_PREFETCH_AHEAD
#define RS_PREFETCH_AHEAD 4096u
#endif

#if defined(__x86_64__)
static inline uint32_t rs_cpu_has_prefetchw(void)
{
	uint32_t a, b, c, d;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(0x80000000u), "c"(0u));
	if (a < 0x80000001u)
		return 0;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(0x80000001u), "c"(0u));
	return (c >> 8) & 1u; /* PRFCHW */
}

static inline void rs_prefetchw(const uint8_t *p)
{
	__asm__ volatile("prefetchw %0" : : "m"(*p));
}
#else
static inline uint32_t rs_cpu_has_prefetchw(void)
{
	return 0;
}

static inline void rs_prefetchw(const uint8_t *p)
{
	(void)p;
}
#endif

/* producer.c, out of line: rs_producer_output's general way with the nest
 * count already taken and @size its record size (checked), and put_handle
 * for a record's commit.  For this header only. */
int rs_producer_output_held(struct rs_producer *p, uint32_t type,
			    uint16_t misc, const void *body, uint32_t body_len,
			    uint32_t size);
int rs_producer_put(struct rs_producer *p);

/* The 8 header bytes of the record at @pos: records start 8-aligned in an
 * area that is a multiple of 8, so a header never wraps. */
static inline uint64_t *rs_header_slot(const struct rs_producer *p,
				       uint64_t pos)
{
	return (uint64_t *)(void *)(p->ring.data +
				    (pos & (p->ring.data_size - 1)));
}

static inline uint64_t rs_header_bytes(uint32_t type, uint16_t misc,
				       uint16_t size)
{
	struct rs_perf_header hdr = { type, misc, size };
	uint64_t v;

	__builtin_memcpy(&v, &hdr, sizeof(v));
	return v;
}

/*
 * The header slot after a reservation, with a batch (sealed records).  It
 * is cleared after the space is taken, not before: a clear before the take
 * goes where a head read before it says, and a writer nested in between
 * would have put its records there, which the clear would cut into.  After
 * the take, a writer nested into this one may reserve right behind it and
 * seal its header in that slot before the clear: every writer notes a
 * header it seals in a slot that a writer it interrupted is about to clear
 * (rs_note_seal), and that one puts the header back after its clear.
 *
 * rs_slot_claim, before each try to take: the slot this level will clear.
 * Deeper than RS_NEST_MAX levels there is no room to note it: -1.
 */
static inline int rs_slot_claim(struct rs_producer *p, uint32_t level,
				uint64_t next)
{
	if (level > RS_NEST_MAX)
		return -1;
	rs_store_hint(&p->slot_pos[level - 1], next);
	rs_store_hint(&p->slot_header[level - 1], 0);
	rs_compiler_barrier();
	return 0;
}

/* After the take: clear the slot, and put back a nested writer's header.
 * @level: this writer's nest count, which nested writers restore. */
static inline void rs_slot_clear(struct rs_producer *p, uint32_t level,
				 uint64_t next)
{
	uint64_t *slot = rs_header_slot(p, next), header;

	rs_header_clear(slot);
	rs_compiler_barrier();
	header = rs_local_read(&p->slot_header[level - 1]);
	if (header)
		rs_header_seal(slot, header);
}

/* A header about to be sealed at @pos, for the writers this one
 * interrupted (rs_slot_clear). */
static inline void rs_note_seal(struct rs_producer *p, uint32_t level,
				uint64_t pos, uint64_t header)
{
	uint32_t i;

	for (i = 0; i + 1 < level && i < RS_NEST_MAX; i++)
		if (rs_local_read(&p->slot_pos[i]) == pos)
			rs_store_hint(&p->slot_header[i], header);
}

/* Each line that starts in [@from, @to) + RS_PREFETCH_AHEAD, so that
 * consecutive reservations ask for every line once. */
static inline void rs_prefetch_ahead(const struct rs_producer *p,
				     uint64_t from, uint64_t to)
{
	uint64_t line = (from + RS_PREFETCH_AHEAD + 63) & ~(uint64_t)63;

	for (; line < to + RS_PREFETCH_AHEAD; line += 64)
		rs_prefetchw(p->ring.data + (line & (p->ring.data_size - 1)));
}

/*
 * A record's body into the ring at @dst (not wrapping): short bodies as
 * two overlapping moves of a fixed size each, which the compiler makes a
 * few loads and stores instead of a call.  The last 8-byte word of the
 * record is zeroed first when the body ends inside it: the bytes up to
 * the record's aligned size read as zero, as commit's fill makes them.
 */
static inline void rs_body_copy(uint8_t *dst, const uint8_t *src,
				uint32_t len)
{
	if (len & (RS_RECORD_ALIGN - 1))
		__builtin_memset(dst + (len & ~(RS_RECORD_ALIGN - 1)), 0,
				 RS_RECORD_ALIGN);
	if (len > 64) {
		__builtin_memcpy(dst, src, len);
	} else if (len >= 32) {
		__builtin_memcpy(dst, src, 32);
		__builtin_memcpy(dst + (len - 32), src + (len - 32), 32);
	} else if (len >= 16) {
		__builtin_memcpy(dst, src, 16);
		__builtin_memcpy(dst + (len - 16), src + (len - 16), 16);
	} else if (len >= 8) {
		__builtin_memcpy(dst, src, 8);
		__builtin_memcpy(dst + (len - 8), src + (len - 8), 8);
	} else if (len >= 4) {
		__builtin_memcpy(dst, src, 4);
		__builtin_memcpy(dst + (len - 4), src + (len - 4), 4);
	} else if (len) {
		dst[0] = src[0];
		dst[len / 2] = src[len / 2];
		dst[len - 1] = src[len - 1];
	}
}

/*
 * put_handle for the common case, a forward ring with a batch: the
 * outermost writer, no doorbell due and less than a batch unpublished
 * drops the nest count and is done, with the same steps and the same
 * re-check of the head as put_handle.  Anything else is put_handle's.
 */
static inline int rs_output_leave(struct rs_producer *p)
{
	uint64_t head;

	if (rs_local_read(&p->nest) == 1 && p->batch) {
		head = rs_local_read(&p->head);
		if (head - p->wakeup < p->watermark &&
		    head - p->published < p->batch) {
			rs_compiler_barrier();
			RS_TEST_HOOK(p, RS_HOOK_PUBLISHED);
			rs_local_set32(&p->nest, 0);
			rs_compiler_barrier();
			RS_TEST_HOOK(p, RS_HOOK_UNNESTED);
			if (head == rs_local_read(&p->head))
				return 0;
			/* A handler reserved after head was read. */
			rs_local_inc32(&p->nest);
		}
	}
	return rs_producer_put(p);
}

/*
 * The output of a record of @size bytes (checked: header included,
 * aligned, room for a LOST record beside it) to a forward ring.  The
 * common case here, anything else, and a nested writer that took the
 * space first, the general way with the nest count already held.
 */
static inline int rs_output_forward(struct rs_producer *p, uint32_t type,
				    uint16_t misc, const void *body,
				    uint32_t body_len, uint32_t size)
{
	uint64_t offset, next, area = p->ring.data_size, off, slot, header;
	uint32_t level;
	uint8_t *rec;

	rs_local_inc32(&p->nest);
	rs_compiler_barrier();
	/* Nested writers give the count back as they found it. */
	level = rs_local_read(&p->nest);
	slot = p->batch ? sizeof(uint64_t) : 0;
	offset = rs_local_read(&p->head);
	off = offset & (area - 1);
	next = offset + size;
	if (!rs_local_read(&p->lost_pending) && off + size <= area &&
	    offset - rs_local_read(&p->tail_cache) + size + slot <= area &&
	    (!slot || !rs_slot_claim(p, level, next))) {
		RS_TEST_HOOK(p, RS_HOOK_RESERVE_READ);
		if (rs_local_cmpxchg(&p->head, offset, next)) {
			RS_TEST_HOOK(p, RS_HOOK_RESERVE_TAKEN);
			if (slot)
				rs_slot_clear(p, level, next);
			if (p->prefetch)
				rs_prefetch_ahead(p, offset, next);
			rec = p->ring.data + off;
			rs_body_copy(rec + sizeof(struct rs_perf_header),
				     (const uint8_t *)body, body_len);
			header = rs_header_bytes(type, misc, (uint16_t)size);
			rs_note_seal(p, level, offset, header);
			rs_header_seal((uint64_t *)(void *)rec, header);
			rs_local_add(&p->produced, 1);
			return rs_output_leave(p);
		}
	}
	return rs_producer_output_held(p, type, misc, body, body_len, size);
}

/*
 * rs_producer_output (ring.h), the same returns and the same records: the
 * common case in line, anything out of the ordinary (a large body, an
 * overwrite ring, arguments it refuses) by the function itself.
 */
static inline int rs_producer_output_inline(struct rs_producer *p,
					    uint32_t type, uint16_t misc,
					    const void *body,
					    uint32_t body_len)
{
	uint32_t size;

	if (__builtin_expect(body_len <= RS_OUTPUT_INLINE_MAX && p &&
			     (body || !body_len) && p->ring.data &&
			     p->ring.data_mode != RS_MODE_OVERWRITE, 1)) {
		size = (uint32_t)(sizeof(struct rs_perf_header) + body_len +
				  RS_RECORD_ALIGN - 1) &
		       ~(uint32_t)(RS_RECORD_ALIGN - 1);
		if (size >= rs_record_min_size(type) &&
		    size + sizeof(struct rs_perf_lost) <= p->ring.data_size)
			return rs_output_forward(p, type, misc, body,
						 body_len, size);
	}
	return rs_producer_output(p, type, misc, body, body_len);
}

#endif /* RINGSIDE_PRODUCER_INLINE_H */
