/* SPDX-License-Identifier: MIT */
/*
 * Time synchronization: the host's and the guest's cells in the region
 * header (abi_region.h).
 */
#ifndef RINGSIDE_ABI_TSYNC_H
#define RINGSIDE_ABI_TSYNC_H

#include <stddef.h>
#include <stdint.h>

/*
 * Time synchronization cells, at offset 640 of the region header: the
 * host's cells and the guest's on separate 64-byte lines.  The host
 * opens a window (request = a nonzero window id), then pings: host_time,
 * then seq with release semantics.  The guest, while the window is open,
 * answers each new seq: guest_time, then echo = seq with release
 * semantics.  The host reads echo with acquire semantics, guest_time, then
 * echo again; it closes the window with request = 0.  docs/abi.md
 * ("Time synchronization") has the whole exchange.  Every guest cell is a
 * claim the host bounds and checks.
 */
#define RS_TSYNC_OFFSET   640u
#define RS_TSYNC_CLOCK_MONOTONIC 1u  /* Linux's CLOCK_MONOTONIC */

struct rs_time_sync {
	/* host line */
	uint32_t request;         /* host: window id while open, 0 closed */
	uint32_t host_clock;      /* host: its clock (RS_TSYNC_CLOCK_*) */
	uint64_t seq;             /* host: the ping, store-release last */
	uint64_t host_time;       /* host: its clock when it pinged (a hint) */
	uint64_t reserved_host[5];
	/* guest line, offset 64 */
	uint64_t echo;            /* guest: the seq answered, store-release last */
	uint64_t guest_time;      /* guest: its clock when it saw seq, ns */
	uint32_t window;          /* guest: the window it answers */
	uint32_t guest_clock;     /* guest: the clock of guest_time */
	uint64_t answers;         /* guest: answers given, total (a hint) */
	uint64_t reserved_guest[4];
};
_Static_assert(sizeof(struct rs_time_sync) == 128, "rs_time_sync layout");
_Static_assert(offsetof(struct rs_time_sync, echo) == 64, "guest line");

#endif /* RINGSIDE_ABI_TSYNC_H */
