/* SPDX-License-Identifier: MIT */
/*
 * What continuous recording needs apart from its threads: its keys in the
 * configuration, the JSON sidecar beside each file, and the retention
 * bounds (the oldest complete recordings removed first).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "ringside/domain.h"
#include "ringside/perfdata.h"
#include "ringside/service.h"
#include "ringside/text.h"

#define SIDECAR_MAX 8192u
#define DATA_SUFFIX ".data"
#define JSON_SUFFIX ".json"

/* ---- the configuration ---- */

void svc_rec_config_default(struct svc_rec_config *c)
{
	memset(c, 0, sizeof(*c));
	c->rotate_bytes = (uint64_t)SVC_REC_ROTATE_MB << 20;
	c->keep_bytes = (uint64_t)SVC_REC_KEEP_MB << 20;
	c->post_tries = SVC_REC_POST_TRIES;
	c->interval_ms = 100;
	c->pprof = 1;
}

static void free_domains(struct svc_rec_config *c)
{
	for (uint32_t i = 0; i < c->nr_domains; i++)
		free(c->domains[i]);
	free(c->domains);
	c->domains = NULL;
	c->nr_domains = 0;
}

void svc_rec_config_fini(struct svc_rec_config *c)
{
	for (uint32_t i = 0; i < c->nr_regions; i++) {
		free(c->region_names[i]);
		free(c->region_paths[i]);
	}
	free(c->region_names);
	free(c->region_paths);
	c->region_names = c->region_paths = NULL;
	c->nr_regions = 0;
	free_domains(c);
	free(c->post_command);
	free(c->dir);
	c->post_command = c->dir = NULL;
}

static int number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -EINVAL : 0;
}

static int set_record(struct svc_rec_config *c, char *v, const char **why)
{
	char *save = NULL, *w;
	char **names;

	free_domains(c);
	c->all = 0;
	for (w = strtok_r(v, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		if (!strcmp(w, "all")) {
			c->all = 1;
			continue;
		}
		if (!strcmp(w, "none"))
			continue;
		if (strlen(w) > DOM_NAME_MAX || strchr(w, '/') ||
		    w[0] == '.') {
			*why = "record: all, none, or domain names (no '/', "
			       "not starting with '.')";
			return -EINVAL;
		}
		names = realloc(c->domains, (c->nr_domains + 1) * sizeof(*names));
		if (!names)
			return -ENOMEM;
		c->domains = names;
		c->domains[c->nr_domains] = strdup(w);
		if (!c->domains[c->nr_domains])
			return -ENOMEM;
		c->nr_domains++;
	}
	return 0;
}

int svc_rec_config_key(struct svc_rec_config *c, const char *k, char *v,
		       const char **why)
{
	uint64_t n;

	if (!strcmp(k, "record"))
		return set_record(c, v, why);
	if (!strcmp(k, "pprof")) {
		*why = "pprof: yes or no";
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return -EINVAL;
		c->pprof = !strcmp(v, "yes");
		return 0;
	}
	if (!strcmp(k, "record-region")) {
		char *sp = strpbrk(v, " \t"), *path, **rn, **rp;

		*why = "record-region: NAME /PATH (a domain name, no '/', not "
		       "starting with '.'; an absolute path)";
		if (!sp)
			return -EINVAL;
		*sp = '\0';
		path = sp + 1 + strspn(sp + 1, " \t");
		if (!v[0] || strlen(v) > DOM_NAME_MAX || strchr(v, '/') ||
		    v[0] == '.' || path[0] != '/')
			return -EINVAL;
		rn = realloc(c->region_names, (c->nr_regions + 1) * sizeof(*rn));
		if (!rn)
			return -ENOMEM;
		c->region_names = rn;
		rp = realloc(c->region_paths, (c->nr_regions + 1) * sizeof(*rp));
		if (!rp)
			return -ENOMEM;
		c->region_paths = rp;
		rn[c->nr_regions] = strdup(v);
		rp[c->nr_regions] = strdup(path);
		if (!rn[c->nr_regions] || !rp[c->nr_regions]) {
			free(rn[c->nr_regions]);
			free(rp[c->nr_regions]);
			return -ENOMEM;
		}
		c->nr_regions++;
		return 0;
	}
	if (!strcmp(k, "record-dir")) {
		char *d;

		*why = "record-dir: an absolute path";
		if (v[0] != '/')
			return -EINVAL;
		d = strdup(v);
		if (!d)
			return -ENOMEM;
		free(c->dir);
		c->dir = d;
		return 0;
	}
	if (!strcmp(k, "rotate-mb") || !strcmp(k, "record-keep-mb") ||
	    !strcmp(k, "record-total-mb")) {
		*why = !strcmp(k, "rotate-mb") ?
		       "rotate-mb: MiB per file, 0 for no size rotation" :
		       !strcmp(k, "record-keep-mb") ?
		       "record-keep-mb: MiB of recordings per domain, 0 for any" :
		       "record-total-mb: MiB of recordings of all domains, 0 "
		       "for any";
		if (number(v, UINT64_MAX >> 20, &n))
			return -EINVAL;
		if (!strcmp(k, "rotate-mb"))
			c->rotate_bytes = n << 20;
		else if (!strcmp(k, "record-keep-mb"))
			c->keep_bytes = n << 20;
		else
			c->total_bytes = n << 20;
		return 0;
	}
	if (!strcmp(k, "rotate-seconds")) {
		*why = "rotate-seconds: seconds per file 1..604800, 0 for no "
		       "time rotation";
		if (number(v, 604800, &n))
			return -EINVAL;
		c->rotate_s = (uint32_t)n;
		return 0;
	}
	if (!strcmp(k, "post-command")) {
		char *s;

		*why = "post-command: an absolute path to a program, or none";
		if (!strcmp(v, "none")) {
			free(c->post_command);
			c->post_command = NULL;
			return 0;
		}
		if (v[0] != '/')
			return -EINVAL;
		s = strdup(v);
		if (!s)
			return -ENOMEM;
		free(c->post_command);
		c->post_command = s;
		return 0;
	}
	if (!strcmp(k, "post-tries")) {
		*why = "post-tries: tries per file, 1..20";
		if (number(v, 20, &n) || !n)
			return -EINVAL;
		c->post_tries = (uint32_t)n;
		return 0;
	}
	return 1;
}

int svc_rec_config_selects(const struct svc_rec_config *c, const char *domain)
{
	if (c->all)
		return 1;
	for (uint32_t i = 0; i < c->nr_domains; i++)
		if (!strcmp(c->domains[i], domain))
			return 1;
	return 0;
}

/* ---- the sidecar ---- */

struct out {
	char *buf;
	size_t len, at;
	int full;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->at) {
		o->full = 1;
		return;
	}
	o->at += (size_t)n;
}

