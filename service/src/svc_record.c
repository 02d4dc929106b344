/* SPDX-License-Identifier: MIT */
/*
 * Continuous recording: one recorder (capture library) per selected
 * normal-mode domain, each in a thread of its own (cap_recorder_run blocks),
 * reading the domain's region file and never libvirt, so that a libvirtd
 * restart does not touch it.  Files rotate through the recorder's
 * next_output hook; each completed file gets its sidecar, the bounds are
 * kept, and the file is queued for the post-command, which the service's
 * loop runs (svc_rec_poll): a recorder never waits for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/domain.h"
#include "ringside/domain_virt.h"
#include "ringside/pprof.h"
#include "ringside/service.h"

#define POST_MAX      256u     /* files waiting for the post-command */
#define POST_RUNNING  4u       /* post-commands at once */
#define PATH_LEN      4200u

extern char **environ;

struct job {
	struct svc_rec *rp;
	struct job *next;
	char domain[DOM_NAME_MAX + 1];
	char uuid[SVC_UUID_MAX];
	char ddir[PATH_LEN];
	pthread_t th;
	atomic_int stop;           /* asked to end */
	atomic_int done;           /* the thread ended */
	const char *reason;        /* of the last file: "stop", "shutdown" */
	int wake[2];               /* a pipe: wakes the recorder at a stop */
	int fd;
	struct cap_source *src; /* its region, mapped writable */
	struct gi_syms syms;
	struct cap_sync sync;
	struct cap_recorder *r;
	char out[2][PATH_LEN + 64]; /* the file written, the next one */
	uint32_t out_seq[2];       /* the counter in each of their names */
	unsigned cur;
	/* The counter of a file begun after the last one completed: a name
	 * whose file the disk had no room to begin (or a rotation a full
	 * disk stopped) is given again, so the counters of the files that
	 * exist run without a gap but where files were removed. */
	uint32_t seq;
	int resuming;              /* paused, a new file tried: said once it
				    * was begun */
	uint64_t resume_free;      /* the bytes free then */
	uint64_t file_start_ns;
	/* a full disk: the next try, said once per outage; the recorder's
	 * disk_lost as the service's counts have it */
	uint64_t full_next_ns;
	int full_said;
	struct pdf_writer_part disk_seen;
	uint32_t fulls_seen, salvaged_seen, files_lost_seen;
	struct dom_stats *ds;      /* its domain's counts; NULL: not kept */
	struct cap_tally_ring sum[RS_MAX_RINGS]; /* the completed files' tallies */
};

/* A domain's counts: those of its ended recordings in pub.ring, those of
 * the one running in live (a quarter second old at most). */
struct dom_stats {
	struct svc_rec_domain pub;
	struct svc_rec_ring_stats live[RS_MAX_RINGS];
	uint32_t nr_live;
};

struct post {
	char data[PATH_LEN + 64];
	uint32_t tries;
	uint64_t next_ns;          /* not before (host CLOCK_MONOTONIC) */
	pid_t pid;                 /* running; 0 waiting */
};

struct svc_rec {
	const struct svc_rec_config *c;
	char *dir;
	char host[256];
	rs_log_fn log;
	void *log_arg;
	int argc;
	char *const *argv;
	pthread_mutex_t lock;      /* the jobs' list, stats, the queue, log */
	struct job *jobs;
	struct post *post;
	unsigned nr_post;
	unsigned converting;       /* pprof conversion threads running */
	pthread_cond_t converted;  /* one ended */
	struct conversion *queue;  /* files waiting for a thread, oldest
				    * first */
	struct conversion *queue_tail;
	unsigned queued;
	struct svc_rec_stats st;
	struct dom_stats **doms;   /* per domain (under lock) */
	size_t nr_doms;
};

