/* SPDX-License-Identifier: MIT */
/*
 * The recordings' counts: the service's, and each domain's over all its
 * recordings since the service started (what ended, and the running
 * one's as its recorder last looked), for the metrics and the log.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "svc_recstats.h"

struct svc_recstats {
	pthread_mutex_t lock;
	struct svc_rec_stats st;
	struct svc_recstats_dom **doms;
	size_t nr_doms;
};

int svc_recstats_new(struct svc_recstats **sp)
{
	struct svc_recstats *s = calloc(1, sizeof(*s));

	*sp = s;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void svc_recstats_free(struct svc_recstats *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_doms; i++) {
		free(s->doms[i]->pub.domain);
		free(s->doms[i]->pub.ring);
		free(s->doms[i]);
	}
	free(s->doms);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

struct svc_rec_stats *svc_recstats_lock(struct svc_recstats *s)
{
	pthread_mutex_lock(&s->lock);
	return &s->st;
}

void svc_recstats_unlock(struct svc_recstats *s)
{
	pthread_mutex_unlock(&s->lock);
}

struct svc_recstats_dom *svc_recstats_domain(struct svc_recstats *s,
					     const char *domain)
{
	struct svc_recstats_dom *d, **grown;

	for (size_t i = 0; i < s->nr_doms; i++)
		if (!strcmp(s->doms[i]->pub.domain, domain))
			return s->doms[i];
	if (s->nr_doms == SVC_REC_DOMAINS_MAX) {
		s->st.domains_dropped++;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	grown = d ? realloc(s->doms, (s->nr_doms + 1) * sizeof(*grown)) : NULL;
	if (d)
		d->pub.domain = strdup(domain);
	if (!grown || !d->pub.domain) {
		if (d)
			free(d->pub.domain);
		free(d);
		if (grown)
			s->doms = grown;
		return NULL;
	}
	s->doms = grown;
	s->doms[s->nr_doms++] = d;
	return d;
}

/* Room for @nr rings in @d's ended counts (with the lock held). */
static int dom_rings(struct svc_recstats_dom *d, uint32_t nr)
{
	struct svc_rec_ring_stats *grown;

	if (nr <= d->pub.nr_rings)
		return 0;
	grown = realloc(d->pub.ring, nr * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	memset(grown + d->pub.nr_rings, 0,
	       (nr - d->pub.nr_rings) * sizeof(*grown));
	d->pub.ring = grown;
	d->pub.nr_rings = nr;
	return 0;
}

void svc_recstats_pruned(void *arg, const char *domain, uint64_t bytes)
{
	struct svc_recstats *s = arg;
	struct svc_recstats_dom *d;

	pthread_mutex_lock(&s->lock);
	d = svc_recstats_domain(s, domain);
	if (d) {
		d->pub.pruned++;
		d->pub.pruned_bytes += bytes;
	}
	pthread_mutex_unlock(&s->lock);
}

void svc_recstats_live(struct svc_recstats *s, struct svc_recstats_dom *d,
		       const struct svc_rec_ring_stats *now, uint32_t n,
		       int synced, uint64_t bound_ns)
{
	pthread_mutex_lock(&s->lock);
	memcpy(d->live, now, n * sizeof(now[0]));
	d->nr_live = n;
	d->pub.synced = synced;
	d->pub.sync_bound_ns = synced ? bound_ns : 0;
	pthread_mutex_unlock(&s->lock);
}

/* @a += @b, ring by ring. */
static void ring_add(struct svc_rec_ring_stats *a,
		     const struct svc_rec_ring_stats *b)
{
	a->records += b->records;
	a->bytes += b->bytes;
	a->aux_bytes += b->aux_bytes;
	a->lost += b->lost;
	a->corrupt += b->corrupt;
	a->corrupt_bytes += b->corrupt_bytes;
	a->not_written += b->not_written;
}

void svc_recstats_fold(struct svc_recstats *s, struct svc_recstats_dom *d,
		       const struct svc_rec_ring_stats *now, uint32_t n)
{
	pthread_mutex_lock(&s->lock);
	if (!now) {
		now = d->live;
		n = d->nr_live;
	}
	if (!dom_rings(d, n))
		for (uint32_t i = 0; i < n; i++)
			ring_add(&d->pub.ring[i], &now[i]);
	d->nr_live = 0;
	d->pub.recording = 0;
	d->pub.synced = 0;
	pthread_mutex_unlock(&s->lock);
}

void svc_recstats_get(struct svc_recstats *s, struct svc_rec_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->st;
	pthread_mutex_unlock(&s->lock);
}

/* @s's counts of domain @i, its ended and running recordings' rings
 * summed, into @o (the lock held).  0 or -ENOMEM. */
static int dom_copy(const struct svc_recstats_dom *s, struct svc_rec_domain *o)
{
	uint32_t rings = s->pub.nr_rings > s->nr_live ? s->pub.nr_rings :
			 s->nr_live;

	*o = s->pub;
	o->ring = rings ? calloc(rings, sizeof(*o->ring)) : NULL;
	o->domain = strdup(s->pub.domain);
	if ((rings && !o->ring) || !o->domain) {
		free(o->ring);
		free(o->domain);
		return -ENOMEM;
	}
	o->nr_rings = rings;
	for (uint32_t k = 0; k < rings; k++) {
		if (k < s->pub.nr_rings)
			o->ring[k] = s->pub.ring[k];
		if (k < s->nr_live)
			ring_add(&o->ring[k], &s->live[k]);
	}
	return 0;
}

int svc_recstats_domains(struct svc_recstats *s, struct svc_rec_domain **dp,
			 size_t *nr)
{
	struct svc_rec_domain *d;
	size_t n, i = 0;
	int err = 0;

	*dp = NULL;
	*nr = 0;
	pthread_mutex_lock(&s->lock);
	n = s->nr_doms;
	d = n ? calloc(n, sizeof(*d)) : NULL;
	if (n && !d)
		err = -ENOMEM;
	for (; !err && i < n; i++)
		err = dom_copy(s->doms[i], &d[i]);
	pthread_mutex_unlock(&s->lock);
	if (err) {
		svc_recstats_domains_free(d, i ? i - 1 : 0);
		return err;
	}
	*dp = d;
	*nr = n;
	return 0;
}

void svc_recstats_domains_free(struct svc_rec_domain *d, size_t nr)
{
	for (size_t i = 0; d && i < nr; i++) {
		free(d[i].domain);
		free(d[i].ring);
	}
	free(d);
}
