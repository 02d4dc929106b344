/* SPDX-License-Identifier: MIT */
/*
 * The host's flight recorder of each followed domain's vCPU threads
 * (cap_host in overwrite mode): opened as the service follows a running
 * opted-in domain, again when its QEMU is another process, let go when
 * it stops or is disabled; every capture of the domain files what it
 * holds (docs/service.md, "The host's view").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/capture.h"

#include "svc_internal.h"

struct svc_host_dom {
	char *domain;
	int32_t pid;
	struct cap_host *h;
};

static struct svc_host_dom *find(struct svc *s, const char *domain)
{
	for (size_t i = 0; i < s->nr_hosts; i++)
		if (!strcmp(s->hosts[i].domain, domain))
			return &s->hosts[i];
	return NULL;
}

void svc_host_unfollow(struct svc *s, const char *domain)
{
	struct svc_host_dom *d = find(s, domain);

	if (!d)
		return;
	cap_host_free(d->h);
	free(d->domain);
	*d = s->hosts[--s->nr_hosts];
}

void svc_host_follow(struct svc *s, const char *domain, uint32_t nr_rings)
{
	struct cap_host_config c = {
		.nr_lanes = nr_rings,
		.mode = HV_MODE_OVERWRITE,
	};
	struct svc_host_dom *d = find(s, domain), *grown;
	int err;

	if (cap_host_domain_pid(domain, NULL, &c.pid))
		return;
	if (d && d->pid == c.pid)
		return;          /* the same QEMU: recorded already */
	svc_host_unfollow(s, domain);
	if (s->nr_hosts == s->cap_hosts) {
		size_t n = s->cap_hosts ? s->cap_hosts * 2 : 8;

		grown = realloc(s->hosts, n * sizeof(*grown));
		if (!grown)
			return;
		s->hosts = grown;
		s->cap_hosts = n;
	}
	d = &s->hosts[s->nr_hosts];
	memset(d, 0, sizeof(*d));
	d->pid = c.pid;
	err = cap_host_open(&d->h, &c);
	if (err) {
		svc_say(s, RS_LOG_WARNING, "%s: host view: not recorded: %s",
			domain, hv_err_str(err));
		return;
	}
	d->domain = strdup(domain);
	if (!d->domain) {
		cap_host_free(d->h);
		return;
	}
	s->nr_hosts++;
	svc_say(s, RS_LOG_INFO, "%s: host view: the flight recorder of %u "
		"vCPU threads of pid %d", domain, cap_host_stats(d->h)->vcpus,
		c.pid);
}

struct cap_host *svc_host_of(struct svc *s, const char *domain)
{
	struct svc_host_dom *d = find(s, domain);

	return d ? d->h : NULL;
}

void svc_host_free_all(struct svc *s)
{
	while (s->nr_hosts)
		svc_host_unfollow(s, s->hosts[0].domain);
	free(s->hosts);
	s->hosts = NULL;
	s->cap_hosts = 0;
}
