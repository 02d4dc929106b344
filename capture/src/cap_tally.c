/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <time.h>

#include <linux/perf_event.h>

#include "cap_internal.h"
#include "ringside/ring.h"

#define SLACK_BASE_NS 1000000u   /* 1 ms around the window, and ... */
#define SLACK_PPM     1000u      /* ... the drift a sync accepts over it */

void cap_tally_init(struct cap_tally *t, uint32_t nr_rings, uint64_t sample_type)
{
	memset(t, 0, sizeof(*t));
	t->sample_type = sample_type;
	t->nr_rings = nr_rings > RS_MAX_RINGS ? RS_MAX_RINGS : nr_rings;
}

void cap_tally_init_used(struct cap_tally *t, uint32_t nr_rings,
			 uint64_t sample_type)
{
	uint32_t n = nr_rings > RS_MAX_RINGS ? RS_MAX_RINGS : nr_rings;

	t->sample_type = sample_type;
	t->nr_rings = n;
	memset(&t->bounds, 0, sizeof(t->bounds));
	memset(t->ring, 0, (size_t)n * sizeof(t->ring[0]));
	memset(t->track, 0, (size_t)n * sizeof(t->track[0]));
	t->state_comms = t->state_mmaps = 0;
}

void cap_tally_state(struct cap_tally *t, const struct rs_perf_header *rec)
{
	if (rec->type == PERF_RECORD_COMM)
		t->state_comms++;
	else if (rec->type == PERF_RECORD_MMAP2)
		t->state_mmaps++;
}

void cap_tally_event(struct cap_tally *t, const struct pdf_event *ev)
{
	if (ev->state)
		cap_tally_state(t, ev->rec);
	else
		cap_tally_add(t, ev->ring, ev->time, ev->rec);
}

void cap_tally_set_bounds(struct cap_tally *t, const struct cap_tally_bounds *b)
{
	t->bounds = *b;
}

void cap_tally_bounds_from_info(struct cap_tally_bounds *b, const struct pdf_info *info)
{
	const struct pdf_host_facts *h = &info->host;
	const struct pdf_clock_sync *cs = &info->clock;
	uint64_t bound = 0;
	uint32_t i;

	memset(b, 0, sizeof(*b));
	if (h->kind == PDF_HOST_NONE || h->kind >= PDF_HOST_KIND_MAX ||
	    h->end_ns < h->start_ns)
		return;
	b->kind = h->kind;
	b->start_ns = h->start_ns;
	b->end_ns = h->end_ns;
	for (i = 0; i < h->nr_rings && i < RS_MAX_RINGS; i++) {
		b->data_size[i] = h->ring[i].data_size;
		b->aux_size[i] = h->ring[i].aux_size;
	}
	/* Times are checked only where the file says they are the host's
	 * and how far off they may be: a time sync's measured bound.  A
	 * ringside VMM's TSC conversion has no measured bound (under nested
	 * emulation it was seen off by more than a millisecond), so its
	 * times are not held against the window. */
	b->held_ns = CAP_TALLY_HELD_NS;
	b->times_host = cs->state == PDF_CLOCK_SYNCED && cs->nr >= 1 &&
			cs->nr <= 2;
	for (i = 0; i < cs->nr && i < 2; i++)
		if (cs->pt[i].bound_ns > bound)
			bound = cs->pt[i].bound_ns;
	b->slack_ns = cap_tally_sat_add(cap_tally_sat_add(2 * (bound > UINT64_MAX / 2 ?
					UINT64_MAX / 2 : bound), SLACK_BASE_NS),
				    (h->end_ns - h->start_ns) / 1000000u * SLACK_PPM);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void add_seq(struct cap_tally_ring *r, const struct rs_perf_header *rec)
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
		r->seq_gaps = cap_tally_sat_add(r->seq_gaps, s->seq - r->seq_last - 1);
	} else {
		r->seq_back++;
		return;
	}
	r->seq_last = s->seq;
}

