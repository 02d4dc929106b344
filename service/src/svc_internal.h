/* SPDX-License-Identifier: MIT */
/*
 * Private to the service: its state, shared by its loop (src/svc.c) and
 * the captures it takes (src/svc_capture.c).
 */
#ifndef RINGSIDE_SVC_INTERNAL_H
#define RINGSIDE_SVC_INTERNAL_H

#include <sys/types.h>

#include "ringside/domain.h"
#include "ringside/service.h"

#define SVC_QUEUE_MAX 64u          /* triggers waiting for the loop */

enum svc_todo_kind {
	SVC_TODO_CAPTURE,          /* capture it for reason */
	SVC_TODO_FOLLOW,           /* look at its region: follow it */
	SVC_TODO_RESET,            /* its guest reset */
};

struct svc_todo {
	char domain[DOM_NAME_MAX + 1];
	enum svc_todo_kind kind;
	const char *reason;        /* "panic", "watchdog"; what happened */
};

struct svc {
	const struct svc_config *c;
	struct dom_events *ev;
	struct svc_limit *limit;
	struct svc_env env;
	int was_connected;
	int rescan;                /* (re)connected: watch what runs */
	struct svc_watch *watch;
	struct svc_rec *rec;       /* continuous recording (svc_rec.c) */
	uint64_t rec_failed;       /* its failures seen so far */
	uint64_t rec_retry_ns;     /* not before: the next try after one */
	int ctl;                   /* the control socket; -1 none */
	struct svc_ctl *ctlc;      /* ... its connections */
	int wake[2];               /* the loop woken by http, ctlc: -1 */
	char *ctl_path;            /* ... its path, removed at the end */
	dev_t ctl_dev;             /* ... the socket made there */
	ino_t ctl_ino;
	struct svc_resets *resets; /* reboot events merged into resets */
	struct svc_http *http;     /* the metrics endpoint; NULL none */
	struct svc_metrics *metrics;
	struct svc_todo queue[SVC_QUEUE_MAX];
	unsigned queued;
	struct svc_stats st;
	struct svc_host_dom *hosts; /* the host's flight recorders (svc_host.c) */
	size_t nr_hosts, cap_hosts;
};

/* One line of the service's at @level (ringside/log.h). */
#define svc_say(s, level, ...) \
	rs_log((s)->env.log, (s)->env.log_arg, (level), __VA_ARGS__)

/* ---- the host's flight recorder per domain (src/svc_host.c) ---- */

struct svc_host_dom;

/* Record the vCPU threads of @domain's QEMU (its rings: @nr_rings) in a
 * flight recorder, unless the same QEMU is recorded already; said when
 * the host refuses. */
void svc_host_follow(struct svc *s, const char *domain, uint32_t nr_rings);
/* Let @domain's go (it stopped, or is not opted in any more). */
void svc_host_unfollow(struct svc *s, const char *domain);
/* @domain's flight recorder, or NULL. */
struct cap_host *svc_host_of(struct svc *s, const char *domain);
void svc_host_free_all(struct svc *s);

/* ---- a capture (src/svc_capture.c) ---- */

/* Capture @domain's flight recorder for @reason (rate-limited, counted,
 * said); its sidecar written, the file given to the post-command.  The
 * outcome in @out ("ok PATH", "error WHY").  0 when captured. */
int svc_capture_domain(struct svc *s, const char *domain, const char *reason,
		       char *out, size_t len);

/* ---- what libvirt says of a domain (src/svc_domain.c) ---- */

/* @domain's UUID into @buf ("" when libvirt cannot say). */
void svc_domain_uuid(const char *domain, char *buf, size_t len);

/* @domain's <on_crash> policy into @buf ("" when libvirt does not say). */
void svc_domain_on_crash(const char *domain, char *buf, size_t len);

#endif /* RINGSIDE_SVC_INTERNAL_H */
