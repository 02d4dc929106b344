/* SPDX-License-Identifier: MIT */
/*
 * The host service's library: what `ringside-service` does, apart from
 * its command line.  It follows libvirt's events for every domain
 * (ringside/domain_events.h), and when an opted-in domain's guest crashes,
 * its watchdog fires or its agent stops beating (a hang), or root asks
 * over the control socket, captures the domain's flight recorder by itself
 * (ringside/capture.h, cap_flight_capture) into the capture directory, the
 * reason in the capture's name, rate-limited per domain so that a crash
 * loop cannot fill the disk.  A domain that stops is the hook's to
 * capture (it runs at "release end"); the service leaves it alone.
 * Nothing here prints: what happens goes to the caller's log function.
 * docs/service.md is the operator's view.
 */
#ifndef RINGSIDE_SERVICE_H
#define RINGSIDE_SERVICE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"

#define SVC_CONFIG_PATH  "/etc/ringside/service.conf"
#define SVC_BURST        3u       /* captures per domain per window */
#define SVC_WINDOW_S     3600u
#define SVC_DOMAINS_MAX  4096u    /* domains the rate limiter tracks */

/* What makes the service capture (svc_config.capture_on). */
enum svc_trigger {
	SVC_ON_CRASH    = 1u << 0,   /* the guest panicked */
	SVC_ON_WATCHDOG = 1u << 1,   /* its watchdog fired */
	SVC_ON_HANG     = 1u << 2,   /* its agent's heartbeat went stale */
};
#define SVC_HANG_AFTER_S 60u      /* seconds without a heartbeat */
/* ... at the least: the agent beats about once a second, the service
 * looks every half second, so a threshold of a few seconds never takes a
 * live agent for a hung one */
#define SVC_HANG_MIN_S   5u
/* libvirt's reboot events of a domain less than this apart are one reset
 * (libvirt 9.0 reports an on_crash restart three times, within 40 ms) */
#define SVC_RESET_MERGE_S 2u

/* ---- continuous recording: its configuration (src/svc_record.c) ---- */
#define SVC_REC_ROTATE_MB   256u      /* a file this big is completed */
#define SVC_REC_KEEP_MB     4096u     /* complete files kept per domain */
#define SVC_REC_POST_TRIES  5u        /* a post-command's tries per file */
#define SVC_PPROF_SUFFIX    ".pb.gz"  /* FILE.data's profile: FILE.data.pb.gz */
#define SVC_PPROF_RUNNING   2u        /* conversions at once, at most */
#define SVC_PPROF_QUEUED    256u      /* files waiting for a conversion */

#define SVC_REC_DIR "/var/lib/ringside/recordings"

struct svc_rec_config {
	char *dir;                /* NULL: SVC_REC_DIR */
	int all;                  /* record = all */
	char **domains;           /* record = NAME...: these */
	uint32_t nr_domains;
	uint64_t rotate_bytes;    /* a file this big is completed (0: never) */
	uint32_t rotate_s;        /* ... or this old, in s (0: never) */
	uint64_t keep_bytes;      /* complete files per domain (0: any) */
	uint64_t total_bytes;     /* ... and of all domains together (0: any) */
	char *post_command;       /* run on each complete file; NULL: none */
	uint32_t post_tries;      /* at most this many times (1 s, 2 s, ...
				   * apart) */
	uint32_t interval_ms;     /* the longest sleep between passes */
	int pprof;                /* pprof = yes: FILE.pb.gz beside each
				   * complete file (default yes) */
	/* a full disk: a recording paused by it tries again this often
	 * (0: SVC_REC_FULL_RETRY_MS), once this much room is free (0:
	 * SVC_REC_ROOM_MB MiB), which removing the oldest recordings makes
	 * if they can */
	uint32_t full_retry_ms;
	uint64_t room_bytes;
	/* record-region = NAME PATH, for tests and benchmarks: region file
	 * PATH recorded as domain NAME from the start, without libvirt */
	char **region_names;
	char **region_paths;
	uint32_t nr_regions;
};

#define SVC_REC_FULL_RETRY_MS 10000u
#define SVC_REC_ROOM_MB       4u
#define SVC_REC_ROOM_INODES   64u      /* ... and this many inodes */

/* record = none, SVC_REC_ROTATE_MB, no time rotation, SVC_REC_KEEP_MB,
 * no total bound, no post-command, SVC_REC_POST_TRIES, 100 ms, pprof. */
