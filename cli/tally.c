/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "ringside/ring.h"

#include "tally.h"

void tally_init(struct tally *t, uint32_t nr_rings, uint64_t sample_type)
{
	memset(t, 0, sizeof(*t));
	t->sample_type = sample_type;
	t->nr_rings = nr_rings > RS_MAX_RINGS ? RS_MAX_RINGS : nr_rings;
}

static void add_seq(struct tally_ring *r, const struct rs_perf_header *rec)
{
	const struct rs_rec_seq *s = (const struct rs_rec_seq *)(const void *)rec;

	if (!rs_seq_check(rec)) {
		r->seq_bad++;
		return;
	}
	if (!r->have_seq) {
		r->seq_first = s->seq;
		r->have_seq = 1;
	} else if (s->seq > r->seq_last) {
		r->seq_gaps += s->seq - r->seq_last - 1;
	} else {
		r->seq_back++;
		return;
	}
	r->seq_last = s->seq;
}

static void add_aux(struct tally_ring *r, const struct rs_perf_header *rec)
{
	const struct rs_perf_aux *a = (const struct rs_perf_aux *)(const void *)rec;

	r->aux_bytes += a->aux_size;
	r->aux_truncated += !!(a->flags & RS_PERF_AUX_FLAG_TRUNCATED);
	r->aux_partial += !!(a->flags & RS_PERF_AUX_FLAG_PARTIAL);
	r->aux_collision += !!(a->flags & RS_PERF_AUX_FLAG_COLLISION);
}

void tally_add(struct tally *t, uint32_t ring, uint64_t time,
	       const struct rs_perf_header *rec)
{
	enum pdf_rrec_class cls = pdf_rrec_classify(rec, t->sample_type);
	struct tally_ring *r;

	if (ring >= RS_MAX_RINGS)
		return;
	if (ring >= t->nr_rings)
		t->nr_rings = ring + 1;
	r = &t->ring[ring];
	r->records++;
	r->bytes += rec->size;
	r->by_class[cls]++;
	switch (cls) {
	case PDF_RREC_SEQ:
		add_seq(r, rec);
		break;
	case PDF_RREC_LOST:
		r->lost += ((const struct rs_perf_lost *)(const void *)rec)->lost;
		break;
	case PDF_RREC_LOST_SAMPLES:
		r->lost_samples +=
			((const struct rs_perf_lost_samples *)(const void *)rec)->lost;
		break;
	case PDF_RREC_AUX:
		add_aux(r, rec);
		break;
	default:
		break;
	}
	if (!r->have_time || time < r->first_time)
		r->first_time = time;
	if (!r->have_time || time > r->last_time)
		r->last_time = time;
	r->have_time = 1;
}

void tally_total(const struct tally *t, struct tally_ring *sum)
{
	uint32_t i;
	unsigned c;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < t->nr_rings; i++) {
		const struct tally_ring *r = &t->ring[i];

		sum->records += r->records;
		sum->bytes += r->bytes;
		for (c = 0; c < PDF_RREC_MAX; c++)
			sum->by_class[c] += r->by_class[c];
		sum->lost += r->lost;
		sum->lost_samples += r->lost_samples;
		sum->aux_bytes += r->aux_bytes;
		sum->aux_truncated += r->aux_truncated;
		sum->aux_partial += r->aux_partial;
		sum->aux_collision += r->aux_collision;
		sum->seq_bad += r->seq_bad;
		sum->seq_gaps += r->seq_gaps;
		sum->seq_back += r->seq_back;
		if (!r->have_time)
			continue;
		if (!sum->have_time || r->first_time < sum->first_time)
			sum->first_time = r->first_time;
		if (!sum->have_time || r->last_time > sum->last_time)
			sum->last_time = r->last_time;
		sum->have_time = 1;
	}
}

double tally_rate(const struct tally_ring *r)
{
	if (!r->have_time || r->last_time <= r->first_time)
		return 0.0;
	return (double)r->records * 1e9 / (double)(r->last_time - r->first_time);
}