static void say(struct svc_rec *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* @domain's counts, made if new (with rp->lock held); NULL past
 * SVC_REC_DOMAINS_MAX (counted) or without memory. */
static struct dom_stats *dom_get(struct svc_rec *rp, const char *domain)
{
	struct dom_stats *d, **grown;

	for (size_t i = 0; i < rp->nr_doms; i++)
		if (!strcmp(rp->doms[i]->pub.domain, domain))
			return rp->doms[i];
	if (rp->nr_doms == SVC_REC_DOMAINS_MAX) {
		rp->st.domains_dropped++;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	grown = d ? realloc(rp->doms, (rp->nr_doms + 1) * sizeof(*grown)) : NULL;
	if (d)
		d->pub.domain = strdup(domain);
	if (!grown || !d->pub.domain) {
		if (d)
			free(d->pub.domain);
		free(d);
		if (grown)
			rp->doms = grown;
		return NULL;
	}
	rp->doms = grown;
	rp->doms[rp->nr_doms++] = d;
	return d;
}

/* Room for @nr rings in @d's ended counts (with rp->lock held). */
static int dom_rings(struct dom_stats *d, uint32_t nr)
{
	struct svc_rec_ring_stats *grown;

	if (nr <= d->pub.nr_rings)
		return 0;
	grown = realloc(d->pub.ring, nr * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	memset(grown + d->pub.nr_rings, 0,
	       (nr - d->pub.nr_rings) * sizeof(*grown));
	d->pub.ring = grown;
	d->pub.nr_rings = nr;
	return 0;
}

/* A pruned file, counted against its domain. */
static void pruned_one(void *arg, const char *domain, uint64_t bytes)
{
	struct svc_rec *rp = arg;
	struct dom_stats *d;

	pthread_mutex_lock(&rp->lock);
	d = dom_get(rp, domain);
	if (d) {
		d->pub.pruned++;
		d->pub.pruned_bytes += bytes;
	}
	pthread_mutex_unlock(&rp->lock);
}

/* The recording's counts so far into @out: the completed files' tallies,
 * the current file's, what the drain met on each ring since it attached.
 * From the recorder's thread, between passes or after its end. */
static uint32_t job_counts(const struct job *j, const struct cap_recorder *r,
			   struct svc_rec_ring_stats *out)
{
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	struct pdf_host_facts h;
	uint32_t n = st->nr_rings;

	if (n > RS_MAX_RINGS)
		n = RS_MAX_RINGS;
	cap_recorder_host_total(r, &h);
	for (uint32_t i = 0; i < n; i++) {
		const struct cap_tally_ring *t = &st->tally.ring[i], *s = &j->sum[i];

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

/* The current file's tally into the completed files' (a rotation). */
static void job_sum(struct job *j, const struct cap_recorder *r)
{
	const struct cap_tally *tally = &cap_recorder_stats(r)->tally;

	for (uint32_t i = 0; i < tally->nr_rings && i < RS_MAX_RINGS; i++) {
		const struct cap_tally_ring *t = &tally->ring[i];
		struct cap_tally_ring *s = &j->sum[i];

		s->records += t->records;
		s->by_class[PDF_RREC_LOST] += t->by_class[PDF_RREC_LOST];
		s->bytes += t->bytes;
		s->lost += t->lost;
	}
}

/* A time sync that failed (the guest did not answer in time: a guest
 * busy booting, a host under load) is tried again this much later: a
 * recording that runs for days must not go without one for good.  Each
 * try that fails holds the drain up for the sync's wait (about a
 * second). */
#define SYNC_RETRY_S 30.0

/* The live counts, for the metrics: every quarter second.  A failed time
 * sync allowed again once SYNC_RETRY_S old. */
static void hook_progress(void *arg, const struct cap_recorder *r, int final)
{
	struct job *j = arg;
	struct svc_rec_ring_stats now[RS_MAX_RINGS];
	const struct pdf_clock_sync *cs = &j->sync.cs;
	uint32_t n;

	if (!final && j->sync.gave_up &&
	    cap_time_now() - j->sync.last_try >= SYNC_RETRY_S)
		j->sync.gave_up = 0;
	if (!j->ds)
		return;
	n = job_counts(j, r, now);
	pthread_mutex_lock(&j->rp->lock);
	memcpy(j->ds->live, now, n * sizeof(now[0]));
	j->ds->nr_live = n;
	j->ds->pub.synced = cs->nr > 0 && cs->nr <= 2;
	j->ds->pub.sync_bound_ns = j->ds->pub.synced ?
				   cs->pt[cs->nr - 1].bound_ns : 0;
	pthread_mutex_unlock(&j->rp->lock);
}

/* The recording ended: its counts (@r after cap_recorder_run; @ok: it
 * succeeded, else what its last look saw) into its domain's ended
 * ones. */
static void job_fold(struct job *j, const struct cap_recorder *r, int ok)
{
	struct svc_rec_ring_stats now[RS_MAX_RINGS];
	struct dom_stats *d = j->ds;
	uint32_t n = 0;

	if (!d)
		return;
	if (ok)
		n = job_counts(j, r, now);
	pthread_mutex_lock(&j->rp->lock);
	if (!ok) {
		n = d->nr_live;
		memcpy(now, d->live, n * sizeof(now[0]));
	}
	if (!dom_rings(d, n)) {
		for (uint32_t i = 0; i < n; i++) {
			struct svc_rec_ring_stats *e = &d->pub.ring[i];

			e->records += now[i].records;
			e->bytes += now[i].bytes;
			e->aux_bytes += now[i].aux_bytes;
			e->lost += now[i].lost;
			e->corrupt += now[i].corrupt;
			e->corrupt_bytes += now[i].corrupt_bytes;
			e->not_written += now[i].not_written;
		}
	}
	d->nr_live = 0;
	d->pub.recording = 0;
	d->pub.synced = 0;
	pthread_mutex_unlock(&j->rp->lock);
}

/* One file's profile, made off the recorder's thread. */
struct conversion {
	struct conversion *next;   /* in rp->queue */
	struct svc_rec *rp;
	char domain[DOM_NAME_MAX + 1];
	char data[4096];
};

/* Each thread converts its file, then the queued ones, until none is
 * left. */
static void *convert_main(void *arg)
{
	struct conversion *cv = arg;
	struct svc_rec *rp = cv->rp;

	while (cv) {
		struct pprof_params pp = { .size = sizeof(pp),
					   .domain = cv->domain };
		char out[4200];
		int err;

		snprintf(out, sizeof(out), "%s" SVC_PPROF_SUFFIX, cv->data);
		err = pprof_file_write(cv->data, out, &pp, NULL);
		if (err)
			say(rp, "%s: %s: no profile: %s", cv->domain, cv->data,
			    pdf_error_str(err));
		free(cv);
		pthread_mutex_lock(&rp->lock);
		rp->st.pprof_ok += !err;
		rp->st.pprof_failed += !!err;
		cv = rp->queue;
		if (cv) {
			rp->queue = cv->next;
			if (!rp->queue)
				rp->queue_tail = NULL;
			rp->queued--;
		} else {
			rp->converting--;
			pthread_cond_broadcast(&rp->converted);
		}
		pthread_mutex_unlock(&rp->lock);
	}
	return NULL;
}

/* FILE.data.pb.gz of a complete file, off the recorder's thread: a
 * recorder never waits for it.  At most SVC_PPROF_RUNNING at once; the
 * rest wait their turn, up to SVC_PPROF_QUEUED, past which a file goes
 * without (counted). */
static void convert(struct svc_rec *rp, const char *domain, const char *data)
{
	struct conversion *cv = calloc(1, sizeof(*cv));
	pthread_attr_t at;
	pthread_t t;
	int start = 0;

	if (cv) {
		cv->rp = rp;
		snprintf(cv->domain, sizeof(cv->domain), "%s", domain);
		snprintf(cv->data, sizeof(cv->data), "%s", data);
	}
	pthread_mutex_lock(&rp->lock);
	if (cv && rp->converting < SVC_PPROF_RUNNING) {
		rp->converting++;
		start = 1;
	} else if (cv && rp->queued < SVC_PPROF_QUEUED) {
		if (rp->queue_tail)
			rp->queue_tail->next = cv;
		else
			rp->queue = cv;
		rp->queue_tail = cv;
		rp->queued++;
		cv = NULL;
	} else {
		rp->st.pprof_skipped++;
	}
	pthread_mutex_unlock(&rp->lock);
	if (!start) {
		free(cv);
		return;
	}
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, convert_main, cv)) {
		pthread_mutex_lock(&rp->lock);
		rp->converting--;
		rp->st.pprof_failed++;
		pthread_mutex_unlock(&rp->lock);
		free(cv);
	}
	pthread_attr_destroy(&at);
}

static void say(struct svc_rec *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* With rp->lock held or not: the log has a lock of its own. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(struct svc_rec *rp, const char *fmt, ...)
{
	va_list ap;

	if (!rp->log)
		return;
	pthread_mutex_lock(&log_lock);
	va_start(ap, fmt);
	rp->log(rp->log_arg, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&log_lock);
}

static int64_t wall_offset(void)
{
	struct timespec m, w;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &w);
	return ((int64_t)w.tv_sec - (int64_t)m.tv_sec) * 1000000000ll +
	       ((int64_t)w.tv_nsec - (int64_t)m.tv_nsec);
}

/* The next file's name, into the slot after the current one:
 * DIR/DOMAIN/rec-YYYYMMDDTHHMMSSZ-NNNNNN.data, NNNNNN @seq or the first
 * after it whose name is not there yet. */
static const char *name_next(struct job *j, uint32_t seq)
{
	unsigned slot = j->cur ^ 1;
	char *out = j->out[slot];
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (unsigned tries = 0; tries < 1000; tries++, seq++) {
		snprintf(out, sizeof(j->out[0]), "%s/" SVC_REC_PREFIX "%s-%06u.data",
			 j->ddir, stamp, seq % 1000000u);
		if (access(out, F_OK))
			break;
	}
	j->out_seq[slot] = seq;
	return out;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return path && !stat(path, &st) ? (uint64_t)st.st_size : 0;
}

/* One pruner at a time, of the bounds or of a full disk's room. */
static pthread_mutex_t room_lock = PTHREAD_MUTEX_INITIALIZER;

/* A full disk: the oldest recordings removed until there is room
 * (svc_room_make, never @keep_path), counted, what was removed in
 * @p.  1: there is room now, 0: not, or -errno (the free bytes in
 * *@avail all the same). */
static int room_make(struct job *j, const char *keep_path,
		     struct svc_room_freed *p, uint64_t *avail)
{
	struct svc_rec *rp = j->rp;
	const struct svc_rec_config *c = rp->c;
	uint64_t room = c->room_bytes ? c->room_bytes :
			(uint64_t)SVC_REC_ROOM_MB << 20;
	int ret;

	pthread_mutex_lock(&room_lock);
	ret = svc_room_make(rp->dir, j->domain, keep_path, room, p, avail);
	pthread_mutex_unlock(&room_lock);
	pthread_mutex_lock(&rp->lock);
	rp->st.pruned += p->removed;
	rp->st.pruned_bytes += p->freed;
	rp->st.disk_pruned += p->removed;
	pthread_mutex_unlock(&rp->lock);
	return ret;
}

static uint64_t full_retry_ns(const struct svc_rec_config *c)
{
	return (uint64_t)(c->full_retry_ms ? c->full_retry_ms :
			  SVC_REC_FULL_RETRY_MS) * 1000000ull;
}

/* The recorder's full-disk counts since the last call into the
 * service's; with @sc, what went lost of the file it describes. */
static void full_sync(struct job *j, const struct cap_recorder *r,
		      struct svc_sidecar *sc)
{
	struct svc_rec *rp = j->rp;
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	/* LOST records apart: their counts are what they stood for */
	uint64_t recs = (st->disk_lost.records - st->disk_lost.lost_records) -
			(j->disk_seen.records - j->disk_seen.lost_records);
	uint64_t lost = st->disk_lost.lost - j->disk_seen.lost;

	if (sc) {
		sc->disk_lost = recs;
		sc->disk_lost_lost = lost;
	}
	pthread_mutex_lock(&rp->lock);
	rp->st.disk_full += st->disk_fulls - j->fulls_seen;
	rp->st.disk_salvaged += st->salvaged_files - j->salvaged_seen;
	rp->st.disk_files_lost += st->disk_files_lost - j->files_lost_seen;
	rp->st.disk_lost += recs;
	rp->st.disk_lost_lost += lost;
	pthread_mutex_unlock(&rp->lock);
	j->disk_seen = st->disk_lost;
	j->fulls_seen = st->disk_fulls;
	j->salvaged_seen = st->salvaged_files;
	j->files_lost_seen = st->disk_files_lost;
}

/* The file (its stats' output) is complete: its sidecar, the bounds, the
 * post-command's queue. */
static void completed(struct job *j, const struct cap_recorder *r,
		      const char *reason)
{
	struct svc_rec *rp = j->rp;
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	const struct cap_tally *t = rst->have_file_tally ? &rst->file_tally :
							   &rst->tally;
	const char *base = strrchr(rst->output, '/');
	struct svc_sidecar sc = {
		.domain = j->domain, .uuid = j->uuid, .host = rp->host,
		.reason = reason, .file = base ? base + 1 : rst->output,
		.start_ns = rst->host.start_ns, .end_ns = rst->host.end_ns,
		.wall_offset_ns = wall_offset(),
		.bytes = file_size(rst->output), .rings = rst->host.nr_rings,
	};
	struct svc_room_freed p = { .each = pruned_one, .arg = rp };
	struct cap_tally_ring sum;
	int err;

	/* the next file begun after this one takes the next counter */
	j->seq = j->out_seq[rst->output == j->out[1]] + 1;
	full_sync(j, r, &sc);
	cap_tally_total(t, &sum);
	sc.records = sum.records;
	sc.lost_records = sum.by_class[PDF_RREC_LOST];
	sc.lost = sum.lost;
	sc.lost_samples = sum.lost_samples;
	sc.aux_truncated = sum.aux_truncated;
	sc.flagged = cap_tally_flagged(&sum);
	for (uint32_t i = 0; i < rst->host.nr_rings && i < RS_MAX_RINGS; i++) {
		const struct pdf_host_ring *h = &rst->host.ring[i];

		sc.corrupt += h->corrupt;
		sc.corrupt_bytes += h->corrupt_bytes;
		sc.not_written += h->not_written;
	}
	if (rst->salvaged)
		say(rp, "%s: %s cut back to what reached the full disk: %llu "
		    "records kept, %llu lost (and %llu LOST records' counts)",
		    j->domain, rst->output, (unsigned long long)sc.records,
		    (unsigned long long)sc.disk_lost,
		    (unsigned long long)sc.disk_lost_lost);
	err = svc_sidecar_write(rst->output, &sc);
	if (err == -ENOSPC || err == -EDQUOT) {
		/* the file fit on the disk, its sidecar did not: room made
		 * as for the file's own writes, then written again */
		struct svc_room_freed rm = { .each = pruned_one, .arg = rp };
		uint64_t avail;

		room_make(j, rst->output, &rm, &avail);
		err = svc_sidecar_write(rst->output, &sc);
	}
	if (err)
		say(rp, "%s: %s: its sidecar was not written: %s", j->domain,
		    rst->output, strerror(-err));
	pthread_mutex_lock(&rp->lock);
	rp->st.files++;
	rp->st.rotations += !strcmp(reason, "rotation");
	rp->st.records += sc.records;
	rp->st.bytes += sc.bytes;
	rp->st.lost += sc.lost;
	rp->st.corrupt += sc.corrupt;
	rp->st.sidecar_failed += !!err;
	if (j->ds) {
		j->ds->pub.files++;
		j->ds->pub.rotations += !strcmp(reason, "rotation");
	}
	pthread_mutex_unlock(&rp->lock);
	if (rp->c->keep_bytes || rp->c->total_bytes) {
		/* one pruner at a time: the total bound spans every domain
		 * (a full disk's room is made under the same lock) */
		pthread_mutex_lock(&room_lock);
		err = svc_room_prune(rp->dir, j->domain, rst->output,
				    rp->c->keep_bytes, rp->c->total_bytes, &p);
		pthread_mutex_unlock(&room_lock);
		if (err)
			say(rp, "%s: the oldest recordings could not all be "
			    "removed: %s", j->domain, strerror(-err));
		pthread_mutex_lock(&rp->lock);
		rp->st.pruned += p.removed;
		rp->st.pruned_bytes += p.freed;
		pthread_mutex_unlock(&rp->lock);
	}
	if (rp->c->pprof)
		convert(rp, j->domain, rst->output);
	if (rp->c->post_command)
		svc_rec_post(rp, rst->output);
}

/* A full disk: room made and the next try's time; said once per
 * outage (a file begun after it ends it: hook_next). */
static void hook_full(void *arg, const struct cap_recorder *r)
{
	struct job *j = arg;
	struct svc_rec *rp = j->rp;
	const struct svc_rec_config *c = rp->c;
	struct svc_room_freed p = { .each = pruned_one, .arg = rp };
	const char *output = cap_recorder_stats(r)->output;
	uint64_t avail = 0;
	int err;

	err = room_make(j, output, &p, &avail);
	j->full_next_ns = cap_time_now_ns() + full_retry_ns(c);
	if (!j->full_said)
		say(rp, "%s: the disk is full (%s): %u oldest recordings "
		    "removed (%llu bytes), %llu bytes free%s%s; recording "
		    "pauses until %llu are (and %u inodes)", j->domain,
		    output, p.removed, (unsigned long long)p.freed,
		    (unsigned long long)avail, err < 0 ? ": " : "",
		    err < 0 ? strerror(-err) : "",
		    (unsigned long long)(c->room_bytes ? c->room_bytes :
					 (uint64_t)SVC_REC_ROOM_MB << 20),
		    SVC_REC_ROOM_INODES);
	j->full_said = 1;
	full_sync(j, r, NULL);
}

/* Paused by a full disk: the next file once it is time to try again
 * and there is room (made if it can be). */
static const char *full_next(struct job *j, const struct cap_recorder *r)
{
	struct svc_rec *rp = j->rp;
	const struct svc_rec_config *c = rp->c;
	uint64_t room = c->room_bytes ? c->room_bytes :
			(uint64_t)SVC_REC_ROOM_MB << 20;
	uint64_t now = cap_time_now_ns(), avail = 0;
	struct svc_room_freed p = { .each = pruned_one, .arg = rp };
	int ok;

	full_sync(j, r, NULL);
	if (now < j->full_next_ns)
		return NULL;
	j->full_next_ns = now + full_retry_ns(c);
	ok = room_make(j, NULL, &p, &avail);
	if (ok < 0)   /* a directory not read: the bytes free say */
		ok = avail >= room;
	if (!ok)
		return NULL;
	/* the counter after the last file completed: none was begun since
	 * (a name given to a file the disk had no room for is given again) */
	name_next(j, j->seq);
	j->cur ^= 1;
	j->file_start_ns = now;
	j->resuming = 1;   /* said once the file is begun (hook_next) */
	j->resume_free = avail;
	return j->out[j->cur];
}

static const char *hook_next(void *arg, const struct cap_recorder *r)
{
	struct job *j = arg;
	const struct svc_rec_config *c = j->rp->c;
	uint64_t now = cap_time_now_ns();

	if (atomic_load(&j->stop))
		return NULL;   /* it ends this very pass */
	if (cap_recorder_stats(r)->full)
		return full_next(j, r);
	if (j->resuming) {
		/* the file full_next named was begun: recording again */
		say(j->rp, "%s: %llu bytes free: recording again", j->domain,
		    (unsigned long long)j->resume_free);
		j->resuming = 0;
	}
	/* a file is being written: a full disk met later is a new outage */
	j->full_said = 0;
	if (!(c->rotate_s &&
	      now - j->file_start_ns >= (uint64_t)c->rotate_s * 1000000000ull) &&
	    !(c->rotate_bytes &&
	      cap_recorder_file_bytes(r) >= c->rotate_bytes))
		return NULL;
	/* the current file is open: the next counter after its own */
	return name_next(j, j->out_seq[j->cur] + 1);
}

static void hook_done(void *arg, const struct cap_recorder *r)
{
	struct job *j = arg;
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);

	job_sum(j, r);
	completed(j, r, rst->salvaged ? "disk-full" : "rotation");
	if (rst->full)
		return;   /* paused: full_next names the next file */
	j->cur ^= 1;
	j->file_start_ns = cap_time_now_ns();
}

static int job_finished(void *arg)
{
	struct job *j = arg;

	return atomic_load(&j->stop) ? CAP_RECORDER_GONE : CAP_RECORDER_HERE;
}

static void *job_main(void *arg)
{
	struct job *j = arg;
	struct svc_rec *rp = j->rp;
	struct cap_recorder *r = j->r;
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	int err;

	cap_recorder_add_wake(r, j->wake[0], -1, 0);
	j->file_start_ns = cap_time_now_ns();
	err = cap_recorder_run(r, cap_source_region(j->src));
	job_fold(j, r, !err);
	if (!err && rst->full) {
		/* ended paused by a full disk: no file was open */
		full_sync(j, r, NULL);
	} else if (!err) {
		completed(j, r, rst->salvaged ? "disk-full" :
				j->reason ? j->reason : "stop");
	} else {
		struct cap_tally_ring sum;

		full_sync(j, r, NULL);
		/* what went into the file it could not complete: lost */
		cap_tally_total(&rst->tally, &sum);
		say(rp, "%s: the recording ended in an error (%s): %s; %llu "
		    "records of its file lost", j->domain,
		    rst->fail.path[0] ? rst->fail.path : rst->output,
		    cap_err_str(&rst->fail.e), (unsigned long long)sum.records);
		pthread_mutex_lock(&rp->lock);
		rp->st.failed++;
		rp->st.discarded += sum.records;
		if (j->ds) {
			j->ds->pub.failed++;
			j->ds->pub.discarded += sum.records;
		}
		pthread_mutex_unlock(&rp->lock);
	}
	atomic_store(&j->done, 1);
	return NULL;
}

/* The job's recorder, its first file named (j->out[j->cur]). */
static int job_recorder(struct job *j)
{
	struct svc_rec *rp = j->rp;
	struct cap_recorder_config c;

	cap_recorder_config_init(&c);
	c.source = j->domain;
	c.output = j->out[j->cur];
	c.argc = rp->argc;
	c.argv = rp->argv;
	c.interval_ms = rp->c->interval_ms ? rp->c->interval_ms : 100;
	c.syms = &j->syms;
	cap_sync_init(&j->sync);
	c.sync = &j->sync;
	c.sync_mem = cap_source_mem(j->src);
	c.finished = job_finished;
	c.finished_arg = j;
	c.hooks.next_output = hook_next;
	c.hooks.file_done = hook_done;
	c.hooks.disk_full = hook_full;
	c.hooks.progress = hook_progress;
	c.hooks.arg = j;
	return cap_recorder_new(&j->r, &c);
}

static void job_free(struct job *j)
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
static int job_map(struct job *j, const char *path,
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

static struct job *find(struct svc_rec *rp, const char *domain)
{
	for (struct job *j = rp->jobs; j; j = j->next)
		if (!strcmp(j->domain, domain))
			return j;
	return NULL;
}

/* Wake @j's recorder to end with @reason. */
static void job_stop(struct job *j, const char *reason)
{
	if (atomic_load(&j->stop))
		return;
	j->reason = reason;
	atomic_store(&j->stop, 1);
	if (write(j->wake[1], "s", 1) < 0) {
		/* it ends within a FINISHED_PERIOD all the same */
	}
}

/* Join and free the jobs that ended (all of them with @all, waiting). */
static void reap(struct svc_rec *rp, int all)
{
	struct job **pp = &rp->jobs;

	while (*pp) {
		struct job *j = *pp;

		if (!all && !atomic_load(&j->done)) {
			pp = &j->next;
			continue;
		}
		pthread_join(j->th, NULL);
		*pp = j->next;
		pthread_mutex_lock(&rp->lock);
		rp->st.recording--;
		pthread_mutex_unlock(&rp->lock);
		job_free(j);
	}
}

int svc_rec_new(struct svc_rec **rp_out, const struct svc_rec_config *c,
		const char *dir, rs_log_fn log, void *log_arg, int argc,
		char *const *argv)
{
	struct svc_rec *rp = calloc(1, sizeof(*rp));
	struct utsname u;

	*rp_out = NULL;
	if (!rp)
		return -ENOMEM;
	rp->dir = strdup(dir);
	rp->post = calloc(POST_MAX, sizeof(*rp->post));
	if (!rp->dir || !rp->post) {
		free(rp->dir);
		free(rp->post);
		free(rp);
		return -ENOMEM;
	}
	rp->c = c;
	rp->log = log;
	rp->log_arg = log_arg;
	rp->argc = argc;
	rp->argv = argv;
	if (!uname(&u))
		snprintf(rp->host, sizeof(rp->host), "%s", u.nodename);
	pthread_mutex_init(&rp->lock, NULL);
	pthread_cond_init(&rp->converted, NULL);
	*rp_out = rp;
	return 0;
}

int svc_rec_start(struct svc_rec *rp, const char *domain, const char *uuid,
		  const char *path, const struct rs_region_params *layout)
{
	struct job *j, *old = find(rp, domain);
	int err;

	if (old && !atomic_load(&old->stop))
		return 0;
	if (old) {
		/* the domain's last life: its file completed first */
		struct job **pp = &rp->jobs;

		while (*pp != old)
			pp = &(*pp)->next;
		*pp = old->next;
		pthread_join(old->th, NULL);
		pthread_mutex_lock(&rp->lock);
		rp->st.recording--;
		pthread_mutex_unlock(&rp->lock);
		job_free(old);
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
		name_next(j, 0);
		j->cur ^= 1;
		err = job_recorder(j);
	}
	if (!err) {
		pthread_mutex_lock(&rp->lock);
		j->ds = dom_get(rp, domain);
		if (j->ds)   /* before its thread can end it */
			j->ds->pub.recording = 1;
		pthread_mutex_unlock(&rp->lock);
		err = -pthread_create(&j->th, NULL, job_main, j);
	}
	if (err) {
		if (err != -EMEDIUMTYPE) {
			struct dom_stats *d;

			pthread_mutex_lock(&rp->lock);
			rp->st.failed++;
			d = dom_get(rp, domain);
			if (d) {
				d->pub.started++;
				d->pub.failed++;
				d->pub.recording = 0;
			}
			pthread_mutex_unlock(&rp->lock);
		}
		job_free(j);
		return err;
	}
	j->next = rp->jobs;
	rp->jobs = j;
	pthread_mutex_lock(&rp->lock);
	rp->st.started++;
	rp->st.recording++;
	if (j->ds)
		j->ds->pub.started++;
	pthread_mutex_unlock(&rp->lock);
	return 0;
}

int svc_rec_stop(struct svc_rec *rp, const char *domain, const char *reason)
{
	struct job *j = find(rp, domain);

	if (!j)
		return 0;
	job_stop(j, reason);
	return 1;
}

void svc_rec_keep_only(struct svc_rec *rp, char *const *names, size_t nr,
		       const char *reason)
{
	for (struct job *j = rp->jobs; j; j = j->next) {
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
	struct job *j = find(rp, domain);

	return j && !atomic_load(&j->stop);
}

int svc_rec_post(struct svc_rec *rp, const char *data_path)
{
	int ret = 0;

	if (!rp->c->post_command)
		return 0;
	pthread_mutex_lock(&rp->lock);
	if (rp->nr_post == POST_MAX) {
		rp->st.post_dropped++;
		ret = -ENOSPC;
	} else {
		struct post *p = &rp->post[rp->nr_post++];

		memset(p, 0, sizeof(*p));
		snprintf(p->data, sizeof(p->data), "%s", data_path);
	}
	pthread_mutex_unlock(&rp->lock);
	if (ret)
		say(rp, "%s: not given to the post-command: %u files wait for "
		    "it already", data_path, POST_MAX);
	return ret;
}

/* Start the post-command on @p.  0 or -errno. */
static int post_spawn(struct svc_rec *rp, struct post *p)
{
	char json[PATH_LEN + 80];
	char *argv[] = { rp->c->post_command, p->data, json, NULL };
	posix_spawn_file_actions_t fa;
	int err;

	snprintf(json, sizeof(json), "%s.json", p->data);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	err = posix_spawn(&p->pid, rp->c->post_command, &fa, NULL, argv,
			  environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		p->pid = 0;
	return -err;
}

void svc_rec_poll(struct svc_rec *rp, uint64_t now_ns)
{
	unsigned running = 0;

	reap(rp, 0);
	pthread_mutex_lock(&rp->lock);
	for (unsigned i = 0; i < rp->nr_post; i++) {
		struct post *p = &rp->post[i];
		int status, ok = 0, tried = 0;

		if (p->pid > 0) {
			pid_t w = waitpid(p->pid, &status, WNOHANG);

			if (w == 0) {
				running++;
				continue;
			}
			ok = w == p->pid && WIFEXITED(status) &&
			     !WEXITSTATUS(status);
			p->pid = 0;
			tried = 1;
		} else if (now_ns >= p->next_ns && running < POST_RUNNING) {
			int err = post_spawn(rp, p);

			rp->st.post_run++;
			if (!err) {
				running++;
				continue;
			}
			tried = 1;
		} else {
			continue;
		}
		if (tried && !ok) {
			p->tries++;
			if (p->tries < rp->c->post_tries) {
				p->next_ns = now_ns +
					     (1000000000ull << (p->tries - 1));
				continue;
			}
			rp->st.post_failed++;
			say(rp, "%s: the post-command failed %u times: given up",
			    p->data, p->tries);
		} else {
			rp->st.post_ok++;
		}
		rp->post[i--] = rp->post[--rp->nr_post];
	}
	pthread_mutex_unlock(&rp->lock);
}

unsigned svc_rec_post_pending(struct svc_rec *rp)
{
	unsigned n;

	pthread_mutex_lock(&rp->lock);
	n = rp->nr_post;
	pthread_mutex_unlock(&rp->lock);
	return n;
}

void svc_rec_get_stats(struct svc_rec *rp, struct svc_rec_stats *st)
{
	pthread_mutex_lock(&rp->lock);
	*st = rp->st;
	pthread_mutex_unlock(&rp->lock);
}

int svc_rec_domains(struct svc_rec *rp, struct svc_rec_domain **dp, size_t *nr)
{
	struct svc_rec_domain *d;
	size_t n;
	int err = 0;

	*dp = NULL;
	*nr = 0;
	pthread_mutex_lock(&rp->lock);
	n = rp->nr_doms;
	d = n ? calloc(n, sizeof(*d)) : NULL;
	if (n && !d)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++) {
		const struct dom_stats *s = rp->doms[i];
		uint32_t rings = s->pub.nr_rings > s->nr_live ?
				 s->pub.nr_rings : s->nr_live;

		d[i] = s->pub;
		d[i].ring = rings ? calloc(rings, sizeof(*d[i].ring)) : NULL;
		d[i].domain = strdup(s->pub.domain);
		if ((rings && !d[i].ring) || !d[i].domain) {
			free(d[i].ring);
			free(d[i].domain);
			*nr = i;
			err = -ENOMEM;
			break;
		}
		d[i].nr_rings = rings;
		for (uint32_t k = 0; k < rings; k++) {
			struct svc_rec_ring_stats *o = &d[i].ring[k];
			const struct svc_rec_ring_stats *l = &s->live[k];

			if (k < s->pub.nr_rings)
				*o = s->pub.ring[k];
			if (k >= s->nr_live)
				continue;
			o->records += l->records;
			o->bytes += l->bytes;
			o->aux_bytes += l->aux_bytes;
			o->lost += l->lost;
			o->corrupt += l->corrupt;
			o->corrupt_bytes += l->corrupt_bytes;
			o->not_written += l->not_written;
		}
	}
	pthread_mutex_unlock(&rp->lock);
	if (err) {
		svc_recstats_domains_free(d, *nr);
		*nr = 0;
		return err;
	}
	*dp = d;
	*nr = n;
	return 0;
}

void svc_recstats_domains_free(struct svc_rec_domain *d, size_t nr)
{
	for (size_t i = 0; d && i < nr; i++) {
		free(d[i].domain);
		free(d[i].ring);
	}
	free(d);
}

void svc_rec_free(struct svc_rec *rp, const char *reason)
{
	if (!rp)
		return;
	for (struct job *j = rp->jobs; j; j = j->next)
		job_stop(j, reason);
	reap(rp, 1);
	/* the last files' profiles are made before the service goes */
	pthread_mutex_lock(&rp->lock);
	while (rp->converting)
		pthread_cond_wait(&rp->converted, &rp->lock);
	/* left only where no thread could be started for them */
	while (rp->queue) {
		struct conversion *cv = rp->queue;

		rp->queue = cv->next;
		rp->st.pprof_failed++;
		free(cv);
	}
	rp->queue_tail = NULL;
	rp->queued = 0;
	pthread_mutex_unlock(&rp->lock);
	if (rp->st.started)
		say(rp, "recordings: %llu started, %llu failed, %llu files (%llu "
		    "rotations), %llu records, %llu lost, %llu corrupt, %llu "
		    "pruned; disk full %llu times: %llu files cut back, %llu "
		    "lost, %llu records lost (%llu LOST records' counts), %llu "
		    "files removed for room; profiles: %llu written, %llu "
		    "failed, %llu skipped; post-command: %llu ok, %llu failed, "
		    "%llu dropped",
		    (unsigned long long)rp->st.started,
		    (unsigned long long)rp->st.failed,
		    (unsigned long long)rp->st.files,
		    (unsigned long long)rp->st.rotations,
		    (unsigned long long)rp->st.records,
		    (unsigned long long)rp->st.lost,
		    (unsigned long long)rp->st.corrupt,
		    (unsigned long long)rp->st.pruned,
		    (unsigned long long)rp->st.disk_full,
		    (unsigned long long)rp->st.disk_salvaged,
		    (unsigned long long)rp->st.disk_files_lost,
		    (unsigned long long)rp->st.disk_lost,
		    (unsigned long long)rp->st.disk_lost_lost,
		    (unsigned long long)rp->st.disk_pruned,
		    (unsigned long long)rp->st.pprof_ok,
		    (unsigned long long)rp->st.pprof_failed,
		    (unsigned long long)rp->st.pprof_skipped,
		    (unsigned long long)rp->st.post_ok,
		    (unsigned long long)rp->st.post_failed,
		    (unsigned long long)rp->st.post_dropped);
	for (size_t i = 0; i < rp->nr_doms; i++) {
		free(rp->doms[i]->pub.domain);
		free(rp->doms[i]->pub.ring);
		free(rp->doms[i]);
	}
	free(rp->doms);
	pthread_cond_destroy(&rp->converted);
	pthread_mutex_destroy(&rp->lock);
	free(rp->post);
	free(rp->dir);
	free(rp);
}

void svc_domain_uuid(const char *domain, char *buf, size_t len)
{
	struct dom_virt *d = NULL;
	char *xml = NULL;
	const char *a, *b;

	buf[0] = '\0';
	if (dom_virt_open(&d, NULL, domain, 1))
		return;
	if (!dom_virt_xml(d, 0, &xml) && (a = strstr(xml, "<uuid>")) &&
	    (b = strstr(a, "</uuid>"))) {
		a += strlen("<uuid>");
		if (b - a < (long)len)
			snprintf(buf, len, "%.*s", (int)(b - a), a);
	}
	free(xml);
	dom_virt_close(d);
}
