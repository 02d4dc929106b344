/* SPDX-License-Identifier: MIT */
/*
 * Build-id caches (docs/perfdata.md, "Where guest names go"): which
 * directory a plain perf 6.1 reads (its perfconfig, else ~/.debug), which
 * ringside never writes; ringside's own beside a file, where its guest's
 * kernel symbols and code and its user binaries' symbols go; entries
 * DIR/[kernel.kallsyms]/ID/FILE and DIR/.build-id/XX/REST written as
 * perf's own cache lays them out, never replacing what an entry holds,
 * every directory and file opened relative to the one above it, never
 * through a link, and only in directories of this user that nobody else
 * can write.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ringside/perfdata.h"
#include "ringside/text.h"

#include "pdf_io.h"
#include "pdf_kernel.h"

static int truthy(const char *v)
{
	return v && (!strcasecmp(v, "1") || !strcasecmp(v, "true") ||
		     !strcasecmp(v, "yes") || !strcasecmp(v, "on"));
}

/* "dir" of section [buildid] in perfconfig @path into @dst, if there. */
static void config_buildid_dir(const char *path, char *dst, size_t size)
{
	char line[PATH_MAX + 64];
	int in_section = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = rs_text_trim(line), *eq, *v;
		size_t n;

		s[strcspn(s, "\n")] = 0;
		s = rs_text_trim(s);
		if (*s == '[') {
			char *e = strchr(s, ']');

			if (e)
				*e = 0;
			in_section = !strcasecmp(rs_text_trim(s + 1), "buildid");
			continue;
		}
		eq = strchr(s, '=');
		if (!in_section || !eq)
			continue;
		*eq = 0;
		if (strcasecmp(rs_text_trim(s), "dir"))
			continue;
		v = rs_text_trim(eq + 1);
		v[strcspn(v, "#;")] = 0;
		v = rs_text_trim(v);
		n = strlen(v);
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
			v[n - 1] = 0;
			v++;
		}
		if (*v && strlen(v) < size)
			strcpy(dst, v);
	}
	fclose(f);
}

