/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "recorder.h"
#include "report_out.h"
#include "ring_info.h"

#define PROGRESS_PERIOD 0.25  /* seconds between progress lines */
#define FINISHED_PERIOD 0.05  /* seconds between asking whether it ended */
#define SYMS_PERIOD     0.25  /* seconds between looks at the sideband */

void recorder_init(struct recorder *r, const char *cmd, const char *source)
{
	memset(r, 0, sizeof(*r));
	r->cmd = cmd;
	r->source = source;
	r->interval_ms = 10;
}

int recorder_add_wake(struct recorder *r, int fd, int ring, int hangup_only)
{
	if (r->nr_wake == RECORDER_MAX_WAKE)
		return -ENOSPC;
	r->wake[r->nr_wake] = (struct stop_fd){ .fd = fd,
						.hangup_only = hangup_only };
	r->wake_ring[r->nr_wake++] = ring;
	return 0;
}

int recorder_warn(const struct recorder *r)
{
	return report_warn(r->cmd, &r->host,
			   r->have_file_tally ? &r->file_tally : &r->tally);
}

uint64_t recorder_doorbells(const struct recorder *r, uint32_t ring)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < r->nr_wake; i++)
		if (r->wake_ring[i] == (int)ring)
			n += r->wake[i].count;
	return n;
}

/* The next sleep: the interval, cut short by the end of --duration. */
static int wait_ms(const struct recorder *r, double elapsed)
{
	double left;

	if (!r->duration)
		return (int)r->interval_ms;
	left = (r->duration - elapsed) * 1000.0;
	if (left < 0.0)
		return 0;
	return left < (double)r->interval_ms ? (int)left + 1 : (int)r->interval_ms;
}

static void progress(const struct recorder *r, int final)
{
	const struct tally *t = &r->tally;
	struct tally_ring sum;
	char size[32];
	uint32_t i;

	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	tally_total(t, &sum);
	fprintf(stderr, "\r\033[K%s: %" PRIu64 " records, %s, lost %" PRIu64,
		r->output ? "recording" : "draining", sum.records,
		report_size(size, sizeof(size), sum.bytes), sum.lost);
	for (i = 0; i < r->drain.nr_rings && i < 8; i++)
		fprintf(stderr, " | %u: %" PRIu64 "/%" PRIu64, i,
			t->ring[i].records, t->ring[i].lost);
	if (r->drain.nr_rings > 8)
		fprintf(stderr, " | ...");
	fflush(stderr);
}

/* Say once that a doorbell went away; 1 if the producer's end hung up. */
static int check_hangups(struct recorder *r, int *said)
{
	int gone = 0;

	for (unsigned i = 0; i < r->nr_wake; i++) {
		if (!r->wake[i].hung_up || (said[i] && !r->wake[i].hangup_only))
			continue;
		if (r->wake[i].hangup_only) {
			gone = 1;
		} else {
			cli_err(r->cmd, "doorbell fd %d hung up; polling every %u ms",
				r->wake[i].fd, r->interval_ms);
			said[i] = 1;
		}
	}
	return gone;
}

/* The kernel's code beside its symbols, once they are in the cache: a
 * PT region of a domain, at the end of the recording.  Never costs the
 * recording. */
static void put_kcode(struct recorder *r, struct pdf_writer *w, uint32_t format)
{
	const struct gkcode *early;

	if (!r->kcode || !r->kcode_src || format != PDF_AUX_INTEL_PT ||
	    r->kcode->state != GKCODE_ABSENT ||
	    pdf_writer_code_ranges(w, NULL, 0) <= 0)
		return;
	/* the source is the reader's until it is done; what it cached
	 * stays (a cache entry is never replaced), so it is the answer */
	early = kcode_reader_join(&r->kread);
	if (early && (early->state == GKCODE_OK || early->state == GKCODE_KEPT)) {
		*r->kcode = *early;
		return;
	}
	if (gkcode_put(r->kcode, r->kcode_src, w)) {
		r->kcode->state = GKCODE_FAILED;
		r->kcode->err = -ENOMEM;
		r->kcode->errstr = pdf_errstr;
	}
}

