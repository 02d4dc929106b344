/* SPDX-License-Identifier: MIT */
/*
 * The files a record session writes (cap_recorder.c runs the session):
 * each opened with what the guest has published, fed what it publishes
 * later, rotated at the caller's word, cut back and completed on a full
 * disk, completed with its host facts, clock and the kernel's code, then
 * read back for the summary.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_internal.h"

#define SYMS_PERIOD     0.25  /* seconds between looks at the sideband */
#define USYMS_PERIOD    1.0   /* seconds between reads of the user symbols */

uint64_t cap_recorder_file_bytes(const struct cap_recorder *r)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < r->drain.nr_rings && i < RS_MAX_RINGS; i++)
		n += r->st.tally.ring[i].bytes + r->drain.ring[i].aux_stored -
		     r->base.ring[i].aux_stored;
	return n;
}

/* The kernel's code beside its symbols, once they are in the cache: a
 * PT region of a domain, at the end of the recording.  Never costs the
 * recording. */
static void put_kcode(struct cap_recorder *r, struct pdf_writer *w, uint32_t format)
{
	const struct gi_kcode *early;

	if (!r->c.kcode || !r->c.kcode_src || format != PDF_AUX_INTEL_PT ||
	    r->c.kcode->state != GI_KCODE_ABSENT ||
	    pdf_writer_code_ranges(w, NULL, 0) <= 0)
		return;
	/* the source is the reader's until it is done; what it cached
	 * stays (a cache entry is never replaced), so it is the answer */
	early = gi_kcode_reader_join(&r->kread);
	if (early && (early->state == GI_KCODE_OK || early->state == GI_KCODE_KEPT)) {
		*r->c.kcode = *early;
		return;
	}
	if (gi_kcode_put(r->c.kcode, r->c.kcode_src, w)) {
		r->c.kcode->state = GI_KCODE_FAILED;
		r->c.kcode->err = -ENOMEM;
		r->c.kcode->errstr = pdf_error_str;
	}
}

/* The code, read and cached in a thread as soon as the file has the
 * kernel's symbols (at the start, or once a late agent published them):
 * the domain may be gone when the recording ends.  Said once it is in the
 * cache (the kcode_cached hook), so an operator (or a test) knows the
 * domain may go. */
void cap_recorder_file_kcode(struct cap_recorder *r, const struct rs_region *region)
{
	struct pdf_writer *w = r->w;

	/* after every pass: the region's format looked at only when there
	 * is code to read */
	if (!r->c.kcode || !r->c.kcode_src || !w ||
	    cap_rinfo_aux_format(region) != PDF_AUX_INTEL_PT)
		return;
	if (!r->kread.started && !r->kread_failed)
		r->kread_failed = gi_kcode_reader_start(&r->kread, r->c.kcode_src,
						     w) < 0;
	if (r->kread_said || !gi_kcode_reader_done(&r->kread))
		return;
	r->kread_said = 1;
	if (!r->kread.err && r->c.hooks.kcode_cached)
		r->c.hooks.kcode_cached(r->c.hooks.arg, r, &r->kread.g);
}

/*
 * The guest published its kernel's symbols after the recording began (an
 * agent that started with its domain): into the file now.  0, or the
 * writer's error (the file is lost), noted in @e.
 */
static int late_syms(struct cap_recorder *r, const struct rs_region *region,
		     struct pdf_writer *w, struct cap_err *e)
{
	struct pdf_writer_params wp = { .size = sizeof(wp) };
	int err;

	if (gi_syms_read(r->c.syms, region, 0) || r->c.syms->state != GI_SYMS_OK)
		return 0;
	gi_syms_writer_params(r->c.syms, &wp);
	err = pdf_writer_add_ksyms(w, &wp);
	if (err == -EALREADY)
		return 0;
	r->st.wstats = *pdf_writer_stats(w);
	r->st.syms_late = 1;
	return cap_err_note(e, err, pdf_error_str);
}

/*
 * The guest said who it is after the file was opened (a recording that
 * began before its agent attached): into the file now.  Never costs the
 * recording: the writer only refuses a NULL writer.
 */