int pdf_cache_perf_dir(char *dst, size_t size)
{
	const char *home = getenv("HOME");
	const char *cfg = getenv("PERF_CONFIG");
	char dir[PATH_MAX] = "";
	int n;

	if (!dst || !size)
		return PDF_ERR(pdfe_invalid);
	/* perf_config(): $PERF_CONFIG alone, else the system's file, then the
	 * user's; the last "dir" wins.  set_buildid_dir(): else ~/.debug.
	 * (PERF_BUILDID_DIR is what perf exports to its children; it does
	 * not read it.) */
	if (cfg) {
		config_buildid_dir(cfg, dir, sizeof(dir));
	} else {
		if (!truthy(getenv("PERF_CONFIG_NOSYSTEM")))
			config_buildid_dir("/etc/perfconfig", dir, sizeof(dir));
		if (home && !truthy(getenv("PERF_CONFIG_NOGLOBAL"))) {
			char user[PATH_MAX];

			n = snprintf(user, sizeof(user), "%s/.perfconfig", home);
			if (n > 0 && (size_t)n < sizeof(user))
				config_buildid_dir(user, dir, sizeof(dir));
		}
	}
	if (*dir)
		n = snprintf(dst, size, "%s", dir);
	else if (home)
		n = snprintf(dst, size, "%s/.debug", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int pdf_cache_dir_of(const char *file, char *dst, size_t size)
{
	const char *slash;
	int n;

	if (!file || !*file || !dst || !size)
		return PDF_ERR(pdfe_invalid);
	slash = strrchr(file, '/');
	if (slash)
		n = snprintf(dst, size, "%.*s/%s", (int)(slash - file), file,
			     PDF_CACHE_NAME);
	else
		n = snprintf(dst, size, "%s", PDF_CACHE_NAME);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A directory of this user that nobody else can write, or why not. */
static int dir_ours(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return PDF_ERR(pdfe_cache_unsafe);
	return 0;
}

/* An open that failed on @name in @at: a link there is unsafe. */
static int open_err(int at, const char *name)
{
	int e = errno;
	struct stat st;

	if (e == ELOOP || (e == ENOTDIR && !fstatat(at, name, &st,
						     AT_SYMLINK_NOFOLLOW) &&
			   S_ISLNK(st.st_mode)))
		return PDF_ERR(pdfe_cache_unsafe);
	return -e;
}

/* Directory @name in @at, made (@mode) if absent, opened without
 * following a link, checked ours: its descriptor, or -errno,
 * PDF_ERR(pdfe_cache_unsafe). */
static int sub_open(int at, const char *name, mode_t mode)
{
	int fd, err;

	if (mkdirat(at, name, mode) && errno != EEXIST)
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return open_err(at, name);
	err = dir_ours(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* Whether directory @fd is the one at @path. */
static int same_dir(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Whether @fd is perf's own cache: the one pdf_cache_perf_dir() names,
 * or ~/.debug of this user's home in the password database (what perf
 * reads when HOME is that). */
static int is_perfs(int fd)
{
	char dir[PATH_MAX], buf[4096];
	struct passwd pw, *res = NULL;
	int n;

	if (!pdf_cache_perf_dir(dir, sizeof(dir)) && same_dir(fd, dir))
		return 1;
	if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &res) || !res ||
	    !res->pw_dir)
		return 0;
	n = snprintf(dir, sizeof(dir), "%s/.debug", res->pw_dir);
	return n > 0 && (size_t)n < sizeof(dir) && same_dir(fd, dir);
}

int pdf_cache_root(const char *dir)
{
	int fd, err, made;

	if (!dir || !*dir)
		return PDF_ERR(pdfe_invalid);
	/* the guest's names, like its trace: for this user alone */
	made = !mkdir(dir, 0700);
	if (!made && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return open_err(AT_FDCWD, dir);
	err = dir_ours(fd);
	if (!err && is_perfs(fd)) {
		err = PDF_ERR(pdfe_cache_unsafe);
		if (made)           /* perf's, made just now: left as it was */
			rmdir(dir);
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int pdf_cache_subdir(int at, const char *rel)
{
	char name[NAME_MAX + 1];
	int fd = at, next;

	if (at < 0 || !rel)
		return PDF_ERR(pdfe_invalid);
	while (*rel) {
		size_t len = strcspn(rel, "/");

		if (!len || len > NAME_MAX || (len == 1 && rel[0] == '.') ||
		    (len == 2 && rel[0] == '.' && rel[1] == '.')) {
			next = len > NAME_MAX ? -ENAMETOOLONG
					      : PDF_ERR(pdfe_invalid);
		} else {
			memcpy(name, rel, len);
			name[len] = 0;
			next = sub_open(fd, name, 0755);
		}
		if (fd != at)
			close(fd);
		if (next < 0)
			return next;
		fd = next;
		rel += len;
		if (*rel == '/' && !*++rel)
			break;
	}
	return fd == at ? fcntl(at, F_DUPFD_CLOEXEC, 0) : fd;
}

/* Regular file @name of @at opened without following a link or
 * blocking on a FIFO: its descriptor, or -errno (-ENOENT: none),
 * PDF_ERR(pdfe_cache_unsafe). */
static int file_open(int at, const char *name)
{
	struct stat st;
	int fd = openat(at, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : open_err(at, name);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return PDF_ERR(pdfe_cache_unsafe);
	}
	return fd;
}

/* 0 @name of @at holds exactly @len bytes @buf, 1 it holds others,
 * -errno (-ENOENT: no such file), PDF_ERR(pdfe_cache_unsafe). */
static int same_file(int at, const char *name, const uint8_t *buf,
		     size_t len)
{
	uint8_t chunk[65536];
	struct stat st;
	size_t got, n;
	int fd = file_open(at, name), err = 0, differ;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st))
		err = -errno;
	differ = err || (uint64_t)st.st_size != len;
	for (got = 0; !differ && got < len; got += n) {
		n = len - got < sizeof(chunk) ? len - got : sizeof(chunk);
		err = rs_io_pread_all(fd, chunk, n, got);
		differ = err || memcmp(chunk, buf + got, n);
	}
	close(fd);
	/* -EIO: it ended before its size, as another's */
	return err && err != -EIO ? err : differ;
}

/* A name for a file being written: NAME.XXXXXXXX, hex of random bits. */
static void tmp_name(char *dst, size_t size, const char *name)
{
	static unsigned counter;
	uint32_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL) ^
		    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
	snprintf(dst, size, "%s.%08x", name, (unsigned)r);
}

int pdf_cache_put_at(int at, const char *name, const void *data, size_t len)
{
	char tmp[NAME_MAX + 1];
	int fd = -1, tries, err;

	if (at < 0 || !name || !*name || strchr(name, '/') ||
	    strlen(name) > NAME_MAX - 9 || (!data && len))
		return PDF_ERR(pdfe_invalid);
	err = same_file(at, name, data, len);
	if (err != -ENOENT)
		return err;
	for (tries = 0; tries < 16 && fd < 0; tries++) {
		tmp_name(tmp, sizeof(tmp), name);
		/* 0600: the guest's, like its trace */
		fd = openat(at, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	err = rs_io_write_all(fd, data, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	/* link, not rename: an entry that appeared meanwhile is kept */
	if (!err && linkat(at, tmp, at, name, 0))
		err = errno == EEXIST ? same_file(at, name, data, len) : -errno;
	unlinkat(at, tmp, 0);
	return err;
}

/*
 * ROOT/.build-id/XX/REST -> ../../DSO/XXREST, as perf's own cache links
 * its entries: perf looks there first, and only there when it reads its
 * cache under a --symfs tree.  A link already there is kept.
 */
int pdf_cache_link_at(int root, const char *dso, const char *hex)
{
	char target[PATH_MAX], xx[3];
	int b, x, n, err = 0;

	if (root < 0 || !dso || !hex || strlen(hex) < 3)
		return PDF_ERR(pdfe_invalid);
	n = snprintf(target, sizeof(target), "../../%s/%s", dso, hex);
	if (n < 0 || (size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	b = sub_open(root, ".build-id", 0755);
	if (b < 0)
		return b;
	memcpy(xx, hex, 2);
	xx[2] = 0;
	x = sub_open(b, xx, 0755);
	close(b);
	if (x < 0)
		return x;
	if (symlinkat(target, x, hex + 2) && errno != EEXIST)
		err = -errno;
	close(x);
	return err;
}

static void hexify(char *hex, const uint8_t *id, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * len] = 0;
}

/* DIR (opened) and DIR/[kernel.kallsyms]/HEX (made): descriptors in
 * *@root and *@entry, @hex the id.  0, or an error with neither open. */
static int kernel_entry(const char *dir, const uint8_t *id, size_t id_len,
			int *root, int *entry, char *hex)
{
	char rel[sizeof(PDF_KERNEL_DSO) + 2 * PDF_BUILD_ID_SIZE + 2];

	if (!dir || !id || !id_len || id_len > PDF_BUILD_ID_SIZE)
		return PDF_ERR(pdfe_invalid);
	hexify(hex, id, id_len);
	*root = pdf_cache_root(dir);
	if (*root < 0)
		return *root;
	snprintf(rel, sizeof(rel), PDF_KERNEL_DSO "/%s", hex);
	*entry = pdf_cache_subdir(*root, rel);
	if (*entry < 0) {
		close(*root);
		return *entry;
	}
	return 0;
}

int pdf_cache_kernel_put(const char *dir, const uint8_t *id, size_t id_len,
			 const char *name, const void *data, size_t len)
{
	char hex[2 * PDF_BUILD_ID_SIZE + 1];
	int root, entry, err;

	err = kernel_entry(dir, id, id_len, &root, &entry, hex);
	if (err)
		return err;
	err = pdf_cache_put_at(entry, name, data, len);
	if (!err)
		err = pdf_cache_link_at(root, PDF_KERNEL_DSO, hex);
	close(entry);
	close(root);
	return err;
}

int pdf_cache_kernel_has(const char *dir, const uint8_t *id, size_t id_len,
			 const char *name)
{
	char hex[2 * PDF_BUILD_ID_SIZE + 1];
	struct stat st;
	int root, entry, fd, has = 0;

	if (kernel_entry(dir, id, id_len, &root, &entry, hex))
		return 0;
	fd = file_open(entry, name);
	if (fd >= 0) {
		has = !fstat(fd, &st) && st.st_size > 0;
		close(fd);
	}
	close(entry);
	close(root);
	return has;
}
