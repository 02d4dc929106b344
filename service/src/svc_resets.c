/* SPDX-License-Identifier: MIT */
/*
 * Guest resets.  libvirt reports a reset as a reboot event, and some
 * resets more than once (a crashed guest's restart under `on_crash
 * restart`: three events within 40 ms); one reset is one reset to the
 * service (one log line, one count).  Events of a domain less than the
 * merge time after its previous one are taken for the same reset: a
 * guest boots for longer than that before it can reset again.  Only
 * domains that reset within the merge time are remembered.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/service_limit.h"
#include "ringside/service_watch.h"

struct reset_seen {
	char *domain;
	uint64_t last_ns;
};

struct svc_resets {
	uint64_t merge_ns;
	struct reset_seen *d;
	size_t nr, cap;
};

int svc_resets_new(struct svc_resets **rp, uint32_t merge_s)
{
	*rp = calloc(1, sizeof(**rp));
	if (!*rp)
		return -ENOMEM;
	(*rp)->merge_ns = (uint64_t)(merge_s ? merge_s : SVC_RESET_MERGE_S) *
			  1000000000ull;
	return 0;
}

void svc_resets_free(struct svc_resets *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr; i++)
		free(r->d[i].domain);
	free(r->d);
	free(r);
}

int svc_resets_note(struct svc_resets *r, const char *domain,
		    uint64_t now_ns)
{
	struct reset_seen *hit = NULL;
	size_t i = 0;

	/* forget those whose last event is older than the merge time */
	while (i < r->nr) {
		struct reset_seen *d = &r->d[i];

		if (now_ns - d->last_ns >= r->merge_ns) {
			free(d->domain);
			*d = r->d[--r->nr];
			continue;
		}
		if (!strcmp(d->domain, domain))
			hit = d;
		i++;
	}
	if (hit) {
		hit->last_ns = now_ns;   /* a burst stays one reset */
		return 0;
	}
	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct reset_seen *grown;

		if (cap > SVC_DOMAINS_MAX)
			return 1;   /* not remembered: a reset all the same */
		grown = realloc(r->d, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		r->d = grown;
		r->cap = cap;
	}
	r->d[r->nr].domain = strdup(domain);
	if (!r->d[r->nr].domain)
		return -ENOMEM;
	r->d[r->nr++].last_ns = now_ns;
	return 1;
}
