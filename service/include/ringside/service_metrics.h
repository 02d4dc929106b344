/* SPDX-License-Identifier: MIT */
/*
 * The host service's metrics for Prometheus: the exposition text (the
 * text format, version 0.0.4) of the service's counters and of each
 * opted-in domain's rings as `ringside stat` reads them (src/svc_metrics.c),
 * served by a minimal HTTP server at GET /metrics (src/svc_http.c).  The
 * rings' heads, tails, counters and the agent's status are what the guest
 * last wrote: exposed as read, under names that say they are the guest's
 * (ringside_guest_claimed_*), never summed with what the host observed.
 * docs/service.md lists every metric.
 */
#ifndef RINGSIDE_SERVICE_METRICS_H
#define RINGSIDE_SERVICE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/service.h"

#define SVC_METRICS_ADDR   "127.0.0.1:9477"
#define SVC_METRICS_SERIES 4096u  /* (domain, reason) pairs counted */

/* ---- the exposition text (src/svc_metrics.c) ---- */
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
};

/*
 * The exposition text into *@text (malloc'ed, NUL-terminated, *@len
 * bytes): @st's counters (its recorded domains and the endpoint's
 * answers included), @watched (domains whose heartbeat is watched),
 * the process's CPU time and resident memory, and each of @d's regions,
 * mapped read-only while read (one that cannot be mapped is
 * ringside_region_mapped 0).  @now_ns (CLOCK_MONOTONIC) dates the
 * heartbeats: a heartbeat's age is the time since a call first saw its
 * current value.  0, or -ENOMEM.
 */
int svc_metrics_text(struct svc_metrics *m, const struct svc_stats *st,
		     size_t watched, const struct svc_metrics_domain *d,
		     size_t nr, uint64_t now_ns, char **text, size_t *len);

/* ---- the HTTP endpoint (src/svc_http.c) ---- */
/*
 * Any local user can reach the endpoint, so nobody may starve it: a
 * connection costs a slot and nothing else (never the service's loop);
 * a peer (a local user, told by the kernel's socket table; or a remote
 * address) holds at most SVC_HTTP_PER_PEER slots, its oldest connection
 * closed for its next; when every slot is taken, the oldest connection
 * of the peer holding the most makes room.  A request head must be whole
 * within SVC_HTTP_HEAD_MS, an answer sent within SVC_HTTP_TIMEOUT_MS.
 * Every poll takes what the kernel queued (SVC_HTTP_ACCEPTS at a time),
 * so a flood of connections waits in no queue of the service's: a scrape
 * is answered however many idle connections another user opens.
 */
#define SVC_HTTP_REQUEST_MAX 4096u  /* bytes of request head read */
#define SVC_HTTP_CLIENTS     64u    /* connections held at once */
#define SVC_HTTP_PER_PEER    16u    /* ... of them by one peer */
#define SVC_HTTP_HEAD_MS     2000u  /* a request head is whole by then */
#define SVC_HTTP_TIMEOUT_MS  5000u  /* a connection's whole life */
#define SVC_HTTP_ACCEPTS     256u   /* connections accepted per poll */

/*
 * The verdict on the first @len bytes a client sent: 0 while its request
 * head is not whole (and under SVC_HTTP_REQUEST_MAX bytes); else the
 * status to answer: 200 for GET or HEAD /metrics (*@head_only 1 for
 * HEAD), 404 another path, 405 another method, 400 a malformed request
 * line or a NUL in it, 431 no whole head within SVC_HTTP_REQUEST_MAX.
 */
int svc_http_request(const char *buf, size_t len, int *head_only);

/* "HOST:PORT", HOST a dotted IPv4 address, PORT 1..65535: 0, -EINVAL. */
int svc_http_addr(const char *spec, uint32_t *ip, uint16_t *port);

struct svc_http;

/* Listen on @spec ("HOST:PORT"), non-blocking.  0, -EINVAL, -errno. */
int svc_http_listen(struct svc_http **hp, const char *spec);

/* The port listened on (for @spec's port 0: the one the kernel chose). */
uint16_t svc_http_port(const struct svc_http *h);

void svc_http_close(struct svc_http *h);

/* The body of GET /metrics, malloc'ed; 0 or -errno (answered 500). */
typedef int (*svc_http_page_fn)(void *arg, char **body, size_t *len);

/*
 * Accept what waits, read and answer what is complete, without blocking:
 * each request answered as svc_http_request says (200 with the page);
 * each connection closed after its answer, when its head is not whole
 * SVC_HTTP_HEAD_MS or its answer not sent SVC_HTTP_TIMEOUT_MS after it
 * was accepted (at @now_ns, CLOCK_MONOTONIC), or when it makes room for
 * another (above).  Connections answered in this call.
 */
uint64_t svc_http_poll(struct svc_http *h, uint64_t now_ns,
		       svc_http_page_fn page, void *arg);

/* Connections dropped so far before their answer was sent whole: timed
 * out, closed to make room for another, or reset by the client (NULL:
 * 0). */
uint64_t svc_http_dropped(const struct svc_http *h);

/* Answers sent whole so far, by enum svc_http_answer (NULL: 0s). */
void svc_http_answers(const struct svc_http *h,
		      uint64_t answers[SVC_HTTP_ANSWERS]);

/* A descriptor that is readable whenever svc_http_poll has work (a
 * connection to accept, bytes to read, room to write): for poll(2) or an
 * event loop.  Level-triggered: a poll takes what made it readable. */
int svc_http_fd(const struct svc_http *h);

/* Connections held now, and of them by the peer that holds the most. */
unsigned svc_http_held(const struct svc_http *h, unsigned *most);

#endif /* RINGSIDE_SERVICE_METRICS_H */
