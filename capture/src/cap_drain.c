/* SPDX-License-Identifier: MIT */
/*
 * AUX bytes go into the file as AUXTRACE records (the writer was opened
 * with the region's AUX format), beside the AUX records of the data ring
 * that say what was written where.
 */
#include <stdlib.h>
#include <string.h>

#include "cap_internal.h"

/* bytes of a ring's untimed records kept until its first timed one */
#define UNTIMED_MAX (256u * 1024u)

/* @rec into the file and the tally, filed at @time.  0, or -1 with the
 * writer's error in d->write_err. */
static int put(struct cap_drain_ring *r, uint64_t time,
	       const struct rs_perf_header *rec)
{
	struct cap_drain *d = r->drain;
	int err;

	err = d->writer ? pdf_writer_add(d->writer, r->index, time, rec) : 0;
	if (err == PDF_ERR(pdfe_too_big)) {
		r->too_big++;
		return 0;
	}
	if (err) {
		d->write_err = err;
		return -1;
	}
	cap_tally_add(d->tally, r->index, time, rec);
	return 0;
}

/* The untimed records kept, in their order, filed at @time. */
static int put_untimed(struct cap_drain_ring *r, uint64_t time)
{
	uint64_t off = 0;
	int err = 0;

	while (!err && off < r->untimed_len) {
		const struct rs_perf_header *rec =
			(const void *)(r->untimed + off);

		off += rec->size;
		err = put(r, time, rec);
	}
	r->untimed_len = 0;
	return err;
}

/*
 * 1 if @rec is a loss from before the attach: a LOST or LOST_SAMPLES the
 * ring held then, or a LOST that is the first record after what it held
 * (the producer writes its count when there is room again: drops of the
 * ring as the recording found it).  Counted in r->early (the sums checked
 * like the tally's: at most CAP_TALLY_LOST_PER_NS per ns the host has run)
 * and left out of the file.  The other records the ring held are counted
 * and go in.
 */
static int early(struct cap_drain_ring *r, const struct rs_perf_header *rec)
{
	struct pdf_host_ring *h = &r->early;
	int before = r->early_left > 0, first = 0;
	enum pdf_rrec_class cls;
	uint64_t n, cap, *sum, *recs, *flagged;

	if (before)
		r->early_left = rec->size < r->early_left ?
				r->early_left - rec->size : 0;
	else if (r->early_next)
		first = 1;
	else
		return 0;
	if (first)
		r->early_next = 0;
	cls = pdf_rrec_classify(rec, r->drain->sample_type);
	if (cls == PDF_RREC_LOST) {
		n = ((const struct rs_perf_lost *)(const void *)rec)->lost;
		sum = &h->early_lost;
		recs = &h->early_lost_records;
		flagged = &h->early_flagged;
	} else if (cls == PDF_RREC_LOST_SAMPLES && before) {
		n = ((const struct rs_perf_lost_samples *)(const void *)rec)->lost;
		sum = &h->early_lost_samples;
		recs = &h->early_lost_samples_records;
		flagged = &h->early_flagged_samples;
	} else {
		h->early_records += before;
		return 0;
	}
	cap = cap_time_now_ns();
	cap = cap > UINT64_MAX / CAP_TALLY_LOST_PER_NS ? UINT64_MAX :
	      cap * CAP_TALLY_LOST_PER_NS;
	if (cap_tally_sat_add(*sum, n) > cap) {
		(*flagged)++;
		return 1;
	}
	*sum += n;
	(*recs)++;
	return 1;
}

static int on_record(const struct rs_perf_header *rec, void *arg)
{
	struct cap_drain_ring *r = arg;
	struct cap_drain *d = r->drain;
	uint64_t time = pdf_rrec_stamp(&r->clock, rec, d->sample_type);

	if (early(r, rec))
		return 0;
	if (!r->timed && !pdf_rrec_timed(rec, d->sample_type)) {
		/* no time of its own yet: the next timed record's */
		if (!r->untimed)
			r->untimed = malloc(UNTIMED_MAX);
		if (r->untimed && r->untimed_len + rec->size <= UNTIMED_MAX) {
			memcpy(r->untimed + r->untimed_len, rec, rec->size);
			r->untimed_len += rec->size;
			return 0;
		}
		/* no room: these under the ring's last time, as before */
		if (put_untimed(r, time))
			return -1;
		return put(r, time, rec); /* -1 leaves it in the ring */
	}
	if (!r->timed) {
		r->timed = 1;
		if (put_untimed(r, time))
			return -1;
	}
	return put(r, time, rec);
}

