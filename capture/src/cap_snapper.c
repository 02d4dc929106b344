/* SPDX-License-Identifier: MIT */
/*
 * Overwrite rings come newest first and are filed oldest first; normal
 * rings give [tail, head), oldest first.  Each AUX area's valid bytes are
 * kept and filed after the ring's records as one AUXTRACE record
 * (docs/cli.md, "AUX data").
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_internal.h"

/* A ring's copy, private: its bytes as copied, then its records. */
struct ring_copy {
	struct cap_snapper_ring *r; /* what is said of it (the stats') */
	struct pdf_rrec_clock clock;
	struct pdf_buf stash;     /* the records, in the order the copy gave them */
	struct pdf_buf offs;      /* u64 offset of each record in stash */
	struct pdf_buf aux_data;  /* the AUX area's valid bytes, oldest first */
	/* between cap_snapper_take and cap_snapper_parse: the ring's bytes
	 * as copied, not yet walked */
	struct rs_snapshot *snap;
	void *copy;               /* data_size bytes */
	void *aux_copy;           /* aux_size bytes */
	int taken;                /* snap holds a copy to walk */
};

struct cap_snapper {
	struct cap_snapper_config c;
	struct cap_snapper_stats st;
	struct gi_pstate pstate;  /* the guest's processes at the copy */
	struct ring_copy rc[RS_MAX_RINGS];
};

void cap_snapper_config_init(struct cap_snapper_config *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
}

int cap_snapper_new(struct cap_snapper **sp, const struct cap_snapper_config *c)
{
	struct cap_snapper *s = calloc(1, sizeof(*s));
	int err;

	*sp = NULL;
	if (!s)
		return -ENOMEM;
	err = cap_config_copy(&s->c, sizeof(s->c), c,
			      offsetof(struct cap_snapper_config, stable));
	if (err) {
		free(s);
		return err;
	}
	for (uint32_t i = 0; i < RS_MAX_RINGS; i++) {
		s->rc[i].r = &s->st.ring[i];
		pdf_buf_init(&s->rc[i].stash);
		pdf_buf_init(&s->rc[i].offs);
		pdf_buf_init(&s->rc[i].aux_data);
	}
	*sp = s;
	return 0;
}

const struct cap_snapper_config *cap_snapper_config(const struct cap_snapper *s)
{
	return &s->c;
}

const struct cap_snapper_stats *cap_snapper_stats(const struct cap_snapper *s)
{
	return &s->st;
}

const struct gi_pstate *cap_snapper_pstate(const struct cap_snapper *s)
{
	return &s->pstate;
}

void cap_snapper_set_pause(struct cap_snapper *s, uint64_t pause_ns,
			   uint64_t inner_ns)
{
	s->st.pause_ns = pause_ns;
	s->st.pause_inner_ns = inner_ns;
}

static void free_copy(struct ring_copy *sr);

void cap_snapper_free(struct cap_snapper *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < RS_MAX_RINGS; i++) {
		pdf_buf_fini(&s->rc[i].stash);
		pdf_buf_fini(&s->rc[i].offs);
		pdf_buf_fini(&s->rc[i].aux_data);
		free_copy(&s->rc[i]);
	}
	gi_pstate_fini(&s->pstate);
	free(s);
}

/* A failure the caller will word (see enum cap_fail). */
static int fail(struct cap_snapper *s, enum cap_fail what, uint32_t ring, int err,
		cap_err_fn str)
{
	s->st.fail.what = what;
	s->st.fail.ring = ring;
	cap_err_note(&s->st.fail.e, err, str);
	return err;
}

/* Read a byte of each page of @len bytes at @p: their page table
 * entries made now, not by a copy under the pause. */
static void touch(const uint8_t *p, uint64_t len)
{
	const volatile uint8_t *v = p;
	uint64_t off;

	for (off = 0; off < len; off += RS_PAGE_SIZE)
		(void)v[off];
}

/* Before the pause: ring @i's buffers made and touched, and its pages in
 * the region mapped, so that the copy faults nothing in while the writers
 * stand still.  0, or -ENOMEM or the ring library's code, noted in @e. */
