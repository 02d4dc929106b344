/* SPDX-License-Identifier: MIT */
/*
 * Ring records as the host sees them: which types ringside knows, whether a
 * record is well formed for its type, and the time it is filed under.
 */
#ifndef RINGSIDE_CLI_RREC_H
#define RINGSIDE_CLI_RREC_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/abi.h"

/* Record classes in reports, in display order. */
enum rrec_class {
	RREC_SEQ = 0,
	RREC_MARKER,
	RREC_SAMPLE,
	RREC_LOST,
	RREC_AUX,
	RREC_ITRACE_START,
	RREC_LOST_SAMPLES,
	RREC_COMM,         /* a thread's name: pid, tid, NUL-terminated comm */
	RREC_OTHER,        /* unknown type, or malformed for its type */
	RREC_MAX
};

/* The class of @rec: RREC_OTHER unless its type is known and its size
 * holds what the type needs (for a sample: against @sample_type). */
enum rrec_class rrec_classify(const struct rs_perf_header *rec,
			      uint64_t sample_type);

/*
 * The body bytes perf reads of @rec, one of perf's non-sample types that
 * ringside knows (LOST, AUX, ITRACE_START, LOST_SAMPLES: their struct; COMM:
 * pid, tid and the name with its NUL, padded to 8 bytes as perf pads it).
 * Anything after that (a guest's sample_id trailer) is not counted.  0 for
 * another type, or a record too short for its type (a COMM whose name has
 * no NUL, or whose padding runs past the record).
 */
size_t rrec_perf_body(const struct rs_perf_header *rec);

/* Short names: "seq", "marker", "sample", "LOST", ... */
const char *rrec_class_name(enum rrec_class cls);
/* Names for JSON keys: "seq", "marker", "sample", "lost", ... */
const char *rrec_class_key(enum rrec_class cls);

#include "ringside/ring.h"

/* Per ring: the time of the last record that carried one, and how the
 * producer's clock converts to ns (time_mult 0: it is taken as ns). */
struct rrec_clock {
	uint64_t last;
	struct rs_time_conv conv;
};

/* A clock for ring @index of @region, with the conversion its control page
 * publishes (a ringside VMM: guest TSC to host CLOCK_MONOTONIC ns).
 * Returns 1 with a conversion, 0 without. */
int rrec_clock_init(struct rrec_clock *clk, const struct rs_region *region,
		    uint32_t index);

/*
 * The time @rec is filed under, in ns: its own (SEQ, MARKER, a sample with
 * TIME) converted with the clock's conversion, else the ring's last one.
 * Moves the clock forward.
 */
uint64_t rrec_stamp(struct rrec_clock *clk, const struct rs_perf_header *rec,
		    uint64_t sample_type);

#endif /* RINGSIDE_CLI_RREC_H */
