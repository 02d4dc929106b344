/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_internal.h"

#define PROGRESS_PERIOD 0.25  /* seconds between progress lines */
#define FINISHED_PERIOD 0.05  /* seconds between asking whether it ended */
#define SYMS_PERIOD     0.25  /* seconds between looks at the sideband */
#define USYMS_PERIOD    1.0   /* seconds between reads of the user symbols */

struct cap_recorder {
	struct cap_recorder_config c;
	struct cap_recorder_stats st;
	/* what it wakes on (cap_recorder_add_wake) */
	struct cap_stop_fd wake[CAP_RECORDER_MAX_WAKE];
	int wake_ring[CAP_RECORDER_MAX_WAKE];
	unsigned nr_wake;
	const struct rs_region *region; /* the source's, as it is now */
	void *sync_mem;            /* its mapping, writable */
	struct cap_drain drain;
	struct cap_usyms_feed usyms;
	struct gi_kcode_reader kread;
	int kread_failed, kread_said;
	struct gi_pstate pstate;   /* the guest's processes as each file
				    * began, filed before its first timed
				    * record (cap_pstate_file) */
	int pstate_due;            /* the current file's are not filed yet */
	struct pdf_writer *w;      /* the current file's */
	uint64_t file_start_ns;
	struct pdf_host_facts base; /* the counters when it was opened */
};

void cap_recorder_config_init(struct cap_recorder_config *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->interval_ms = 10;
}

int cap_recorder_new(struct cap_recorder **rp,
		     const struct cap_recorder_config *c)
{
	struct cap_recorder *r = calloc(1, sizeof(*r));
	int err;

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	err = cap_config_copy(&r->c, sizeof(r->c), c,
			      offsetof(struct cap_recorder_config, hooks));
	if (err) {
		free(r);
		return err;
	}
	if (!r->c.interval_ms)
		r->c.interval_ms = 10;
	r->st.output = r->c.output;
	r->sync_mem = r->c.sync_mem;
	*rp = r;
	return 0;
}

const struct cap_recorder_config *cap_recorder_config(const struct cap_recorder *r)
{
	return &r->c;
}

const struct cap_recorder_stats *cap_recorder_stats(const struct cap_recorder *r)
{
	return &r->st;
}

const struct gi_pstate *cap_recorder_pstate(const struct cap_recorder *r)
{
	return &r->pstate;
}

const struct rs_cons_stats *cap_recorder_cons_stats(const struct cap_recorder *r,
						    uint32_t ring)
{
	return ring < r->drain.nr_rings ? cap_drain_cons_stats(&r->drain, ring) :
					  NULL;
}

void cap_recorder_host_total(const struct cap_recorder *r,
			     struct pdf_host_facts *h)
{
	memset(h, 0, sizeof(*h));
	cap_drain_host_facts(&r->drain, h);
}

uint64_t cap_recorder_file_bytes(const struct cap_recorder *r)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < r->drain.nr_rings && i < RS_MAX_RINGS; i++)
		n += r->st.tally.ring[i].bytes + r->drain.ring[i].aux_stored -
		     r->base.ring[i].aux_stored;
	return n;
}

/* A failure the caller will word: what failed, the code and whose. */
static int fail(struct cap_recorder *r, enum cap_fail what, int err,
		cap_err_fn str)
{
	r->st.fail.what = what;
	cap_err_note(&r->st.fail.e, err, str);
	return err;
}

int cap_recorder_add_wake(struct cap_recorder *r, int fd, int ring, int hangup_only)
{
	if (r->nr_wake == CAP_RECORDER_MAX_WAKE)
		return -ENOSPC;
	r->wake[r->nr_wake] = (struct cap_stop_fd){ .fd = fd,
						.hangup_only = hangup_only };
	r->wake_ring[r->nr_wake++] = ring;
	return 0;
}

uint64_t cap_recorder_doorbells(const struct cap_recorder *r, uint32_t ring)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < r->nr_wake; i++)
		if (r->wake_ring[i] == (int)ring)
			n += r->wake[i].count;
	return n;
}

/* The next sleep: the interval, cut short by the end of --duration. */
static int wait_ms(const struct cap_recorder *r, double elapsed)
{
	double left;

	if (!r->c.duration)
		return (int)r->c.interval_ms;
	left = (r->c.duration - elapsed) * 1000.0;
	if (left < 0.0)
		return 0;
	return left < (double)r->c.interval_ms ? (int)left + 1 : (int)r->c.interval_ms;
}