static int prepare_ring(const struct rs_region *region, uint32_t i,
			struct ring_copy *sr, struct cap_err *e)
{
	struct rs_ring ring;
	struct cap_rinfo ri;
	int err;

	err = cap_err_note(e, cap_rinfo_get(region, i, &ri), rs_error_str);
	if (!err)
		err = cap_err_note(e, rs_region_ring(region, i, &ring), rs_error_str);
	if (err)
		return err;
	touch(ring.data, ring.data_size);
	if (ring.aux)
		touch(ring.aux, ring.aux_size);
	sr->r->data_size = ri.data_size;
	sr->r->aux_size = ri.aux_size;
	sr->copy = malloc(ri.data_size);
	sr->snap = rs_snapshot_alloc();
	if (ri.aux_size)
		sr->aux_copy = malloc(ri.aux_size);
	if (!sr->copy || !sr->snap || (ri.aux_size && !sr->aux_copy))
		return cap_err_note(e, -ENOMEM, cap_err_sys);
	memset(sr->copy, 0, ri.data_size);
	if (ri.aux_size)
		memset(sr->aux_copy, 0, ri.aux_size);
	return 0;
}

/* The ring's bytes into the prepared buffers, nothing walked.  0, or the
 * ring library's code noted in @e. */
static int take_ring(const struct rs_region *region, uint32_t i,
		     struct ring_copy *sr, struct cap_err *e)
{
	struct cap_rinfo ri;
	int err;

	err = cap_err_note(e, cap_rinfo_get(region, i, &ri), rs_error_str);
	if (err)
		return err;
	sr->r->data_mode = ri.data_mode;
	sr->r->produced = ri.produced;
	pdf_rrec_clock_init(&sr->clock, region, i);
	/* the buffers are the layout's sizes: a ring that claims more is
	 * refused by the ring library (-rse_too_small) */
	err = cap_err_note(e, rs_snapshot_take(sr->snap, region, i, sr->copy,
					       sr->r->data_size), rs_error_str);
	if (err)
		return err;
	sr->taken = 1;
	if (!ri.aux_size)
		return 0;
	err = rs_snapshot_aux(&sr->r->aux, region, i, sr->aux_copy, sr->r->aux_size);
	if (err == -rse_corrupt) {
		/* the guest's AUX head and tail: counted, never the snapshot */
		sr->r->aux_bad_heads++;
		return 0;
	}
	err = cap_err_note(e, err, rs_error_str);
	sr->r->has_aux = !err;
	return err;
}

static void free_copy(struct ring_copy *sr)
{
	rs_snapshot_free(sr->snap);
	free(sr->copy);
	free(sr->aux_copy);
	sr->snap = NULL;
	sr->copy = sr->aux_copy = NULL;
	sr->taken = 0;
}

/* The copied records into the ring's stash, its AUX bytes kept.  0, or
 * -ENOMEM noted in @e. */
static int parse_ring(struct ring_copy *sr, struct cap_err *e)
{
	const struct rs_perf_header *rec;
	int err;

	if (!sr->taken)
		return 0;
	while (rs_snapshot_next(sr->snap, &rec) == 1) {
		pdf_buf_add_u64(&sr->offs, sr->stash.len);
		pdf_buf_add(&sr->stash, rec, rec->size);
	}
	sr->r->data = *rs_snapshot_stats(sr->snap);
	if (sr->r->has_aux)
		pdf_buf_add(&sr->aux_data, sr->aux_copy, sr->r->aux.len);
	/* pdf_buf's sticky error is -ENOMEM */
	err = sr->stash.err ? sr->stash.err : sr->offs.err ? sr->offs.err :
	      sr->aux_data.err;
	free_copy(sr);
	return cap_err_note(e, err, cap_err_sys);
}

int cap_snapper_prepare(struct cap_snapper *s, const struct rs_region *region)
{
	struct cap_err e = { 0 };
	uint32_t i;
	int err;

	s->st.nr_rings = cap_rinfo_count(region);
	s->st.sample_type = cap_rinfo_sample_type(region);
	s->st.aux_format = cap_rinfo_aux_format_of(region, s->c.aux_opaque);
	s->st.host.kind = PDF_HOST_SNAPSHOT;
	for (i = 0; i < s->st.nr_rings; i++) {
		/* its control page is damaged: said at open, left empty here */
		if (rs_region_ring_skipped(region, i))
			continue;
		err = prepare_ring(region, i, &s->rc[i], &e);
		if (err)
			return fail(s, CAP_FAIL_COPY, i, err, e.str);
	}
	return 0;
}