static void late_guest(struct cap_recorder *r, const struct rs_region *region,
		       struct pdf_writer *w)
{
	if (cap_guest_facts_read(&r->st.guest, region) != CAP_GUEST_FACTS_OK)
		return;
	pdf_writer_set_guest(w, &r->st.guest.facts);
	r->st.guest_late = 1;
}

/* The host facts of the current file: the counters since it was opened
 * (r->base, what they were then), its own window. */
static void file_facts(struct cap_recorder *r)
{
	uint32_t i;

	r->st.host.kind = PDF_HOST_DRAIN;
	r->st.host.start_ns = r->file_start_ns;
	r->st.host.end_ns = cap_time_now_ns();
	cap_drain_host_facts(&r->drain, &r->st.host);
	for (i = 0; i < r->st.host.nr_rings; i++) {
		struct pdf_host_ring *h = &r->st.host.ring[i];
		const struct pdf_host_ring *b = &r->base.ring[i];

		h->corrupt -= b->corrupt;
		h->corrupt_bytes -= b->corrupt_bytes;
		h->bad_heads -= b->bad_heads;
		h->aux_bad_heads -= b->aux_bad_heads;
		h->aux_bytes -= b->aux_bytes;
		h->aux_stored -= b->aux_stored;
		h->not_written -= b->not_written;
		h->early_records -= b->early_records;
		h->early_lost_records -= b->early_lost_records;
		h->early_lost -= b->early_lost;
		h->early_lost_samples_records -= b->early_lost_samples_records;
		h->early_lost_samples -= b->early_lost_samples;
		h->early_flagged -= b->early_flagged;
		h->early_flagged_samples -= b->early_flagged_samples;
	}
}

int cap_recorder_file_full(const struct cap_recorder *r, int err)
{
	return (err == -ENOSPC || err == -EDQUOT) && r->c.hooks.disk_full;
}

static void part_add(struct pdf_writer_part *a, const struct pdf_writer_part *b)
{
	a->bytes += b->bytes;
	a->records += b->records;
	a->lost_records += b->lost_records;
	a->lost += b->lost;
}

/* The disk is full: counted, and the caller makes room. */
static void on_full(struct cap_recorder *r)
{
	r->st.disk_fulls++;
	r->c.hooks.disk_full(r->c.hooks.arg, r);
}

/* @w failed on a full disk: cut back to what is on disk, completed.  0
 * (r->st.salvaged), or the error that lost the file whole (discarded); what
 * no file holds is counted in r->st.disk_lost either way. */
static int salvage(struct cap_recorder *r, struct pdf_writer *w)
{
	struct pdf_writer_part kept = { 0 }, dropped = { 0 };
	int err = pdf_writer_salvage(w, &kept, &dropped);

	part_add(&r->st.disk_lost, &dropped);
	if (!err)
		err = pdf_writer_try_finish(w);
	if (err) {
		part_add(&r->st.disk_lost, &kept);
		r->st.disk_files_lost++;
		pdf_writer_discard(w);
		return err;
	}
	r->st.salvaged = 1;
	r->st.salvaged_files++;
	return 0;
}

/* The records a paused recording's drain kept for a time that will not
 * come (they left the rings): lost, counted. */
static void count_untimed(struct cap_recorder *r)
{
	for (uint32_t i = 0; i < r->drain.nr_rings && i < RS_MAX_RINGS; i++) {
		struct cap_drain_ring *dr = &r->drain.ring[i];
		uint64_t off = 0;

		while (off + sizeof(struct rs_perf_header) <= dr->untimed_len) {
			const struct rs_perf_header *rec =
				(const void *)(dr->untimed + off);

			if (rec->size < sizeof(*rec))
				break;
			r->st.disk_lost.records++;
			r->st.disk_lost.bytes += rec->size;
			if (rec->type == RS_PERF_RECORD_LOST &&
			    rec->size >= sizeof(struct rs_perf_lost)) {
				r->st.disk_lost.lost_records++;
				r->st.disk_lost.lost += ((const struct rs_perf_lost *)
						      (const void *)rec)->lost;
			}
			off += rec->size;
		}
		dr->untimed_len = 0;
	}
}

