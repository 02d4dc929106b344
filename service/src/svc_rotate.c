/* SPDX-License-Identifier: MIT */
/*
 * A recording's file boundaries, from its recorder's hooks (called on
 * the recorder's thread): the next file's name, rotation by size or age,
 * a completed file's sidecar, retention bounds, profile and post-command,
 * and a full disk: the file cut back to what it holds, the recording
 * paused, room made by removing the oldest recordings, a new file begun
 * once there is room.  What a full disk lost is counted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ringside/service_room.h"
#include "ringside/service_sidecar.h"

#include "svc_rec_job.h"

/* The next file's name, into the slot after the current one:
 * DIR/DOMAIN/rec-YYYYMMDDTHHMMSSZ-NNNNNN.data, NNNNNN @seq or the first
 * after it whose name is not there yet. */
static const char *name_next(struct svc_job *j, uint32_t seq)
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

void svc_rotate_begin(struct svc_job *j)
{
	name_next(j, 0);
	j->cur ^= 1;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return path && !stat(path, &st) ? (uint64_t)st.st_size : 0;
}

static uint64_t room_bytes(const struct svc_rec_config *c)
{
	return c->room_bytes ? c->room_bytes : (uint64_t)SVC_REC_ROOM_MB << 20;
}

/* A full disk: the oldest recordings removed until there is room
 * (svc_room_make, never @keep_path), counted, what was removed in @p.
 * 1: there is room now, 0: not, or -errno (the free bytes in *@avail all
 * the same). */
static int room_make(struct svc_job *j, const char *keep_path,
		     struct svc_room_freed *p, uint64_t *avail)
{
	struct svc_rec *rp = j->rp;
	struct svc_rec_stats *st;
	int ret;

	ret = svc_room_make(rp->dir, j->domain, keep_path, room_bytes(rp->c),
			    p, avail);
	st = svc_recstats_lock(rp->st);
	st->pruned += p->removed;
	st->pruned_bytes += p->freed;
	st->disk_pruned += p->removed;
	svc_recstats_unlock(rp->st);
	return ret;
}

static uint64_t full_retry_ns(const struct svc_rec_config *c)
{
	return (uint64_t)(c->full_retry_ms ? c->full_retry_ms :
			  SVC_REC_FULL_RETRY_MS) * 1000000ull;
}

/* The recorder's full-disk counts since the last call into the
 * service's; with @sc, what went lost of the file it describes. */
static void full_sync(struct svc_job *j, const struct cap_recorder *r,
		      struct svc_sidecar *sc)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	struct svc_rec *rp = j->rp;
	struct svc_rec_stats *st;
	/* LOST records apart: their counts are what they stood for */
	uint64_t recs = (rst->disk_lost.records - rst->disk_lost.lost_records) -
			(j->disk_seen.records - j->disk_seen.lost_records);
	uint64_t lost = rst->disk_lost.lost - j->disk_seen.lost;

	if (sc) {
		sc->disk_lost = recs;
		sc->disk_lost_lost = lost;
	}
	st = svc_recstats_lock(rp->st);
	st->disk_full += rst->disk_fulls - j->fulls_seen;
	st->disk_salvaged += rst->salvaged_files - j->salvaged_seen;
	st->disk_files_lost += rst->disk_files_lost - j->files_lost_seen;
	st->disk_lost += recs;
	st->disk_lost_lost += lost;
	svc_recstats_unlock(rp->st);
	j->disk_seen = rst->disk_lost;
	j->fulls_seen = rst->disk_fulls;
	j->salvaged_seen = rst->salvaged_files;
	j->files_lost_seen = rst->disk_files_lost;
}

/* @sc, the sidecar of the file the recorder wrote: what the recorder counted. */
static void describe(struct svc_job *j, const struct cap_recorder *r,
		     struct svc_sidecar *sc)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	const struct cap_tally *t = rst->have_file_tally ? &rst->file_tally :
							   &rst->tally;
	struct cap_tally_ring sum;

	full_sync(j, r, sc);
	cap_tally_total(t, &sum);
	sc->records = sum.records;
	sc->lost_records = sum.by_class[PDF_RREC_LOST];
	sc->lost = sum.lost;
	sc->lost_samples = sum.lost_samples;
	sc->aux_truncated = sum.aux_truncated;
	sc->flagged = cap_tally_flagged(&sum);
	for (uint32_t i = 0; i < rst->host.nr_rings && i < RS_MAX_RINGS; i++) {
		const struct pdf_host_ring *h = &rst->host.ring[i];

		sc->corrupt += h->corrupt;
		sc->corrupt_bytes += h->corrupt_bytes;
		sc->not_written += h->not_written;
	}
}

