/* SPDX-License-Identifier: MIT */
/*
 * Time synchronization, host and guest (tsync.c): the guest's clock
 * against the host's, through the region header's time_sync cells.
 */
#ifndef RINGSIDE_RING_TSYNC_H
#define RINGSIDE_RING_TSYNC_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The guest's clock against the host's, through the region's time_sync
 * cells (abi.h, docs/abi.md): no exit per exchange.  The host pings, the
 * guest echoes each ping with its clock; per round
 *   offset = guest - (t1 + t2) / 2,  bound = (t2 - t1) / 2
 * where t1 and t2 are the host's clock before the ping and after the echo,
 * and the round with the smallest bound wins.  Host time of a guest time g
 * is then g - offset, within +-bound.  Clocks come from the caller (ring/
 * has no libc): @now returns ns; @relax, if set, is called between polls
 * while the host waits for the guest to notice the window (a short sleep)
 * or inside a guest burst (a pause instruction).
 */
struct rs_tsync_clock {
	uint64_t (*now)(void *arg);
	void (*relax)(void *arg);
	void *arg;
};

#define RS_TSYNC_MAX_ROUNDS 64u

struct rs_tsync_params {
	uint32_t rounds;          /* valid rounds wanted, 1 .. max_rounds */
	uint32_t host_clock;      /* RS_TSYNC_CLOCK_* of @now, told to the guest */
	uint64_t wait_ns;         /* longest wait for the first answer */
	uint64_t round_ns;        /* longest wait for each later answer */
	uint32_t max_rounds;      /* valid rounds at most, rounds ..
				   * RS_TSYNC_MAX_ROUNDS: more rounds while
				   * the best bound is above target_ns */
	uint32_t reserved;
	uint64_t target_ns;       /* a bound good enough to stop at @rounds */
};

/* Defaults: 16 rounds (up to 64 while the best bound is above 20 us),
 * CLOCK_MONOTONIC, 1 s for the first answer (the Linux agent looks at the
 * window at least every 50 ms), 60 ms for each later one (a guest whose
 * burst ended answers at its next look). */
void rs_tsync_params_init(struct rs_tsync_params *p);

struct rs_tsync_result {
	int64_t offset;           /* guest - host, ns, of the best round */
	uint64_t bound;           /* +- ns around offset */
	uint64_t host_time;       /* the best round's midpoint, host clock */
	uint64_t guest_time;      /* the guest's answer in that round */
	uint32_t window;          /* the window id used */
	uint32_t rounds;          /* valid rounds */
	uint32_t pings;           /* pings sent */
	uint32_t timeouts;        /* pings not answered in time */
	/* answers refused, and why (guest claims, counted, never used): */
	uint32_t wrong_seq;       /* an echo of a seq never asked */
	uint32_t torn;            /* the echo changed while guest_time was read */
	uint32_t backwards;       /* below an earlier answer of this window */
	uint32_t implausible;     /* 0, >= 2^63, or ahead of what the host's
				   * clock allows since the previous answer */
	uint32_t inconsistent;    /* valid rounds whose offset disagrees with
				   * the best round's beyond both bounds */
	uint32_t guest_clock;     /* the clock the guest says it answers with */
};

/* Answers refused, total (wrong_seq + torn + backwards + implausible). */
uint32_t rs_tsync_refused(const struct rs_tsync_result *r);

/*
 * Host: one synchronization window on the region laid out at @mem (page
 * aligned, mapped writable; only the header's time_sync cells are
 * touched, as rs_region_enable touches only its flag).  Opens the window,
 * pings until @p->rounds rounds were valid and the best bound is at most
 * @p->target_ns (or @p->max_rounds were valid), or the time runs out (at
 * most @p->wait_ns + @p->rounds * 2 * @p->round_ns; 3 pings in a row
 * without an answer end it too), closes it.  Every
 * answer is read once and checked; refused answers are counted in @res.
 * 0 with @res filled; -rse_timeout: the guest did not answer at all;
 * -rse_corrupt: it answered, but no answer was acceptable; -rse_invalid.
 * @res is filled in every case (counts for the message).
 */
int rs_tsync_host_run(void *mem, const struct rs_tsync_params *p,
		      const struct rs_tsync_clock *clk,
		      struct rs_tsync_result *res);

/* Guest: the answering side's state, private to it (rs_tsync_guest_*). */
struct rs_tsync_guest {
	uint64_t last_seq;      /* the seq answered last: never twice */
	uint64_t answers;
	uint32_t guest_clock;   /* RS_TSYNC_CLOCK_* of the answers */
	uint32_t window;
};

void rs_tsync_guest_init(struct rs_tsync_guest *g, uint32_t guest_clock);

/* Guest: 1 when the host has a window open, else 0 (one relaxed load:
 * cheap enough for every pass of a polling loop).  -rse_invalid. */
int rs_tsync_guest_pending(const struct rs_region *region);

/*
 * Guest: answer the host's pings for at most @max_ns (by @clk), or until
 * the window closes: each new seq once, with @clk->now().  The loop is
 * also bounded in iterations, whatever the clock does.  Returns the
 * answers given (0 when no window is open).  -rse_invalid.
 */
int rs_tsync_guest_answer(struct rs_tsync_guest *g,
			  const struct rs_region *region,
			  const struct rs_tsync_clock *clk, uint64_t max_ns);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_TSYNC_H */