void svc_rec_config_default(struct svc_rec_config *c);
void svc_rec_config_fini(struct svc_rec_config *c);

/* Key @k (record, record-dir, rotate-mb, rotate-seconds, record-keep-mb,
 * record-total-mb, post-command, post-tries) = @v into @c: 0, 1 when @k
 * is none of them, -EINVAL with *@why, -ENOMEM. */
int svc_rec_config_key(struct svc_rec_config *c, const char *k, char *v,
		       const char **why);

/* 1 if @c has @domain recorded. */
int svc_rec_config_selects(const struct svc_rec_config *c, const char *domain);

struct svc_config {
	char *uri;                /* NULL: libvirt's default */
	char *capture_dir;        /* NULL: CAP_FLIGHT_DIR */
	uint32_t keep;            /* captures kept per domain (0: any) */
	uint64_t keep_bytes;      /* bytes of them per domain (0: any) */
	uint32_t capture_on;      /* enum svc_trigger */
	uint32_t burst;           /* at most this many captures per domain */
	uint32_t window_s;        /* ... in any window of this many seconds */
	uint32_t hang_after_s;    /* heartbeat stale this long: a hang */
	char *socket;             /* NULL: SVC_SOCKET_PATH; "" none */
	char *metrics;            /* HOST:PORT, NULL: SVC_METRICS_ADDR;
				   * "" none (service_metrics.h) */
	struct svc_rec_config rec; /* continuous recording (svc_record.c) */
};

/* The defaults: CAP_FLIGHT_KEEP, CAP_FLIGHT_KEEP_BYTES, crash, watchdog and hang,
 * SVC_BURST per SVC_WINDOW_S, SVC_HANG_AFTER_S, SVC_SOCKET_PATH. */
void svc_config_default(struct svc_config *c);

/*
 * Read a configuration text (`key = value` lines, '#' comments) over
 * @c's values.  0, or -EINVAL with the line's number in *@line and what
 * is wrong in *@why (static text); -ENOMEM.  The keys are one table
 * (src/svc_config.c): svc_config_key() in ringside/service_config.h
 * lists them, docs/service.md says what each means.
 */
int svc_config_parse(struct svc_config *c, const char *text, size_t len,
		     unsigned *line, const char **why);

/* svc_config_parse of file @path; -errno when it cannot be read. */
int svc_config_load(struct svc_config *c, const char *path, unsigned *line,
		    const char **why);

void svc_config_fini(struct svc_config *c);

/* ---- the per-domain rate limit (src/svc_limit.c) ---- */
struct svc_limit;

int svc_limit_new(struct svc_limit **lp, uint32_t burst, uint32_t window_s);
void svc_limit_free(struct svc_limit *l);

/* May @domain be captured at @now_ns (a monotonic clock)?  1 yes (the
 * capture is counted against it), 0 not before its oldest one in the
 * window ages out (counted as refused), -ENOMEM. */
int svc_limit_take(struct svc_limit *l, const char *domain, uint64_t now_ns);

/* Captures refused so far, all domains. */
uint64_t svc_limit_refused(const struct svc_limit *l);

/* ---- the region and hang watch (src/svc_watch.c) ---- */
struct svc_watch;

/* Watch regions, and their heartbeats against a threshold of @after_s
 * seconds (0: never stale; at least SVC_HANG_MIN_S otherwise). */
int svc_watch_new(struct svc_watch **wp, uint32_t after_s);
void svc_watch_free(struct svc_watch *w);

/* Watch domain @name's region file @path (its header page mapped
 * read-only, the file's identity kept; a link is refused), replacing an
 * earlier watch of it; the heartbeat's age starts at @now_ns.  0 or
 * -errno. */
int svc_watch_add(struct svc_watch *w, const char *name, const char *path,
		  uint64_t now_ns);
void svc_watch_del(struct svc_watch *w, const char *name);
size_t svc_watch_count(const struct svc_watch *w);

/* 1 if @name is watched. */
int svc_watch_has(struct svc_watch *w, const char *name);

/* 1 if @name is watched in the file @path names now (the same file: not
 * one laid out under the name since). */
int svc_watch_same(struct svc_watch *w, const char *name, const char *path);

/* The region file of a watched domain is gone (@replaced 0: `disable
 * --live` removed it) or another one has its name (1: laid out anew,
 * `enable --live`): its watch has ended. */
typedef void (*svc_watch_gone_fn)(void *arg, const char *name, int replaced);