/* The summary's claims come from the file as report reads it: times
 * converted, checked against the window.  A failure costs only the
 * summary (r->st.readback_err): the file is whole. */
static void file_tally(struct cap_recorder *r)
{
	r->st.readback_err = cap_tally_file(r->st.output, &r->st.file_tally, NULL,
				     &r->st.readback_at);
	r->st.have_file_tally = !r->st.readback_err;
}

/* Open r->st.output (if any) for the records from now on: the writer, the
 * tally and the bounds its claims are checked against.  0, or the
 * writer's error (CAP_FAIL_OPEN). */
static int file_open(struct cap_recorder *r, const struct rs_region *region)
{
	struct pdf_writer_params wp = {
		.size = sizeof(wp),
		.nr_rings = cap_rinfo_count(region),
		.sample_type = cap_rinfo_sample_type(region),
		.argc = r->c.argc,
		.argv = r->c.argv,
		.aux_format = cap_rinfo_aux_format_of(region, r->c.aux_opaque),
		.host_view = r->c.host != NULL,
	};
	int err;

	r->w = NULL;
	cap_tally_init_used(&r->st.tally, wp.nr_rings, wp.sample_type);
	if (r->c.syms)
		gi_syms_writer_params(r->c.syms, &wp);
	r->st.guest_late = 0;
	if (cap_guest_facts_read(&r->st.guest, region) == CAP_GUEST_FACTS_OK)
		wp.guest = &r->st.guest.facts;
	if (r->st.output) {
		err = pdf_writer_open(&r->w, r->st.output, &wp);
		if (err)
			return cap_recorder_fail(r, CAP_FAIL_OPEN, err, pdf_error_str);
		r->st.wstats = *pdf_writer_stats(r->w);
		cap_usyms_feed_restart(&r->usyms);
	}
	/* the processes as the file begins: each file names its own */
	memset(&r->st.pstate_out, 0, sizeof(r->st.pstate_out));
	r->pstate_due = r->w && !r->c.no_pstate &&
			!gi_pstate_read(&r->pstate, region) &&
			r->pstate.state == GI_PSTATE_OK && r->pstate.nr_procs;
	r->st.have_file_tally = 0;
	r->st.readback_err = 0;
	r->st.salvaged = 0;
	return 0;
}

int cap_recorder_file_open(struct cap_recorder *r, const struct rs_region *region)
{
	int err = file_open(r, region);

	if (err && cap_recorder_file_full(r, err)) {
		/* paused until there is room (next_output) */
		memset(&r->st.fail, 0, sizeof(r->st.fail));
		on_full(r);
		r->st.full = 1;
		return 0;
	}
	return err;
}

/*
 * The process table read as the current file began, filed once the file
 * has a timed record: just before the earliest, where perf meets it
 * before any sample.  A file without one gets none (no sample to name).
 * 0, or the writer's error (a full disk pauses the recording as a
 * drain pass's does).
 */
static int file_pstate(struct cap_recorder *r)
{
	uint64_t first = UINT64_MAX;
	uint32_t i;
	int err;

	for (i = 0; i < r->st.tally.nr_rings; i++)
		if (r->st.tally.ring[i].have_time &&
		    r->st.tally.ring[i].first_time < first)
			first = r->st.tally.ring[i].first_time;
	if (first == UINT64_MAX)
		return 0;
	r->pstate_due = 0;
	err = cap_pstate_file(&r->pstate, r->w, first ? first - 1 : 0,
			      &r->st.pstate_out);
	return err;
}

/* Complete the current file with its host facts (file_facts), the
 * clock and the kernel's code, then read it back.  0, or the writer's error (CAP_FAIL_FINISH; the file is
 * not kept). */