int cap_snapper_take(struct cap_snapper *s, const struct rs_region *region)
{
	struct cap_err e = { 0 };
	uint32_t i;
	int err;

	s->st.host.start_ns = cap_time_now_ns();
	cap_guest_facts_read(&s->st.guest, region);
	for (i = 0; i < s->st.nr_rings; i++) {
		if (!s->rc[i].copy)   /* skipped */
			continue;
		err = take_ring(region, i, &s->rc[i], &e);
		if (err)
			return fail(s, CAP_FAIL_COPY, i, err, e.str);
	}
	/* the processes as they are at the copy's end (their state table
	 * is rewritten, never overwritten like a ring) */
	err = gi_pstate_read(&s->pstate, region);
	if (err)
		return fail(s, CAP_FAIL_COPY, 0, err, cap_err_sys);
	s->st.host.end_ns = cap_time_now_ns();
	s->st.take_ns = s->st.host.end_ns - s->st.host.start_ns;
	return 0;
}

int cap_snapper_parse(struct cap_snapper *s)
{
	struct cap_err e = { 0 };
	uint32_t i;
	int err;

	for (i = 0; i < s->st.nr_rings; i++) {
		err = parse_ring(&s->rc[i], &e);
		if (err)
			return fail(s, CAP_FAIL_COPY, i, err, e.str);
	}
	return 0;
}

int cap_snapper_copy(struct cap_snapper *s, const struct rs_region *region)
{
	int err = cap_snapper_prepare(s, region);

	if (!err)
		err = cap_snapper_take(s, region);
	return err ? err : cap_snapper_parse(s);
}

void cap_snapper_read_more(struct cap_snapper *s)
{
	s->st.host.end_ns = cap_time_now_ns();
}

/* Ring @sr's @i-th stashed record, oldest first. */
static const struct rs_perf_header *stashed(const struct ring_copy *sr,
					    size_t i)
{
	size_t n = sr->offs.len / sizeof(uint64_t);
	uint64_t off;

	if (sr->r->data_mode == RS_MODE_OVERWRITE)
		i = n - 1 - i;
	memcpy(&off, sr->offs.data + i * sizeof(off), sizeof(off));
	return (const void *)(sr->stash.data + off);
}

/* The time of ring @sr's oldest record that has one of its own, as the
 * writer files it (0: none).  The records before it (the descriptions an
 * agent synthesizes as it attaches) describe that moment, not time 0. */
static uint64_t first_timed(const struct cap_snapper *s, const struct ring_copy *sr)
{
	struct pdf_rrec_clock clk = sr->clock;  /* the writer's is kept */
	size_t n = sr->offs.len / sizeof(uint64_t), i;

	for (i = 0; i < n; i++) {
		const struct rs_perf_header *rec = stashed(sr, i);

		if (pdf_rrec_timed(rec, s->st.sample_type))
			return pdf_rrec_stamp(&clk, rec, s->st.sample_type);
	}
	return 0;
}

/* Ring @ring's stashed records, oldest first, to @w (if any) and the tally.
 * 0, or the writer's error (pdf_error_str). */
static int write_ring(struct cap_snapper *s, struct pdf_writer *w, uint32_t ring)
{
	struct ring_copy *sr = &s->rc[ring];
	size_t n = sr->offs.len / sizeof(uint64_t), i;
	uint64_t lead = first_timed(s, sr);
	int timed = 0, err;

	for (i = 0; i < n; i++) {
		const struct rs_perf_header *rec = stashed(sr, i);
		uint64_t time;

		time = pdf_rrec_stamp(&sr->clock, rec, s->st.sample_type);
		timed = timed || pdf_rrec_timed(rec, s->st.sample_type);
		if (!timed)
			time = lead;
		err = w ? pdf_writer_add(w, ring, time, rec) : 0;
		if (err == PDF_ERR(pdfe_too_big)) {
			sr->r->too_big++;
			continue;
		}
		if (err)
			return err;
		cap_tally_add(&s->st.tally, ring, time, rec);
	}
	return 0;
}

