/* SPDX-License-Identifier: MIT */
/*
 * The host service's metrics for Prometheus: the exposition text (the
 * text format, version 0.0.4) of the service's counters and of each
 * opted-in domain's rings as `ringside stat` reads them (src/svc_metrics.c),
 * served at GET /metrics (ringside/service_http.h).  The rings' heads,
 * tails, counters and the agent's status are what the guest
 * last wrote: exposed as read, under names that say they are the guest's
 * (ringside_guest_claimed_*), never summed with what the host observed.
 * docs/service.md lists every metric.
 */
#ifndef RINGSIDE_SERVICE_METRICS_H
#define RINGSIDE_SERVICE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/service.h"

#define SVC_METRICS_SERIES 4096u  /* (domain, reason) pairs counted */

struct svc_metrics;

int svc_metrics_new(struct svc_metrics **mp);
void svc_metrics_free(struct svc_metrics *m);

/* A capture of @domain for @reason was written, at wall-clock time
 * @when_s (seconds since the epoch).  0, or -ENOMEM; a pair past
 * SVC_METRICS_SERIES is counted (ringside_metrics_series_dropped_total),
 * not kept. */
int svc_metrics_capture(struct svc_metrics *m, const char *domain,
			const char *reason, double when_s);

/* A domain whose region to read: @region is what cap_source_open takes (the
 * domain's name, or a region file's path). */
struct svc_metrics_domain {
	const char *name;
	const char *region;
	int32_t vmm_pid;        /* its VMM's process; 0: the QEMU of libvirt's
				 * /run/libvirt/qemu/NAME.pid */
	int32_t reserved;
};

/*
 * The exposition text into *@text (malloc'ed, NUL-terminated, *@len
 * bytes): @st's counters (its recorded domains and the endpoint's
 * answers included), @watched (domains whose heartbeat is watched),
 * the process's CPU time and resident memory, and each of @d's regions,
 * mapped read-only while read (one that cannot be mapped is
 * ringside_region_mapped 0), and the host's steal of each of its vCPU
 * threads (schedstat's time runnable and waiting; none where its VMM
 * is not found).  @now_ns (CLOCK_MONOTONIC) dates the
 * heartbeats: a heartbeat's age is the time since a call first saw its
 * current value.  0, or -ENOMEM.
 */
int svc_metrics_text(struct svc_metrics *m, const struct svc_stats *st,
		     size_t watched, const struct svc_metrics_domain *d,
		     size_t nr, uint64_t now_ns, char **text, size_t *len);

#endif /* RINGSIDE_SERVICE_METRICS_H */
