/* SPDX-License-Identifier: MIT */
/*
 * perf's build-id cache, where a file's guest kernel symbols and code go
 * (docs/perfdata.md, "Guest kernel symbols"): which directory a plain
 * perf 6.1 reads (its perfconfig, else ~/.debug), and entries
 * DIR/[kernel.kallsyms]/ID/FILE written as perf's own cache writes them,
 * never replacing what another file's entry holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/perfdata.h"

#include "pdf_io.h"
#include "pdf_kernel.h"

static int truthy(const char *v)
{
	return v && (!strcasecmp(v, "1") || !strcasecmp(v, "true") ||
		     !strcasecmp(v, "yes") || !strcasecmp(v, "on"));
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
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
		char *s = trim(line), *eq, *v;
		size_t n;

		s[strcspn(s, "\n")] = 0;
		s = trim(s);
		if (*s == '[') {
			char *e = strchr(s, ']');

			if (e)
				*e = 0;
			in_section = !strcasecmp(trim(s + 1), "buildid");
			continue;
		}
		eq = strchr(s, '=');
		if (!in_section || !eq)
			continue;
		*eq = 0;
		if (strcasecmp(trim(s), "dir"))
			continue;
		v = trim(eq + 1);
		v[strcspn(v, "#;")] = 0;
		v = trim(v);
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

int pdf_ksyms_cache_dir(char *dst, size_t size)
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

int pdf_cache_mkdir(const char *path)
{
	struct stat st;

	if (!mkdir(path, 0755))
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (stat(path, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* 0 @path holds exactly @len bytes @buf, 1 it holds others, -errno. */
static int same_file(const char *path, const uint8_t *buf, size_t len)
{
	uint8_t chunk[65536];
	size_t at = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), differ = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (!n)
			break;
		if ((size_t)n > len - at || memcmp(chunk, buf + at, (size_t)n)) {
			differ = 1;
			break;
		}
		at += (size_t)n;
	}
	close(fd);
	return differ || at != len;
}

/*
 * DIR/.build-id/XX/REST -> ../../DSO/XXREST, as perf's own cache links its
 * entries: perf looks there first, and only there when it reads its cache
 * under a --symfs tree.  A link already there is kept.
 */
int pdf_cache_link(const char *base, const char *dso, const char *hex)
{
	char path[PATH_MAX], target[PATH_MAX];
	int n, err;

	n = snprintf(path, sizeof(path), "%s/.build-id", base);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	err = pdf_cache_mkdir(path);
	if (err)
		return err;
	n = snprintf(path, sizeof(path), "%s/.build-id/%.2s", base, hex);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	err = pdf_cache_mkdir(path);
	if (err)
		return err;
	n = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", base, hex,
		     hex + 2);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	n = snprintf(target, sizeof(target), "../../%s/%s", dso, hex);
	if (n < 0 || (size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	if (symlink(target, path) && errno != EEXIST)
		return -errno;
	return 0;
}

int pdf_cache_entry(const char *dir, const uint8_t *id, size_t id_len,
		    char *path, size_t size, char *base, size_t base_size)
{
	char hex[2 * PDF_BUILD_ID_SIZE + 1];
	size_t i;
	int n, err;

	if (!id || !id_len || id_len > PDF_BUILD_ID_SIZE)
		return PDF_ERR(pdfe_invalid);
	if (dir) {
		n = snprintf(base, base_size, "%s", dir);
		if (n < 0 || (size_t)n >= base_size)
			return -ENAMETOOLONG;
	} else {
		err = pdf_ksyms_cache_dir(base, base_size);
		if (err)
			return err;
	}
	for (i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	err = pdf_cache_mkdir(base);
	if (!err) {
		n = snprintf(path, size, "%s/" PDF_KERNEL_DSO, base);
		err = n < 0 || (size_t)n >= size ? -ENAMETOOLONG
						 : pdf_cache_mkdir(path);
	}
	if (!err) {
		n = snprintf(path, size, "%s/" PDF_KERNEL_DSO "/%s", base, hex);
		err = n < 0 || (size_t)n >= size ? -ENAMETOOLONG
						 : pdf_cache_mkdir(path);
	}
	return err;
}

int pdf_cache_file_put(const char *entry, const char *name,
		       const void *data, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int n, fd, err;

	n = snprintf(tmp, sizeof(tmp), "%s/%s.XXXXXX", entry, name);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s/%s", entry, name);
	err = same_file(path, data, len);
	if (err != -ENOENT)
		return err;
	fd = mkstemp(tmp); /* 0600: the guest's, like its trace */
	if (fd < 0)
		return -errno;
	err = pdf_write_all(fd, data, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	/* link, not rename: an entry that appeared meanwhile is kept */
	if (!err && link(tmp, path))
		err = errno == EEXIST ? same_file(path, data, len) : -errno;
	unlink(tmp);
	return err;
}

int pdf_ksyms_cache_put(const struct pdf_ksyms *k,
			const uint8_t *id, size_t id_len, const char *dir)
{
	char base[PATH_MAX], path[PATH_MAX];
	struct pdf_buf text;
	int err;

	if (!k)
		return PDF_ERR(pdfe_invalid);
	err = pdf_cache_entry(dir, id, id_len, path, sizeof(path), base,
			      sizeof(base));
	if (err)
		return err;
	pdf_buf_init(&text);
	err = pdf_ksyms_text(k, &text);
	if (!err)
		err = pdf_cache_file_put(path, "kallsyms", text.data, text.len);
	if (!err)
		err = pdf_cache_link(base, PDF_KERNEL_DSO,
				     strrchr(path, '/') + 1);
	pdf_buf_fini(&text);
	return err;
}
