/* SPDX-License-Identifier: MIT */
/*
 * One ring's control page, beside its records: its positions and counters
 * read once for display (ring.c), the producer clock's conversion to
 * nanoseconds that the host publishes there (ring.c; time.c converts), and
 * a reader's half of perf's own ring contract (perf_page.c).
 */
#ifndef RINGSIDE_RING_CTRL_H
#define RINGSIDE_RING_CTRL_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One ring's shared positions and counters, each read once. */
struct rs_ring_state {
	uint64_t data_head;
	uint64_t data_tail;
	uint64_t aux_head;
	uint64_t aux_tail;
	uint64_t write_head;      /* overwrite mode frontier */
	uint64_t produced;        /* guest hints from rs_ctrl_ext */
	uint64_t lost;
	uint64_t aux_truncated;
	uint64_t doorbells;
	uint64_t suppressed;      /* doorbells due but not rung (polling) */
	uint32_t consumer;        /* rs_ctrl_host.consumer (host-written) */
	uint32_t reserved;
};

/* Read @ring's state (for display: the guest may write any of it).
 * -rse_invalid. */
int rs_ring_state_read(const struct rs_ring *ring, struct rs_ring_state *st);

/*
 * Producer clock to nanoseconds, perf's cap_user_time_zero scheme:
 *   ns = time_zero + (t >> time_shift) * time_mult
 *                  + (((t & ((1 << time_shift) - 1)) * time_mult) >> time_shift)
 * A ringside VMM converts the guest TSC to host CLOCK_MONOTONIC this way.
 */
struct rs_time_conv {
	uint64_t time_zero;
	uint32_t time_mult;       /* 0: no conversion */
	uint16_t time_shift;      /* < 64 */
	uint16_t reserved;
};

/* @t in nanoseconds; @t itself when @tc is NULL or has no multiplier. */
uint64_t rs_time_to_ns(const struct rs_time_conv *tc, uint64_t t);

/*
 * Host: publish @tc in @ring's control page (time fields under the lock
 * seqcount, cap_user_time and cap_user_time_zero set).  -rse_invalid
 * (NULL, time_mult 0 or time_shift >= 64).
 */
int rs_ring_time_publish(const struct rs_ring *ring,
			 const struct rs_time_conv *tc);

/*
 * Read the conversion published in @ring's control page, once.  Returns 1
 * with @tc filled, 0 when none is published (@tc zeroed: times stay as the
 * producer wrote them).  The page is guest-writable: a torn or implausible
 * value (shift >= 64, zero multiplier, a seqcount that never settles) reads
 * as "none".  -rse_invalid.
 */
int rs_ring_time_read(const struct rs_ring *ring, struct rs_time_conv *tc);

/*
 * A reader of a perf ring buffer (Linux's own, whose mmap page has the
 * control page's layout: struct rs_ctrl_page): load-acquire data_head
 * before reading the records below it, store-release data_tail after.
 */
uint64_t rs_perf_page_read_head(const struct rs_ctrl_page *page);
void rs_perf_page_publish_tail(struct rs_ctrl_page *page, uint64_t tail);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_CTRL_H */