/* Look at every watched region's name (an lstat each, no libvirt) and end
 * the watch of those that are not the file watched any more, calling
 * @gone for each. */
void svc_watch_check(struct svc_watch *w, svc_watch_gone_fn gone, void *arg);

/* @name's guest reset at @now_ns: its heartbeat's age starts again and
 * the status as it stands, an agent's of the boot before, is not judged
 * until it changes; the header's boot_gen + 1 (rs_region_note_reset,
 * through a writable mapping of the same file), the new value in *@gen.
 * 0, -ENOENT (not watched), -ESTALE (its file was replaced), -errno. */
int svc_watch_reset(struct svc_watch *w, const char *name, uint64_t now_ns,
		    uint64_t *gen);

/* @name's attached agent has not beaten for @secs: 1 if that is a hang
 * (reported; not again until it beats), 0 if not (the wait restarts). */
typedef int (*svc_watch_stale_fn)(void *arg, const char *name, uint64_t secs);

void svc_watch_poll(struct svc_watch *w, uint64_t now_ns, svc_watch_stale_fn stale,
		    void *arg);

/* ---- guest resets (src/svc_watch.c) ---- */
struct svc_resets;

/* Merge reboot events less than @merge_s apart (0: SVC_RESET_MERGE_S). */
int svc_resets_new(struct svc_resets **rp, uint32_t merge_s);
void svc_resets_free(struct svc_resets *r);

/* A reboot event of @domain at @now_ns (monotonic): 1 if it is a reset
 * of its own, 0 if one more report of the reset before it (less than the
 * merge time after the domain's previous event), -ENOMEM. */
int svc_resets_note(struct svc_resets *r, const char *domain,
		    uint64_t now_ns);

/* ---- the control socket (src/svc_ctl.c) ---- */
#define SVC_SOCKET_PATH "/run/ringside/service.sock"

/* Only root (or the service's own user) may connect (SO_PEERCRED; the
 * socket is 0600 besides).  Its connections are served from the
 * service's loop, never blocking it: a client that sends its line slowly
 * or never holds one of SVC_CTL_CLIENTS slots (the oldest makes room for
 * a new one) until SVC_CTL_TIMEOUT_MS after it connected, and delays no
 * other request. */
#define SVC_CTL_LINE_MAX   512u   /* a request line, its newline included */
#define SVC_CTL_CLIENTS    16u    /* connections served at once */
#define SVC_CTL_TIMEOUT_MS 2000u  /* its line read and answered by then */

/* Listen on UNIX socket @path (mode 0600; its directory made 0755 if
 * absent), non-blocking.  -EADDRINUSE when a service answers there. */
int svc_ctl_listen(const char *path, int *fdp);

/*
 * The verdict on the first @len bytes a client sent: 0 while its line is
 * not whole (and shorter than SVC_CTL_LINE_MAX), 1 for "capture DOMAIN"
 * with the name in @domain (@dlen bytes, DOM_NAME_MAX + 1 is enough),
 * -EILSEQ when DOMAIN is not a name ringside could have opted in
 * (dom_shm_name_check: nothing of it is copied, logged or echoed), -EINVAL
 * for another request, -EMSGSIZE for a line too long.
 */
int svc_ctl_parse(const char *buf, size_t len, char *domain, size_t dlen);

/* A request for domain @domain: its answer into @reply ("ok PATH" or
 * "error WHY", no newline). */
typedef void (*svc_ctl_request_fn)(void *arg, const char *domain, char *reply,
			       size_t len);

/* The connections of listening socket @lfd (made non-blocking; still the
 * caller's to close, after svc_ctl_free).  0 or -errno. */
struct svc_ctl;
int svc_ctl_new(struct svc_ctl **cp, int lfd);
void svc_ctl_free(struct svc_ctl *c);

/* A descriptor readable whenever svc_ctl_serve has work (an epoll set of
 * the listener and the connections), for poll(2) or an event loop. */
int svc_ctl_fd(const struct svc_ctl *c);

/*
 * Accept what waits, read what came, answer each whole request line
 * through @fn (others with "error WHY"), send what can be sent, and close
 * what is done or out of time at @now_ns (CLOCK_MONOTONIC), never
 * waiting.  Requests answered in this call.
 */
int svc_ctl_serve(struct svc_ctl *c, uint64_t now_ns, svc_ctl_request_fn fn,
		  void *arg);

/* Connections held now; dropped so far (out of time, closed for a newer
 * one, gone before their answer, or refused: not root). */
