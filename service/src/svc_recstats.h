/* SPDX-License-Identifier: MIT */
/*
 * Private to the service: the recordings' counts (src/svc_recstats.c),
 * the service's (struct svc_rec_stats) and each domain's, under one lock
 * of their own: the recorders' threads, the conversions and the service's
 * loop all count here.
 */
#ifndef RINGSIDE_SVC_RECSTATS_H
#define RINGSIDE_SVC_RECSTATS_H

#include "ringside/service_record.h"

/* A domain's counts: those of its ended recordings in pub (pub.ring), those
 * of the one running in live (a quarter second old at most). */
struct svc_recstats_dom {
	struct svc_rec_domain pub;
	struct svc_rec_ring_stats live[RS_MAX_RINGS];
	uint32_t nr_live;
};

int svc_recstats_new(struct svc_recstats **sp);
void svc_recstats_free(struct svc_recstats *s);

/* The counters, the lock taken: add to them, then svc_recstats_unlock. */
struct svc_rec_stats *svc_recstats_lock(struct svc_recstats *s);
void svc_recstats_unlock(struct svc_recstats *s);

/* With the lock held: @domain's counts, made if new; NULL past
 * SVC_REC_DOMAINS_MAX (counted) or without memory. */
struct svc_recstats_dom *svc_recstats_domain(struct svc_recstats *s,
					     const char *domain);

/* struct svc_room_freed's each (@arg the counts): a file removed,
 * counted against its domain. */
void svc_recstats_pruned(void *arg, const char *domain, uint64_t bytes);

/* @d's running recording as it stands: @n rings' counts, whether its time
 * sync holds a point and the point's bound. */
void svc_recstats_live(struct svc_recstats *s, struct svc_recstats_dom *d,
		       const struct svc_rec_ring_stats *now, uint32_t n,
		       int synced, uint64_t bound_ns);

/* @d's recording ended: @n rings' counts @now into its ended ones (@now
 * NULL: what its last look saw, live); not recorded any more. */
void svc_recstats_fold(struct svc_recstats *s, struct svc_recstats_dom *d,
		       const struct svc_rec_ring_stats *now, uint32_t n);

#endif /* RINGSIDE_SVC_RECSTATS_H */
