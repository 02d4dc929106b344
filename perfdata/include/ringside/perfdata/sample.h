/* SPDX-License-Identifier: MIT */
/*
 * PERF_RECORD_SAMPLE bodies (perfdata/src/pdf_sample.c).
 */
#ifndef RINGSIDE_PERFDATA_SAMPLE_H
#define RINGSIDE_PERFDATA_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata/buf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One PERF_RECORD_SAMPLE body.  The fields ringside understands are
 * IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN
 * and RAW; a sample_type with any other bit does not parse. */
struct pdf_sample {
	uint64_t identifier, ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu, cpu_res;
	uint64_t callchain_nr;
	const void *callchain; /* its callchain_nr u64 entries (not aligned) */
	uint32_t raw_size;
	const void *raw;     /* its raw_size bytes */
	size_t raw_offset;   /* of the raw bytes in the body */
	size_t len;          /* body bytes the fields take */
};

/*
 * Parse @len bytes of sample body laid out for @type into @s; callchain
 * and raw point into @body.  PDF_ERR(pdfe_format): unknown bits or fields
 * past @len.
 */
int pdf_sample_parse(uint64_t type, const void *body, size_t len,
		     struct pdf_sample *s);

/*
 * The reverse: append to @out a whole PERF_RECORD_SAMPLE (the header with
 * @misc and its size, then the body laid out for @type) holding @s's
 * fields: callchain_nr entries at s->callchain, raw_size bytes at s->raw
 * (raw_size + 4 a multiple of 8, as perf keeps them); raw_offset and len
 * are not read.  What pdf_sample_parse() gives, built again, is the same
 * record.  Appends nothing on failure.  0; PDF_ERR(pdfe_invalid): NULL, a
 * bit of @type outside those fields, a NULL callchain or raw with entries
 * or bytes, a raw size that breaks the alignment; PDF_ERR(pdfe_too_big):
 * over 65535 bytes (perf's u16 size); -ENOMEM (also when out->err is set).
 */
int pdf_sample_build(uint64_t type, uint16_t misc, const struct pdf_sample *s,
		     struct pdf_buf *out);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_SAMPLE_H */