/* The earliest time of a sample in the copied rings, as the writer files
 * it (0: none). */
static uint64_t first_sample_time(const struct cap_snapper *s)
{
	uint64_t first = UINT64_MAX;
	uint32_t ring;

	for (ring = 0; ring < s->st.nr_rings; ring++) {
		const struct ring_copy *sr = &s->rc[ring];
		struct pdf_rrec_clock clk = sr->clock;  /* the writer's is kept */
		size_t n = sr->offs.len / sizeof(uint64_t), i;

		for (i = 0; i < n; i++) {
			const struct rs_perf_header *rec = stashed(sr, i);
			uint64_t time = pdf_rrec_stamp(&clk, rec, s->st.sample_type);

			if (rec->type == RS_PERF_RECORD_SAMPLE && time < first)
				first = time;
		}
	}
	return first == UINT64_MAX ? 0 : first;
}

/* The guest's processes at the head of the file (cap_pstate_file), filed just
 * before the first sample. */
static int write_pstate(struct cap_snapper *s, struct pdf_writer *w)
{
	uint64_t time;

	if (!s->pstate.nr_procs || !s->st.nr_rings || s->c.no_pstate)
		return 0;
	time = first_sample_time(s);
	return cap_pstate_file(&s->pstate, w, time ? time - 1 : 0, &s->st.pstate_out);
}

/* Records the agent forwarded but whose space it had not given back are
 * both in the ring and in the buffer: byte for byte, among the ring's
 * newest.  How many of a ring's newest are compared. */
#define DEDUP_WINDOW 8192u

void cap_snapper_kbuf_dedup(struct cap_snapper *s)
{
	size_t n, i, j;

	if (!s->c.kbuf || !s->st.nr_rings)
		return;
	n = gi_kbuf_count(s->c.kbuf);
	for (i = 0; i < n; i++) {
		uint32_t cpu;
		const struct rs_perf_header *rec = gi_kbuf_record(s->c.kbuf, i, &cpu);
		const struct ring_copy *sr = &s->rc[cpu % s->st.nr_rings];
		size_t m = sr->offs.len / sizeof(uint64_t);
		int newest_first = sr->r->data_mode == RS_MODE_OVERWRITE;

		for (j = 0; j < m && j < DEDUP_WINDOW; j++) {
			const struct rs_perf_header *r;
			uint64_t off;

			memcpy(&off, sr->offs.data + (newest_first ? j : m - 1 - j) *
			       sizeof(off), sizeof(off));
			r = (const void *)(sr->stash.data + off);
			if (r->size == rec->size && !memcmp(r, rec, rec->size)) {
				gi_kbuf_drop(s->c.kbuf, i);
				break;
			}
		}
	}
}

/* The recovered records of the CPUs that fed @ring, after the ring's own:
 * the writer's time order is perf's business (it sorts by time).  A record
 * the writer refuses is counted, never a reason to fail. */
static int write_kbuf(struct cap_snapper *s, struct pdf_writer *w, uint32_t ring)
{
	struct ring_copy *sr = &s->rc[ring];
	size_t n = gi_kbuf_count(s->c.kbuf), i;
	int err;

	for (i = 0; i < n; i++) {
		const struct rs_perf_header *rec;
		uint32_t cpu;
		uint64_t time;

		rec = gi_kbuf_record(s->c.kbuf, i, &cpu);
		if (cpu % s->st.nr_rings != ring || gi_kbuf_dropped(s->c.kbuf, i))
			continue;
		time = pdf_rrec_stamp(&sr->clock, rec, s->st.sample_type);
		err = w ? pdf_writer_add(w, ring, time, rec) : 0;
		if (err && err > -PDF_ERR_BASE)
			return err;     /* -errno: the file, not the record */
		if (err) {
			s->st.kbuf_refused++;
			continue;
		}
		cap_tally_add(&s->st.tally, ring, time, rec);
	}
	return 0;
}

