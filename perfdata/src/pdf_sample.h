/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: moving PERF_RECORD_SAMPLE bodies between the
 * guest's layout and the file's (the shared sample-id fields added).  Only
 * the bits in PDF_SAMPLE_KNOWN are understood; pdf_sample_parse() and
 * pdf_sample_build() are public (ringside/perfdata/sample.h).
 */
#ifndef RINGSIDE_PDF_SAMPLE_H
#define RINGSIDE_PDF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "pdf_format.h"

/*
 * The guest sample @in (type @guest_type) as the file's sample, the
 * shared sample-id fields @base added (IDENTIFIER, TIME and CPU always;
 * TID where @base has it): IDENTIFIER @id first, TIME = @time (the time the
 * record is filed under: the guest's own, converted to ns where the region
 * says how), CPU = @ring (a guest CPU value is replaced), a TID the guest
 * did not give PDF_NO_PID twice.  Writes at most @out_size bytes; returns
 * the size.  PDF_ERR(pdfe_format), PDF_ERR(pdfe_too_big).
 */
int pdf_sample_widen(uint64_t guest_type, uint64_t base, uint64_t id,
		     uint32_t ring, uint64_t time,
		     const struct rs_perf_header *in, void *out,
		     size_t out_size);

/*
 * The reverse: the file's sample @in, laid out for @file_type (@guest_type
 * with @base), back to the guest's layout @guest_type in @out (>= in->size
 * bytes), with the ring and the time it carried.  Returns the size.
 * PDF_ERR(pdfe_format).
 */
int pdf_sample_narrow(uint64_t guest_type, uint64_t base, uint64_t file_type,
		      const struct rs_perf_header *in, void *out,
		      uint32_t *ring, uint64_t *time);

/*
 * A whole PERF_RECORD_SAMPLE of @type (no CALLCHAIN) holding @s's fields,
 * written into @out (at most @out_size bytes); s->raw may point into @out
 * at or after where the RAW bytes go.  Returns its size.
 * PDF_ERR(pdfe_invalid), PDF_ERR(pdfe_too_big).
 */
int pdf_sample_put(uint64_t type, uint16_t misc, const struct pdf_sample *s,
		   void *out, size_t out_size);

#endif /* RINGSIDE_PDF_SAMPLE_H */