static int file_close(struct cap_recorder *r, const struct rs_region *region)
{
	struct pdf_writer *w = r->w;
	int err;

	if (!w)
		return 0;
	r->w = NULL;
	r->drain.writer = NULL;
	/* each only refuses what drain and cap_sync never build */
	if (r->c.sync)
		pdf_writer_set_clock(w, &r->c.sync->cs);
	pdf_writer_set_host(w, &r->st.host);
	/* after the last pass: reading the code takes seconds, which the
	 * rings must not wait for */
	put_kcode(r, w, cap_rinfo_aux_format(region));
	/* the user symbols the guest published until now, into the cache
	 * before the file is there */
	if (r->c.syms && !r->st.away)
		cap_usyms_feed_pass(&r->usyms, &r->st.usyms, region, w);
	r->st.wstats = *pdf_writer_stats(w);  /* symbols, call chains cut */
	err = pdf_writer_try_finish(w);
	if (err && cap_recorder_file_full(r, err)) {
		/* no room for the features: cut back, with room made */
		on_full(r);
		if (salvage(r, w)) {
			r->st.full = 1;   /* lost whole (counted): no file now */
			return 0;
		}
	} else if (err) {
		pdf_writer_discard(w);
		return cap_recorder_fail(r, CAP_FAIL_FINISH, err, pdf_error_str);
	}
	file_tally(r);
	return 0;
}

/*
 * A write of the current file failed on a full disk (hooks.disk_full):
 * room made, the file cut back to its last whole record on disk and
 * completed (file_done), and the recording paused (r->st.full) until
 * next_output gives a new file.  What was drained past the cut is
 * counted lost (r->st.disk_lost).
 */
void cap_recorder_file_pause(struct cap_recorder *r, const struct rs_region *region)
{
	struct pdf_writer *w = r->w;

	gi_kcode_reader_join(&r->kread);
	memset(&r->st.fail, 0, sizeof(r->st.fail));
	r->w = NULL;
	r->drain.writer = NULL;
	on_full(r);
	file_facts(r);
	if (r->c.sync && !r->st.away)
		cap_sync_poll(r->c.sync, region, r->sync_mem);
	if (r->c.sync)
		pdf_writer_set_clock(w, &r->c.sync->cs);
	pdf_writer_set_host(w, &r->st.host);
	r->st.wstats = *pdf_writer_stats(w);
	r->st.full = 1;
	if (!salvage(r, w)) {
		file_tally(r);
		if (r->c.hooks.file_done)
			r->c.hooks.file_done(r->c.hooks.arg, r);
	}
	cap_host_facts_clear(&r->base, r->drain.nr_rings);
	cap_drain_host_facts(&r->drain, &r->base);
}

/* A paused recording (r->st.full) goes on into @path: 0, still paused
 * when the disk is still full, or the error that ends it. */
static int resume(struct cap_recorder *r, const struct rs_region *region,
		  const char *path)
{
	struct cap_tally_bounds bounds;
	int err;

	r->st.output = path;
	r->file_start_ns = cap_time_now_ns();
	err = file_open(r, region);
	if (err && cap_recorder_file_full(r, err)) {
		memset(&r->st.fail, 0, sizeof(r->st.fail));
		return 0;
	}
	if (err)
		return err;
	r->st.full = 0;
	r->drain.writer = r->w;
	cap_drain_bounds(&r->drain, r->file_start_ns, &bounds);
	cap_tally_set_bounds(&r->st.tally, &bounds);
	r->st.files++;
	return 0;
}

/* The caller's next file: the current one is completed (its own tally,
 * host facts and window) and the records from here on go to @path.  0,
 * or the failure (no current file then; the recording ends). */
