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
 * A record's header is its seal (normal mode).  The producer writes the
 * body first and the header last, and once it took a reservation it
 * clears the header slot that follows it (putting back a header that a
 * writer nested into it sealed there meanwhile, rs_slot_clear in
 * producer_inline.h),
 * so records past data_head can be found by walking headers until a zero
 * one:
 *
 *   take the reservation                   T: h = load-acquire(header)
 *   S1: store(next header slot, 0)         h == 0: stop, nothing further
 *   write record bytes                     else read the record's bytes
 *   S2: store-release(header, h)
 *
 *   S2 pairs with T: a reader that sees a header sees the record's bytes
 *   and the cleared slot after it (or the newer header sealed there), so
 *   it never takes a torn record or a stale one from an earlier lap.
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

/* S1: clear the header slot after a reservation, before sealing it. */
static inline void rs_header_clear(uint64_t *slot)
{
	__atomic_store_n(slot, 0, __ATOMIC_RELAXED);
}

/* S2: seal a record: its header, after every byte of its body. */
static inline void rs_header_seal(uint64_t *slot, uint64_t header)
{
	__atomic_store_n(slot, header, __ATOMIC_RELEASE);
}

/* T: a header past data_head, before the bytes it covers are read. */
static inline uint64_t rs_header_peek(const uint64_t *slot)
{
	return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* S0: ext.flags' RS_EXT_SEALED, after the slot it vouches for was cleared. */
static inline void rs_release(uint64_t *flags, uint64_t value)
{
	__atomic_store_n(flags, value, __ATOMIC_RELEASE);
}

static inline uint64_t rs_acquire(const uint64_t *flags)
{
	return __atomic_load_n(flags, __ATOMIC_ACQUIRE);
}

/* E: announce a write frontier, ordered before the bytes that follow. */
static inline void rs_announce(uint64_t *frontier, uint64_t value)
{
	__atomic_store_n(frontier, value, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/* F: re-read a frontier, ordered after the bytes copied before. */
static inline uint64_t rs_reread(const uint64_t *frontier)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(frontier, __ATOMIC_RELAXED);
}

/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS): the consumer's state word
 * (rs_ctrl_host.consumer) against data_head, store then load on each side,
 * so each side needs a full fence between its store and its load (a
 * release/acquire pair does not order a store before a later load):
 *
 *   consumer (host)                        producer (guest)
 *   --------------                         ----------------
 *   W: store(consumer, WAKE)               A: store-release(data_head, h)
 *      full fence                          X: full fence
 *   C: h = load-acquire(data_head)            s = load(consumer)
 *   h moved: do not sleep                  s == POLLING: skip the doorbell
 *
 * W/C against A/X: in any interleaving one side's load sees the other's
 * store, so a producer that skips the doorbell had its head seen by a
 * consumer that then does not sleep (abi/model/doorbell.pml checks this).
 * Storing POLLING needs no fence: until the next W the consumer is awake.
 */

/* W */
static inline void rs_consumer_state_sleep(uint32_t *state)
{
	__atomic_store_n(state, RS_CONSUMER_WAKE, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void rs_consumer_state_poll(uint32_t *state)
{
	__atomic_store_n(state, RS_CONSUMER_POLLING, __ATOMIC_RELAXED);
}

/* X: after the head was published. */
static inline uint32_t rs_consumer_state_read(const uint32_t *state)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(state, __ATOMIC_RELAXED);
}

/*
 * The region header:
 *
 *   host                                   guest
 *   ----                                   -----
 *   write the layout and config
 *   I: store-release(magic)                check the magic, copy the layout
 *   change config fields
 *   K: store-release(config.enabled, e)    L: e = load-acquire(config.enabled)
 *                                          load the config fields
 *                                          store the status fields
 *   read the status fields (hints)         M: store-release(status.attached)
 *
 * K pairs with L: a guest that sees enabled = 1 sees every configuration
 * field the host stored before it.  The magic goes last (I), so a layout
 * read after the guest saw it is complete; the host lays a region out
 * before any guest runs on it.  M orders the status fields before attached
 * for a host that reads attached first; it treats all of them as hints.
 */

/* I */
static inline void rs_release(uint64_t *magic, uint64_t value)
{
	__atomic_store_n(magic, value, __ATOMIC_RELEASE);
}

/* K */
static inline void rs_release(uint32_t *enabled, uint32_t value)
{
	__atomic_store_n(enabled, value, __ATOMIC_RELEASE);
}

/* L */
static inline uint32_t rs_acquire(const uint32_t *enabled)
{
	return __atomic_load_n(enabled, __ATOMIC_ACQUIRE);
}

/* M */
static inline void rs_release(uint32_t *attached, uint32_t value)
{
	__atomic_store_n(attached, value, __ATOMIC_RELEASE);
}

/* A counter several CPUs may bump at once (the guest's heartbeat: every
 * vCPU of a freestanding agent beats it), published with release. */
static inline void rs_heartbeat_inc(uint64_t *p)
{
	__atomic_fetch_add(p, 1, __ATOMIC_RELEASE);
}

/*
 * Words outside the ring protocol that threads or processes share (a boot
 * report, a VMM's counters, a test's handshake): ringside/shared.h wraps
 * these out of line, so that this header stays the only place with atomics.
 */
static inline uint32_t rs_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void rs_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint64_t rs_acquire(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void rs_release(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void rs_add_hint(uint64_t *p, uint64_t n)
{
	__atomic_fetch_add(p, n, __ATOMIC_RELAXED);
}

/*
 * The control page's time fields sit under perf's seqcount `lock`; only the
 * host writes them:
 *
 *   writer                                 reader
 *   G1: store(lock, odd); release fence    H1: s = load-acquire(lock)
 *   store the fields                       load the fields
 *   G2: store-release(lock, odd + 1)       H2: acquire fence; load(lock)
 *
 * G1 pairs with H2: a reader that loaded any field value stored after G1
 * sees lock != s.  G2 pairs with H1: a reader that sees the even value
 * sees every field stored before it.  Same s, and even: a consistent set.
 */
static inline uint32_t rs_seqcount_write_begin(uint32_t *lock)
{
	uint32_t s = __atomic_load_n(lock, __ATOMIC_RELAXED) | 1u;

	__atomic_store_n(lock, s, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s;
}

static inline void rs_seqcount_write_end(uint32_t *lock, uint32_t s)
{
	__atomic_store_n(lock, s + 1, __ATOMIC_RELEASE);
}

static inline uint32_t rs_seqcount_read_begin(const uint32_t *lock)
{
	return __atomic_load_n(lock, __ATOMIC_ACQUIRE);
}

/* 1 when the fields loaded since read_begin returned @s are consistent. */
static inline int rs_seqcount_read_ok(const uint32_t *lock, uint32_t s)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(s & 1u) && __atomic_load_n(lock, __ATOMIC_RELAXED) == s;
}

/*
 * Time synchronization (struct rs_time_sync in the region header):
 *
 *   host                                   guest
 *   ----                                   -----
 *   T1: store-release(request, w)          T2: w = load-acquire(request)
 *   t1 = now(); store(host_time, t1)
 *   P: store-release(seq, s)               Q: s = load-acquire(seq)
 *                                          g = now(); store(guest_time, g)
 *   R: e = load-acquire(echo)              E: store-release(echo, s)
 *   load(guest_time)
 *   R2: acquire fence; e2 = load(echo)
 *   t2 = now()
 *
 * P pairs with Q: a guest that sees seq s sees host_time of that ping.
 * E pairs with R: a host that sees echo == s sees the guest_time stored
 * for s.  R2 re-reads echo after guest_time: a guest that rewrote its
 * cells meanwhile is caught (echo changed) and the answer refused.  The
 * host reads time before P and after R2 with its own clock: whatever the
 * guest's clock said lies between t1 and t2 if the guest is honest.
 */
static inline void rs_release(uint64_t *seq, uint64_t s)       /* P */
{
	__atomic_store_n(seq, s, __ATOMIC_RELEASE);
}

static inline uint64_t rs_acquire(const uint64_t *seq)          /* Q */
{
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

static inline void rs_release(uint64_t *echo, uint64_t s)     /* E */
{
	__atomic_store_n(echo, s, __ATOMIC_RELEASE);
}

static inline uint64_t rs_acquire(const uint64_t *echo)        /* R */
{
	return __atomic_load_n(echo, __ATOMIC_ACQUIRE);
}

static inline uint64_t rs_reread(const uint64_t *echo)      /* R2 */
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(echo, __ATOMIC_RELAXED);
}

/* Hints with no ordering: statistics, status, configuration. */
static inline uint64_t rs_load_hint(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint32_t rs_load_hint(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint16_t rs_load_hint(const uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void rs_store_hint(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void rs_store_hint(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void rs_store_hint(uint16_t *p, uint16_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/*
 * Same-CPU atomics for nested writers (see "Nesting" above).  On x86 a
 * single read-modify-write instruction cannot be split by an interrupt on
 * the same CPU, so no lock prefix is needed (the kernel's local_t does the
 * same); a lock prefix would also wait for the record's stores to drain to
 * the consumer's core.  Elsewhere, fall back to relaxed atomics.
 */
static inline uint64_t rs_local_read(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint32_t rs_local_read(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void rs_local_set32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

#if defined(__x86_64__)
static inline int rs_local_cmpxchg(uint64_t *p, uint64_t old, uint64_t new_value)
{
	uint64_t prev;

	__asm__ volatile("cmpxchgq %2, %1"
			 : "=a"(prev), "+m"(*p)
			 : "r"(new_value), "0"(old)
			 : "memory", "cc");
	return prev == old;
}

static inline uint64_t rs_local_xchg(uint64_t *p, uint64_t v)
{
	/* xchg with memory is always locked; a cmpxchg loop is not. */
	uint64_t old = rs_local_read(p);

	while (!rs_local_cmpxchg(p, old, v))
		old = rs_local_read(p);
	return old;
}

static inline void rs_local_add(uint64_t *p, uint64_t v)
{
	__asm__ volatile("addq %1, %0" : "+m"(*p) : "er"(v) : "memory", "cc");
}

static inline void rs_local_inc32(uint32_t *p)
{
	__asm__ volatile("incl %0" : "+m"(*p) : : "memory", "cc");
}

/* Returns the value after the decrement. */
static inline uint32_t rs_local_dec32(uint32_t *p)
{
	__asm__ volatile("decl %0" : "+m"(*p) : : "memory", "cc");
	return rs_local_read(p);
}
#else
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

static inline uint32_t rs_local_dec32(uint32_t *p)
{
	return __atomic_sub_fetch(p, 1, __ATOMIC_RELAXED);
}
#endif

/*
 * E for a backward-moving frontier with nested writers: only ever lower it
 * (in ring order), so an interrupted writer cannot put back a stale value.
 * No other CPU writes it; the CAS is against same-CPU nesting.
 */
static inline void rs_announce_lower(uint64_t *frontier, uint64_t value)
{
	uint64_t cur = __atomic_load_n(frontier, __ATOMIC_RELAXED);

	while ((int64_t)(cur - value) > 0 && !rs_local_cmpxchg(frontier, cur, value))
		cur = __atomic_load_n(frontier, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/* Keeps the compiler from moving accesses across it (same-CPU nesting). */
static inline void rs_compiler_barrier(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#endif /* RINGSIDE_BARRIER_H */