/* The code, read and cached in a thread as soon as the file has the
 * kernel's symbols (at the start, or once a late agent published them):
 * the domain may be gone when the recording ends.  Said once it is in the
 * cache, so an operator (or a test) knows the domain may go. */
static void early_kcode(struct recorder *r, struct pdf_writer *w,
			uint32_t format)
{
	if (!r->kcode || !r->kcode_src || !w || format != PDF_AUX_INTEL_PT)
		return;
	if (!r->kread.started && !r->kread_failed)
		r->kread_failed = kcode_reader_start(&r->kread, r->kcode_src,
						     w) < 0;
	if (r->kread_said || !kcode_reader_done(&r->kread))
		return;
	r->kread_said = 1;
	if (r->quiet || r->kread.err)
		return;
	printf("ringside %s:", r->cmd);
	gkcode_summary(stdout, &r->kread.g);   /* "  guest kernel code: ..." */
	fflush(stdout);
}

/*
 * The guest published its kernel's symbols after the recording began (an
 * agent that started with its domain): into the file now.  0, or the
 * writer's error (the file is lost), noted in @e.
 */
static int late_syms(struct recorder *r, const struct rs_region *region,
		     struct pdf_writer *w, struct liberr *e)
{
	struct pdf_writer_params wp = { .size = sizeof(wp) };
	int err;

	if (gsyms_read(r->syms, region, 0) || r->syms->state != GSYMS_OK)
		return 0;
	gsyms_writer_params(r->syms, &wp);
	err = pdf_writer_add_ksyms(w, &wp);
	if (err == -EALREADY)
		return 0;
	r->wstats = *pdf_writer_stats(w);
	r->syms_late = 1;
	return liberr_note(e, err, pdf_errstr);
}

/* Passes until stopped, and one last pass after the stop for what came in
 * meanwhile.  0, or the error that ended it, noted in @e (drain_pass). */
static int loop(struct recorder *r, const struct rs_region *region,
		struct pdf_writer *w, struct liberr *e)
{
	int show = !r->quiet && isatty(STDERR_FILENO);
	double start = cli_now(), last_shown = 0.0, last_asked = 0.0;
	double last_syms = 0.0;
	int said[RECORDER_MAX_WAKE] = { 0 };
	int err, gone = 0;

	for (;;) {
		double now = cli_now();

		if (stop_requested())
			r->end = RECORDER_END_SIGNAL;
		else if (r->duration && now - start >= r->duration)
			r->end = RECORDER_END_DURATION;
		else if (gone)
			r->end = RECORDER_END_FINISHED;
		if (r->stopping && (r->end == RECORDER_END_SIGNAL ||
				    r->end == RECORDER_END_DURATION))
			r->stopping(r->finished_arg);
		err = drain_pass(&r->drain, e);
		r->passes++;
		/* drain_pass returns how many records it took: >= 0 is fine */
		if (err >= 0 && w && r->syms && gsyms_pending(r->syms) &&
		    (r->end || now - last_syms >= SYMS_PERIOD)) {
			last_syms = now;
			err = late_syms(r, region, w, e);
		}
		if (r->sync && !r->end)
			csync_poll(r->sync, r->region, r->sync_mem);
		if (err >= 0 && !r->end)
			early_kcode(r, w, rinfo_aux_format(region));
		if (err < 0 || r->end)
			break;
		if (show && now - last_shown >= PROGRESS_PERIOD) {
			progress(r, 0);
			last_shown = now;
		}
		if (r->finished && now - last_asked >= FINISHED_PERIOD) {
			last_asked = now;
			/* one more pass takes what it wrote before it ended */
			if (r->finished(r->finished_arg) == 1) {
				gone = 1;
				continue;
			}
		}
		if (stop_wait_fds(r->wake, r->nr_wake,
				  wait_ms(r, cli_now() - start)) > 0)
			r->woken++;
		gone = check_hangups(r, said);
	}
	stop_collect_fds(r->wake, r->nr_wake);
	r->seconds = cli_now() - start;
	if (show)
		progress(r, 1);
	return err < 0 ? err : 0;
}