/* Whatever of a wrapped read is held, with @chunk after it: one record. */
static int aux_out(struct cap_drain_ring *r, const void *chunk, uint64_t len,
		   uint64_t pos)
{
	struct cap_drain *d = r->drain;
	uint64_t at = r->held ? r->held_pos : pos, all = r->held_len + len;
	int err;

	/* shared memory: the writer copies it once */
	err = d->writer ? pdf_writer_add_aux2(d->writer, r->index, at,
					      r->held, r->held_len, chunk,
					      len) : 0;
	r->held = NULL;
	r->held_len = 0;
	if (err) {
		d->write_err = err;
		return -1; /* leaves the bytes in the ring */
	}
	r->aux_bytes += all;
	if (d->writer)
		r->aux_stored += all;
	return 0;
}

/*
 * A read that reaches the AUX area's end comes in two parts; the bytes
 * are a stream of packets, and perf does not join a packet that two
 * AUXTRACE records split.  So the part that ends at the area's end is
 * held (the consumer moves aux_tail only after both) and written with
 * the next, or alone after the drain if none came.
 */
static int on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct cap_drain_ring *r = arg;

	if (!r->held && (pos + len) % r->aux_size == 0) {
		r->held = chunk;
		r->held_len = len;
		r->held_pos = pos;
		return 0;
	}
	return aux_out(r, chunk, len, pos);
}

int cap_drain_init(struct cap_drain *d, const struct rs_region *region,
		   uint64_t sample_type, struct pdf_writer *w, struct cap_tally *t)
{
	struct cap_rinfo ri;
	uint32_t i;
	int err;

	memset(d, 0, sizeof(*d));
	d->writer = w;
	d->tally = t;
	d->sample_type = sample_type;
	if (cap_rinfo_count(region)) {
		d->ring = calloc(cap_rinfo_count(region), sizeof(*d->ring));
		if (!d->ring)
			return -rse_invalid;   /* as rs_consumer_alloc's */
	}
	for (i = 0; i < cap_rinfo_count(region); i++) {
		struct cap_drain_ring *r = &d->ring[i];

		err = cap_rinfo_get(region, i, &ri);
		if (err)
			goto fail;
		if (ri.data_mode != RS_MODE_NORMAL) {
			err = -rse_mode;
			goto fail;
		}
		r->drain = d;
		r->index = i;
		r->has_aux = ri.aux_size && ri.aux_mode == RS_MODE_NORMAL;
		r->data_size = ri.data_size;
		r->aux_size = ri.aux_size;
		pdf_rrec_clock_init(&r->clock, region, i);
		r->cons = rs_consumer_alloc(region, i);
		if (!r->cons) {
			err = -rse_invalid;
			goto fail;
		}
		/* what it holds now predates the recording */
		r->early_left = rs_consumer_pending(r->cons);
		r->early_next = 1;
		d->nr_rings = i + 1;
	}
	return 0;
fail:
	cap_drain_fini(d);
	return err;
}

int cap_drain_pass(struct cap_drain *d, struct cap_err *e)
{
	int total = 0, n;
	int64_t a;
	uint32_t i;

	d->pass_aux = 0;
	for (i = 0; i < d->nr_rings; i++) {
		struct cap_drain_ring *r = &d->ring[i];

		n = rs_consumer_drain(r->cons, on_record, r);
		if (n < 0)
			return d->write_err ? cap_err_note(e, d->write_err, pdf_error_str) :
					      cap_err_note(e, n, rs_error_str);
		total += n;
		if (!r->has_aux)
			continue;
		a = rs_consumer_drain_aux(r->cons, on_aux, r);
		if (a >= 0 && r->held && aux_out(r, NULL, 0, 0) < 0)
			a = -1;
		if (a < 0)
			return d->write_err ? cap_err_note(e, d->write_err, pdf_error_str) :
					      cap_err_note(e, (int)a, rs_error_str);
		d->pass_aux |= a > 0;
	}
	return total;
}

const struct rs_cons_stats *cap_drain_cons_stats(const struct cap_drain *d, uint32_t i)
{
	return rs_consumer_stats(d->ring[i].cons);
}

