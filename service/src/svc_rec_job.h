/* SPDX-License-Identifier: MIT */
/*
 * Private to the service: a recording's state, shared by its thread and
 * the calls on it (src/svc_rec.c) and its files' boundaries: names,
 * rotation, completion, a full disk (src/svc_rotate.c).
 */
#ifndef RINGSIDE_SVC_REC_JOB_H
#define RINGSIDE_SVC_REC_JOB_H

#include <pthread.h>
#include <stdatomic.h>

#include "ringside/capture.h"
#include "ringside/domain.h"
#include "ringside/service_record.h"

#include "svc_convert.h"
#include "svc_post.h"
#include "svc_recstats.h"

#define SVC_REC_PATH_LEN 4200u

struct svc_rec {
	const struct svc_rec_config *c;
	char *dir;
	char host[256];
	struct svc_env env;
	struct svc_job *jobs;      /* the service's loop's alone */
	struct svc_recstats *st;   /* their counts */
	struct svc_convert *convert; /* profiles of complete files */
	struct svc_post *post;     /* the post-command's queue */
};

/* One domain's recording: a recorder in a thread of its own. */
struct svc_job {
	struct svc_rec *rp;
	struct svc_job *next;
	char domain[DOM_NAME_MAX + 1];
	char uuid[SVC_UUID_MAX];
	char ddir[SVC_REC_PATH_LEN];
	pthread_t th;
	atomic_int stop;           /* asked to end */
	atomic_int done;           /* the thread ended */
	const char *reason;        /* of the last file: "stop", "shutdown" */
	int wake[2];               /* a pipe: wakes the recorder at a stop */
	int fd;
	struct cap_source *src;    /* its region, mapped writable */
	struct gi_syms syms;
	struct cap_sync sync;
	struct cap_recorder *r;
	char out[2][SVC_REC_PATH_LEN + 64]; /* the file written, the next one */
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
	struct svc_recstats_dom *ds; /* its domain's counts; NULL: not kept */
	/* the sleeps between passes (ringside/service_idle.h): the longest
	 * its rings allow, the last one the backoff chose */
	uint32_t idle_bound_ms, sleep_ms;
	struct cap_tally_ring sum[RS_MAX_RINGS]; /* the completed files' tallies */
};

/* One line of the recordings' at @level (ringside/log.h: the recorders'
 * threads log too, one at a time). */
#define svc_rec_say(rp, level, ...) \
	rs_log((rp)->env.log, (rp)->env.log_arg, (level), __VA_ARGS__)

/* ---- the files' boundaries (src/svc_rotate.c) ---- */

/* Name @j's first file, before its recorder starts: j->out[j->cur]. */
void svc_rotate_begin(struct svc_job *j);

/* @r's hooks of file boundaries (next_output, file_done, disk_full),
 * called with @j. */
void svc_rotate_hooks(struct svc_job *j, struct cap_recorder_config *c);

/* @j's recorder @r ended (@err: cap_recorder_run's): its last file completed
 * (reason j->reason), or what it held counted as lost. */
void svc_rotate_end(struct svc_job *j, const struct cap_recorder *r,
		    int err);

#endif /* RINGSIDE_SVC_REC_JOB_H */