/* The summary's claims come from the file as report reads it: times
 * converted, checked against the window. */
static int file_tally(struct recorder *r)
{
	uint64_t at;
	int err = tally_file(r->output, &r->file_tally, NULL, &at);

	if (err) {   /* the file is whole; only the summary is the poorer */
		cli_err(r->cmd, "reading %s back failed at offset %" PRIu64 ": %s; "
			"the summary shows the claims unconverted", r->output, at,
			pdf_errstr(err));
		return CLI_EXIT_OK;
	}
	r->have_file_tally = 1;
	return CLI_EXIT_OK;
}

int recorder_run(struct recorder *r, const struct rs_region *region)
{
	struct pdf_writer_params wp = {
		.size = sizeof(wp),
		.nr_rings = rinfo_count(region),
		.sample_type = rinfo_sample_type(region),
		.argc = cli_argc(),
		.argv = cli_argv(),
		.aux_format = rinfo_aux_format_of(region, r->aux_opaque),
	};
	struct pdf_writer *w = NULL;
	struct tally_bounds bounds;
	struct liberr e = { 0 };
	int err;

	tally_init(&r->tally, wp.nr_rings, wp.sample_type);
	if (r->syms)
		gsyms_writer_params(r->syms, &wp);
	if (r->output) {
		err = pdf_writer_open(&w, r->output, &wp);
		if (err) {
			cli_err(r->cmd, "cannot create %s.tmp: %s; choose a writable "
				"-o path", r->output, pdf_errstr(err));
			return CLI_EXIT_FAIL;
		}
		r->wstats = *pdf_writer_stats(w);
	}
	/* before the attach: what the ring held then may predate it */
	r->host.start_ns = cli_now_ns();
	err = drain_init(&r->drain, region, wp.sample_type, w, &r->tally);
	if (err) {
		if (err == -rse_mode)
			cli_err(r->cmd, "%s holds overwrite-mode (flight recorder) "
				"rings, which have no tail to drain; use 'ringside "
				"snapshot'", r->source);
		else
			cli_err(r->cmd, "cannot attach to %s: %s", r->source,
				rs_errstr(err));
		pdf_writer_discard(w);
		return CLI_EXIT_FAIL;
	}
	r->region = region;
	r->host.kind = PDF_HOST_DRAIN;
	drain_bounds(&r->drain, r->host.start_ns, &bounds);
	tally_set_bounds(&r->tally, &bounds);
	if (r->sync)
		csync_take(r->sync, region, r->sync_mem, 0);
	err = loop(r, region, w, &e);
	/* the code's reader uses the writer: done before anything ends it */
	kcode_reader_join(&r->kread);
	r->host.end_ns = cli_now_ns();
	drain_host_facts(&r->drain, &r->host);
	if (!err && r->sync) {
		csync_take(r->sync, region, r->sync_mem, 1);
		if (w)   /* only refuses what csync never builds */
			pdf_writer_set_clock(w, &r->sync->cs);
	}
	if (err) {
		if (liberr_from(&e, rs_errstr) || !w)
			cli_err(r->cmd, "draining %s failed: %s; nothing was kept",
				r->source, liberr_str(&e));
		else
			cli_err(r->cmd, "writing %s failed: %s; nothing was kept",
				pdf_writer_tmp_path(w), liberr_str(&e));
		pdf_writer_discard(w);
		return CLI_EXIT_FAIL;
	}
	if (w)   /* only refuses what drain never builds */
		pdf_writer_set_host(w, &r->host);
	/* after the last pass: reading the code takes seconds, which the
	 * rings must not wait for */
	if (w)
		put_kcode(r, w, rinfo_aux_format(region));
	if (w && (err = pdf_writer_finish(w))) {
		cli_err(r->cmd, "completing %s failed: %s; nothing was kept",
			r->output, pdf_errstr(err));
		return CLI_EXIT_FAIL;
	}
	return w ? file_tally(r) : CLI_EXIT_OK;
}

void recorder_fini(struct recorder *r)
{
	kcode_reader_fini(&r->kread);
	drain_fini(&r->drain);
}
