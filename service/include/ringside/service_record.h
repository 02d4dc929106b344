/* SPDX-License-Identifier: MIT */
/*
 * The service's continuous recording.  Each selected normal-mode domain
 * is recorded by a recorder of its own (a thread, src/svc_rec.c):
 * DIR/DOMAIN/rec-TIME-NNNNNN.data, each file complete and readable on
 * its own, completed on rotation (size or age), at the domain's stop and
 * at the service's end (src/svc_rotate.c); each with a JSON sidecar
 * FILE.json (ringside/service_sidecar.h) and a pprof profile
 * FILE.pb.gz made off the recorder's thread (src/svc_convert.c); the
 * oldest complete files pruned to the bounds, and removed for room on a
 * full disk (ringside/service_room.h); the post-command run on each from
 * the service's loop (svc_rec_poll, src/svc_post.c), never from a
 * recorder.  What was recorded is counted per domain and per ring
 * (src/svc_recstats.c).  Nothing here prints: what happens goes to the
 * log callback (ringside/log.h).
 */
#ifndef RINGSIDE_SERVICE_RECORD_H
#define RINGSIDE_SERVICE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/log.h"
#include "ringside/ring.h"
#include "ringside/service_config.h"
#include "ringside/service_limit.h"

#define SVC_REC_PREFIX      "rec-"
#define SVC_UUID_MAX        64u
#define SVC_PPROF_SUFFIX    ".pb.gz"  /* FILE.data's profile: FILE.data.pb.gz */
#define SVC_PPROF_RUNNING   2u        /* conversions at once, at most */
#define SVC_PPROF_QUEUED    256u      /* files waiting for a conversion */
#define SVC_REC_DOMAINS_MAX SVC_DOMAINS_MAX  /* domains counted */

/* The recordings' counts, all domains. */
struct svc_rec_stats {
	uint32_t recording;       /* domains recorded now */
	uint64_t started;         /* recordings started */
	uint64_t failed;          /* ... that failed to start or ended in
				   * an error */
	uint64_t files;           /* files completed */
	uint64_t rotations;       /* of them, by rotation */
	uint64_t records;         /* records in them */
	uint64_t bytes;
	uint64_t lost;            /* guest-claimed LOST counts in them */
	uint64_t corrupt;         /* host-observed corruption events */
	uint64_t discarded;       /* records drained into a file that could
				   * not be completed (a full disk): lost */
	uint64_t sidecar_failed;  /* sidecars not written */
	uint64_t pruned;          /* files removed by the bounds */
	uint64_t pruned_bytes;
	uint64_t disk_full;       /* times a write found the disk full */
	uint64_t disk_salvaged;   /* files cut back to what was on disk */
	uint64_t disk_files_lost; /* files a full disk lost whole */
	uint64_t disk_lost;       /* records drained that no file holds:
				   * lost to the full disk (LOST records
				   * aside) */
	uint64_t disk_lost_lost;  /* the counts of the LOST records lost so
				   * (guest claims) */
	uint64_t disk_pruned;     /* files removed to make room on it */
	uint64_t post_run;        /* post-command runs */
	uint64_t post_ok;         /* files it succeeded on */
	uint64_t post_failed;     /* files it failed on every try */
	uint64_t post_dropped;    /* files not given to it: the queue was
				   * full */
	uint64_t pprof_ok;        /* profiles written (FILE.pb.gz) */
	uint64_t pprof_failed;    /* ... that could not be */
	uint64_t pprof_skipped;   /* files left without one: too many
				   * conversions running */
	uint64_t domains_dropped; /* domains past SVC_REC_DOMAINS_MAX: their
				   * counts not kept per domain */
};

/* One ring of a domain, as the service's recorders of it took it, over
 * every recording of the domain since the service started: what the
 * host counted, but for the guest's claims in its LOST records. */
struct svc_rec_ring_stats {
	uint64_t records;         /* records taken into files, LOST records
				   * aside (delivered) */
	uint64_t bytes;           /* bytes of the records taken, all kinds */
	uint64_t aux_bytes;       /* AUX bytes taken into files */
	uint64_t lost;            /* the LOST records' counts (guest claims) */
	uint64_t corrupt;         /* corruption events met draining it */
	uint64_t corrupt_bytes;   /* ring bytes discarded for them */
	uint64_t not_written;     /* records perf.data cannot carry */
};