static void add_aux(struct cap_tally_ring *r, const struct rs_perf_header *rec,
		    uint64_t aux_size)
{
	const struct rs_perf_aux *a = (const struct rs_perf_aux *)(const void *)rec;

	/* one output cannot be larger than the area it was written to */
	if (aux_size && a->aux_size > aux_size) {
		r->flag_aux++;
		return;
	}
	r->aux_bytes = cap_tally_sat_add(r->aux_bytes, a->aux_size);
	r->aux_truncated += !!(a->flags & RS_PERF_AUX_FLAG_TRUNCATED);
	r->aux_partial += !!(a->flags & RS_PERF_AUX_FLAG_PARTIAL);
	r->aux_collision += !!(a->flags & RS_PERF_AUX_FLAG_COLLISION);
}

/*
 * A drain's record starting @at bytes after the ring's tail at attach
 * (as far as the host counted: never more than the truth) was written
 * after the attach when @at >= the ring's size: the ring held at most
 * that much then.
 */
static int after_attach(const struct cap_tally *t, uint32_t ring, uint64_t at)
{
	const struct cap_tally_bounds *b = &t->bounds;

	return b->kind == PDF_HOST_DRAIN && b->data_size[ring] &&
	       at >= b->data_size[ring];
}

/*
 * A LOST or LOST_SAMPLES count @n: 1 (summed into *@sum) if plausible, 0
 * if flagged.  Every drop a LOST record reports happened after the record
 * before it in the ring was written (a producer puts its count in front of
 * the next record that fits).  All of them happened after the host booted,
 * so a ring's counts add up to at most CAP_TALLY_LOST_PER_NS per ns of the
 * host's CLOCK_MONOTONIC at the end; those whose previous record was
 * written after the attach add up to at most that over the recording.
 */
static int lost_ok(const struct cap_tally *t, struct cap_tally_ring *r, uint32_t ring,
		   uint64_t n, uint64_t *sum, uint64_t *late)
{
	const struct cap_tally_track *k = &t->track[ring];
	const struct cap_tally_bounds *b = &t->bounds;
	uint64_t end = b->end_ns ? b->end_ns : now_ns();
	uint64_t cap = end > UINT64_MAX / CAP_TALLY_LOST_PER_NS ? UINT64_MAX :
		       end * CAP_TALLY_LOST_PER_NS;
	uint64_t prev_at = r->bytes - k->prev_size;

	if (b->kind == PDF_HOST_NONE) {
		*sum = cap_tally_sat_add(*sum, n);
		return 1;
	}
	if (cap_tally_sat_add(*sum, n) > cap)
		return 0;
	if (r->records && after_attach(t, ring, prev_at)) {
		uint64_t span = end > b->start_ns ? end - b->start_ns : 0;

		if (cap_tally_sat_add(*late, n) > span * CAP_TALLY_LOST_PER_NS)
			return 0;
		*late += n;
	}
	*sum += n;
	return 1;
}

/* 1 if @time can be when record @rec (starting @at bytes into the drain)
 * was written, as far as the window tells. */
static int time_ok(const struct cap_tally *t, uint32_t ring, uint64_t at,
		   uint64_t time)
{
	const struct cap_tally_bounds *b = &t->bounds;

	if (b->kind == PDF_HOST_NONE || !b->times_host)
		return 1;
	/* no record is written after the host's last read of its ring */
	if (b->end_ns && time > cap_tally_sat_add(b->end_ns, b->slack_ns))
		return 0;
	/* nor before the attach, once the ring's old content is behind
	 * (less what its producer may have held back before writing it) */
	if (after_attach(t, ring, at) &&
	    cap_tally_sat_add(time, cap_tally_sat_add(b->slack_ns,
						      b->held_ns)) < b->start_ns)
		return 0;
	return 1;
}