/* A JSON string, escaped by rs_text_json: plain ASCII, valid UTF-8
 * whatever the name holds. */
static void put_str(struct out *o, const char *k, const char *s)
{
	put(o, "\"%s\":\"", k);
	if (!o->full && s) {
		size_t n = rs_text_json(o->buf + o->at, o->len - o->at, s,
					strlen(s));

		if (n >= o->len - o->at)
			o->full = 1;
		else
			o->at += n;
	}
	put(o, "\",");
}

/* Host CLOCK_MONOTONIC @ns as UTC ISO 8601 with ns. */
static void put_wall(struct out *o, const char *k, uint64_t ns, int64_t off)
{
	int64_t w = (int64_t)ns + off;
	time_t sec;
	struct tm tm;
	char buf[64];

	if (w < 0)
		w = 0;
	sec = (time_t)(w / 1000000000);
	gmtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	put(o, "\"%s\":\"%s.%09" PRId64 "Z\",", k, buf, w % 1000000000);
}

int svc_sidecar_text(const struct svc_sidecar *sc, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	put(&o, "{");
	put_str(&o, "domain", sc->domain);
	put_str(&o, "uuid", sc->uuid);
	put_str(&o, "host", sc->host);
	put_str(&o, "reason", sc->reason);
	put_str(&o, "file", sc->file);
	put(&o, "\"start_monotonic_ns\":%" PRIu64 ",\"end_monotonic_ns\":%"
	    PRIu64 ",", sc->start_ns, sc->end_ns);
	put_wall(&o, "start_time", sc->start_ns, sc->wall_offset_ns);
	put_wall(&o, "end_time", sc->end_ns, sc->wall_offset_ns);
	put(&o, "\"bytes\":%" PRIu64 ",\"rings\":%u,\"records\":%" PRIu64
	    ",\"lost_records\":%" PRIu64 ",", sc->bytes, sc->rings,
	    sc->records, sc->lost_records);
	put(&o, "\"host_observed\":{\"corrupt\":%" PRIu64 ",\"corrupt_bytes\":%"
	    PRIu64 ",\"not_written\":%" PRIu64 ",\"overwritten\":%" PRIu64
	    ",\"disk_lost\":%" PRIu64 "},", sc->corrupt, sc->corrupt_bytes,
	    sc->not_written, sc->overwritten, sc->disk_lost);
	put(&o, "\"guest_claimed\":{\"lost\":%" PRIu64 ",\"lost_samples\":%"
	    PRIu64 ",\"aux_truncated\":%" PRIu64 ",\"flagged\":%" PRIu64
	    ",\"disk_lost_lost\":%" PRIu64 "}}\n", sc->lost, sc->lost_samples,
	    sc->aux_truncated, sc->flagged, sc->disk_lost_lost);
	return o.full ? -ENOSPC : (int)o.at;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int svc_sidecar_write(const char *data_path, const struct svc_sidecar *sc)
{
	char path[4200], tmp[4200 + sizeof(PDF_ASIDE_SUFFIX)];
	char *text = malloc(SIDECAR_MAX);
	int n, fd, err;

	if (!text)
		return -ENOMEM;
	n = svc_sidecar_text(sc, text, SIDECAR_MAX);
	if (n < 0 ||
	    (size_t)snprintf(path, sizeof(path), "%s" JSON_SUFFIX, data_path) >=
	    sizeof(path)) {
		free(text);
		return n < 0 ? n : -ENAMETOOLONG;
	}
	/* 0600 like the file it describes, aside under a name nobody
	 * planted (pdf_aside_open) */
	fd = pdf_aside_open(path, tmp, sizeof(tmp));
	if (fd < 0) {
		free(text);
		return fd;
	}
	err = write_all(fd, text, (size_t)n);
	if (err)
		pdf_aside_discard(fd, tmp);
	else
		err = pdf_aside_commit(fd, tmp, path);
	free(text);
	return err;
}

/* ---- retention ---- */

struct rfile {
	char *path;
	const char *name;       /* within path: rec-TIME-NNN.data */
	int domain;             /* index of its directory */
	uint64_t bytes;         /* the data file and its sidecar */
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

/* Every complete recording in @ddir into @l under domain number @dom. */
static int scan(struct rlist *l, const char *ddir, int dom)
{
	DIR *d = opendir(ddir);
	struct dirent *de;
	size_t first = l->n, newest = SIZE_MAX;
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char json[4300];
		struct rfile *f;

		if (!is_recording(de->d_name))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			struct rfile *nf = realloc(l->f, cap * sizeof(*nf));

			if (!nf) {
				err = -ENOMEM;
				break;
			}
			l->f = nf;
			l->cap = cap;
		}
		f = &l->f[l->n];
		f->path = malloc(strlen(ddir) + strlen(de->d_name) + 2);
		if (!f->path) {
			err = -ENOMEM;
			break;
		}
		sprintf(f->path, "%s/%s", ddir, de->d_name);
		f->name = f->path + strlen(ddir) + 1;
		f->domain = dom;
		f->newest = 0;
		snprintf(json, sizeof(json), "%s" JSON_SUFFIX, f->path);
		f->bytes = file_bytes(f->path) + file_bytes(json);
		snprintf(json, sizeof(json), "%s" SVC_PPROF_SUFFIX, f->path);
		f->bytes += file_bytes(json);
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

/* Remove the oldest of @l until it holds at most @bound bytes. */
static int trim(struct rlist *l, const char *keep_path, uint64_t bound,
		struct svc_room_freed *p)
{
	uint64_t sum = 0;
	int err = 0;

	for (size_t i = 0; i < l->n; i++)
		sum += l->f[i].bytes;
	if (l->n)   /* qsort takes no NULL, even for nothing */
		qsort(l->f, l->n, sizeof(*l->f), by_age);
	for (size_t i = 0; i < l->n && sum > bound; i++) {
		struct rfile *f = &l->f[i];
		char json[4300];

		if (f->newest || (keep_path && !strcmp(f->path, keep_path)) ||
		    !f->bytes)
			continue;
		snprintf(json, sizeof(json), "%s" JSON_SUFFIX, f->path);
		if (unlink(f->path) && errno != ENOENT) {
			err = -errno;
			continue;
		}
		unlink(json);
		snprintf(json, sizeof(json), "%s" SVC_PPROF_SUFFIX, f->path);
		unlink(json);
		sum -= f->bytes;
		removed(p, f);
	}
	return err;
}

/* Every domain's directory under @dir into @l (numbered in order).  0,
 * -errno when @dir cannot be read, or scan's error. */
static int scan_all(struct rlist *l, const char *dir)
{
	char ddir[4300];
	struct dirent *de;
	int err = 0, dom = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d)) && !err) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(ddir, sizeof(ddir), "%s/%s", dir, de->d_name);
		err = scan(l, ddir, dom++);
		if (err == -ENOTDIR)
			err = 0;
	}
	closedir(d);
	return err;
}

