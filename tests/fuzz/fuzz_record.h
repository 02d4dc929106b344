/* SPDX-License-Identifier: MIT */
/*
 * What the host does with one record a guest wrote, once the ring
 * library has copied it out: classify it, parse its sample body, read the
 * perf body and the time it is filed under (the perfdata library's record
 * calls, as `record`, `report` and `dump` make them).  Aborts when a
 * record breaks what the ring library promises of every record it
 * delivers: a size of at least a header, a multiple of 8.
 */
#ifndef RINGSIDE_FUZZ_RECORD_H
#define RINGSIDE_FUZZ_RECORD_H

#include "ringside/perfdata.h"
#include "ringside/ring.h"

void fz_record_examine(struct pdf_rrec_clock *clk,
		       const struct rs_perf_header *rec, uint64_t sample_type);

#endif /* RINGSIDE_FUZZ_RECORD_H */