void cap_tally_add(struct cap_tally *t, uint32_t ring, uint64_t time,
		   const struct rs_perf_header *rec)
{
	enum pdf_rrec_class cls = pdf_rrec_classify(rec, t->sample_type);
	struct cap_tally_ring *r;
	uint64_t at;

	if (ring >= RS_MAX_RINGS)
		return;
	if (ring >= t->nr_rings) {
		/* rings no init counted: from zero (cap_tally_init_used
		 * left them as they were) */
		memset(&t->ring[t->nr_rings], 0,
		       (size_t)(ring + 1 - t->nr_rings) * sizeof(t->ring[0]));
		memset(&t->track[t->nr_rings], 0,
		       (size_t)(ring + 1 - t->nr_rings) * sizeof(t->track[0]));
		t->nr_rings = ring + 1;
	}
	r = &t->ring[ring];
	at = r->bytes;
	switch (cls) {
	case PDF_RREC_SEQ:
		add_seq(r, rec);
		break;
	case PDF_RREC_LOST:
		if (!lost_ok(t, r, ring,
			     ((const struct rs_perf_lost *)(const void *)rec)->lost,
			     &r->lost, &t->track[ring].lost_late))
			r->flag_lost++;
		break;
	case PDF_RREC_LOST_SAMPLES:
		if (!lost_ok(t, r, ring, ((const struct rs_perf_lost_samples *)
					  (const void *)rec)->lost,
			     &r->lost_samples,
			     &t->track[ring].lost_samples_late))
			r->flag_lost_samples++;
		break;
	case PDF_RREC_AUX:
		add_aux(r, rec, t->bounds.kind ? t->bounds.aux_size[ring] : 0);
		break;
	default:
		break;
	}
	r->records++;
	r->bytes = cap_tally_sat_add(r->bytes, rec->size);
	t->track[ring].prev_size = rec->size;
	r->by_class[cls]++;
	if (!time_ok(t, ring, at, time)) {
		r->flag_time++;
		return;
	}
	/* the span is the records' that carry their own time: the others
	 * are filed under a neighbour's */
	if (!pdf_rrec_timed(rec, t->sample_type))
		return;
	if (!r->have_time || time < r->first_time)
		r->first_time = time;
	if (!r->have_time || time > r->last_time)
		r->last_time = time;
	r->have_time = 1;
}

void cap_tally_total(const struct cap_tally *t, struct cap_tally_ring *sum)
{
	uint32_t i;
	unsigned c;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < t->nr_rings; i++) {
		const struct cap_tally_ring *r = &t->ring[i];

#define SUM(f) sum->f = cap_tally_sat_add(sum->f, r->f)
		SUM(records);
		SUM(bytes);
		for (c = 0; c < PDF_RREC_MAX; c++)
			SUM(by_class[c]);
		SUM(lost);
		SUM(lost_samples);
		SUM(aux_bytes);
		SUM(aux_truncated);
		SUM(aux_partial);
		SUM(aux_collision);
		SUM(seq_bad);
		SUM(seq_gaps);
		SUM(seq_back);
		SUM(flag_lost);
		SUM(flag_lost_samples);
		SUM(flag_aux);
		SUM(flag_time);
#undef SUM
		if (!r->have_time)
			continue;
		if (!sum->have_time || r->first_time < sum->first_time)
			sum->first_time = r->first_time;
		if (!sum->have_time || r->last_time > sum->last_time)
			sum->last_time = r->last_time;
		sum->have_time = 1;
	}
}

uint64_t cap_tally_flagged(const struct cap_tally_ring *r)
{
	return cap_tally_sat_add(cap_tally_sat_add(r->flag_lost, r->flag_lost_samples),
				 cap_tally_sat_add(r->flag_aux, r->flag_time));
}

double cap_tally_rate(const struct cap_tally_ring *r)
{
	if (!r->have_time || r->last_time <= r->first_time)
		return 0.0;
	return (double)r->records * 1e9 / (double)(r->last_time - r->first_time);
}

int cap_tally_file(const char *path, struct cap_tally *t, struct pdf_info *info,
		   uint64_t *bad_offset)
{
	const struct pdf_info *in;
	struct cap_tally_bounds b;
	struct pdf_reader *r;
	struct pdf_event ev;
	int n;

	*bad_offset = 0;
	n = pdf_reader_open(&r, path);
	if (n)
		return n;
	in = pdf_reader_info(r);
	cap_tally_init(t, in->nr_rings, in->sample_type);
	cap_tally_bounds_from_info(&b, in);
	cap_tally_set_bounds(t, &b);
	while ((n = pdf_reader_next(r, &ev)) == 1)
		cap_tally_event(t, &ev);
	if (n < 0)
		*bad_offset = ev.offset;
	if (info)
		*info = *in;
	pdf_reader_close(r);
	return n < 0 ? n : 0;
}