int svc_room_prune(const char *dir, const char *domain, const char *keep_path,
		  uint64_t keep_bytes, uint64_t total_bytes,
		  struct svc_room_freed *p)
{
	struct rlist l = { 0 };
	char ddir[4300];
	int err = 0;

	if (keep_bytes && domain) {
		snprintf(ddir, sizeof(ddir), "%s/%s", dir, domain);
		err = scan(&l, ddir, 0);
		if (!err)
			err = trim(&l, keep_path, keep_bytes, p);
		list_free(&l);
	}
	if (total_bytes && !err) {
		err = scan_all(&l, dir);
		if (!err)
			err = trim(&l, keep_path, total_bytes, p);
		list_free(&l);
	}
	return err;
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

/* Remove the oldest of @l (never one's newest, nor @keep_path) until
 * there is @room on @dir's file system. */
static int trim_room(struct rlist *l, const char *dir, const char *keep_path,
		     uint64_t room, struct svc_room_freed *p)
{
	uint64_t bytes;
	int err = 0;

	if (l->n)
		qsort(l->f, l->n, sizeof(*l->f), by_age);
	for (size_t i = 0; i < l->n && !has_room(dir, room, &bytes); i++) {
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
		removed(p, f);
	}
	return err;
}

int svc_room_make(const char *dir, const char *domain,
		      const char *keep_path, uint64_t room,
		      struct svc_room_freed *p, uint64_t *free_bytes)
{
	struct rlist l = { 0 };
	char ddir[4300];
	uint64_t bytes;
	int err = 0, ok;

