/* SPDX-License-Identifier: MIT */
/*
 * A record session: its config, its doorbells, and the loop that drains
 * the rings until it is stopped, through a source that goes away and
 * comes back; the files it writes are cap_recorder_file.c's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cap_internal.h"

#define PROGRESS_PERIOD 0.25  /* seconds between progress lines */
#define FINISHED_PERIOD 0.05  /* seconds between asking whether it ended */

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
	cap_host_facts_clear(h, 0);   /* the drain writes each ring's */
	cap_drain_host_facts(&r->drain, h);
}

int cap_recorder_add_wake(struct cap_recorder *r, int fd, int ring, int hangup_only)
{
	if (r->nr_wake == CAP_RECORDER_MAX_WAKE)
		return -ENOSPC;
	r->wake[r->nr_wake] = (struct cap_stop_fd){ .fd = fd,
						.hangup_only = hangup_only };
	r->wake_ring[r->nr_wake++] = ring;
	r->nr_bells += ring >= 0;
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

/* The next sleep: the interval (or what the sleep_ms hook says after a
 * pass that found @found), cut short by the end of --duration. */
static int wait_ms(const struct cap_recorder *r, double elapsed, int found)
{
	uint32_t ms = r->c.interval_ms;
	double left;

	if (r->c.hooks.sleep_ms)
		ms = r->c.hooks.sleep_ms(r->c.hooks.arg, r, found);
	if (ms > INT32_MAX)
		ms = INT32_MAX;
	if (!r->c.duration)
		return (int)ms;
	left = (r->c.duration - elapsed) * 1000.0;
	if (left < 0.0)
		return 0;
	return left < (double)ms ? (int)left + 1 : (int)ms;
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
			return cap_recorder_fail(r, CAP_FAIL_OPEN, -EINVAL,
						 cap_err_sys);
	}
	/* what waits for a time goes into the file of the time before */
	err = cap_drain_flush(&r->drain, &r->st.fail.e);
	if (err)
		return cap_recorder_fail(r, CAP_FAIL_WRITE, err, pdf_error_str);
	events = cap_drain_reattach(&r->drain, region);
	if (events < 0)
		return cap_recorder_fail(r, CAP_FAIL_ATTACH, events, rs_error_str);
	if (next) {
		/* the file of the time before: its clock as it stood */
		err = cap_recorder_file_next(r, *regionp, next);
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
	int said[CAP_RECORDER_MAX_WAKE] = { 0 };
	struct cap_err e = { 0 };
	int err, gone = 0, leaving = 0, found;

	r->last_syms = r->last_guest = r->last_usyms = 0.0;
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
		found = 0;
		if (!r->st.away && !r->st.full) {
			err = cap_drain_pass(&r->drain, &e);
			r->st.passes++;
			found = err > 0 || r->drain.pass_aux;
		}
		/* the host's side of the same moments, on its own clock */
		if (err >= 0 && r->c.host && r->w && !r->st.full) {
			int herr = cap_host_file(r->c.host, r->w);

			if (herr < 0) {   /* the file's write: as the pass's */
				cap_err_note(&e, herr, pdf_error_str);
				err = herr;
			}
		}
		/* cap_drain_pass returns how many records it took: >= 0 is fine */
		if (err >= 0)
			err = cap_recorder_file_feed(r, region, now, &e);
		if (err < 0 && r->w && cap_recorder_file_full(r, err) &&
		    !cap_err_from(&e, rs_error_str)) {
			/* the record that failed stays in its ring */
			cap_recorder_file_pause(r, region);
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
			cap_recorder_file_kcode(r, region);
		if (r->st.end)
			break;
		if (!r->st.away && r->c.hooks.next_output && r->st.output &&
		    (next = r->c.hooks.next_output(r->c.hooks.arg, r)) &&
		    (err = cap_recorder_file_next(r, region, next)) < 0)
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
		 * them while the consumers say they poll).  Without a
		 * ring's doorbell to wake on, nothing is suppressed: the
		 * consumers' word stays as it is (a producer that looks
		 * at it rings a doorbell nobody hears, as while asleep),
		 * and the pass touches each ring's head alone. */
		if (r->nr_bells && !r->st.away &&
		    cap_drain_sleep_prepare(&r->drain))
			r->st.rechecks++;
		else if (cap_stop_wait_fds(r->wake, r->nr_wake,
					   wait_ms(r, cap_time_now() - start,
						   found)) > 0)
			r->st.woken++;
		if (r->nr_bells && !r->st.away)
			cap_drain_awake(&r->drain);
		gone = check_hangups(r, said);
	}
	/* Whoever reads the rings next gets their doorbells. */
	if (r->nr_bells && !r->st.away)
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
	cap_host_facts_clear(&r->base, r->drain.nr_rings);
	memset(&r->st.disk_lost, 0, sizeof(r->st.disk_lost));
	r->st.disk_fulls = r->st.salvaged_files = r->st.disk_files_lost = 0;
	r->st.full = 0;
	r->st.files = 1;
	/* begun on a full disk: paused until there is room */
	err = cap_recorder_file_open(r, region);
	if (err)
		return err;
	/* before the attach: what the ring held then may predate it */
	r->file_start_ns = r->st.host.start_ns = cap_time_now_ns();
	err = cap_drain_init(&r->drain, region, cap_rinfo_sample_type(region), r->w,
			     &r->st.tally);
	if (err) {
		/* -rse_mode: overwrite-mode rings have no tail to drain */
		pdf_writer_discard(r->w);
		r->w = NULL;
		return cap_recorder_fail(r, CAP_FAIL_ATTACH, err, rs_error_str);
	}
	r->region = region;
	r->st.nr_rings = r->drain.nr_rings;
	r->st.host.kind = PDF_HOST_DRAIN;
	cap_drain_bounds(&r->drain, r->st.host.start_ns, &bounds);
	cap_tally_set_bounds(&r->st.tally, &bounds);
	if (r->c.sync)
		cap_sync_take(r->c.sync, region, r->sync_mem, 0);
	return cap_recorder_file_end(r, loop(r, region));
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