unsigned svc_ctl_held(const struct svc_ctl *c);
uint64_t svc_ctl_dropped(const struct svc_ctl *c);

/* The client: ask the service at @path to capture @domain; its answer
 * line in @reply.  0 or -errno (-ENOENT, -ECONNREFUSED: no service). */
int svc_client_request(const char *path, const char *domain, char *reply,
		    size_t len);

/* ---- the service (src/svc.c) ---- */
typedef void (*rs_log_fn)(void *arg, const char *fmt, va_list ap);

/* ---- continuous recording (src/svc_record.c, svc_sidecar.c) ---- */
/*
 * Each selected normal-mode domain recorded by a recorder of its own (a
 * thread): DIR/DOMAIN/rec-TIME-NNNNNN.data, each file complete and
 * readable on its own, completed on rotation (size or age), at the
 * domain's stop and at the service's end; each with a JSON sidecar
 * FILE.json; the oldest complete files pruned to the bounds; the
 * post-command run on each from the service's loop (svc_rec_poll), never
 * from a recorder.
 */
#define SVC_REC_PREFIX  "rec-"
#define SVC_UUID_MAX    64u

/* What a sidecar says about one file the service wrote. */
struct svc_sidecar {
	const char *domain;
	const char *uuid;         /* libvirt's; NULL or "": not known */
	const char *host;         /* the host's name (uname) */
	const char *reason;       /* rotation, stop, shutdown, panic, ... */
	const char *file;         /* the data file's name, no directory */
	uint64_t start_ns;        /* host CLOCK_MONOTONIC: the file's window */
	uint64_t end_ns;
	int64_t wall_offset_ns;   /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t bytes;           /* the data file's size */
	uint32_t rings;
	uint64_t records;         /* in the file, all kinds */
	uint64_t lost_records;    /* of them, LOST records */
	/* what the host observed */
	uint64_t corrupt;         /* corruption events */
	uint64_t corrupt_bytes;   /* ring bytes discarded for them */
	uint64_t not_written;     /* records perf.data cannot carry */
	uint64_t overwritten;     /* a capture: records no longer held */
	uint64_t disk_lost;       /* records drained for the file that a full
				   * disk kept out of it (lost), LOST
				   * records aside */
	uint64_t disk_lost_lost;  /* the counts of the LOST records it kept
				   * out (guest claims) */
	/* what the guest claims (never summed with the host's) */
	uint64_t lost;            /* LOST counts */
	uint64_t lost_samples;    /* LOST_SAMPLES counts */
	uint64_t aux_truncated;
	uint64_t flagged;         /* claims no honest guest makes: left out */
};

/* @sc as one JSON object and a newline into @buf: its length, or
 * -ENOSPC when it does not fit. */
int svc_sidecar_text(const struct svc_sidecar *sc, char *buf, size_t len);

/* Write @sc as @data_path.json, mode 0600 (written aside, then renamed:
 * pdf_aside_open).  0 or -errno. */
int svc_sidecar_write(const char *data_path, const struct svc_sidecar *sc);

/* Remove the sidecars (*.data.json) in directory @ddir whose data file
 * is gone (a capture pruned).  0 or -errno; how many in *@removed. */
int svc_sidecar_orphans(const char *ddir, uint32_t *removed);

/* The bounds of svc_room_prune. */
struct svc_room_freed {
	uint32_t removed;         /* data files removed (with their .json) */
	uint64_t freed;           /* bytes */
	/* NULL, or called for each file removed: its domain (the name of
	 * its directory) and its bytes */
	void (*each)(void *arg, const char *domain, uint64_t bytes);
	void *arg;
};

/*
 * Remove the oldest complete recordings (rec-*.data, by name, each with
 * its .json) of @dir/@domain until they hold at most @keep_bytes, then
 * of every @dir/<domain>/ until all hold at most @total_bytes (0: no
 * bound), never @keep_path nor a domain's newest file.  0 or -errno;
 * counts added to @p.
 */
int svc_room_prune(const char *dir, const char *domain, const char *keep_path,
		  uint64_t keep_bytes, uint64_t total_bytes,
		  struct svc_room_freed *p);

/*
 * A full disk: remove the oldest complete recordings of @domain (never
 * its newest, nor @keep_path), then the oldest of every domain under
 * @dir (never one's newest), until @room bytes and SVC_REC_ROOM_INODES
 * inodes (on a file system that counts them) are free on @dir's file
 * system.  Captures and files being written are not touched.  1 when
 * there is that room at the end, 0 when not (nothing more to remove),
 * or -errno; the bytes free in *@free_bytes either way.
 */