	if (domain && !has_room(dir, room, &bytes)) {
		snprintf(ddir, sizeof(ddir), "%s/%s", dir, domain);
		err = scan(&l, ddir, 0);
		if (!err)
			err = trim_room(&l, dir, keep_path, room, p);
		list_free(&l);
	}
	if (!err && !has_room(dir, room, &bytes)) {
		err = scan_all(&l, dir);
		if (!err)
			err = trim_room(&l, dir, keep_path, room, p);
		list_free(&l);
	}
	ok = has_room(dir, room, &bytes);
	if (free_bytes)
		*free_bytes = bytes;
	return err ? err : ok;
}

/* NAME.data + @suffix: the length of @suffix, else 0. */
static size_t beside_data(const char *name, const char *suffix)
{
	size_t n = strlen(name), sl = strlen(suffix), dl = strlen(DATA_SUFFIX);

	if (n <= sl + dl || strcmp(name + n - sl, suffix) ||
	    strncmp(name + n - sl - dl, DATA_SUFFIX, dl))
		return 0;
	return sl;
}

int svc_sidecar_orphans(const char *ddir, uint32_t *removed)
{
	DIR *d = opendir(ddir);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[4200], data[4200];
		size_t sl = beside_data(de->d_name, JSON_SUFFIX);

		if (!sl)
			sl = beside_data(de->d_name, SVC_PPROF_SUFFIX);
		if (!sl)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", ddir,
				     de->d_name) >= sizeof(path))
			continue;
		snprintf(data, sizeof(data), "%.*s", (int)(strlen(path) - sl),
			 path);
		if (access(data, F_OK) && errno == ENOENT && !unlink(path) &&
		    removed)
			++*removed;
	}
	closedir(d);
	return 0;
}
