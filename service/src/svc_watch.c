/* SPDX-License-Identifier: MIT */
/*
 * The region watch: each running opted-in domain's region file, its
 * header page mapped read-only and its identity (device, inode) kept.
 *
 * The identity says when the region the service follows is not the
 * domain's any more: `disable --live` removes the file (the mapping
 * would keep the deleted one alive), `enable --live` lays a new one out
 * under the same name (the hook and enable always make a new file and
 * rename it there).  svc_watch_check looks at the name once per pass (an
 * lstat: no libvirt) and ends the watch of a region that went.
 *
 * The hang watch: the agent's heartbeat (rs_guest_status.heartbeat, which
 * the agent moves while it runs, about once a second at the least) read
 * at every poll.  Its age restarts whenever the status changes (a beat,
 * an agent attaching or detaching, one saying another boot_gen), when
 * the region is new, and at a reset of the guest: the status then is the
 * claim of an agent that is gone with its boot, and it is not judged
 * until it changes (the boot's agent attached) or, where the agent says
 * which boot it is of, while that is not the header's boot_gen.  An
 * attached agent of this boot whose heartbeat has not moved for the
 * threshold is stale: said once per stall, again only after it moved.
 * The header is guest-writable: every word read is a hint, never
 * trusted further.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/abi.h"
#include "ringside/ring.h"
#include "ringside/service.h"

struct watched {
	char *name;
	char *path;
	dev_t dev;                /* the file mapped: its identity */
	ino_t ino;
	const struct rs_region_header *hdr;   /* the first page, read-only */
	/* the status as last read */
	uint64_t beat;
	uint32_t attached;
	uint64_t agent_gen;
	uint64_t since_ns;        /* when it last changed (or watching began,
				   * or the guest reset) */
	int said;                 /* this stall was reported */
	int before_reset;         /* the status is from before a reset */
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
	if (after_s && after_s < SVC_HANG_MIN_S)
		after_s = SVC_HANG_MIN_S;
	(*wp)->after_ns = (uint64_t)after_s * 1000000000ull;
	return 0;
}

static void drop(struct watched *w)
{
	munmap((void *)(uintptr_t)w->hdr, RS_PAGE_SIZE);
	free(w->name);
	free(w->path);
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

static struct watched *find(struct svc_watch *w, const char *name)
{
	for (size_t i = 0; i < w->nr; i++)
		if (!strcmp(w->d[i].name, name))
			return &w->d[i];
	return NULL;
}

void svc_watch_del(struct svc_watch *w, const char *name)
{
	struct watched *d = find(w, name);

	if (!d)
		return;
	drop(d);
	*d = w->d[--w->nr];
}

/* The status as it is now, noted as the last seen. */
static void note_status(struct watched *d)
{
	d->beat = load(&d->hdr->status.heartbeat);
	d->attached = load32(&d->hdr->status.attached);
	d->agent_gen = load(&d->hdr->status.boot_gen);
}

int svc_watch_add(struct svc_watch *w, const char *name, const char *path,
		  uint64_t now_ns)
{
	struct watched n = { 0 }, *grown;
	struct stat st;
	void *p;
	int fd, err = 0;

	svc_watch_del(w, name);
	/* under /dev/shm: the file itself, never a link put there */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_size < (off_t)RS_PAGE_SIZE)
		err = -ENODEV;
	p = err ? MAP_FAILED : mmap(NULL, RS_PAGE_SIZE, PROT_READ, MAP_SHARED,
				    fd, 0);
	if (!err && p == MAP_FAILED)
		err = -errno;
	close(fd);
	if (err)
		return err;
	n.hdr = p;
	n.dev = st.st_dev;
	n.ino = st.st_ino;
	n.name = strdup(name);
	n.path = strdup(path);
	grown = n.name && n.path ? realloc(w->d, (w->nr + 1) * sizeof(*grown)) :
		NULL;
	if (!grown) {
		drop(&n);
		return -ENOMEM;
	}
	w->d = grown;
	note_status(&n);
	n.since_ns = now_ns;
	w->d[w->nr++] = n;
	return 0;
}

