/* SPDX-License-Identifier: MIT */
/*
 * The room the recordings take: the oldest complete recordings (by the
 * time in their names) removed, each with its sidecar and profile, until
 * a bound is kept (retention: a domain's bytes, all domains' bytes) or
 * until the file system has room again (a full disk).  A domain's newest
 * file and the file being completed are never removed, nor anything but
 * rec-*.data files.  One pruner at a time in the process: the total
 * bound spans every domain's recorder.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ringside/service_record.h"
#include "ringside/service_room.h"

#define DATA_SUFFIX ".data"
#define JSON_SUFFIX ".json"

static pthread_mutex_t room_lock = PTHREAD_MUTEX_INITIALIZER;

struct rfile {
	char *path;
	const char *name;       /* within path: rec-TIME-NNN.data */
	uint64_t bytes;         /* the data file, its sidecar and profile */
	int newest;             /* its domain's newest */
};

struct rlist {
	struct rfile *f;
	size_t n, cap;
};

static int is_recording(const char *name)
{
	size_t n = strlen(name), p = strlen(SVC_REC_PREFIX), s = strlen(DATA_SUFFIX);

	return n > p + s && !strncmp(name, SVC_REC_PREFIX, p) &&
	       !strcmp(name + n - s, DATA_SUFFIX);
}

static uint64_t file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/* Room for one more in @l.  0 or -ENOMEM. */
static int list_grow(struct rlist *l)
{
	size_t cap = l->cap ? 2 * l->cap : 64;
	struct rfile *nf;

	if (l->n < l->cap)
		return 0;
	nf = realloc(l->f, cap * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	l->f = nf;
	l->cap = cap;
	return 0;
}

/* Every complete recording in @ddir into @l, its newest marked. */
static int scan(struct rlist *l, const char *ddir)
{
	DIR *d = opendir(ddir);
	struct dirent *de;
	size_t first = l->n, newest = SIZE_MAX;
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char side[4300];
		struct rfile *f;

		if (!is_recording(de->d_name))
			continue;
		err = list_grow(l);
		if (err)
			break;
		f = &l->f[l->n];
		f->path = malloc(strlen(ddir) + strlen(de->d_name) + 2);
		if (!f->path) {
			err = -ENOMEM;
			break;
		}
		sprintf(f->path, "%s/%s", ddir, de->d_name);
		f->name = f->path + strlen(ddir) + 1;
		f->newest = 0;
		snprintf(side, sizeof(side), "%s" JSON_SUFFIX, f->path);
		f->bytes = file_bytes(f->path) + file_bytes(side);
		snprintf(side, sizeof(side), "%s" SVC_PPROF_SUFFIX, f->path);
		f->bytes += file_bytes(side);
		l->n++;
	}
	closedir(d);
	for (size_t i = first; i < l->n; i++)
		if (newest == SIZE_MAX || strcmp(l->f[i].name, l->f[newest].name) > 0)
			newest = i;
	if (newest != SIZE_MAX)
		l->f[newest].newest = 1;
	return err;
}

/* Every domain's directory under @dir into @l.  0, -errno when @dir
 * cannot be read, or scan's error. */
static int scan_all(struct rlist *l, const char *dir)
{
	char ddir[4300];
	struct dirent *de;
	int err = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d)) && !err) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(ddir, sizeof(ddir), "%s/%s", dir, de->d_name);
		err = scan(l, ddir);
		if (err == -ENOTDIR)
			err = 0;
	}
	closedir(d);
	return err;
}

/* Oldest first: the names' times (every domain's names have one form). */
static int by_age(const void *a, const void *b)
{
	const struct rfile *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static void list_free(struct rlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->f[i].path);
	free(l->f);
	memset(l, 0, sizeof(*l));
}

/* @f was removed: counted in @p, and said to its each (with its domain,
 * the name of its directory: DIR/DOMAIN/NAME). */
static void removed(struct svc_room_freed *p, struct rfile *f)
{
	p->removed++;
	p->freed += f->bytes;
	if (p->each) {
		const char *end = f->name - 1, *dom = end;
		char name[256];

		while (dom > f->path && dom[-1] != '/')
			dom--;
		snprintf(name, sizeof(name), "%.*s", (int)(end - dom), dom);
		p->each(p->arg, name, f->bytes);
	}
	f->bytes = 0;
}

