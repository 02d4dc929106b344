/* SPDX-License-Identifier: MIT */
/* What the library knows about record types: the smallest valid size. */
#include "ring_internal.h"

uint32_t rs_record_min_size(uint32_t type)
{
	switch (type) {
	case RS_PERF_RECORD_LOST:
		return sizeof(struct rs_perf_lost);
	case RS_PERF_RECORD_AUX:
		return sizeof(struct rs_perf_aux);
	case RS_PERF_RECORD_ITRACE_START:
		return sizeof(struct rs_perf_itrace_start);
	case RS_PERF_RECORD_LOST_SAMPLES:
		return sizeof(struct rs_perf_lost_samples);
	case RS_RECORD_SEQ:
		return sizeof(struct rs_rec_seq);
	case RS_RECORD_MARKER:
		return sizeof(struct rs_rec_marker);
	default:
		return sizeof(struct rs_perf_header);
	}
}
