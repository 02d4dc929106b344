/* SPDX-License-Identifier: MIT */
/*
 * Continuous recording: one recorder (capture library) per selected
 * normal-mode domain, each in a thread of its own (cap_recorder_run blocks),
 * reading the domain's region file and never libvirt, so that a libvirtd
 * restart does not touch it.  Its files' boundaries are svc_rotate.c's,
 * its counts svc_recstats.c's; complete files' profiles are made off its
 * thread (svc_convert.c), and their post-command runs from the service's
 * loop (svc_rec_poll, svc_post.c): a recorder waits for neither.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ringside/service_idle.h"

#include "svc_rec_job.h"

/* The recording's counts so far into @out: the completed files' tallies,
 * the current file's, what the drain met on each ring since it attached.
 * From the recorder's thread, between passes or after its end. */
static uint32_t job_counts(const struct svc_job *j,
			   const struct cap_recorder *r,
			   struct svc_rec_ring_stats *out)
{
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	struct pdf_host_facts h;
	uint32_t n = st->nr_rings;

	if (n > RS_MAX_RINGS)
		n = RS_MAX_RINGS;
	cap_recorder_host_total(r, &h);
	for (uint32_t i = 0; i < n; i++) {
		const struct cap_tally_ring *t = &st->tally.ring[i];
		const struct cap_tally_ring *s = &j->sum[i];

		out[i] = (struct svc_rec_ring_stats){
			.records = s->records - s->by_class[PDF_RREC_LOST] +
				   t->records - t->by_class[PDF_RREC_LOST],
			.bytes = s->bytes + t->bytes,
			.lost = s->lost + t->lost,
			.aux_bytes = h.ring[i].aux_stored,
			.corrupt = h.ring[i].corrupt,
			.corrupt_bytes = h.ring[i].corrupt_bytes,
			.not_written = h.ring[i].not_written,
		};
	}
	return n;
}

/* A time sync that failed (the guest did not answer in time: a guest
 * busy booting, a host under load) is tried again this much later: a
 * recording that runs for days must not go without one for good.  Each
 * try that fails holds the drain up for the sync's wait (about a
 * second). */
#define SYNC_RETRY_S 30.0

/* The live counts, for the metrics: every quarter second.  A failed time
 * sync allowed again once SYNC_RETRY_S old. */
static void hook_progress(void *arg, const struct cap_recorder *r,
			  int final)
{
	struct svc_job *j = arg;
	struct svc_rec_ring_stats now[RS_MAX_RINGS];
	const struct pdf_clock_sync *cs = &j->sync.cs;
	int synced = cs->nr > 0 && cs->nr <= 2;
	uint32_t n;

	if (!final && j->sync.gave_up &&
	    cap_time_now() - j->sync.last_try >= SYNC_RETRY_S)
		j->sync.gave_up = 0;
	if (!j->ds)
		return;
	n = job_counts(j, r, now);
	svc_recstats_live(j->rp->st, j->ds, now, n, synced,
			  synced ? cs->pt[cs->nr - 1].bound_ns : 0);
}

/* The recording ended: its counts (@r after cap_recorder_run; @ok: it
 * succeeded, else what its last look saw) into its domain's ended
 * ones. */
static void job_fold(struct svc_job *j, const struct cap_recorder *r,
		     int ok)
{
	struct svc_rec_ring_stats now[RS_MAX_RINGS];
	uint32_t n = 0;

	if (!j->ds)
		return;
	if (ok)
		n = job_counts(j, r, now);
	svc_recstats_fold(j->rp->st, j->ds, ok ? now : NULL, n);
}