/* A domain the service recorded (or pruned recordings of), its counts
 * since the service started (svc_recstats_domains). */
struct svc_rec_domain {
	char *domain;
	int recording;            /* recorded now */
	uint64_t started;         /* recordings started */
	uint64_t failed;          /* ... failed to start or ended in an error */
	uint64_t files;           /* files completed */
	uint64_t rotations;       /* of them, by rotation */
	uint64_t discarded;       /* records in files that could not be
				   * completed: lost */
	uint64_t pruned;          /* files removed by the retention bounds */
	uint64_t pruned_bytes;
	int synced;               /* the recorder's time sync holds a point */
	uint64_t sync_bound_ns;   /* ... its error bound (+- ns) */
	uint32_t nr_rings;
	struct svc_rec_ring_stats *ring;
};

/* What the program gives the service and its recordings: where they
 * log (ringside/log.h; the recorders' threads too, one at a time), and
 * its command line, which each capture's and recording's perf.data
 * names. */
struct svc_env {
	rs_log_fn log;
	void *log_arg;
	int argc;
	char *const *argv;
};

/* ---- the recordings (src/svc_rec.c) ---- */
struct svc_rec;

/* Recording per @c into @dir/DOMAIN/; @c must outlive it, @env is
 * copied. */
int svc_rec_new(struct svc_rec **rp, const struct svc_rec_config *c,
		const char *dir, const struct svc_env *env);

/*
 * Record @domain's region file @path, opened by @layout (NULL: its
 * header), @uuid for the sidecars.  0 recording (or already), -EMEDIUMTYPE
 * when its rings are not in normal mode, -EWOULDBLOCK when another
 * consumer drains them, -errno, the ring library's -rse_*.
 */
int svc_rec_start(struct svc_rec *rp, const char *domain, const char *uuid,
		  const char *path, const struct rs_region_params *layout);

/* Ask @domain's recorder to take what is left and complete its file with
 * @reason ("stop"); it ends in its own time (svc_rec_poll reaps it).  1
 * if it was recorded. */
int svc_rec_stop(struct svc_rec *rp, const char *domain, const char *reason);

/* Stop every recording whose domain is not among @names (they stopped
 * while the service did not see it), but those of record-region. */
void svc_rec_keep_only(struct svc_rec *rp, char *const *names, size_t nr,
		       const char *reason);

/* 1 if @domain is being recorded. */
int svc_rec_recording(struct svc_rec *rp, const char *domain);

/* Give FILE and FILE.json to the post-command (a capture's too).  0, or
 * -ENOSPC (counted as dropped). */
int svc_rec_post(struct svc_rec *rp, const char *data_path);

/* From the service's loop: reap the recorders that ended; start, reap
 * and retry (1 s, 2 s, 4 s, ... later) post-commands.  Never waits. */
void svc_rec_poll(struct svc_rec *rp, uint64_t now_ns);

/* Post-commands running or waiting. */
unsigned svc_rec_post_pending(struct svc_rec *rp);

/* The recordings' counts (below). */
struct svc_recstats *svc_rec_counts(struct svc_rec *rp);

/* Stop every recording with @reason ("shutdown"), wait until each file is
 * complete and its profile made, free.  Post-commands still queued are
 * not run.  Accepts NULL. */
void svc_rec_free(struct svc_rec *rp, const char *reason);

/* ---- their counts (src/svc_recstats.c) ---- */
struct svc_recstats;

/* The counts of every domain together, now. */
void svc_recstats_get(struct svc_recstats *s, struct svc_rec_stats *st);

/* A copy of every domain's counts, by name (the rings' as of the
 * recorders' last look, about a quarter second ago at most, and up to
 * an idle recorder's sleep more after an idle domain's first records:
 * ringside/service_idle.h): *@d (NULL
 * when none), *@nr.  0 or -ENOMEM.  Domains past SVC_REC_DOMAINS_MAX are
 * not counted (svc_rec_stats.domains_dropped). */
int svc_recstats_domains(struct svc_recstats *s, struct svc_rec_domain **d,
			 size_t *nr);
void svc_recstats_domains_free(struct svc_rec_domain *d, size_t nr);

#endif /* RINGSIDE_SERVICE_RECORD_H */
