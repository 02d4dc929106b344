/* SPDX-License-Identifier: MIT */
/*
 * The service's per-domain rate limit on captures (src/svc_limit.c): at
 * most a burst of captures per domain in any window of time, so that a
 * crash loop cannot fill the disk.
 */
#ifndef RINGSIDE_SERVICE_LIMIT_H
#define RINGSIDE_SERVICE_LIMIT_H

#include <stdint.h>

#define SVC_DOMAINS_MAX  4096u    /* domains the rate limiter tracks */

struct svc_limit;

int svc_limit_new(struct svc_limit **lp, uint32_t burst, uint32_t window_s);
void svc_limit_free(struct svc_limit *l);

/* May @domain be captured at @now_ns (a monotonic clock)?  1 yes (the
 * capture is counted against it), 0 not before its oldest one in the
 * window ages out (counted as refused), -ENOMEM. */
int svc_limit_take(struct svc_limit *l, const char *domain, uint64_t now_ns);

/* Captures refused so far, all domains. */
uint64_t svc_limit_refused(const struct svc_limit *l);

#endif /* RINGSIDE_SERVICE_LIMIT_H */