int svc_watch_same(struct svc_watch *w, const char *name, const char *path)
{
	struct watched *d = find(w, name);
	struct stat st;

	if (!d || strcmp(d->path, path) || lstat(path, &st))
		return 0;
	return st.st_dev == d->dev && st.st_ino == d->ino;
}

int svc_watch_has(struct svc_watch *w, const char *name)
{
	return find(w, name) != NULL;
}

size_t svc_watch_count(const struct svc_watch *w)
{
	return w ? w->nr : 0;
}

void svc_watch_check(struct svc_watch *w, svc_watch_gone_fn gone, void *arg)
{
	size_t i = 0;

	while (i < w->nr) {
		struct watched *d = &w->d[i];
		struct stat st;
		int replaced, r = lstat(d->path, &st);
		char *name;

		if (!r && st.st_dev == d->dev && st.st_ino == d->ino) {
			i++;
			continue;
		}
		/* an lstat that failed for another reason than a missing
		 * file (EACCES, ENOMEM) says nothing: looked at next time */
		if (r && errno != ENOENT && errno != ENOTDIR) {
			i++;
			continue;
		}
		replaced = !r;
		name = d->name;
		d->name = NULL;
		drop(d);
		*d = w->d[--w->nr];
		if (gone)
			gone(arg, name, replaced);
		free(name);
	}
}

int svc_watch_reset(struct svc_watch *w, const char *name, uint64_t now_ns,
		    uint64_t *gen)
{
	struct watched *d = find(w, name);
	struct stat st;
	void *p;
	int fd, err = 0;

	*gen = 0;
	if (!d)
		return -ENOENT;
	note_status(d);
	d->since_ns = now_ns;
	d->said = 0;
	d->before_reset = 1;
	/* the header's count of boots, in the file watched (not one put
	 * under its name since) */
	fd = open(d->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (st.st_dev != d->dev || st.st_ino != d->ino)
		err = -ESTALE;
	p = err ? MAP_FAILED : mmap(NULL, RS_PAGE_SIZE, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 0);
	if (!err && p == MAP_FAILED)
		err = -errno;
	close(fd);
	if (err)
		return err;
	err = rs_region_note_reset(p, gen) ? -EINVAL : 0;
	munmap(p, RS_PAGE_SIZE);
	return err;
}

void svc_watch_poll(struct svc_watch *w, uint64_t now_ns, svc_watch_stale_fn stale,
		    void *arg)
{
	for (size_t i = 0; i < w->nr; i++) {
		struct watched *d = &w->d[i];
		uint64_t beat = load(&d->hdr->status.heartbeat);
		uint32_t attached = load32(&d->hdr->status.attached);
		uint64_t agent_gen = load(&d->hdr->status.boot_gen);
		uint64_t gen = load(&d->hdr->boot_gen);

		/* a beat, an agent attaching or detaching, one saying another
		 * boot: the age starts again */
		if (beat != d->beat || attached != d->attached ||
		    agent_gen != d->agent_gen) {
			d->beat = beat;
			d->attached = attached;
			d->agent_gen = agent_gen;
			d->since_ns = now_ns;
			d->said = 0;
			d->before_reset = 0;
			continue;
		}
		/* no agent (yet, or any more), or the status of one gone with
		 * the boot before the last reset: nothing to be stale */
		if (attached != 1 || d->before_reset ||
		    (agent_gen && gen && agent_gen != gen)) {
			d->since_ns = now_ns;
			continue;
		}
		if (!w->after_ns || d->said ||
		    now_ns - d->since_ns < w->after_ns)
			continue;
		/* the callback may decide it is no hang (a paused domain):
		 * it says so with 0, and the wait starts again */
		d->said = stale(arg, d->name, (now_ns - d->since_ns) / 1000000000ull);
		if (!d->said)
			d->since_ns = now_ns;
	}
}

/*
 * Guest resets.  libvirt reports a reset as a reboot event, and some
 * resets more than once (a crashed guest's restart under `on_crash
 * restart`: three events within 40 ms); one reset is one reset to the
 * service (one log line, one count).  Events of a domain less than the
 * merge time after its previous one are taken for the same reset: a
 * guest boots for longer than that before it can reset again.  Only
 * domains that reset within the merge time are remembered.
 */
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
