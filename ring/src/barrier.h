/* SPDX-License-Identifier: MIT */
/*
 * The only place in ringside's ring code that touches atomics or barriers.
 * Every access to a value the other side of the VM boundary can see goes
 * through one of the named accessors below.
 *
 * Pairing contract (data ring; the AUX ring is the same with aux_*):
 *
 *   producer (guest)                       consumer (host)
 *   ----------------                       ---------------
 *   write record bytes                     C: h = load-acquire(data_head)
 *   A: store-release(data_head, h)         read records in [tail, h)
 *                                          D: store-release(data_tail, t)
 *   B: t = load-acquire(data_tail)
 *   reuse space below t + size
 *
 *   A pairs with C: a consumer that sees head h sees every byte below h.
 *   D pairs with B: a producer that sees tail t knows the consumer has
 *   finished reading every byte below t, so it may overwrite them.
 *
 * Overwrite (backward) mode has no tail.  For live snapshots the producer
 * announces where it is about to write before it writes:
 *
 *   E: store(ext.write_head, w); release fence; write record bytes
 *   F: copy bytes; acquire fence; w = load(ext.write_head)
 *
 *   E pairs with F: if the copy saw any byte of a record reserved at w,
 *   the load after the fence sees write_head <= w, so the snapshot cuts
 *   exactly the range that may have been overwritten during the copy.
 *   ext.aux_write_limit plays the same role for the AUX area.
 *
 * Nesting: a producer can be interrupted on its own CPU by a handler that
 * writes to the same ring.  The producer's private head and nest count are
 * changed with single-instruction atomics (the local_* helpers): they need
 * to be atomic against an interrupt on the same CPU, not against another
 * CPU, hence relaxed ordering.
 *
 * What may run concurrently:
 *
 *                         producer   nested     consumer   snapshot
 *   producer (one CPU)    no         yes        yes        yes
 *   consumer (one thread) yes        yes        no         yes
 *
 * Everything the other side wrote is a hint: callers load it once through
 * these accessors and validate it before use.
 */
#ifndef RINGSIDE_BARRIER_H
#define RINGSIDE_BARRIER_H

#include <stdint.h>

#include "ringside/abi.h"

/* A */
static inline void rs_publish_head(struct rs_ctrl_page *c, uint64_t head)
{
	__atomic_store_n(&c->data_head, head, __ATOMIC_RELEASE);
}

/* C */
static inline uint64_t rs_read_head(const struct rs_ctrl_page *c)
{
	return __atomic_load_n(&c->data_head, __ATOMIC_ACQUIRE);
}

/* D */
static inline void rs_publish_tail(struct rs_ctrl_page *c, uint64_t tail)
{
	__atomic_store_n(&c->data_tail, tail, __ATOMIC_RELEASE);
}

/* B */
static inline uint64_t rs_read_tail(const struct rs_ctrl_page *c)
{
	return __atomic_load_n(&c->data_tail, __ATOMIC_ACQUIRE);
}

/* A, C, D, B for the AUX area. */
static inline void rs_publish_aux_head(struct rs_ctrl_page *c, uint64_t head)
{
	__atomic_store_n(&c->aux_head, head, __ATOMIC_RELEASE);
}

static inline uint64_t rs_read_aux_head(const struct rs_ctrl_page *c)
{
	return __atomic_load_n(&c->aux_head, __ATOMIC_ACQUIRE);
}

static inline void rs_publish_aux_tail(struct rs_ctrl_page *c, uint64_t tail)
{
	__atomic_store_n(&c->aux_tail, tail, __ATOMIC_RELEASE);
}

static inline uint64_t rs_read_aux_tail(const struct rs_ctrl_page *c)
{
	return __atomic_load_n(&c->aux_tail, __ATOMIC_ACQUIRE);
}

/* E: announce a write frontier, ordered before the bytes that follow. */
static inline void rs_announce(uint64_t *frontier, uint64_t value)
{
	__atomic_store_n(frontier, value, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/*
 * E for a backward-moving frontier with nested writers: only ever lower it
 * (in ring order), so an interrupted writer cannot put back a stale value.
 * No other CPU writes it; the CAS is against same-CPU nesting.
 */
static inline void rs_announce_lower(uint64_t *frontier, uint64_t value)
{
	uint64_t cur = __atomic_load_n(frontier, __ATOMIC_RELAXED);

	while ((int64_t)(cur - value) > 0 &&
	       !__atomic_compare_exchange_n(frontier, &cur, value, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/* F: re-read a frontier, ordered after the bytes copied before. */
static inline uint64_t rs_reread_frontier(const uint64_t *frontier)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(frontier, __ATOMIC_RELAXED);
}

/* Hints with no ordering: statistics, status, configuration. */
static inline uint64_t rs_load_hint(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint32_t rs_load_hint32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void rs_store_hint(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Same-CPU atomics for nested writers (see "Nesting" above). */
static inline uint64_t rs_local_read(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline int rs_local_cmpxchg(uint64_t *p, uint64_t old, uint64_t new_value)
{
	return __atomic_compare_exchange_n(p, &old, new_value, 0,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static inline uint64_t rs_local_xchg(uint64_t *p, uint64_t v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
}

static inline void rs_local_add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline void rs_local_inc32(uint32_t *p)
{
	__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
}

/* Returns the value after the decrement. */
static inline uint32_t rs_local_dec32(uint32_t *p)
{
	return __atomic_sub_fetch(p, 1, __ATOMIC_RELAXED);
}

static inline void rs_local_set32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint32_t rs_local_read32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Keeps the compiler from moving accesses across it (same-CPU nesting). */
static inline void rs_compiler_barrier(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#endif /* RINGSIDE_BARRIER_H */
