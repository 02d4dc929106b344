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
 * capture (it runs at "release end"); the service leaves it alone.  It
 * records the domains its configuration selects and serves metrics.
 * Nothing here prints: what happens goes to the caller's log function.
 * docs/service.md is the operator's view.
 *
 * One header per part, each of them usable alone:
 *   service_config.h   the configuration file and its keys
 *   service_limit.h    the per-domain rate limit
 *   service_watch.h    the regions, their heartbeats, guest resets
 *   service_ctl.h      the control socket (service_client.h: its client)
 *   service_record.h   continuous recording and its counts
 *   service_sidecar.h  the JSON beside each file
 *   service_room.h     the recordings' bounds and a full disk's room
 *   service_metrics.h  the metrics' exposition text
 *   service_http.h     the metrics endpoint
 */
#ifndef RINGSIDE_SERVICE_H
#define RINGSIDE_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/log.h"
#include "ringside/service_config.h"
#include "ringside/service_http.h"
#include "ringside/service_record.h"

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
 * outlive the service, @env is copied.  0, -ENOMEM or svc_limit_new's. */
int svc_open(struct svc **sp, const struct svc_config *c,
	     const struct svc_env *env);

/* Wait up to @timeout_ms for events, then capture what they asked for.
 * 0, or a libvirt error (logged; the service retries by itself). */
int svc_run(struct svc *s, int timeout_ms);

const struct svc_stats *svc_stats(const struct svc *s);

/* The continuous recordings' counts (files, rotations, retention,
 * post-command), as svc_recstats_get gives them. */
void svc_record_stats(const struct svc *s, struct svc_rec_stats *st);

void svc_close(struct svc *s);

#endif /* RINGSIDE_SERVICE_H */
