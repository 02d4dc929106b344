/* SPDX-License-Identifier: MIT */
/*
 * The control page of each ring: perf's struct perf_event_mmap_page byte
 * for byte where perf defines it, ringside's guest-written extension and
 * the host's consumer state in its reserved parts.
 */
#ifndef RINGSIDE_ABI_CTRL_H
#define RINGSIDE_ABI_CTRL_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/abi_region.h"

/*
 * ringside's guest-written extension of the control page, stored in the
 * reserved part of perf's layout.  All values are hints for the host.
 */
struct rs_ctrl_ext {
	uint64_t write_head;      /* overwrite mode: lowest reserved position */
	uint64_t aux_write_limit; /* AUX snapshot mode: bytes below may be written */
	uint64_t produced;        /* records committed */
	uint64_t lost;            /* records dropped, total */
	uint64_t aux_truncated;   /* AUX records flagged TRUNCATED */
	uint64_t doorbells;       /* doorbells the producer asked for */
	uint64_t flags;           /* RS_EXT_* */
	uint64_t suppressed;      /* doorbells due but not rung: the consumer
				   * polled (RS_FEATURE_EVENT_SUPPRESS) */
};

/* rs_ctrl_ext.flags (guest claims, like every field of the page). */
enum rs_ext_flag {
	/* Normal mode: records are sealed by their header, stored last, and
	 * the header slot after the last record is zero, so committed
	 * records past data_head can be found (docs/abi.md, "Publication"). */
	RS_EXT_SEALED = 1u << 0,
};
_Static_assert(sizeof(struct rs_ctrl_ext) == 64, "rs_ctrl_ext layout");

/* rs_ctrl_page.capabilities bits, perf's (cap_user_time, cap_user_time_zero):
 * the host published time_shift/time_mult/time_zero. */
enum rs_ctrl_cap {
	RS_CAP_USER_TIME      = 1u << 3,
	RS_CAP_USER_TIME_ZERO = 1u << 4,
};

/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS): what the ring's consumer
 * is doing, host-written, at offset 1152 of the control page (past perf's
 * layout, on a 128-byte pair of lines of its own, away from data_head's).
 * The zero a layout leaves means "ring": a consumer that never publishes
 * its state gets every doorbell, as without the feature.
 *
 *   consumer (host)                         producer (guest)
 *   store(consumer, RS_CONSUMER_WAKE)       store-release(data_head, h)
 *   full fence                              full fence
 *   re-read data_head (and aux_head):       c = load(consumer)
 *     moved: drain instead of sleeping      doorbell due and c != POLLING:
 *     else: sleep on the doorbell             ring it; else count it
 *   woken: store(consumer, RS_CONSUMER_POLLING), drain
 *
 * One of the two fences comes first: either the producer sees WAKE and
 * rings, or the consumer sees the new head and does not sleep.  The word
 * only saves doorbells; a guest that writes it harms its own tracing only.
 */
enum rs_consumer_state {
	RS_CONSUMER_WAKE    = 0, /* asleep or about to sleep (or silent): ring */
	RS_CONSUMER_POLLING = 1, /* awake and reading: the doorbell may wait */
};

struct rs_ctrl_host {
	uint32_t consumer;        /* enum rs_consumer_state */
	uint32_t reserved0;
	uint64_t reserved[7];
};
_Static_assert(sizeof(struct rs_ctrl_host) == 64, "rs_ctrl_host layout");

#define RS_CTRL_HOST_OFFSET 1152u

/*
 * One per ring.  Byte for byte struct perf_event_mmap_page for the fields
 * perf defines; data_offset and aux_offset count from this page.
 */
struct rs_ctrl_page {
	uint32_t version;
	uint32_t compat_version;
	uint32_t lock;            /* seqcount over the time fields */
	uint32_t index;
	int64_t offset;
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t capabilities;
	uint16_t pmc_width;
	uint16_t time_shift;      /* host: guest TSC -> ns, perf's scheme */
	uint32_t time_mult;
	uint64_t time_offset;
	uint64_t time_zero;
	uint32_t size;
	uint32_t reserved_1;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t reserved_perf[512 - 96];
	struct rs_ctrl_ext ext;   /* offset 512, guest */
	uint8_t reserved_2[1024 - 576];
	uint64_t data_head;       /* guest */
	uint64_t data_tail;       /* host */
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t aux_head;        /* guest */
	uint64_t aux_tail;        /* host */
	uint64_t aux_offset;
	uint64_t aux_size;
	uint8_t reserved_3[RS_CTRL_HOST_OFFSET - 1088];
	struct rs_ctrl_host host; /* offset 1152, host */
	uint8_t reserved_4[RS_PAGE_SIZE - RS_CTRL_HOST_OFFSET - 64];
};
_Static_assert(offsetof(struct rs_ctrl_page, time_shift) == 50, "time_shift");
_Static_assert(offsetof(struct rs_ctrl_page, time_mult) == 52, "time_mult");
_Static_assert(offsetof(struct rs_ctrl_page, time_zero) == 64, "time_zero");
_Static_assert(offsetof(struct rs_ctrl_page, ext) == 512, "ext");
_Static_assert(offsetof(struct rs_ctrl_page, data_head) == 1024, "data_head");
_Static_assert(offsetof(struct rs_ctrl_page, data_tail) == 1032, "data_tail");
_Static_assert(offsetof(struct rs_ctrl_page, data_offset) == 1040, "data_offset");
_Static_assert(offsetof(struct rs_ctrl_page, data_size) == 1048, "data_size");
_Static_assert(offsetof(struct rs_ctrl_page, aux_head) == 1056, "aux_head");
_Static_assert(offsetof(struct rs_ctrl_page, aux_tail) == 1064, "aux_tail");
_Static_assert(offsetof(struct rs_ctrl_page, aux_offset) == 1072, "aux_offset");
_Static_assert(offsetof(struct rs_ctrl_page, aux_size) == 1080, "aux_size");
_Static_assert(offsetof(struct rs_ctrl_page, host) == RS_CTRL_HOST_OFFSET, "host");
_Static_assert(sizeof(struct rs_ctrl_page) == RS_PAGE_SIZE, "ctrl is one page");

#endif /* RINGSIDE_ABI_CTRL_H */
