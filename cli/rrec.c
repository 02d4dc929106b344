/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "pdf.h"
#include "pdf_sample.h"
#include "rrec.h"

static const char *const class_names[RREC_MAX] = {
	[RREC_SEQ]          = "seq",
	[RREC_MARKER]       = "marker",
	[RREC_SAMPLE]       = "sample",
	[RREC_LOST]         = "LOST",
	[RREC_AUX]          = "AUX",
	[RREC_ITRACE_START] = "ITRACE_START",
	[RREC_LOST_SAMPLES] = "LOST_SAMPLES",
	[RREC_OTHER]        = "other",
};

static const char *const class_keys[RREC_MAX] = {
	[RREC_SEQ]          = "seq",
	[RREC_MARKER]       = "marker",
	[RREC_SAMPLE]       = "sample",
	[RREC_LOST]         = "lost",
	[RREC_AUX]          = "aux",
	[RREC_ITRACE_START] = "itrace_start",
	[RREC_LOST_SAMPLES] = "lost_samples",
	[RREC_OTHER]        = "other",
};

const char *rrec_class_name(enum rrec_class cls)
{
	return (unsigned)cls < RREC_MAX ? class_names[cls] : "?";
}

const char *rrec_class_key(enum rrec_class cls)
{
	return (unsigned)cls < RREC_MAX ? class_keys[cls] : "unknown";
}

static int marker_ok(const struct rs_perf_header *rec)
{
	const struct rs_rec_marker *m = (const void *)rec;

	return rec->size >= sizeof(*m) && m->len <= rec->size - sizeof(*m);
}

enum rrec_class rrec_classify(const struct rs_perf_header *rec,
			      uint64_t sample_type)
{
	struct pdf_sample s;

	switch (rec->type) {
	case RS_RECORD_SEQ:
		return rec->size >= sizeof(struct rs_rec_seq) ? RREC_SEQ : RREC_OTHER;
	case RS_RECORD_MARKER:
		return marker_ok(rec) ? RREC_MARKER : RREC_OTHER;
	case RS_PERF_RECORD_SAMPLE:
		if (sample_type & ~(uint64_t)PDF_SAMPLE_KNOWN)
			return RREC_SAMPLE; /* a layout ringside cannot check */
		return pdf_sample_parse(sample_type, rec + 1,
					rec->size - sizeof(*rec), &s) ?
		       RREC_OTHER : RREC_SAMPLE;
	case RS_PERF_RECORD_LOST:
		return rec->size >= sizeof(struct rs_perf_lost) ? RREC_LOST : RREC_OTHER;
	case RS_PERF_RECORD_AUX:
		return rec->size >= sizeof(struct rs_perf_aux) ? RREC_AUX : RREC_OTHER;
	case RS_PERF_RECORD_ITRACE_START:
		return rec->size >= sizeof(struct rs_perf_itrace_start) ?
		       RREC_ITRACE_START : RREC_OTHER;
	case RS_PERF_RECORD_LOST_SAMPLES:
		return rec->size >= sizeof(struct rs_perf_lost_samples) ?
		       RREC_LOST_SAMPLES : RREC_OTHER;
	default:
		return RREC_OTHER;
	}
}

int rrec_clock_init(struct rrec_clock *clk, const struct rs_region *region,
		    uint32_t index)
{
	struct rs_ring ring;

	memset(clk, 0, sizeof(*clk));
	if (rs_region_ring(region, index, &ring) < 0)
		return 0;
	return rs_ring_time_read(&ring, &clk->conv) == 1;
}

uint64_t rrec_stamp(struct rrec_clock *clk, const struct rs_perf_header *rec,
		    uint64_t sample_type)
{
	const struct rs_time_conv *tc = &clk->conv;
	struct pdf_sample s;

	switch (rrec_classify(rec, sample_type)) {
	case RREC_SEQ:
		clk->last = rs_time_to_ns(tc,
			((const struct rs_rec_seq *)(const void *)rec)->time);
		break;
	case RREC_MARKER:
		clk->last = rs_time_to_ns(tc,
			((const struct rs_rec_marker *)(const void *)rec)->time);
		break;
	case RREC_SAMPLE:
		if ((sample_type & PERF_SAMPLE_TIME) &&
		    !pdf_sample_parse(sample_type, rec + 1,
				      rec->size - sizeof(*rec), &s))
			clk->last = rs_time_to_ns(tc, s.time);
		break;
	default:
		break;
	}
	return clk->last;
}