void cap_drain_host_facts(const struct cap_drain *d, struct pdf_host_facts *h)
{
	uint32_t i;

	h->nr_rings = d->nr_rings;
	for (i = 0; i < d->nr_rings; i++) {
		const struct cap_drain_ring *r = &d->ring[i];
		const struct rs_cons_stats *cs = rs_consumer_stats(r->cons);
		struct pdf_host_ring *hr = &h->ring[i];

		memset(hr, 0, sizeof(*hr));
		hr->data_size = r->data_size;
		hr->aux_size = r->aux_size;
		hr->corrupt = cs->corrupt;
		hr->corrupt_bytes = cs->corrupt_bytes;
		hr->bad_heads = cs->bad_heads;
		hr->aux_bad_heads = cs->aux_corrupt;
		hr->aux_bytes = r->aux_bytes;
		hr->aux_stored = r->aux_stored;
		hr->not_written = r->too_big;
		hr->early_records = r->early.early_records;
		hr->early_lost_records = r->early.early_lost_records;
		hr->early_lost = r->early.early_lost;
		hr->early_lost_samples_records =
			r->early.early_lost_samples_records;
		hr->early_lost_samples = r->early.early_lost_samples;
		hr->early_flagged = r->early.early_flagged;
		hr->early_flagged_samples = r->early.early_flagged_samples;
	}
}

void cap_drain_bounds(const struct cap_drain *d, uint64_t start_ns,
		      struct cap_tally_bounds *b)
{
	uint32_t i;

	memset(b, 0, sizeof(*b));
	b->kind = PDF_HOST_DRAIN;
	b->start_ns = start_ns;
	/* end 0: now; times not checked live (a sync converts them later) */
	for (i = 0; i < d->nr_rings; i++) {
		b->data_size[i] = d->ring[i].data_size;
		b->aux_size[i] = d->ring[i].aux_size;
	}
}

int cap_drain_reattach(struct cap_drain *d, const struct rs_region *region)
{
	struct cap_rinfo ri;
	uint32_t i;
	int err, bits = 0;

	if (cap_rinfo_count(region) != d->nr_rings)
		return -rse_geometry;
	/* every ring first: a refusal leaves the drain as it was */
	for (i = 0; i < d->nr_rings; i++) {
		err = cap_rinfo_get(region, i, &ri);
		if (err)
			return err;
		if (ri.data_mode != RS_MODE_NORMAL ||
		    ri.data_size != d->ring[i].data_size ||
		    ri.aux_size != d->ring[i].aux_size)
			return -rse_geometry;
	}
	for (i = 0; i < d->nr_rings; i++) {
		struct cap_drain_ring *r = &d->ring[i];

		err = rs_consumer_reattach(r->cons, region, i);
		if (err < 0)
			return err;
		bits |= err;
		/* the caller flushed the time before (cap_drain_flush) */
		r->timed = 0;
		pdf_rrec_clock_init(&r->clock, region, i);
		r->held = NULL;
		r->held_len = 0;
	}
	return bits;
}

int cap_drain_flush(struct cap_drain *d, struct cap_err *e)
{
	uint32_t i;

	for (i = 0; i < d->nr_rings; i++)
		if (put_untimed(&d->ring[i], d->ring[i].clock.last))
			return cap_err_note(e, d->write_err, pdf_error_str);
	return 0;
}

void cap_drain_fini(struct cap_drain *d)
{
	uint32_t i;

	/* every ring with a consumer or kept records is below nr_rings */
	for (i = 0; i < d->nr_rings; i++) {
		rs_consumer_free(d->ring[i].cons);
		free(d->ring[i].untimed);
	}
	free(d->ring);
	d->ring = NULL;
	d->nr_rings = 0;
}

int cap_drain_sleep_prepare(struct cap_drain *d)
{
	int moved = 0;

	for (uint32_t i = 0; i < d->nr_rings; i++)
		if (d->ring[i].cons &&
		    rs_consumer_sleep_prepare(d->ring[i].cons) > 0)
			moved = 1;
	return moved;
}

void cap_drain_awake(struct cap_drain *d)
{
	for (uint32_t i = 0; i < d->nr_rings; i++)
		if (d->ring[i].cons)
			rs_consumer_awake(d->ring[i].cons);
}
