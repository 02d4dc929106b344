/* SPDX-License-Identifier: MIT */
/*
 * The host service's library: what `ringside-service` does, apart from
 * its command line.  It follows libvirt's events for every domain
 * (ringside/domain_events.h), and when an opted-in domain's guest crashes,
 * its watchdog fires or its agent stops beating (a hang), or root asks
 * over the control socket, captures the domain's flight recorder by itself
 * (ringside/capture.h, flight_capture) into the capture directory, the
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

struct svc_config {
	char *uri;                /* NULL: libvirt's default */
	char *capture_dir;        /* NULL: FLIGHT_DIR */
	uint32_t keep;            /* captures kept per domain (0: any) */
	uint64_t keep_bytes;      /* bytes of them per domain (0: any) */
	uint32_t capture_on;      /* enum svc_trigger */
	uint32_t burst;           /* at most this many captures per domain */
	uint32_t window_s;        /* ... in any window of this many seconds */
	uint32_t hang_after_s;    /* heartbeat stale this long: a hang */
	char *socket;             /* NULL: SVC_SOCKET_PATH; "" none */
};

/* The defaults: FLIGHT_KEEP, FLIGHT_KEEP_BYTES, crash, watchdog and hang,
 * SVC_BURST per SVC_WINDOW_S, SVC_HANG_AFTER_S, SVC_SOCKET_PATH. */
void svc_config_default(struct svc_config *c);

/*
 * Read a configuration text (`key = value` lines, '#' comments) over
 * @c's values.  0, or -EINVAL with the line's number in *@line and what
 * is wrong in *@why (static text); -ENOMEM.  Keys: uri, capture-dir,
 * keep, keep-mb, capture-on (words: crash, watchdog, hang, none),
 * rate-limit (N/SECONDS), hang-after (SECONDS), socket (a path, or
 * none).
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

/* ---- the hang watch (src/svc_watch.c) ---- */
struct svc_watch;

/* Watch heartbeats against a threshold of @after_s seconds (0: never
 * stale). */
int svc_watch_new(struct svc_watch **wp, uint32_t after_s);
void svc_watch_free(struct svc_watch *w);

/* Watch domain @name's region file @path (its header page mapped
 * read-only), replacing an earlier watch of it.  0 or -errno. */
int svc_watch_add(struct svc_watch *w, const char *name, const char *path,
		  uint64_t now_ns);
void svc_watch_del(struct svc_watch *w, const char *name);
size_t svc_watch_count(const struct svc_watch *w);

/* @name's attached agent has not beaten for @secs: 1 if that is a hang
 * (reported; not again until it beats), 0 if not (the wait restarts). */
typedef int (*svc_stale_fn)(void *arg, const char *name, uint64_t secs);

void svc_watch_poll(struct svc_watch *w, uint64_t now_ns, svc_stale_fn stale,
		    void *arg);

/* ---- the control socket (src/svc_ctl.c) ---- */
#define SVC_SOCKET_PATH "/run/ringside/service.sock"

/* Listen on UNIX socket @path (mode 0600; its directory made 0755 if
 * absent), non-blocking.  -EADDRINUSE when a service answers there. */
int svc_ctl_listen(const char *path, int *fdp);

/* A request for domain @domain: its answer into @reply ("ok PATH" or
 * "error WHY", no newline). */
typedef void (*svc_request_fn)(void *arg, const char *domain, char *reply,
			       size_t len);

/* Answer every connection waiting on @lfd (root or the service's own
 * user only).  How many, or -errno. */
int svc_ctl_serve(int lfd, svc_request_fn fn, void *arg);

/* The client: ask the service at @path to capture @domain; its answer
 * line in @reply.  0 or -errno (-ENOENT, -ECONNREFUSED: no service). */
int svc_ctl_request(const char *path, const char *domain, char *reply,
		    size_t len);

/* ---- the service (src/svc.c) ---- */
typedef void (*svc_log_fn)(void *arg, const char *fmt, va_list ap);

struct svc_stats {
	uint64_t events;          /* domain events seen */
	uint64_t captures;        /* captures written */
	uint64_t empty;           /* triggers whose region was never written */
	uint64_t rate_limited;    /* triggers refused by the rate limit */
	uint64_t failed;          /* captures that failed */
	uint64_t not_enabled;     /* triggers of domains not opted in */
	uint64_t dropped;         /* triggers lost: the queue was full */
	uint64_t requests;        /* captures asked for on the socket */
	uint64_t hangs;           /* stale heartbeats taken for hangs */
	unsigned reconnects;      /* to libvirtd */
};

struct svc;

/* Follow @c's libvirt (a libvirtd not there yet is waited for); @c must
 * outlive the service.  0, -ENOMEM or svc_limit_new's. */
int svc_open(struct svc **sp, const struct svc_config *c, svc_log_fn log,
	     void *log_arg, int argc, char *const *argv);

/* Wait up to @timeout_ms for events, then capture what they asked for.
 * 0, or a libvirt error (logged; the service retries by itself). */
int svc_run(struct svc *s, int timeout_ms);

const struct svc_stats *svc_stats(const struct svc *s);

void svc_close(struct svc *s);

#endif /* RINGSIDE_SERVICE_H */