/* Is there room on @dir's file system: @room bytes free, and
 * SVC_REC_ROOM_INODES inodes where it counts them (a disk out of inodes
 * refuses a new file as one out of blocks does)?  The bytes free in
 * *@bytes. */
static int has_room(const char *dir, uint64_t room, uint64_t *bytes)
{
	struct statvfs v;

	*bytes = 0;
	if (statvfs(dir, &v))
		return 0;
	*bytes = (uint64_t)v.f_bavail * v.f_frsize;
	return *bytes >= room &&
	       (!v.f_files || v.f_favail >= SVC_REC_ROOM_INODES);
}

/* What removing is for: at most @bound bytes in the list, or (@dir not
 * NULL) @room bytes free on @dir's file system. */
struct goal {
	uint64_t bound;
	const char *dir;
	uint64_t room;
};

static int reached(const struct goal *g, uint64_t sum)
{
	uint64_t bytes;

	return g->dir ? has_room(g->dir, g->room, &bytes) : sum <= g->bound;
}

/* Remove the oldest of @l (never one's newest, nor @keep_path) until
 * @g is reached. */
static int remove_oldest(struct rlist *l, const char *keep_path,
			 const struct goal *g, struct svc_room_freed *p)
{
	uint64_t sum = 0;
	int err = 0;

	for (size_t i = 0; i < l->n; i++)
		sum += l->f[i].bytes;
	if (l->n)   /* qsort takes no NULL, even for nothing */
		qsort(l->f, l->n, sizeof(*l->f), by_age);
	for (size_t i = 0; i < l->n && !reached(g, sum); i++) {
		struct rfile *f = &l->f[i];
		char side[4300];

		if (f->newest || (keep_path && !strcmp(f->path, keep_path)) ||
		    !f->bytes)
			continue;
		if (unlink(f->path) && errno != ENOENT) {
			err = -errno;
			continue;
		}
		snprintf(side, sizeof(side), "%s" JSON_SUFFIX, f->path);
		unlink(side);
		snprintf(side, sizeof(side), "%s" SVC_PPROF_SUFFIX, f->path);
		unlink(side);
		sum -= f->bytes;
		removed(p, f);
	}
	return err;
}

/* The recordings of @dir/@domain (@domain NULL: of every domain under
 * @dir), the oldest removed until @g is reached. */
static int reach(const char *dir, const char *domain, const char *keep_path,
		 const struct goal *g, struct svc_room_freed *p)
{
	struct rlist l = { 0 };
	char ddir[4300];
	int err;

	if (domain) {
		snprintf(ddir, sizeof(ddir), "%s/%s", dir, domain);
		err = scan(&l, ddir);
	} else {
		err = scan_all(&l, dir);
	}
	if (!err)
		err = remove_oldest(&l, keep_path, g, p);
	list_free(&l);
	return err;
}

int svc_room_prune(const char *dir, const char *domain, const char *keep_path,
		   uint64_t keep_bytes, uint64_t total_bytes,
		   struct svc_room_freed *p)
{
	const struct goal mine = { .bound = keep_bytes };
	const struct goal all = { .bound = total_bytes };
	int err = 0;

	pthread_mutex_lock(&room_lock);
	if (keep_bytes && domain)
		err = reach(dir, domain, keep_path, &mine, p);
	if (total_bytes && !err)
		err = reach(dir, NULL, keep_path, &all, p);
	pthread_mutex_unlock(&room_lock);
	return err;
}

int svc_room_make(const char *dir, const char *domain, const char *keep_path,
		  uint64_t room, struct svc_room_freed *p,
		  uint64_t *free_bytes)
{
	const struct goal g = { .dir = dir, .room = room };
	uint64_t bytes;
	int err = 0, ok;

	pthread_mutex_lock(&room_lock);
	if (domain && !reached(&g, 0))
		err = reach(dir, domain, keep_path, &g, p);
	if (!err && !reached(&g, 0))
		err = reach(dir, NULL, keep_path, &g, p);
	ok = has_room(dir, room, &bytes);
	pthread_mutex_unlock(&room_lock);
	if (free_bytes)
		*free_bytes = bytes;
	return err ? err : ok;
}
