/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder of a domain that stopped, kept: its region file is
 * read as the host laid it out, every ring copied (overwrite rings whole,
 * normal rings from their tail) and filed with the guest kernel's symbols
 * as DIR/DOMAIN/CAPTURE.data, then the domain's oldest captures pruned to
 * the bounds.  Runs where nothing may call libvirt (its hook): the file
 * alone is read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cap_internal.h"

static int fail(struct cap_flight_result *res, enum cap_fail what, int err,
		cap_err_fn str)
{
	res->fail.what = what;
	cap_err_note(&res->fail.e, err, str);
	return err;
}

/* @path and every directory above it, made if absent; 0 or -errno. */
static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	return mkdir(path, 0750) && errno != EEXIST ? -errno : 0;
}

/* DIR/DOMAIN, made if absent (and DIR with its parents); 0 or -errno. */
static int domain_dir(const struct cap_flight_req *q, char *buf, size_t len)
{
	int n, err;

	n = snprintf(buf, len, "%s", q->dir);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	err = make_dirs(buf);
	if (err)
		return err;
	n = snprintf(buf, len, "%s/%s", q->dir, q->domain);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

/* A reason is a word or two: [a-z-], 1 .. CAP_FLIGHT_REASON_MAX bytes. */
static int reason_ok(const char *r)
{
	size_t n = 0;

	for (; r[n]; n++)
		if (n >= CAP_FLIGHT_REASON_MAX || !((r[n] >= 'a' && r[n] <= 'z') ||
						    r[n] == '-'))
			return 0;
	return n > 0;
}

int cap_flight_free_name(char *buf, size_t len, unsigned tries,
			 cap_flight_name_fn name, const void *arg)
{
	for (unsigned i = 0; i < tries; i++) {
		int n = name(buf, len, i, arg);

		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		if (access(buf, F_OK) && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

struct stamp {
	const char *ddir, *reason;
	char utc[32];             /* YYYYmmddTHHMMSS */
	long nsec;
};

static int stamp_name(char *buf, size_t len, unsigned i, const void *arg)
{
	const struct stamp *t = arg;

	return snprintf(buf, len, "%s/%s.%09ldZ-%03u%s%s%s", t->ddir, t->utc,
			t->nsec, i, t->reason ? "-" : "",
			t->reason ? t->reason : "", CAP_FLIGHT_SUFFIX);
}

/* DIR/DOMAIN/YYYYmmddTHHMMSS.nnnnnnnnnZ-NNN[-REASON].data (UTC), a name
 * no capture has: the names sort by age. */
static int capture_name(const char *ddir, const char *reason, char *buf,
			size_t len)
{
	struct stamp t = { .ddir = ddir, .reason = reason };
	struct timespec ts;
	struct tm tm;

	if (clock_gettime(CLOCK_REALTIME, &ts) || !gmtime_r(&ts.tv_sec, &tm) ||
	    !strftime(t.utc, sizeof(t.utc), "%Y%m%dT%H%M%S", &tm))
		return -EINVAL;
	t.nsec = ts.tv_nsec;
	return cap_flight_free_name(buf, len, 1000, stamp_name, &t);
}

static int is_capture(const char *name)
{
	size_t n = strlen(name), s = strlen(CAP_FLIGHT_SUFFIX);

	return name[0] != '.' && n > s && !strcmp(name + n - s, CAP_FLIGHT_SUFFIX);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cap_flight_prune(const char *ddir, const char *keep_path, uint32_t keep,
		     uint64_t keep_bytes, uint32_t *removed, uint64_t *freed)
{
	DIR *d = opendir(ddir);
	char **names = NULL, path[4096];
	uint64_t *sizes = NULL, total = 0;
	size_t n = 0, cap = 0, i;
	struct dirent *e;
	int err = 0;

	*removed = 0;
	*freed = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct stat st;

		if (!is_capture(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", ddir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			size_t c = cap ? 2 * cap : 16;
			char **nn = realloc(names, c * sizeof(*nn));
			uint64_t *ns;

			if (!nn) {
				err = -ENOMEM;
				break;
			}
			names = nn;
			ns = realloc(sizes, c * sizeof(*ns));
			if (!ns) {
				err = -ENOMEM;
				break;
			}
			sizes = ns;
			cap = c;
		}
		names[n] = strdup(path);
		if (!names[n]) {
			err = -ENOMEM;
			break;
		}
		sizes[n++] = (uint64_t)st.st_size;
		total += (uint64_t)st.st_size;
	}
	closedir(d);
	if (!err)
		qsort(names, n, sizeof(*names), by_name);
	/* the oldest first; the capture just written always stays */
	for (i = 0; !err && i < n; i++) {
		size_t left = n - i;

		if ((!keep || left <= keep) && (!keep_bytes || total <= keep_bytes))
			break;
		if (keep_path && !strcmp(names[i], keep_path))
			continue;
		if (unlink(names[i])) {
			err = -errno;
			break;
		}
		total -= sizes[i];
		*freed += sizes[i];
		(*removed)++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(sizes);
	return err;
}

/* The region in @fd (a regular file; < 0: its open failed with
 * @open_err), mapped read-only, opened by @q->layout (or its header). */
static int region_map(const struct cap_flight_req *q, int fd, int open_err,
		      struct cap_source *src, struct cap_flight_result *res)
{
	struct stat st;
	int err;

	if (fd < 0)
		return fail(res, CAP_FAIL_COPY, open_err, cap_err_sys);
	/* a FIFO or a device: never read (-ENODEV) */
	if (fstat(fd, &st))
		return fail(res, CAP_FAIL_COPY, -errno, cap_err_sys);
	if (!S_ISREG(st.st_mode))
		return fail(res, CAP_FAIL_COPY, -ENODEV, cap_err_sys);
	err = cap_source_open_fd(src, fd, q->layout, 0, &res->fail.e);
	if (err) {
		res->fail.what = CAP_FAIL_COPY;
		return err;
	}
	res->damaged = cap_source_damage(src) != NULL;
	return 0;
}

/* No record, AUX byte or kernel symbol in any ring: the guest never
 * wrote here. */
static int nothing_recorded(const struct cap_snapper_stats *st,
			    const struct gi_syms *syms)
{
	for (uint32_t i = 0; i < st->nr_rings; i++)
		if (st->ring[i].data.records || st->ring[i].produced ||
		    (st->ring[i].has_aux && st->ring[i].aux.len))
			return 0;
	return syms->state != GI_SYMS_OK;
}

static int capture(const struct cap_flight_req *q, int fd, int open_err,
		   struct cap_flight_result *res);

/*
 * The rings' copy; with @kbuf_src, the guest kernel's buffers read before
 * it, as `ringside snapshot` reads them (cli/cmd_snapshot.c: a live agent
 * that passes meanwhile has what it took in the rings' copy), and what
 * the copy holds too dropped from them.  The snapper's config holds the
 * gi_kbuf (cap_snapper_config: a pointer to the caller's).
 */
static int copy(struct cap_snapper *s, const struct rs_region *region,
		const struct gi_kbuf_src *kbuf_src)
{
	const struct cap_snapper_config *c = cap_snapper_config(s);
	int err = cap_snapper_prepare(s, region);

	/* never a reason to lose the rings: out of memory, none is filed */
	if (!err && c->kbuf && gi_kbuf_recover(c->kbuf, region, kbuf_src,
					       cap_snapper_stats(s)->sample_type)) {
		gi_kbuf_fini(c->kbuf);
		gi_kbuf_init(c->kbuf);
	}
	if (!err)
		err = cap_snapper_take(s, region);
	if (!err)
		err = cap_snapper_parse(s);
	if (!err && c->kbuf)
		cap_snapper_kbuf_dedup(s);
	return err;
}

/* What came of the guest kernel's buffers (@kb, read or not), once the
 * file is written: the records the writer refused are not in it. */
static void kbuf_result(const struct gi_kbuf *kb,
			const struct cap_snapper_stats *st,
			struct cap_flight_result *res)
{
	uint64_t filed = kb->records - kb->duplicates;

	res->kbuf_state = (int)kb->state;
	res->kbuf_cpus_unread = kb->cpus_unread + kb->peek_failed;
	res->kbuf_records = filed - (st->kbuf_refused < filed ?
				     st->kbuf_refused : filed);
}

int cap_flight_capture(const struct cap_flight_req *q, struct cap_flight_result *res)
{
	int fd = -1, err = -EINVAL;

	/* never through a link; a FIFO must not hang the capture */
	if (q && q->region_path) {
		fd = open(q->region_path,
			  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		err = fd < 0 ? -errno : 0;
	}
	err = capture(q, fd, err, res);
	if (fd >= 0)
		close(fd);
	return err;
}

int cap_flight_capture_fd(const struct cap_flight_req *q, int fd,
			  struct cap_flight_result *res)
{
	return capture(q, fd, -EBADF, res);
}

static int capture(const struct cap_flight_req *q, int fd, int open_err,
		   struct cap_flight_result *res)
{
	struct cap_snapper_config c;
	const struct cap_snapper_stats *st;
	const struct rs_region *region;
	struct cap_source *src = NULL;
	struct cap_snapper *s = NULL;
	struct cap_tally_ring sum;
	struct gi_syms syms = { 0 };
	struct gi_usyms usyms = { 0 };
	struct gi_kbuf kb;
	char ddir[4096];
	int err;

	memset(res, 0, sizeof(*res));
	gi_kbuf_init(&kb);
	if (!q || !q->domain || !q->region_path || !q->dir ||
	    (q->reason && !reason_ok(q->reason)))
		return fail(res, CAP_FAIL_OPEN, -EINVAL, cap_err_sys);
	err = domain_dir(q, ddir, sizeof(ddir));
	if (!err)
		err = capture_name(ddir, q->reason, res->path, sizeof(res->path));
	if (err)
		return fail(res, CAP_FAIL_OPEN, err, cap_err_sys);
	if (cap_source_new(&src))
		return fail(res, CAP_FAIL_COPY, -ENOMEM, cap_err_sys);
	err = region_map(q, fd, open_err, src, res);
	if (err)
		goto out;
	region = cap_source_region(src);
	cap_snapper_config_init(&c);
	c.source = q->region_path;
	c.output = res->path;
	c.argc = q->argc;
	c.argv = q->argv;
	c.syms = &syms;
	c.usyms = &usyms;    /* the user binaries', into the same cache */
	c.buildid_dir = q->buildid_dir;
	c.host = q->host;
	if (q->kbuf_src)
		c.kbuf = &kb;
	if (gi_syms_read(&syms, region, 0) || gi_usyms_read(&usyms, region) ||
	    cap_snapper_new(&s, &c)) {
		err = fail(res, CAP_FAIL_COPY, -ENOMEM, cap_err_sys);
		goto out;
	}
	res->syms_state = syms.state;
	st = cap_snapper_stats(s);
	err = copy(s, region, q->kbuf_src);
	if (!err && nothing_recorded(st, &syms)) {
		/* never written to (an incoming migration that failed, a
		 * guest stopped before its agent came): nothing to keep */
		res->empty = 1;
		res->path[0] = '\0';
		goto out;
	}
	if (!err)
		err = cap_snapper_write(s);
	if (err) {
		res->fail = st->fail;
		goto out;
	}
	kbuf_result(&kb, st, res);
	res->rings = st->nr_rings;
	cap_tally_total(st->have_file_tally ? &st->file_tally : &st->tally, &sum);
	res->records = sum.records;
	res->lost = sum.lost;
	for (uint32_t i = 0; i < st->nr_rings; i++) {
		const struct cap_snapper_ring *r = &st->ring[i];

		res->overwritten += r->data_mode == RS_MODE_OVERWRITE &&
				    r->produced > r->data.records ?
				    r->produced - r->data.records : 0;
		res->cut_bytes += r->data.cut_bytes;
		res->corrupt += r->data.corrupt;
	}
	{
		struct stat fst;

		if (!stat(res->path, &fst))
			res->bytes = (uint64_t)fst.st_size;
	}
	/* a failed prune costs the bound, never the capture */
	res->prune_err = cap_flight_prune(ddir, res->path, q->keep, q->keep_bytes,
					  &res->pruned, &res->pruned_bytes);
out:
	cap_snapper_free(s);
	gi_kbuf_fini(&kb);
	gi_syms_fini(&syms);
	gi_usyms_fini(&usyms);
	cap_source_free(src);
	return err;
}