/* The file the recorder wrote (its stats' output) is complete: its sidecar, counted. */
static void sidecar(struct svc_job *j, const struct cap_recorder *r,
		    const char *reason)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	struct svc_rec *rp = j->rp;
	const char *base = strrchr(rst->output, '/');
	struct svc_sidecar sc = {
		.domain = j->domain, .uuid = j->uuid, .host = rp->host,
		.reason = reason, .file = base ? base + 1 : rst->output,
		.start_ns = rst->host.start_ns, .end_ns = rst->host.end_ns,
		.wall_offset_ns = svc_sidecar_wall_offset(),
		.bytes = file_size(rst->output), .rings = rst->host.nr_rings,
	};
	struct svc_rec_stats *st;
	int err;

	describe(j, r, &sc);
	if (rst->salvaged)
		svc_rec_say(rp, RS_LOG_WARNING, "%s: %s cut back to what reached "
			    "the full disk: %llu records kept, %llu lost (and "
			    "%llu LOST records' counts)", j->domain, rst->output,
			    (unsigned long long)sc.records,
			    (unsigned long long)sc.disk_lost,
			    (unsigned long long)sc.disk_lost_lost);
	err = svc_sidecar_write(rst->output, &sc);
	if (err == -ENOSPC || err == -EDQUOT) {
		/* the file fit on the disk, its sidecar did not: room made
		 * as for the file's own writes, then written again */
		struct svc_room_freed rm = { .each = svc_recstats_pruned,
					     .arg = rp->st };
		uint64_t avail;

		room_make(j, rst->output, &rm, &avail);
		err = svc_sidecar_write(rst->output, &sc);
	}
	if (err)
		svc_rec_say(rp, RS_LOG_ERR, "%s: %s: its sidecar was not "
			    "written: %s", j->domain, rst->output, strerror(-err));
	st = svc_recstats_lock(rp->st);
	st->files++;
	st->rotations += !strcmp(reason, "rotation");
	st->records += sc.records;
	st->bytes += sc.bytes;
	st->lost += sc.lost;
	st->corrupt += sc.corrupt;
	st->sidecar_failed += !!err;
	if (j->ds) {
		j->ds->pub.files++;
		j->ds->pub.rotations += !strcmp(reason, "rotation");
	}
	svc_recstats_unlock(rp->st);
}

/* The file the recorder wrote (its stats' output) is complete: its sidecar, the bounds, its profile,
 * the post-command's queue. */
static void completed(struct svc_job *j, const struct cap_recorder *r,
		      const char *reason)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	struct svc_rec *rp = j->rp;
	const struct svc_rec_config *c = rp->c;
	struct svc_room_freed p = { .each = svc_recstats_pruned,
				    .arg = rp->st };
	struct svc_rec_stats *st;
	int err;

	/* the next file begun after this one takes the next counter */
	j->seq = j->out_seq[rst->output == j->out[1]] + 1;
	sidecar(j, r, reason);
	if (c->keep_bytes || c->total_bytes) {
		err = svc_room_prune(rp->dir, j->domain, rst->output,
				     c->keep_bytes, c->total_bytes, &p);
		if (err)
			svc_rec_say(rp, RS_LOG_ERR, "%s: the oldest recordings "
				    "could not all be removed: %s", j->domain,
				    strerror(-err));
		st = svc_recstats_lock(rp->st);
		st->pruned += p.removed;
		st->pruned_bytes += p.freed;
		svc_recstats_unlock(rp->st);
	}
	if (c->pprof)
		svc_convert_file(rp->convert, j->domain, rst->output);
	svc_post_add(rp->post, rst->output);
}

/* A full disk: room made and the next try's time; said once per
 * outage (a file begun after it ends it: hook_next). */
static void hook_full(void *arg, const struct cap_recorder *r)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	struct svc_job *j = arg;
	struct svc_rec *rp = j->rp;
	struct svc_room_freed p = { .each = svc_recstats_pruned,
				    .arg = rp->st };
	uint64_t avail = 0;
	int err;

	err = room_make(j, rst->output, &p, &avail);
	j->full_next_ns = cap_time_now_ns() + full_retry_ns(rp->c);
	if (!j->full_said)
		svc_rec_say(rp, RS_LOG_WARNING, "%s: the disk is full (%s): %u "
			    "oldest recordings removed (%llu bytes), %llu bytes "
			    "free%s%s; recording pauses until %llu are (and %u "
			    "inodes)", j->domain, rst->output, p.removed,
			    (unsigned long long)p.freed,
			    (unsigned long long)avail, err < 0 ? ": " : "",
			    err < 0 ? strerror(-err) : "",
			    (unsigned long long)room_bytes(rp->c),
			    SVC_REC_ROOM_INODES);
	j->full_said = 1;
	full_sync(j, r, NULL);
}