static int rotate(struct cap_recorder *r, const struct rs_region *region,
		  const char *path)
{
	struct cap_tally_bounds bounds;
	int err;

	/* the code's reader writes into the current file's cache entry */
	gi_kcode_reader_join(&r->kread);
	err = cap_drain_flush(&r->drain, &r->st.fail.e);
	if (err && r->w && cap_recorder_file_full(r, err)) {
		cap_recorder_file_pause(r, region);
		return 0;
	}
	if (err)
		return cap_recorder_fail(r, CAP_FAIL_WRITE, err, pdf_error_str);
	file_facts(r);
	if (r->c.sync && !r->st.away)
		cap_sync_poll(r->c.sync, region, r->sync_mem);
	err = file_close(r, region);
	if (err)
		return err;
	/* the counters as they stand: the next file's start (r->st.host holds
	 * this file's part of them only) */
	cap_host_facts_clear(&r->base, r->drain.nr_rings);
	cap_drain_host_facts(&r->drain, &r->base);
	if (r->st.full)
		return 0;   /* lost whole on a full disk: paused */
	if (r->c.hooks.file_done)
		r->c.hooks.file_done(r->c.hooks.arg, r);
	r->st.output = path;
	r->file_start_ns = cap_time_now_ns();
	err = cap_recorder_file_open(r, region);
	if (err || r->st.full)
		return err;
	r->drain.writer = r->w;
	cap_drain_bounds(&r->drain, r->file_start_ns, &bounds);
	cap_tally_set_bounds(&r->st.tally, &bounds);
	r->st.files++;
	return 0;
}

int cap_recorder_file_next(struct cap_recorder *r, const struct rs_region *region,
			   const char *path)
{
	return r->st.full ? resume(r, region, path) : rotate(r, region, path);
}

int cap_recorder_file_feed(struct cap_recorder *r, const struct rs_region *region,
			   double now, struct cap_err *e)
{
	int err = 0;

	if (r->pstate_due && r->w) {
		err = file_pstate(r);
		if (err < 0)   /* the file's write: as the pass's */
			return cap_err_note(e, err, pdf_error_str);
	}
	if (!r->st.away && r->w && r->c.syms && gi_syms_pending(r->c.syms) &&
	    (r->st.end || now - r->last_syms >= SYMS_PERIOD)) {
		r->last_syms = now;
		err = late_syms(r, region, r->w, e);
		if (err < 0)
			return err;
	}
	if (!r->st.away && r->w && r->st.guest.state != CAP_GUEST_FACTS_OK &&
	    (r->st.end || now - r->last_guest >= SYMS_PERIOD)) {
		r->last_guest = now;
		late_guest(r, region, r->w);
	}
	/* the agent appends as it meets binaries: their symbols go to the
	 * cache as they come (and last in file_close) */
	if (!r->st.away && r->w && r->c.syms &&
	    now - r->last_usyms >= USYMS_PERIOD) {
		r->last_usyms = now;
		cap_usyms_feed_pass(&r->usyms, &r->st.usyms, region, r->w);
	}
	return 0;
}

int cap_recorder_file_end(struct cap_recorder *r, int err)
{
	/* the code's reader uses the writer: done before anything ends it */
	gi_kcode_reader_join(&r->kread);
	/* nor may a sync's thread outlive the header it writes */
	if (r->c.sync)
		cap_sync_join(r->c.sync);
	if (err) {
		file_facts(r);
		if (r->st.fail.what == CAP_FAIL_WRITE && r->w)
			snprintf(r->st.fail.path, sizeof(r->st.fail.path), "%s",
				 pdf_writer_tmp_path(r->w));
		pdf_writer_discard(r->w);
		r->w = NULL;
		return err;
	}
	if (r->st.full) {
		/* ended paused: no file is open */
		count_untimed(r);
		file_facts(r);
		return 0;
	}
	err = cap_drain_flush(&r->drain, &r->st.fail.e);
	if (err && r->w && cap_recorder_file_full(r, err)) {
		cap_recorder_file_pause(r, r->region);
		count_untimed(r);
		return 0;
	}
	if (err) {
		r->st.fail.what = CAP_FAIL_WRITE;
		snprintf(r->st.fail.path, sizeof(r->st.fail.path), "%s",
			 pdf_writer_tmp_path(r->w));
		file_facts(r);
		pdf_writer_discard(r->w);
		r->w = NULL;
		return err;
	}
	file_facts(r);
	/* a source that is away cannot answer (nor will its old region) */
	if (r->c.sync && !r->st.away)
		cap_sync_take(r->c.sync, r->region, r->sync_mem, 1);
	return file_close(r, r->region);
}
