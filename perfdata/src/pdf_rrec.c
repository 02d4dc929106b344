/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <string.h>

#include "ringside/perfdata.h"

#include "pdf_format.h"


/* Each class's short name (reports) and its JSON key. */
static const struct {
	const char *name, *key;
} classes[PDF_RREC_MAX] = {
	[PDF_RREC_SEQ]          = { "seq",          "seq" },
	[PDF_RREC_MARKER]       = { "marker",       "marker" },
	[PDF_RREC_SAMPLE]       = { "sample",       "sample" },
	[PDF_RREC_LOST]         = { "LOST",         "lost" },
	[PDF_RREC_AUX]          = { "AUX",          "aux" },
	[PDF_RREC_ITRACE_START] = { "ITRACE_START", "itrace_start" },
	[PDF_RREC_LOST_SAMPLES] = { "LOST_SAMPLES", "lost_samples" },
	[PDF_RREC_COMM]         = { "COMM",         "comm" },
	[PDF_RREC_MMAP2]        = { "MMAP2",        "mmap2" },
	[PDF_RREC_OTHER]        = { "other",        "other" },
};

const char *pdf_rrec_class_name(enum pdf_rrec_class cls)
{
	return (unsigned)cls < PDF_RREC_MAX ? classes[cls].name : "?";
}

const char *pdf_rrec_class_key(enum pdf_rrec_class cls)
{
	return (unsigned)cls < PDF_RREC_MAX ? classes[cls].key : "unknown";
}

static int marker_ok(const struct rs_perf_header *rec)
{
	const struct rs_rec_marker *m = (const void *)rec;

	return rec->size >= sizeof(*m) && m->len <= rec->size - sizeof(*m);
}

/* @fixed bytes, then a name up to its NUL, padded to 8 bytes: COMM
 * (pid and tid) and MMAP2.  0 when the name has no NUL in the record, or
 * is longer than @max bytes. */
static size_t named_body(const struct rs_perf_header *rec, size_t fixed,
			 size_t max)
{
	const char *name = (const char *)(rec + 1) + fixed;
	size_t room, len, body;

	if (rec->size <= sizeof(*rec) + fixed)
		return 0;
	room = rec->size - sizeof(*rec) - fixed;
	len = strnlen(name, room);
	if (len == room || len > max)
		return 0;
	body = fixed + ((len + 1 + 7) & ~(size_t)7);
	return body <= rec->size - sizeof(*rec) ? body : 0;
}

/* A COMM: pid and tid, then the name up to its NUL, padded to 8 bytes. */
static size_t comm_body(const struct rs_perf_header *rec)
{
	return named_body(rec, 8, SIZE_MAX);
}

int pdf_rrec_mmap2_name_ok(const char *name, size_t len)
{
	size_t i, start = 0;

	if (!name || !len || len >= PDF_MMAP2_NAME_MAX || memchr(name, 0, len))
		return 0;
	/* a ".." component: the kernel's names never have one (d_path
	 * resolves them); perf would join it to --symfs and leave that tree */
	for (i = 0; i <= len; i++) {
		if (i < len && name[i] != '/')
			continue;
		if (i - start == 2 && name[start] == '.' && name[start + 1] == '.')
			return 0;
		start = i + 1;
	}
	return 1;
}

/* An MMAP2 perf can take: a name pdf_rrec_mmap2_name_ok() takes, and a build
 * id that fits perf's array. */
static size_t mmap2_body(const struct rs_perf_header *rec)
{
	struct rs_perf_mmap2_body m;
	size_t body = named_body(rec, sizeof(m), PDF_MMAP2_NAME_MAX - 1);
	const char *name = (const char *)(rec + 1) + sizeof(m);

	if (!body || !pdf_rrec_mmap2_name_ok(name, strlen(name)))
		return 0;
	memcpy(&m, rec + 1, sizeof(m));
	if ((rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
	    m.u.build_id.size > sizeof(m.u.build_id.id))
		return 0;
	return body;
}

/* A fixed-size type whose whole record is @full bytes. */
static size_t fixed_body(const struct rs_perf_header *rec, size_t full)
{
	return rec->size >= full ? full - sizeof(*rec) : 0;
}

size_t pdf_rrec_perf_body(const struct rs_perf_header *rec)
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
	case PERF_RECORD_MMAP2:
		return mmap2_body(rec);
	default:
		return 0;
	}
}

enum pdf_rrec_class pdf_rrec_classify(const struct rs_perf_header *rec,
			      uint64_t sample_type)
{
	static const enum pdf_rrec_class native[] = {
		[RS_PERF_RECORD_LOST]         = PDF_RREC_LOST,
		[RS_PERF_RECORD_AUX]          = PDF_RREC_AUX,
		[RS_PERF_RECORD_ITRACE_START] = PDF_RREC_ITRACE_START,
		[RS_PERF_RECORD_LOST_SAMPLES] = PDF_RREC_LOST_SAMPLES,
		[PERF_RECORD_COMM]            = PDF_RREC_COMM,
		[PERF_RECORD_MMAP2]           = PDF_RREC_MMAP2,
	};
	struct pdf_sample s;

	switch (rec->type) {
	case RS_RECORD_SEQ:
		return rec->size >= sizeof(struct rs_rec_seq) ? PDF_RREC_SEQ : PDF_RREC_OTHER;
	case RS_RECORD_MARKER:
		return marker_ok(rec) ? PDF_RREC_MARKER : PDF_RREC_OTHER;
	case RS_PERF_RECORD_SAMPLE:
		if (sample_type & ~(uint64_t)PDF_SAMPLE_KNOWN)
			return PDF_RREC_SAMPLE; /* a layout ringside cannot check */
		return pdf_sample_parse(sample_type, rec + 1,
					rec->size - sizeof(*rec), &s) ?
		       PDF_RREC_OTHER : PDF_RREC_SAMPLE;
	default:   /* pdf_rrec_perf_body() knows no type outside native[] */
		return pdf_rrec_perf_body(rec) ? native[rec->type] : PDF_RREC_OTHER;
	}
}

int pdf_rrec_clock_init(struct pdf_rrec_clock *clk, const struct rs_region *region,
		    uint32_t index)
{
	struct rs_ring ring;

	memset(clk, 0, sizeof(*clk));
	if (rs_region_ring(region, index, &ring) < 0)
		return 0;
	return rs_ring_time_read(&ring, &clk->conv) == 1;
}

uint64_t pdf_rrec_stamp(struct pdf_rrec_clock *clk, const struct rs_perf_header *rec,
		    uint64_t sample_type)
{
	const struct rs_time_conv *tc = &clk->conv;
	struct pdf_sample s;

	switch (pdf_rrec_classify(rec, sample_type)) {
	case PDF_RREC_SEQ:
		clk->last = rs_time_to_ns(tc,
			((const struct rs_rec_seq *)(const void *)rec)->time);
		break;
	case PDF_RREC_MARKER:
		clk->last = rs_time_to_ns(tc,
			((const struct rs_rec_marker *)(const void *)rec)->time);
		break;
	case PDF_RREC_SAMPLE:
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

int pdf_rrec_timed(const struct rs_perf_header *rec, uint64_t sample_type)
{
	switch (pdf_rrec_classify(rec, sample_type)) {
	case PDF_RREC_SEQ:
	case PDF_RREC_MARKER:
		return 1;
	case PDF_RREC_SAMPLE:
		return (sample_type & PERF_SAMPLE_TIME) &&
		       !(sample_type & ~(uint64_t)PDF_SAMPLE_KNOWN);
	default:
		return 0;
	}
}
