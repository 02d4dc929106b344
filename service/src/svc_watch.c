/* SPDX-License-Identifier: MIT */
/*
 * The hang watch: each running opted-in domain's region header mapped
 * read-only, its agent's heartbeat (rs_guest_status.heartbeat, which the
 * agent increments at every tick while it runs) read at every poll.  An
 * attached agent whose heartbeat has not moved for the threshold is
 * stale: said once per stall, again only after it moved.  The header is
 * guest-writable: the two words read are hints, never trusted further.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ringside/abi.h"
#include "ringside/service.h"

struct watched {
	char *name;
	const struct rs_region_header *hdr;   /* the first page, read-only */
	uint64_t beat;
	uint64_t since_ns;        /* when beat last moved (or watching began) */
	int said;                 /* this stall was reported */
};

struct svc_watch {
	uint64_t after_ns;
	struct watched *d;
	size_t nr;
};

int svc_watch_new(struct svc_watch **wp, uint32_t after_s)
{
	*wp = calloc(1, sizeof(**wp));
	if (!*wp)
		return -ENOMEM;
	(*wp)->after_ns = (uint64_t)after_s * 1000000000ull;
	return 0;
}

static void drop(struct watched *w)
{
	munmap((void *)(uintptr_t)w->hdr, RS_PAGE_SIZE);
	free(w->name);
}

void svc_watch_free(struct svc_watch *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr; i++)
		drop(&w->d[i]);
	free(w->d);
	free(w);
}

static uint64_t load(const uint64_t *p)
{
	return *(const volatile uint64_t *)p;
}

static uint32_t load32(const uint32_t *p)
{
	return *(const volatile uint32_t *)p;
}

void svc_watch_del(struct svc_watch *w, const char *name)
{
	for (size_t i = 0; i < w->nr; i++) {
		if (strcmp(w->d[i].name, name))
			continue;
		drop(&w->d[i]);
		w->d[i] = w->d[--w->nr];
		return;
	}
}

int svc_watch_add(struct svc_watch *w, const char *name, const char *path,
		  uint64_t now_ns)
{
	struct watched n = { 0 }, *grown;
	void *p;
	int fd;

	svc_watch_del(w, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	p = mmap(NULL, RS_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	n.hdr = p;
	n.name = strdup(name);
	grown = n.name ? realloc(w->d, (w->nr + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		drop(&n);
		return -ENOMEM;
	}
	w->d = grown;
	n.beat = load(&n.hdr->status.heartbeat);
	n.since_ns = now_ns;
	w->d[w->nr++] = n;
	return 0;
}

size_t svc_watch_count(const struct svc_watch *w)
{
	return w ? w->nr : 0;
}

void svc_watch_poll(struct svc_watch *w, uint64_t now_ns, svc_stale_fn stale,
		    void *arg)
{
	if (!w->after_ns)
		return;
	for (size_t i = 0; i < w->nr; i++) {
		struct watched *d = &w->d[i];
		uint64_t beat = load(&d->hdr->status.heartbeat);

		/* no agent (yet, or any more): nothing to be stale */
		if (beat != d->beat || load32(&d->hdr->status.attached) != 1) {
			d->beat = beat;
			d->since_ns = now_ns;
			d->said = 0;
			continue;
		}
		if (d->said || now_ns - d->since_ns < w->after_ns)
			continue;
		/* the callback may decide it is no hang (a paused domain):
		 * it says so with 0, and the wait starts again */
		d->said = stale(arg, d->name, (now_ns - d->since_ns) / 1000000000ull);
		if (!d->said)
			d->since_ns = now_ns;
	}
}