/* Say once that a doorbell went away; 1 if the producer's end hung up. */
static int check_hangups(struct cap_recorder *r, int *said)
{
	int gone = 0;

	for (unsigned i = 0; i < r->nr_wake; i++) {
		if (!r->wake[i].hung_up || (said[i] && !r->wake[i].hangup_only))
			continue;
		if (r->wake[i].hangup_only) {
			gone = 1;
		} else {
			if (r->c.hooks.doorbell_lost)
				r->c.hooks.doorbell_lost(r->c.hooks.arg, r, r->wake[i].fd);
			said[i] = 1;
		}
	}
	return gone;
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
static void early_kcode(struct cap_recorder *r, struct pdf_writer *w,
			uint32_t format)
{
	if (!r->c.kcode || !r->c.kcode_src || !w || format != PDF_AUX_INTEL_PT)
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

/* A full disk the caller asked to live through (hooks.disk_full). */
static int full_err(const struct cap_recorder *r, int err)
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
	};
	int err;

	r->w = NULL;
	cap_tally_init(&r->st.tally, wp.nr_rings, wp.sample_type);
	if (r->c.syms)
		gi_syms_writer_params(r->c.syms, &wp);
	r->st.guest_late = 0;
	if (cap_guest_facts_read(&r->st.guest, region) == CAP_GUEST_FACTS_OK)
		wp.guest = &r->st.guest.facts;
	if (r->st.output) {
		err = pdf_writer_open(&r->w, r->st.output, &wp);
		if (err)
			return fail(r, CAP_FAIL_OPEN, err, pdf_error_str);
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
	if (err && full_err(r, err)) {
		/* no room for the features: cut back, with room made */
		on_full(r);
		if (salvage(r, w)) {
			r->st.full = 1;   /* lost whole (counted): no file now */
			return 0;
		}
	} else if (err) {
		pdf_writer_discard(w);
		return fail(r, CAP_FAIL_FINISH, err, pdf_error_str);
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
static void pause_full(struct cap_recorder *r, const struct rs_region *region)
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
	memset(&r->base, 0, sizeof(r->base));
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
	if (err && full_err(r, err)) {
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
	if (err && r->w && full_err(r, err)) {
		pause_full(r, region);
		return 0;
	}
	if (err)
		return fail(r, CAP_FAIL_WRITE, err, pdf_error_str);
	file_facts(r);
	if (r->c.sync && !r->st.away)
		cap_sync_poll(r->c.sync, region, r->sync_mem);
	err = file_close(r, region);
	if (err)
		return err;
	/* the counters as they stand: the next file's start (r->st.host holds
	 * this file's part of them only) */
	memset(&r->base, 0, sizeof(r->base));
	cap_drain_host_facts(&r->drain, &r->base);
	if (r->st.full)
		return 0;   /* lost whole on a full disk: paused */
	if (r->c.hooks.file_done)
		r->c.hooks.file_done(r->c.hooks.arg, r);
	r->st.output = path;
	r->file_start_ns = cap_time_now_ns();
	err = file_open(r, region);
	if (err && full_err(r, err)) {
		memset(&r->st.fail, 0, sizeof(r->st.fail));
		on_full(r);
		r->st.full = 1;
		return 0;
	}
	if (err)
		return err;
	r->drain.writer = r->w;
	cap_drain_bounds(&r->drain, r->file_start_ns, &bounds);
	cap_tally_set_bounds(&r->st.tally, &bounds);
	r->st.files++;
	return 0;
}

/* The source runs again, its region mapped anew: every consumer goes
 * on there, and the records from now on go to a file of their own with a
 * clock synced anew.  0, or the failure (r->st.fail). */
static int come_back(struct cap_recorder *r, const struct rs_region **regionp,
		     const struct rs_region *region, void *mem)
{
	const char *next = NULL;
	int events, err;

	if (r->w) {
		next = r->c.hooks.back_output ?
		       r->c.hooks.back_output(r->c.hooks.arg, r) : NULL;
		if (!next)
			return fail(r, CAP_FAIL_OPEN, -EINVAL, cap_err_sys);
	}
	/* what waits for a time goes into the file of the time before */
	err = cap_drain_flush(&r->drain, &r->st.fail.e);
	if (err)
		return fail(r, CAP_FAIL_WRITE, err, pdf_error_str);
	events = cap_drain_reattach(&r->drain, region);
	if (events < 0)
		return fail(r, CAP_FAIL_ATTACH, events, rs_error_str);
	if (next) {
		/* the file of the time before: its clock as it stood */
		err = rotate(r, *regionp, next);
		if (err)
			return err;
	}
	*regionp = region;
	r->region = region;
	r->sync_mem = mem;
	r->st.away = 0;
	r->st.backs++;
	r->st.back_events |= events;
	if (r->c.sync) {
		/* another host time, another offset: measured anew */
		cap_sync_join(r->c.sync);
		cap_sync_init(r->c.sync);
		cap_sync_take(r->c.sync, region, mem, 0);
	}
	if (r->c.hooks.came_back)
		r->c.hooks.came_back(r->c.hooks.arg, r, events);
	return 0;
}

/* Passes until stopped, and one last pass after the stop for what came in
 * meanwhile.  A source that goes away (CAP_RECORDER_AWAY) gets its last pass,
 * then no pass until it comes back.  0, or the error that ended it
 * (r->st.fail says where). */
static int loop(struct cap_recorder *r, const struct rs_region *region)
{
	double start = cap_time_now(), last_shown = 0.0, last_asked = 0.0;
	double last_syms = 0.0, last_guest = 0.0, last_usyms = 0.0;
	int said[CAP_RECORDER_MAX_WAKE] = { 0 };
	struct cap_err e = { 0 };
	int err, gone = 0, leaving = 0;

	for (;;) {
		double now = cap_time_now();
		const char *next;

		if (cap_stop_requested())
			r->st.end = CAP_RECORDER_END_SIGNAL;
		else if (r->c.duration && now - start >= r->c.duration)
			r->st.end = CAP_RECORDER_END_DURATION;
		else if (gone)
			r->st.end = CAP_RECORDER_END_FINISHED;
		if (r->c.stopping && (r->st.end == CAP_RECORDER_END_SIGNAL ||
				    r->st.end == CAP_RECORDER_END_DURATION))
			r->c.stopping(r->c.finished_arg);
		err = 0;
		if (!r->st.away && !r->st.full) {
			err = cap_drain_pass(&r->drain, &e);
			r->st.passes++;
		}
		if (err >= 0 && r->pstate_due && r->w) {
			int perr = file_pstate(r);

			if (perr < 0) {   /* the file's write: as the pass's */
				cap_err_note(&e, perr, pdf_error_str);
				err = perr;
			}
		}
		/* cap_drain_pass returns how many records it took: >= 0 is fine */
		if (err >= 0 && !r->st.away && r->w && r->c.syms &&
		    gi_syms_pending(r->c.syms) &&
		    (r->st.end || now - last_syms >= SYMS_PERIOD)) {
			last_syms = now;
			err = late_syms(r, region, r->w, &e);
		}
		if (err >= 0 && !r->st.away && r->w &&
		    r->st.guest.state != CAP_GUEST_FACTS_OK &&
		    (r->st.end || now - last_guest >= SYMS_PERIOD)) {
			last_guest = now;
			late_guest(r, region, r->w);
		}
		/* the agent appends as it meets binaries: their symbols go to
		 * the cache as they come (and last in file_close) */
		if (err >= 0 && !r->st.away && r->w && r->c.syms &&
		    now - last_usyms >= USYMS_PERIOD) {
			last_usyms = now;
			cap_usyms_feed_pass(&r->usyms, &r->st.usyms, region, r->w);
		}
		if (err < 0 && r->w && full_err(r, err) &&
		    !cap_err_from(&e, rs_error_str)) {
			/* the record that failed stays in its ring */
			pause_full(r, region);
			memset(&e, 0, sizeof(e));
			err = 0;
		}
		if (err < 0) {
			r->st.fail.e = e;
			r->st.fail.what = cap_err_from(&e, rs_error_str) || !r->w ?
				       CAP_FAIL_DRAIN : CAP_FAIL_WRITE;
			break;
		}
		if (leaving) {
			/* its last pass is done: nothing more until it is back
			 * (nor a sync on its header, which may go) */
			leaving = 0;
			if (r->c.sync)
				cap_sync_join(r->c.sync);
			r->st.away = 1;
			r->st.aways++;
			if (r->c.hooks.gone_away)
				r->c.hooks.gone_away(r->c.hooks.arg, r);
		}
		if (r->c.sync && !r->st.end && !r->st.away)
			cap_sync_poll(r->c.sync, r->region, r->sync_mem);
		if (!r->st.end && !r->st.away)
			early_kcode(r, r->w, cap_rinfo_aux_format(region));
		if (r->st.end)
			break;
		if (!r->st.away && r->c.hooks.next_output && r->st.output &&
		    (next = r->c.hooks.next_output(r->c.hooks.arg, r)) &&
		    (err = r->st.full ? resume(r, region, next) :
				     rotate(r, region, next)) < 0)
			break;
		if (r->c.hooks.progress && now - last_shown >= PROGRESS_PERIOD) {
			r->c.hooks.progress(r->c.hooks.arg, r, 0);
			last_shown = now;
		}
		if (r->st.away && now - last_asked >= FINISHED_PERIOD) {
			const struct rs_region *nregion = NULL;
			void *nmem = NULL;
			int back;

			last_asked = now;
			back = r->c.reopen(r->c.finished_arg, &nregion, &nmem, &e);
			if (back < 0) {
				r->st.fail.what = CAP_FAIL_ATTACH;
				r->st.fail.e = e;
				err = back;
				break;
			}
			if (back == CAP_RECORDER_GONE) {
				gone = 1;
				continue;
			}
			if (back == CAP_RECORDER_BACK && nregion) {
				err = come_back(r, &region, nregion, nmem);
				if (err < 0)
					break;
				continue;
			}
		} else if (!r->st.away && r->c.finished &&
			   now - last_asked >= FINISHED_PERIOD) {
			int f = r->c.finished(r->c.finished_arg);

			last_asked = now;
			/* one more pass takes what it wrote before it ended */
			if (f == CAP_RECORDER_GONE ||
			    (f == CAP_RECORDER_AWAY && (!r->c.reopen ||
			     (r->w && !r->c.hooks.back_output)))) {
				gone = 1;
				continue;
			}
			if (f == CAP_RECORDER_AWAY) {
				leaving = 1;
				continue;
			}
		}
		/* Sleep only when no doorbell was skipped while the pass
		 * drained (event suppression: the rings' producers skip
		 * them while the consumers say they poll). */
		if (r->nr_wake && !r->st.away && cap_drain_sleep_prepare(&r->drain))
			r->st.rechecks++;
		else if (cap_stop_wait_fds(r->wake, r->nr_wake,
					   wait_ms(r, cap_time_now() - start)) > 0)
			r->st.woken++;
		if (r->nr_wake && !r->st.away)
			cap_drain_awake(&r->drain);
		gone = check_hangups(r, said);
	}
	/* Whoever reads the rings next gets their doorbells. */
	if (r->nr_wake && !r->st.away)
		cap_drain_sleep_prepare(&r->drain);
	cap_stop_collect_fds(r->wake, r->nr_wake);
	r->st.seconds = cap_time_now() - start;
	if (r->c.hooks.progress)
		r->c.hooks.progress(r->c.hooks.arg, r, 1);
	return err < 0 ? err : 0;
}

int cap_recorder_run(struct cap_recorder *r, const struct rs_region *region)
{
	struct cap_tally_bounds bounds;
	int err;

	memset(&r->st.fail, 0, sizeof(r->st.fail));
	memset(&r->base, 0, sizeof(r->base));
	memset(&r->st.disk_lost, 0, sizeof(r->st.disk_lost));
	r->st.disk_fulls = r->st.salvaged_files = r->st.disk_files_lost = 0;
	r->st.full = 0;
	r->st.files = 1;
	err = file_open(r, region);
	if (err && r->st.output && full_err(r, err)) {
		/* begun on a full disk: paused until there is room */
		memset(&r->st.fail, 0, sizeof(r->st.fail));
		on_full(r);
		r->st.full = 1;
	} else if (err) {
		return err;
	}
	/* before the attach: what the ring held then may predate it */
	r->file_start_ns = r->st.host.start_ns = cap_time_now_ns();
	err = cap_drain_init(&r->drain, region, cap_rinfo_sample_type(region), r->w,
			     &r->st.tally);
	if (err) {
		/* -rse_mode: overwrite-mode rings have no tail to drain */
		pdf_writer_discard(r->w);
		r->w = NULL;
		return fail(r, CAP_FAIL_ATTACH, err, rs_error_str);
	}
	r->region = region;
	r->st.nr_rings = r->drain.nr_rings;
	r->st.host.kind = PDF_HOST_DRAIN;
	cap_drain_bounds(&r->drain, r->st.host.start_ns, &bounds);
	cap_tally_set_bounds(&r->st.tally, &bounds);
	if (r->c.sync)
		cap_sync_take(r->c.sync, region, r->sync_mem, 0);
	err = loop(r, region);
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
	if (err && r->w && full_err(r, err)) {
		pause_full(r, r->region);
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

void cap_recorder_free(struct cap_recorder *r)
{
	if (!r)
		return;
	cap_usyms_feed_fini(&r->usyms);
	gi_kcode_reader_fini(&r->kread);
	cap_drain_fini(&r->drain);
	gi_pstate_fini(&r->pstate);
	free(r);
}