/* The processes born after the agent's last read (their FORK recovered
 * from the guest kernel's buffers of the CPUs that fed @ring): no ring
 * and no table describes them, so each is filed as the kernel made it,
 * its parent's name and mappings at its birth (cap_pstate_file_child): the
 * table's parent, or one born the same way before (@born: pairs of
 * child and the table's process it was filed as).  0, or the writer's or
 * -ENOMEM (pdf_error_str says both). */
static int write_forks(struct cap_snapper *s, struct pdf_writer *w, uint32_t ring,
		       struct pdf_buf *born)
{
	struct ring_copy *sr = &s->rc[ring];
	size_t n = gi_kbuf_fork_count(s->c.kbuf), i, j;
	struct gi_kbuf_fork f;
	int err;

	if (s->c.no_pstate || s->pstate.state != GI_PSTATE_OK)
		return 0;
	for (i = 0; i < n && !gi_kbuf_fork_get(s->c.kbuf, i, &f); i++) {
		uint32_t parent = f.ppid, pair[2];

		if (f.cpu % s->st.nr_rings != ring)
			continue;
		for (j = 0; j < born->len / sizeof(pair); j++) {
			memcpy(pair, born->data + j * sizeof(pair), sizeof(pair));
			if (pair[0] == f.ppid)
				parent = pair[1];
		}
		err = cap_pstate_file_child(&s->pstate, w, parent, f.pid,
					    rs_time_to_ns(&sr->clock.conv, f.time),
					    &s->st.pstate_out);
		if (err < 0)
			return err;
		if (err) {
			pair[0] = f.pid;
			pair[1] = parent;
			pdf_buf_add(born, pair, sizeof(pair));
		}
	}
	return born->err;
}

/* One sample per vCPU, at the end of the host's reading (gi_vcpu_time):
 * after the newest record the host read. */
static int write_vcpus(struct cap_snapper *s, struct pdf_writer *w)
{
	struct cap_tally_ring sum;
	struct pdf_buf rec;
	uint64_t time;
	uint32_t i, ring;
	int err = 0;

	cap_tally_total(&s->st.tally, &sum);
	time = gi_vcpu_time(s->c.clock, s->st.host.end_ns, sum.last_time);
	pdf_buf_init(&rec);
	for (i = 0; i < s->c.vcpu->nr && !err; i++) {
		ring = s->c.vcpu->cpu[i].regs.cpu % s->st.nr_rings;
		err = gi_vcpu_sample(s->c.vcpu, i, s->st.sample_type, time + i, &rec);
		if (err == -ENOMEM)
			break;
		if (!err && w) {
			err = pdf_writer_add(w, ring, time + i, (const void *)rec.data);
			if (err && err > -PDF_ERR_BASE)
				break;  /* -errno: the file, not the record */
		}
		if (err) {      /* a sample_type it cannot fill, too big */
			s->c.vcpu->refused++;
			err = 0;
			continue;
		}
		cap_tally_add(&s->st.tally, ring, time + i, (const void *)rec.data);
	}
	pdf_buf_fini(&rec);
	return err;
}

/* What the host observed copying each ring (the times are cap_snapper_copy's). */
static void host_facts(struct cap_snapper *s)
{
	uint32_t i;

	s->st.host.nr_rings = s->st.nr_rings;
	for (i = 0; i < s->st.nr_rings; i++) {
		const struct ring_copy *sr = &s->rc[i];
		struct pdf_host_ring *h = &s->st.host.ring[i];

		memset(h, 0, sizeof(*h));
		h->data_size = sr->r->data_size;
		h->aux_size = sr->r->aux_size;
		h->corrupt = sr->r->data.corrupt;
		h->aux_bad_heads = sr->r->aux_bad_heads;
		h->aux_bytes = sr->r->has_aux ? sr->r->aux.len : 0;
		h->aux_stored = sr->r->aux_stored;
		h->cut_bytes = sr->r->data.cut_bytes;
		h->sealed_records = sr->r->data.sealed;
		h->not_written = sr->r->too_big;
	}
}

/* The summary's claims from the file as report reads it (times converted,
 * checked against the copy's window); without it, the live tally's. */
