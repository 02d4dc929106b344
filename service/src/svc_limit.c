/* SPDX-License-Identifier: MIT */
/*
 * The per-domain rate limit: the times of each domain's last `burst`
 * captures, a capture allowed when the oldest of them left the window.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/service_limit.h"

struct dom_slot {
	char *name;
	uint64_t *times;         /* burst entries, a ring; 0: unused */
	uint32_t next;
};

struct svc_limit {
	uint32_t burst;
	uint64_t window_ns;
	struct dom_slot *slots;
	size_t nr;
	uint64_t refused;
};

int svc_limit_new(struct svc_limit **lp, uint32_t burst, uint32_t window_s)
{
	struct svc_limit *l;

	*lp = NULL;
	if (!burst || !window_s)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->burst = burst;
	l->window_ns = (uint64_t)window_s * 1000000000ull;
	*lp = l;
	return 0;
}

void svc_limit_free(struct svc_limit *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++) {
		free(l->slots[i].name);
		free(l->slots[i].times);
	}
	free(l->slots);
	free(l);
}

static struct dom_slot *slot(struct svc_limit *l, const char *domain)
{
	struct dom_slot *s, *grown;
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->slots[i].name, domain))
			return &l->slots[i];
	/* a full table forgets the least recently captured domain: at
	 * worst it gets one more burst */
	if (l->nr == SVC_DOMAINS_MAX) {
		size_t old = 0;
		uint64_t t = UINT64_MAX;

		for (i = 0; i < l->nr; i++) {
			struct dom_slot *d = &l->slots[i];
			uint64_t last = d->times[(d->next + l->burst - 1) % l->burst];

			if (last < t) {
				t = last;
				old = i;
			}
		}
		s = &l->slots[old];
		free(s->name);
		free(s->times);
	} else {
		grown = realloc(l->slots, (l->nr + 1) * sizeof(*grown));
		if (!grown)
			return NULL;
		l->slots = grown;
		s = &l->slots[l->nr++];
	}
	memset(s, 0, sizeof(*s));
	s->name = strdup(domain);
	s->times = calloc(l->burst, sizeof(*s->times));
	if (!s->name || !s->times) {
		free(s->name);
		free(s->times);
		*s = l->slots[--l->nr];
		return NULL;
	}
	return s;
}

int svc_limit_take(struct svc_limit *l, const char *domain, uint64_t now_ns)
{
	struct dom_slot *s = slot(l, domain);
	uint64_t oldest;

	if (!s)
		return -ENOMEM;
	/* times are stored + 1 so that 0 means unused */
	oldest = s->times[s->next];
	if (oldest && now_ns + 1 - oldest < l->window_ns) {
		l->refused++;
		return 0;
	}
	s->times[s->next] = now_ns + 1;
	s->next = (s->next + 1) % l->burst;
	return 1;
}

uint64_t svc_limit_refused(const struct svc_limit *l)
{
	return l ? l->refused : 0;
}
