/* SPDX-License-Identifier: MIT */
/*
 * Ring records as the host sees them (perfdata/src/pdf_rrec.c): their
 * class, the perf body of each, the time a record is filed under.
 */
#ifndef RINGSIDE_PERFDATA_RREC_H
#define RINGSIDE_PERFDATA_RREC_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Record classes in reports, in display order. */
enum pdf_rrec_class {
	PDF_RREC_SEQ = 0,
	PDF_RREC_MARKER,
	PDF_RREC_SAMPLE,
	PDF_RREC_LOST,
	PDF_RREC_AUX,
	PDF_RREC_ITRACE_START,
	PDF_RREC_LOST_SAMPLES,
	PDF_RREC_COMM,         /* a thread's name: pid, tid, NUL-terminated comm */
	PDF_RREC_MMAP2,        /* a mapping of a process: PERF_RECORD_MMAP2 */
	PDF_RREC_OTHER,        /* unknown type, or malformed for its type */
	PDF_RREC_MAX
};

/* The class of @rec: PDF_RREC_OTHER unless its type is known and its size
 * holds what the type needs (for a sample: against @sample_type). */
enum pdf_rrec_class pdf_rrec_classify(const struct rs_perf_header *rec,
				      uint64_t sample_type);

/*
 * The body bytes perf reads of @rec, one of perf's non-sample types that
 * ringside knows (LOST, AUX, ITRACE_START, LOST_SAMPLES: their struct; COMM:
 * pid, tid and the name with its NUL, padded to 8 bytes as perf pads it;
 * MMAP2: its 64 fixed bytes and the file name the same way).  Anything
 * after that (a guest's sample_id trailer) is not counted.  0 for another
 * type, or a record too short for its type (a COMM or MMAP2 whose name has
 * no NUL, or whose padding runs past the record), or an MMAP2 perf could
 * not take safely (see PDF_MMAP2_NAME_MAX).
 */
size_t pdf_rrec_perf_body(const struct rs_perf_header *rec);

/* PERF_RECORD_MMAP2's fixed part is struct rs_perf_mmap2_body
 * (ringside/perf_format.h).  A guest's MMAP2 is refused (classified
 * OTHER, carried whole) when the build id's size is over 20 (perf 6.1
 * copies that many bytes into a 20-byte array) or its name is empty,
 * PDF_MMAP2_NAME_MAX bytes or longer (perf's PATH_MAX) or has a ".."
 * component (which the kernel never writes, and which would lead perf out
 * of its --symfs tree). */
#define PDF_MMAP2_NAME_MAX 4096u

/* 1 if perf can take the @len bytes at @name (no NUL among them) as an
 * MMAP2's file name: not empty, shorter than PDF_MMAP2_NAME_MAX, no NUL
 * and no ".." component.  The one rule for a guest's MMAP2 in a ring
 * (pdf_rrec_perf_body) and for a name of its process table (introspect's
 * gpstate), so that what one accepts the other encodes. */
int pdf_rrec_mmap2_name_ok(const char *name, size_t len);

/* Short names: "seq", "marker", "sample", "LOST", ... */
const char *pdf_rrec_class_name(enum pdf_rrec_class cls);
/* Names for JSON keys: "seq", "marker", "sample", "lost", ... */
const char *pdf_rrec_class_key(enum pdf_rrec_class cls);

/* Per ring: the time of the last record that carried one, and how the
 * producer's clock converts to ns (time_mult 0: it is taken as ns). */
struct pdf_rrec_clock {
	uint64_t last;
	struct rs_time_conv conv;
};

/* A clock for ring @index of @region, with the conversion its control page
 * publishes (a ringside VMM: guest TSC to host CLOCK_MONOTONIC ns).
 * Returns 1 with a conversion, 0 without. */
int pdf_rrec_clock_init(struct pdf_rrec_clock *clk,
			const struct rs_region *region, uint32_t index);

/*
 * The time @rec is filed under, in ns: its own (SEQ, MARKER, a sample with
 * TIME) converted with the clock's conversion, else the ring's last one.
 * Moves the clock forward.
 */
uint64_t pdf_rrec_stamp(struct pdf_rrec_clock *clk,
			const struct rs_perf_header *rec, uint64_t sample_type);

/* 1 if @rec carries its own time (SEQ, MARKER, a sample with TIME whose
 * layout ringside checks), 0 if it is filed under another record's. */
int pdf_rrec_timed(const struct rs_perf_header *rec, uint64_t sample_type);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_RREC_H */