static void file_tally(struct cap_snapper *s)
{
	s->st.readback_err = cap_tally_file(s->c.output, &s->st.file_tally, NULL,
				     &s->st.readback_at);
	s->st.have_file_tally = !s->st.readback_err;
}

int cap_snapper_write(struct cap_snapper *s)
{
	struct pdf_writer_params wp = {
		.size = sizeof(wp),
		.nr_rings = s->st.nr_rings,
		.sample_type = s->st.sample_type,
		.argc = s->c.argc,
		.argv = s->c.argv,
		.aux_format = s->st.aux_format,
		.guest = &s->st.guest.facts,
		.host_view = s->c.host != NULL,
	};
	struct pdf_writer *w = NULL;
	struct pdf_buf born;
	uint32_t i;
	int err;

	cap_tally_init(&s->st.tally, s->st.nr_rings, s->st.sample_type);
	if (s->c.syms)
		gi_syms_writer_params(s->c.syms, &wp);
	wp.buildid_dir = s->c.buildid_dir;
	if (s->c.output) {
		err = pdf_writer_open(&w, s->c.output, &wp);
		if (err)
			return fail(s, CAP_FAIL_OPEN, 0, err, pdf_error_str);
		s->st.wstats = *pdf_writer_stats(w);
		if (s->c.usyms)       /* the user binaries', into the cache */
			cap_usyms_feed_give(&s->st.usyms, s->c.usyms, w);
		/* the code a PT decoder follows, beside the symbols */
		if (s->c.kcode && s->c.kcode_src && s->st.aux_format == PDF_AUX_INTEL_PT &&
		    gi_kcode_put(s->c.kcode, s->c.kcode_src, w)) {
			pdf_writer_discard(w);
			return fail(s, CAP_FAIL_KCODE, 0, -ENOMEM, cap_err_sys);
		}
	}
	err = write_pstate(s, w);
	if (err) {
		pdf_writer_discard(w);
		return fail(s, CAP_FAIL_RING, 0, err, err == -ENOMEM ?
			    cap_err_sys : pdf_error_str);
	}
	pdf_buf_init(&born);
	for (i = 0; i < s->st.nr_rings; i++) {
		err = write_ring(s, w, i);
		if (!err && s->c.kbuf)
			err = write_forks(s, w, i, &born);
		if (!err && s->c.kbuf)
			err = write_kbuf(s, w, i);
		if (!err && w && s->rc[i].aux_data.len) {
			struct ring_copy *sr = &s->rc[i];

			err = pdf_writer_add_aux(w, i, sr->r->aux.start,
						 sr->aux_data.data, sr->aux_data.len);
			if (!err)
				sr->r->aux_stored = sr->aux_data.len;
		}
		if (err) {
			pdf_buf_fini(&born);
			pdf_writer_discard(w);
			return fail(s, CAP_FAIL_RING, i, err, err == -ENOMEM ?
				    cap_err_sys : pdf_error_str);
		}
	}
	pdf_buf_fini(&born);
	/* the host's last seconds of each vCPU thread */
	if (w && s->c.host && (err = cap_host_capture(s->c.host, w)) < 0) {
		pdf_writer_discard(w);
		return fail(s, CAP_FAIL_RING, 0, err, pdf_error_str);
	}
	if (s->c.vcpu && s->c.vcpu->state == GI_VCPU_OK && s->st.nr_rings &&
	    (err = write_vcpus(s, w))) {
		pdf_writer_discard(w);
		return fail(s, CAP_FAIL_VCPUS, 0, err, pdf_error_str);
	}
	if (w && s->c.clock)   /* only refuses what cap_sync never builds */
		pdf_writer_set_clock(w, s->c.clock);
	host_facts(s);
	if (w) { /* likewise */
		pdf_writer_set_host(w, &s->st.host);
		s->st.wstats = *pdf_writer_stats(w);  /* call chains cut, too */
	}
	if (w && (err = pdf_writer_finish(w)))
		return fail(s, CAP_FAIL_FINISH, 0, err, pdf_error_str);
	if (w)
		file_tally(s);
	return 0;
}
