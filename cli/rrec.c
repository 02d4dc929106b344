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
	[RREC_COMM]         = "COMM",
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
	[RREC_COMM]         = "comm",
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

/* A COMM: pid and tid, then the name up to its NUL, padded to 8 bytes. */
static size_t comm_body(const struct rs_perf_header *rec)
{
	const size_t ids = 8;
	const char *name = (const char *)(rec + 1) + ids;
	size_t room, len, body;

	if (rec->size <= sizeof(*rec) + ids)
		return 0;
	room = rec->size - sizeof(*rec) - ids;
	len = strnlen(name, room);
	if (len == room)
		return 0;
	body = ids + ((len + 1 + 7) & ~(size_t)7);
	return body <= rec->size - sizeof(*rec) ? body : 0;
}

/* A fixed-size type whose whole record is @full bytes. */
static size_t fixed_body(const struct rs_perf_header *rec, size_t full)
{
	return rec->size >= full ? full - sizeof(*rec) : 0;
}

size_t rrec_perf_body(const struct rs_perf_header *rec)
{
	switch (rec->type) {
	case RS_PERF_RECORD_LOST:
		return fixed_body(rec, sizeof(struct rs_perf_lost));
	case RS_PERF_RECORD_AUX:
		return fixed_body(rec, sizeof(struct rs_perf_aux));
	case RS_PERF_RECORD_ITRACE_START:
		return fixed_body(rec, sizeof(struct rs_perf_itrace_start));
	case RS_PERF_RECORD_LOST_SAMPLES:
		return fixed_body(rec, sizeof(struct rs_perf_lost_samples));
	case PERF_RECORD_COMM:
		return comm_body(rec);
	default:
		return 0;
	}
}

enum rrec_class rrec_classify(const struct rs_perf_header *rec,
			      uint64_t sample_type)
{
	static const enum rrec_class native[] = {
		[RS_PERF_RECORD_LOST]         = RREC_LOST,
		[RS_PERF_RECORD_AUX]          = RREC_AUX,
		[RS_PERF_RECORD_ITRACE_START] = RREC_ITRACE_START,
		[RS_PERF_RECORD_LOST_SAMPLES] = RREC_LOST_SAMPLES,
		[PERF_RECORD_COMM]            = RREC_COMM,
	};
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
	default:   /* rrec_perf_body() knows no type outside native[] */
		return rrec_perf_body(rec) ? native[rec->type] : RREC_OTHER;
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