/* Milliseconds from @now_ns until @due_ns (0: due), rounded up. */
static uint32_t ms_until(uint64_t now_ns, uint64_t due_ns)
{
	uint64_t ms;

	if (due_ns <= now_ns)
		return 0;
	ms = (due_ns - now_ns + 999999u) / 1000000u;
	return ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

/* The sleep before the next pass: the backoff's (svc_idle_next), cut
 * short by what falls due on the recorder's own thread meanwhile: the
 * current file's rotation by age, the next try for room on a full
 * disk.  (Its stop wakes it through j->wake whatever it sleeps.) */
static uint32_t hook_sleep(void *arg, const struct cap_recorder *r,
			   int found)
{
	struct svc_job *j = arg;
	const struct svc_rec_config *c = j->rp->c;
	uint32_t interval = cap_recorder_config(r)->interval_ms;
	uint64_t now = cap_time_now_ns();
	uint32_t ms, due;

	j->sleep_ms = svc_idle_next(j->sleep_ms, found, interval,
				    j->idle_bound_ms);
	ms = j->sleep_ms;
	if (cap_recorder_stats(r)->full)
		due = ms_until(now, j->full_next_ns);
	else if (c->rotate_s)
		due = ms_until(now, j->file_start_ns +
				    (uint64_t)c->rotate_s * 1000000000ull);
	else
		due = UINT32_MAX;
	return due < ms ? due : ms;
}

/* The longest sleep of @j's idle recorder: its region's rings against
 * their sampling rate (ringside/service_idle.h). */
static void job_idle_bound(struct svc_job *j, uint32_t interval_ms)
{
	struct svc_idle_rings ir;

	svc_idle_rings_of(cap_source_region(j->src), &ir);
	j->idle_bound_ms = svc_idle_bound(&ir, interval_ms, 0);
	j->sleep_ms = 0;
}

static int job_finished(void *arg)
{
	struct svc_job *j = arg;

	return atomic_load(&j->stop) ? CAP_RECORDER_GONE : CAP_RECORDER_HERE;
}

static void *job_main(void *arg)
{
	struct svc_job *j = arg;
	struct cap_recorder *r = j->r;
	int err;

	cap_recorder_add_wake(r, j->wake[0], -1, 0);
	j->file_start_ns = cap_time_now_ns();
	err = cap_recorder_run(r, cap_source_region(j->src));
	job_fold(j, r, !err);
	svc_rotate_end(j, r, err);
	atomic_store(&j->done, 1);
	return NULL;
}

/* The job's recorder, its first file named (j->out[j->cur]). */
static int job_recorder(struct svc_job *j)
{
	struct svc_rec *rp = j->rp;
	struct cap_recorder_config c;

	cap_recorder_config_init(&c);
	c.source = j->domain;
	c.output = j->out[j->cur];
	c.argc = rp->env.argc;
	c.argv = rp->env.argv;
	c.interval_ms = rp->c->interval_ms ? rp->c->interval_ms : 100;
	job_idle_bound(j, c.interval_ms);
	c.syms = &j->syms;
	cap_sync_init(&j->sync);
	c.sync = &j->sync;
	c.sync_mem = cap_source_mem(j->src);
	c.finished = job_finished;
	c.finished_arg = j;
	svc_rotate_hooks(j, &c);
	c.hooks.progress = hook_progress;
	c.hooks.sleep_ms = hook_sleep;
	return cap_recorder_new(&j->r, &c);
}

static void job_free(struct svc_job *j)
{
	if (!j)
		return;
	gi_syms_fini(&j->syms);
	cap_source_free(j->src);
	if (j->fd >= 0)
		close(j->fd);   /* its lock goes with it */
	if (j->wake[0] >= 0)
		close(j->wake[0]);
	if (j->wake[1] >= 0)
		close(j->wake[1]);
	cap_recorder_free(j->r);
	free(j);
}

/* Map @path writable (the consumers publish tails, cap_sync pings), the only
 * consumer, opened by @layout or its header. */
static int job_map(struct svc_job *j, const char *path,
		   const struct rs_region_params *layout)
{
	struct cap_err e = { 0 };
	struct cap_rinfo_region rr;
	int err;

	j->fd = open(path, O_RDWR | O_CLOEXEC);
	if (j->fd < 0)
		return -errno;
	err = cap_source_new(&j->src);
	if (!err)
		err = cap_source_open_fd(j->src, j->fd, layout,
					 CAP_SOURCE_WRITE | CAP_SOURCE_EXCL, &e);
	if (err)
		return err;
	if (layout && layout->data_mode != RS_MODE_NORMAL)
		return -EMEDIUMTYPE;
	cap_rinfo_region_get(cap_source_region(j->src), &rr);
	if (!layout && rr.data_mode != RS_MODE_NORMAL)
		return -EMEDIUMTYPE;
	return 0;
}

static struct svc_job *find(struct svc_rec *rp, const char *domain)
{
	for (struct svc_job *j = rp->jobs; j; j = j->next)
		if (!strcmp(j->domain, domain))
			return j;
	return NULL;
}

/* Wake @j's recorder to end with @reason. */
static void job_stop(struct svc_job *j, const char *reason)
{
	if (atomic_load(&j->stop))
		return;
	j->reason = reason;
	atomic_store(&j->stop, 1);
	if (write(j->wake[1], "s", 1) < 0) {
		/* it ends within a FINISHED_PERIOD all the same */
	}
}

/* Join the job at *@pp (waiting for its file to be complete), take it
 * out of the list and free it. */
static void job_drop(struct svc_rec *rp, struct svc_job **pp)
{
	struct svc_job *j = *pp;

	pthread_join(j->th, NULL);
	*pp = j->next;
	svc_recstats_lock(rp->st)->recording--;
	svc_recstats_unlock(rp->st);
	job_free(j);
}

/* Join and free the jobs that ended (all of them with @all, waiting). */
static void reap(struct svc_rec *rp, int all)
{
	struct svc_job **pp = &rp->jobs;

	while (*pp) {
		if (!all && !atomic_load(&(*pp)->done))
			pp = &(*pp)->next;
		else
			job_drop(rp, pp);
	}
}

int svc_rec_new(struct svc_rec **rp_out, const struct svc_rec_config *c,
		const char *dir, const struct svc_env *env)
{
	struct svc_rec *rp = calloc(1, sizeof(*rp));
	struct utsname u;
	int err;

	*rp_out = NULL;
	if (!rp)
		return -ENOMEM;
	rp->c = c;
	rp->env = *env;
	if (!uname(&u))
		snprintf(rp->host, sizeof(rp->host), "%s", u.nodename);
	rp->dir = strdup(dir);
	err = rp->dir ? svc_recstats_new(&rp->st) : -ENOMEM;
	if (!err)
		err = svc_convert_new(&rp->convert, rp->st, env->log,
				      env->log_arg);
	if (!err)
		err = svc_post_new(&rp->post, c->post_command, c->post_tries,
				   rp->st, env->log, env->log_arg);
	if (err) {
		svc_rec_free(rp, NULL);
		return err;
	}
	*rp_out = rp;
	return 0;
}

/* A job for @domain's region file @path, its first file named: 0, or
 * -errno, -EMEDIUMTYPE, the ring library's -rse_* (@j is freed by the
 * caller either way). */
static int job_open(struct svc_rec *rp, struct svc_job *j, const char *path,
		    const struct rs_region_params *layout)
{
	int err;

	err = pipe2(j->wake, O_CLOEXEC | O_NONBLOCK) ? -errno : 0;
	if (!err)
		err = job_map(j, path, layout);
	if (!err && gi_syms_read(&j->syms, cap_source_region(j->src), 0))
		err = -ENOMEM;
	if (!err && (mkdir(rp->dir, 0750) && errno != EEXIST))
		err = -errno;
	if (!err && (mkdir(j->ddir, 0750) && errno != EEXIST))
		err = -errno;
	if (!err) {
		svc_rotate_begin(j);
		err = job_recorder(j);
	}
	return err;
}

/* A recording of @domain that could not start, counted (one whose rings
 * are not in normal mode is not a failure: it is a flight recorder). */
static void start_failed(struct svc_rec *rp, const char *domain, int err)
{
	struct svc_rec_stats *st;
	struct svc_recstats_dom *d;

	if (err == -EMEDIUMTYPE)
		return;
	st = svc_recstats_lock(rp->st);
	st->failed++;
	d = svc_recstats_domain(rp->st, domain);
	if (d) {
		d->pub.started++;
		d->pub.failed++;
		d->pub.recording = 0;
	}
	svc_recstats_unlock(rp->st);
}

int svc_rec_start(struct svc_rec *rp, const char *domain, const char *uuid,
		  const char *path, const struct rs_region_params *layout)
{
	struct svc_job *j, *old = find(rp, domain);
	struct svc_rec_stats *st;
	int err;

	if (old && !atomic_load(&old->stop))
		return 0;
	if (old) {
		/* the domain's last life: its file completed first */
		struct svc_job **pp = &rp->jobs;

		while (*pp != old)
			pp = &(*pp)->next;
		job_drop(rp, pp);
	}
	if (strlen(domain) > DOM_NAME_MAX || strchr(domain, '/') ||
	    domain[0] == '.')
		return -EINVAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->rp = rp;
	j->fd = j->wake[0] = j->wake[1] = -1;
	snprintf(j->domain, sizeof(j->domain), "%s", domain);
	snprintf(j->uuid, sizeof(j->uuid), "%s", uuid ? uuid : "");
	snprintf(j->ddir, sizeof(j->ddir), "%s/%s", rp->dir, domain);
	err = job_open(rp, j, path, layout);
	if (!err) {
		svc_recstats_lock(rp->st);
		j->ds = svc_recstats_domain(rp->st, domain);
		if (j->ds)   /* before its thread can end it */
			j->ds->pub.recording = 1;
		svc_recstats_unlock(rp->st);
		err = -pthread_create(&j->th, NULL, job_main, j);
	}
	if (err) {
		start_failed(rp, domain, err);
		job_free(j);
		return err;
	}
	j->next = rp->jobs;
	rp->jobs = j;
	st = svc_recstats_lock(rp->st);
	st->started++;
	st->recording++;
	if (j->ds)
		j->ds->pub.started++;
	svc_recstats_unlock(rp->st);
	return 0;
}

int svc_rec_stop(struct svc_rec *rp, const char *domain, const char *reason)
{
	struct svc_job *j = find(rp, domain);

	if (!j)
		return 0;
	job_stop(j, reason);
	return 1;
}

void svc_rec_keep_only(struct svc_rec *rp, char *const *names, size_t nr,
		       const char *reason)
{
	for (struct svc_job *j = rp->jobs; j; j = j->next) {
		size_t i;
		uint32_t k;

		for (i = 0; i < nr && strcmp(names[i], j->domain); i++)
			;
		/* a region of record-region is no libvirt domain */
		for (k = 0; k < rp->c->nr_regions &&
			    strcmp(rp->c->region_names[k], j->domain); k++)
			;
		if (i == nr && k == rp->c->nr_regions)
			job_stop(j, reason);
	}
}

int svc_rec_recording(struct svc_rec *rp, const char *domain)
{
	struct svc_job *j = find(rp, domain);

	return j && !atomic_load(&j->stop);
}

int svc_rec_post(struct svc_rec *rp, const char *data_path)
{
	return svc_post_add(rp->post, data_path);
}

void svc_rec_poll(struct svc_rec *rp, uint64_t now_ns)
{
	reap(rp, 0);
	svc_post_poll(rp->post, now_ns);
}

unsigned svc_rec_post_pending(struct svc_rec *rp)
{
	return svc_post_pending(rp->post);
}

struct svc_recstats *svc_rec_counts(struct svc_rec *rp)
{
	return rp->st;
}

/* The recordings' counts in one line, at the end. */
static void summary(struct svc_rec *rp)
{
	struct svc_rec_stats st;

	svc_recstats_get(rp->st, &st);
	if (!st.started)
		return;
	svc_rec_say(rp, RS_LOG_NOTICE, "recordings: %llu started, %llu "
		    "failed, %llu files (%llu rotations), %llu records, %llu "
		    "lost, %llu corrupt, %llu pruned; disk full %llu times: "
		    "%llu files cut back, %llu lost, %llu records lost (%llu "
		    "LOST records' counts), %llu files removed for room; "
		    "profiles: %llu written, %llu failed, %llu skipped; "
		    "post-command: %llu ok, %llu failed, %llu dropped",
		    (unsigned long long)st.started,
		    (unsigned long long)st.failed,
		    (unsigned long long)st.files,
		    (unsigned long long)st.rotations,
		    (unsigned long long)st.records,
		    (unsigned long long)st.lost,
		    (unsigned long long)st.corrupt,
		    (unsigned long long)st.pruned,
		    (unsigned long long)st.disk_full,
		    (unsigned long long)st.disk_salvaged,
		    (unsigned long long)st.disk_files_lost,
		    (unsigned long long)st.disk_lost,
		    (unsigned long long)st.disk_lost_lost,
		    (unsigned long long)st.disk_pruned,
		    (unsigned long long)st.pprof_ok,
		    (unsigned long long)st.pprof_failed,
		    (unsigned long long)st.pprof_skipped,
		    (unsigned long long)st.post_ok,
		    (unsigned long long)st.post_failed,
		    (unsigned long long)st.post_dropped);
}

void svc_rec_free(struct svc_rec *rp, const char *reason)
{
	if (!rp)
		return;
	for (struct svc_job *j = rp->jobs; j; j = j->next)
		job_stop(j, reason);
	reap(rp, 1);
	/* the last files' profiles are made before the service goes */
	svc_convert_free(rp->convert);
	if (rp->st)
		summary(rp);
	svc_post_free(rp->post);
	svc_recstats_free(rp->st);
	free(rp->dir);
	free(rp);
}