/* Paused by a full disk: the next file once it is time to try again
 * and there is room (made if it can be). */
static const char *full_next(struct svc_job *j, const struct cap_recorder *r)
{
	struct svc_rec *rp = j->rp;
	uint64_t now = cap_time_now_ns(), avail = 0;
	struct svc_room_freed p = { .each = svc_recstats_pruned,
				    .arg = rp->st };
	int ok;

	full_sync(j, r, NULL);
	if (now < j->full_next_ns)
		return NULL;
	j->full_next_ns = now + full_retry_ns(rp->c);
	ok = room_make(j, NULL, &p, &avail);
	if (ok < 0)   /* a directory not read: the bytes free say */
		ok = avail >= room_bytes(rp->c);
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
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	struct svc_job *j = arg;
	const struct svc_rec_config *c = j->rp->c;
	uint64_t now = cap_time_now_ns();

	if (atomic_load(&j->stop))
		return NULL;   /* it ends this very pass */
	if (rst->full)
		return full_next(j, r);
	if (j->resuming) {
		/* the file full_next named was begun: recording again */
		svc_rec_say(j->rp, RS_LOG_NOTICE, "%s: %llu bytes free: "
			    "recording again", j->domain,
			    (unsigned long long)j->resume_free);
		j->resuming = 0;
	}
	/* a file is being written: a full disk met later is a new outage */
	j->full_said = 0;
	if (!(c->rotate_s &&
	      now - j->file_start_ns >= (uint64_t)c->rotate_s * 1000000000ull) &&
	    !(c->rotate_bytes && cap_recorder_file_bytes(r) >= c->rotate_bytes))
		return NULL;
	/* the current file is open: the next counter after its own */
	return name_next(j, j->out_seq[j->cur] + 1);
}

/* The current file's tally into the completed files' (a rotation). */
static void job_sum(struct svc_job *j, const struct cap_recorder *r)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);

	for (uint32_t i = 0; i < rst->tally.nr_rings && i < RS_MAX_RINGS; i++) {
		const struct cap_tally_ring *t = &rst->tally.ring[i];
		struct cap_tally_ring *s = &j->sum[i];

		s->records += t->records;
		s->by_class[PDF_RREC_LOST] += t->by_class[PDF_RREC_LOST];
		s->bytes += t->bytes;
		s->lost += t->lost;
	}
}

static void hook_done(void *arg, const struct cap_recorder *r)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	struct svc_job *j = arg;

	job_sum(j, r);
	completed(j, r, rst->salvaged ? "disk-full" : "rotation");
	if (rst->full)
		return;   /* paused: full_next names the next file */
	j->cur ^= 1;
	j->file_start_ns = cap_time_now_ns();
}

void svc_rotate_hooks(struct svc_job *j, struct cap_recorder_config *c)
{
	c->hooks.next_output = hook_next;
	c->hooks.file_done = hook_done;
	c->hooks.disk_full = hook_full;
	c->hooks.arg = j;
}

void svc_rotate_end(struct svc_job *j, const struct cap_recorder *r, int err)
{
	const struct cap_recorder_stats *rst = cap_recorder_stats(r);
	struct svc_rec *rp = j->rp;
	struct svc_rec_stats *st;
	struct cap_tally_ring sum;

	if (!err && rst->full) {
		/* ended paused by a full disk: no file was open */
		full_sync(j, r, NULL);
		return;
	}
	if (!err) {
		completed(j, r, rst->salvaged ? "disk-full" :
				j->reason ? j->reason : "stop");
		return;
	}
	full_sync(j, r, NULL);
	/* what went into the file it could not complete: lost */
	cap_tally_total(&rst->tally, &sum);
	svc_rec_say(rp, RS_LOG_ERR, "%s: the recording ended in an error "
		    "(%s): %s; %llu records of its file lost", j->domain,
		    rst->fail.path[0] ? rst->fail.path : rst->output,
		    cap_err_str(&rst->fail.e), (unsigned long long)sum.records);
	st = svc_recstats_lock(rp->st);
	st->failed++;
	st->discarded += sum.records;
	if (j->ds) {
		j->ds->pub.failed++;
		j->ds->pub.discarded += sum.records;
	}
	svc_recstats_unlock(rp->st);
}
