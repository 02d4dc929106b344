/* SPDX-License-Identifier: MIT */
/*
 * The host service's configuration: `key = value` lines, '#' comments
 * (docs/service.md says what each key means).  Its keys are one table
 * (src/svc_config.c): the parser (svc_config_parse) takes a key only from
 * it, its message for an unknown key lists it, `ringside-service
 * --check-config` prints every key's value from it, and the service
 * suite checks the example file (dist/host/service.conf) and
 * docs/service.md against it.  Its rows set a field as it is (a number,
 * MiB, an absolute path); the keys that are more than that have a
 * function, the continuous recording's their own file
 * (src/svc_rec_config.c).
 */
#ifndef RINGSIDE_SERVICE_CONFIG_H
#define RINGSIDE_SERVICE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define SVC_CONFIG_PATH  "/etc/ringside/service.conf"
#define SVC_BURST        3u       /* captures per domain per window */
#define SVC_WINDOW_S     3600u

/* What makes the service capture (svc_config.capture_on). */
enum svc_trigger {
	SVC_ON_CRASH    = 1u << 0,   /* the guest panicked */
	SVC_ON_WATCHDOG = 1u << 1,   /* its watchdog fired */
	SVC_ON_HANG     = 1u << 2,   /* its agent's heartbeat went stale */
};
#define SVC_HANG_AFTER_S 60u      /* seconds without a heartbeat */

/* ---- continuous recording: its configuration (src/svc_rec_config.c) ---- */
#define SVC_REC_ROTATE_MB   256u      /* a file this big is completed */
#define SVC_REC_KEEP_MB     4096u     /* complete files kept per domain */
#define SVC_REC_POST_TRIES  5u        /* a post-command's tries per file */
#define SVC_REC_FULL_RETRY_MS 10000u
#define SVC_REC_ROOM_MB       4u

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

/* record = none, SVC_REC_ROTATE_MB, no time rotation, SVC_REC_KEEP_MB,
 * no total bound, no post-command, SVC_REC_POST_TRIES, 100 ms, pprof. */
void svc_rec_config_default(struct svc_rec_config *c);
void svc_rec_config_fini(struct svc_rec_config *c);

/* Key @k (record, post-command, pprof, record-region) = @v into @c: 0, 1
 * when @k is none of them, -EINVAL with *@why, -ENOMEM.  The recording's
 * other keys are fields of @c as they are, which the table of
 * src/svc_config.c sets. */
int svc_rec_config_key(struct svc_rec_config *c, const char *k, char *v,
		       const char **why);

/* 1 if @c has @domain recorded. */
int svc_rec_config_selects(const struct svc_rec_config *c, const char *domain);

/* ---- the service's configuration (src/svc_config.c) ---- */
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
	struct svc_rec_config rec; /* continuous recording */
};

/* The defaults: CAP_FLIGHT_KEEP, CAP_FLIGHT_KEEP_BYTES, crash, watchdog and hang,
 * SVC_BURST per SVC_WINDOW_S, SVC_HANG_AFTER_S, SVC_SOCKET_PATH. */
void svc_config_default(struct svc_config *c);

/*
 * Read a configuration text (`key = value` lines, '#' comments) over
 * @c's values.  0, or -EINVAL with the line's number in *@line and what
 * is wrong in *@why (static text); -ENOMEM.
 */
int svc_config_parse(struct svc_config *c, const char *text, size_t len,
		     unsigned *line, const char **why);

/* svc_config_parse of file @path; -errno when it cannot be read. */
int svc_config_load(struct svc_config *c, const char *path, unsigned *line,
		    const char **why);

void svc_config_fini(struct svc_config *c);

/* How many keys there are; key @i's name ("rate-limit"), NULL past the
 * end. */
size_t svc_config_nkeys(void);
const char *svc_config_key(size_t i);

/* What applies while key @i is not set ("libvirt's default"), or NULL for
 * a key that always has a value (its default). */
const char *svc_config_unset(size_t i);

/*
 * Key @i's value in @c as a line of the file would give it ("3/3600",
 * "none"), into @buf: 1 written, 0 the key is not set (svc_config_unset
 * says what applies) or, for a key given once per value (record-region),
 * it has no value number @n; -ENOSPC when @len is too short, -EINVAL for
 * no such key.  @n is 0 for the other keys.  Of a default configuration
 * (svc_config_default) it is the key's default.
 */
int svc_config_value(const struct svc_config *c, size_t i, uint32_t n,
		     char *buf, size_t len);

/* A number as a key's value is written: decimal digits alone, at most
 * @max, into *@v.  0, or -EINVAL. */
int svc_config_number(const char *s, uint64_t max, uint64_t *v);

#endif /* RINGSIDE_SERVICE_CONFIG_H */
