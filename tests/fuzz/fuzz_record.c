/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "fuzz_record.h"

void fz_record_examine(struct pdf_rrec_clock *clk,
		       const struct rs_perf_header *rec, uint64_t sample_type)
{
	volatile uint8_t sink = 0;
	const uint8_t *bytes = (const uint8_t *)rec;
	struct pdf_sample s;

	if (rec->size < sizeof(*rec) || rec->size % RS_RECORD_ALIGN)
		abort();
	/* Every byte the size claims must be readable (ASan checks). */
	for (uint32_t i = 0; i < rec->size; i++)
		sink ^= bytes[i];
	(void)sink;
	if (pdf_rrec_classify(rec, sample_type) == PDF_RREC_SAMPLE)
		pdf_sample_parse(sample_type, rec + 1, rec->size - sizeof(*rec),
				 &s);
	pdf_rrec_perf_body(rec);
	rs_seq_check(rec);
	pdf_rrec_stamp(clk, rec, sample_type);
}
