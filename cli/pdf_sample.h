/* SPDX-License-Identifier: MIT */
/*
 * PERF_RECORD_SAMPLE bodies: parse one against a sample_type, and move
 * between the guest's layout and the file's (IDENTIFIER, TIME and CPU
 * added).  Only the bits in PDF_SAMPLE_KNOWN are understood.
 */
#ifndef RINGSIDE_CLI_PDF_SAMPLE_H
#define RINGSIDE_CLI_PDF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perf_format.h"

struct pdf_sample {
	uint64_t identifier, ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu, cpu_res;
	uint64_t callchain_nr;
	uint32_t raw_size;
	size_t raw_offset;   /* of the raw bytes in the body */
	size_t len;          /* body bytes the fields take */
};

/*
 * Parse @len bytes of sample body laid out for @type into @s.
 * -(ERR_PDF + pdfe_format): unknown bits or fields past @len.
 */
int pdf_sample_parse(uint64_t type, const void *body, size_t len,
		     struct pdf_sample *s);

/*
 * The guest sample @in (type @guest_type) as the file's sample: IDENTIFIER
 * @id first, TIME = @time (the time the record is filed under: the guest's
 * own, converted to ns where the region says how), CPU = @ring (a guest
 * CPU value is replaced).  Writes at most @out_size bytes; returns the size.
 * -(ERR_PDF + pdfe_format), -(ERR_PDF + pdfe_too_big).
 */
int pdf_sample_widen(uint64_t guest_type, uint64_t id, uint32_t ring,
		     uint64_t time, const struct rs_perf_header *in,
		     void *out, size_t out_size);

/*
 * The reverse: the file's sample @in, laid out for @file_type, back to the
 * guest's layout @guest_type in @out (>= in->size bytes), with the ring and
 * the time it carried.  Returns the size.  -(ERR_PDF + pdfe_format).
 */
int pdf_sample_narrow(uint64_t guest_type, uint64_t file_type,
		      const struct rs_perf_header *in, void *out,
		      uint32_t *ring, uint64_t *time);

#endif /* RINGSIDE_CLI_PDF_SAMPLE_H */