int svc_room_make(const char *dir, const char *domain,
		      const char *keep_path, uint64_t room,
		      struct svc_room_freed *p, uint64_t *free_bytes);

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
 * since the service started (svc_rec_domains). */
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

#define SVC_REC_DOMAINS_MAX SVC_DOMAINS_MAX  /* domains counted */

struct svc_rec;

/* Recording per @c into @dir/DOMAIN/; @c must outlive it.  Logs through
 * @log (called from the recorders' threads too, one at a time). */
int svc_rec_new(struct svc_rec **rp, const struct svc_rec_config *c,
		const char *dir, rs_log_fn log, void *log_arg, int argc,
		char *const *argv);

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

void svc_rec_get_stats(struct svc_rec *rp, struct svc_rec_stats *st);

/* A copy of every domain's counts, by name (the rings' as of the
 * recorders' last look, about a quarter second ago at most): *@d (NULL when
 * none), *@nr.  0 or -ENOMEM.  Domains past SVC_REC_DOMAINS_MAX are not
 * counted (svc_rec_stats.domains_dropped). */
int svc_rec_domains(struct svc_rec *rp, struct svc_rec_domain **d, size_t *nr);
void svc_recstats_domains_free(struct svc_rec_domain *d, size_t nr);

/* Stop every recording with @reason ("shutdown"), wait until each file is
 * complete, free.  Post-commands still queued are not run.  Accepts
 * NULL. */
void svc_rec_free(struct svc_rec *rp, const char *reason);

/* libvirt's UUID of @domain into @buf ("" when it cannot say). */
void svc_domain_uuid(const char *domain, char *buf, size_t len);

/* The metrics endpoint's answers (src/svc_http.c), counted by kind. */
enum svc_http_answer {
	SVC_HTTP_OK,              /* 200: the page */
	SVC_HTTP_BAD_REQUEST,     /* 400 */
	SVC_HTTP_NOT_FOUND,       /* 404 */
	SVC_HTTP_NOT_ALLOWED,     /* 405 */
	SVC_HTTP_TOO_LARGE,       /* 431 */
	SVC_HTTP_ERROR,           /* 500: no page (no memory) */
	SVC_HTTP_ANSWERS
};

struct svc_stats {
	uint64_t events;          /* domain events seen */
	uint64_t captures;        /* captures written */
	uint64_t empty;           /* triggers whose region was never written */
	uint64_t rate_limited;    /* triggers refused by the rate limit */
	uint64_t failed;          /* captures that failed */
	uint64_t failed_disk_full; /* ... of them, on a full disk */
	uint64_t not_enabled;     /* triggers of domains not opted in */
	uint64_t dropped;         /* triggers lost: the queue was full */
	uint64_t requests;        /* captures asked for on the socket */
	uint64_t hangs;           /* stale heartbeats taken for hangs */
	uint64_t resets;          /* guest resets (reboot events merged) */
	unsigned reconnects;      /* to libvirtd */
	struct svc_rec_stats rec; /* the recordings', as of the last
				   * svc_stats() or scrape */
	/* for a scrape only (svc_metrics_text), NULL and 0 otherwise: each
	 * recorded domain's counts; the metrics endpoint's answers by
	 * enum svc_http_answer, the connections it dropped */
	const struct svc_rec_domain *rec_domains;
	size_t nr_rec_domains;
	uint64_t http_answers[SVC_HTTP_ANSWERS];
	uint64_t http_dropped;
};

struct svc;

/* Follow @c's libvirt (a libvirtd not there yet is waited for); @c must
 * outlive the service.  0, -ENOMEM or svc_limit_new's. */
int svc_open(struct svc **sp, const struct svc_config *c, rs_log_fn log,
	     void *log_arg, int argc, char *const *argv);

/* Wait up to @timeout_ms for events, then capture what they asked for.
 * 0, or a libvirt error (logged; the service retries by itself). */
int svc_run(struct svc *s, int timeout_ms);

const struct svc_stats *svc_stats(const struct svc *s);

/* The continuous recordings' counts (files, rotations, retention,
 * post-command), as svc_rec_get_stats gives them. */
void svc_record_stats(const struct svc *s, struct svc_rec_stats *st);

void svc_close(struct svc *s);

#endif /* RINGSIDE_SERVICE_H */
