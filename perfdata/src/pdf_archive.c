/* SPDX-License-Identifier: MIT */
/*
 * A perf.data file's build-id cache entries in one ustar archive, what
 * `perf archive` bundles (docs/perfdata.md, "Files on another machine"):
 * for every HEADER_BUILD_ID entry of the file, the cache directory
 * DIR/NAME/HEX with its regular files and the link DIR/.build-id/XX/REST,
 * as members named relative to DIR, to be unpacked into a reader's cache.
 * The file is untrusted input: its header and the build-id section are
 * bounded, and a name that could leave DIR is refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/perfdata.h"

#include "pdf_io.h"
#include "pdf_kernel.h"

#define TAR_BLOCK 512u
/* The largest build-id section read: 65536 entries of a path each. */
#define ARCHIVE_MAX_SECTION (64u << 20)
/* A ustar size field: 11 octal digits. */
#define TAR_MAX_SIZE ((UINT64_C(1) << 33) - 1)

struct tar {
	int fd;
	int err;
};

static void octal(char *dst, size_t width, uint64_t v)
{
	/* width - 1 digits and a NUL, as ustar writes them */
	dst[width - 1] = 0;
	for (size_t i = width - 1; i-- > 0; v >>= 3)
		dst[i] = (char)('0' + (v & 7));
}

/* Split @path into ustar's prefix and name (100 bytes each at most, the
 * prefix 155): 0, or -ENAMETOOLONG. */
static int tar_split(const char *path, char name[100], char prefix[155])
{
	size_t len = strlen(path);
	const char *cut;

	memset(name, 0, 100);
	memset(prefix, 0, 155);
	if (len <= 100) {
		memcpy(name, path, len);
		return 0;
	}
	for (cut = path + len - 1; cut > path; cut--) {
		size_t plen = (size_t)(cut - path), nlen = len - plen - 1;

		if (*cut != '/')
			continue;
		if (nlen > 100)
			break;
		if (plen <= 155 && nlen >= 1) {
			memcpy(prefix, path, plen);
			memcpy(name, cut + 1, nlen);
			return 0;
		}
	}
	return -ENAMETOOLONG;
}

/* One member's header: @type '0' (a file of @size bytes) or '2' (a
 * symbolic link to @link). */
static int tar_header(struct tar *t, const char *path, char type,
		      unsigned mode, uint64_t size, const char *link)
{
	uint8_t h[TAR_BLOCK];
	char name[100], prefix[155];
	unsigned sum = 0;
	int err;

	if (t->err)
		return t->err;
	err = tar_split(path, name, prefix);
	if (err)
		return err;
	if (size > TAR_MAX_SIZE || (link && strlen(link) > 100))
		return -EFBIG;
	memset(h, 0, sizeof(h));
	memcpy(h, name, 100);
	octal((char *)h + 100, 8, mode & 07777);
	octal((char *)h + 108, 8, 0);            /* uid */
	octal((char *)h + 116, 8, 0);            /* gid */
	octal((char *)h + 124, 12, size);
	octal((char *)h + 136, 12, 0);           /* mtime: no time of its own */
	memset(h + 148, ' ', 8);
	h[156] = (uint8_t)type;
	if (link)
		memcpy(h + 157, link, strlen(link));
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 345, prefix, 155);
	for (size_t i = 0; i < sizeof(h); i++)
		sum += h[i];
	octal((char *)h + 148, 7, sum);          /* six digits, NUL, space */
	h[155] = ' ';
	t->err = rs_io_write_all(t->fd, h, sizeof(h));
	return t->err;
}

/* DIR/@rel, a regular file, as a member: its bytes padded to a block. */
static int tar_file(struct tar *t, int dirfd, const char *rel,
		    struct pdf_archive_stats *st)
{
	uint8_t buf[65536];
	struct stat sb;
	uint64_t left;
	int fd, err;

	fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return 0;       /* not a file: nothing perf reads */
	}
	err = tar_header(t, rel, '0', sb.st_mode, (uint64_t)sb.st_size, NULL);
	for (left = (uint64_t)sb.st_size; !err && left;) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t got = read(fd, buf, n);

		if (got <= 0) {
			err = got < 0 ? -errno : -EIO;   /* shrank under us */
			break;
		}
		err = rs_io_write_all(t->fd, buf, (size_t)got);
		left -= (uint64_t)got;
	}
	if (!err && sb.st_size % TAR_BLOCK) {
		memset(buf, 0, TAR_BLOCK);
		err = rs_io_write_all(t->fd, buf,
				    TAR_BLOCK - (size_t)(sb.st_size % TAR_BLOCK));
	}
	close(fd);
	if (err)
		t->err = err;
	else {
		st->files++;
		st->bytes += (uint64_t)sb.st_size;
	}
	return err;
}

/* Every regular file of DIR/@entry (an entry directory). 1 when it is
 * there, 0 when not, -errno. */
static int tar_entry_dir(struct tar *t, int dirfd, const char *entry,
			 struct pdf_archive_stats *st)
{
	char rel[PATH_MAX];
	struct dirent *de;
	int fd, err = 0;
	DIR *d;

	fd = openat(dirfd, entry, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", entry,
				     de->d_name) >= sizeof(rel))
			err = -ENAMETOOLONG;
		else
			err = tar_file(t, dirfd, rel, st);
	}
	closedir(d);
	return err ? err : 1;
}

/* A build-id entry's name as a path under DIR: no "..", no "." or empty
 * component, printable bytes only, the leading '/' dropped.  0, -EINVAL. */
static int entry_path(const char *name, char *dst, size_t size)
{
	const char *c, *s = name;
	size_t len;

	while (*s == '/')
		s++;
	len = strlen(s);
	if (!len || len >= size)
		return -EINVAL;
	for (c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			return -EINVAL;
	for (c = s; c;) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		c = e ? e + 1 : NULL;
	}
	memcpy(dst, s, len + 1);
	return 0;
}

/* One HEADER_BUILD_ID entry: its entry directory and its .build-id link. */
static int archive_one(struct tar *t, int dirfd, const char *name,
		       const uint8_t *id, size_t id_len,
		       struct pdf_archive_stats *st,
		       pdf_archive_fn fn, void *arg)
{
	char hex[2 * PDF_BUILD_ID_SIZE + 1], path[PATH_MAX], entry[PATH_MAX];
	char link[PATH_MAX], target[PATH_MAX];
	int found = 0, err;
	ssize_t n;

	/* the writer's id for a vdso the guest did not describe: in no
	 * cache, and nothing a reader could find by it */
	if (!strcmp(name, "[vdso]") && pdf_buildid_is_vdso_unknown(id, id_len))
		return 0;
	for (size_t i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * id_len] = 0;
	st->ids++;
	if (entry_path(name, path, sizeof(path) - sizeof(hex) - 1)) {
		st->refused++;
		if (fn)
			fn(arg, name, hex, PDF_ARCHIVE_REFUSED);
		return 0;
	}
	snprintf(entry, sizeof(entry), "%s/%s", path, hex);
	if (dirfd < 0)
		goto said;      /* no cache at all: every entry is missing */
	err = tar_entry_dir(t, dirfd, entry, st);
	if (err < 0)
		return err;
	found = err;
	snprintf(link, sizeof(link), ".build-id/%.2s/%s", hex, hex + 2);
	n = readlinkat(dirfd, link, target, sizeof(target) - 1);
	if (n > 0) {
		char want[PATH_MAX];

		target[n] = 0;
		/* perf's own link, relative to its directory: kept as it is
		 * where it names this entry; any other is not followed */
		if ((size_t)snprintf(want, sizeof(want), "../../%s", entry) >=
		    sizeof(want))
			return -ENAMETOOLONG;
		if (!strcmp(target, want)) {
			err = tar_header(t, link, '2', 0777, 0, target);
			if (err)
				return err;
			st->links++;
		}
	}
said:
	if (found)
		st->found++;
	if (fn)
		fn(arg, name, hex, found ? PDF_ARCHIVE_FOUND : PDF_ARCHIVE_MISSING);
	return 0;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The HEADER_BUILD_ID section of @fd: its bytes in @out, 0 (none too:
 * out->len 0), PDF_ERR(pdfe_magic | pdfe_format | pdfe_truncated), -errno. */
static int read_build_ids(int fd, struct pdf_buf *out)
{
	uint8_t h[104], sec[16];
	uint64_t data_off, data_size, feat, off, size;
	unsigned idx = 0;
	struct stat sb;
	int err;

	if (fstat(fd, &sb))
		return -errno;
	err = rs_io_pread_all(fd, h, sizeof(h), 0);
	if (err)
		return err == -EIO ? PDF_ERR(pdfe_magic) : err;
	if (memcmp(h, "PERFILE2", 8))
		return PDF_ERR(pdfe_magic);
	data_off = le64(h + 40);
	data_size = le64(h + 48);
	feat = le64(h + 72);           /* adds_features, bits 0..63 */
	if (!(feat & (UINT64_C(1) << PDF_FEAT_BUILD_ID)))
		return 0;
	for (unsigned b = 0; b < PDF_FEAT_BUILD_ID; b++)
		idx += !!(feat & (UINT64_C(1) << b));
	if (data_off > (uint64_t)sb.st_size ||
	    data_size > (uint64_t)sb.st_size - data_off)
		return PDF_ERR(pdfe_truncated);
	err = rs_io_pread_all(fd, sec, sizeof(sec), data_off + data_size + 16 * idx);
	if (err)
		return err == -EIO ? PDF_ERR(pdfe_truncated) : err;
	off = le64(sec);
	size = le64(sec + 8);
	if (size > ARCHIVE_MAX_SECTION)
		return PDF_ERR(pdfe_format);
	if (off > (uint64_t)sb.st_size || size > (uint64_t)sb.st_size - off)
		return PDF_ERR(pdfe_truncated);
	if (size) {
		uint8_t *p = malloc((size_t)size);

		if (!p)
			return -ENOMEM;
		err = rs_io_pread_all(fd, p, (size_t)size, off);
		if (!err)
			pdf_buf_add(out, p, (size_t)size);
		free(p);
		if (err)
			return err;
	}
	return out->err;
}

/* Walk the section's entries (perf's struct perf_record_header_build_id:
 * header, pid, 24 id bytes, a NUL-padded name). */
static int archive_ids(struct tar *t, int dirfd, const struct pdf_buf *sec,
		       struct pdf_archive_stats *st, pdf_archive_fn fn,
		       void *arg)
{
	size_t at = 0;

	while (at + 8 <= sec->len) {
		const uint8_t *e = sec->data + at;
		uint16_t misc = (uint16_t)(e[4] | e[5] << 8);
		uint16_t size = (uint16_t)(e[6] | e[7] << 8);
		size_t id_len = PDF_BUILD_ID_SIZE, name_max;
		char name[PATH_MAX];
		int err;

		if (size < 36 || size > sec->len - at)
			return PDF_ERR(pdfe_format);
		if (misc & PDF_MISC_BUILD_ID_SIZE) {
			id_len = e[32];
			if (id_len < 1 || id_len > PDF_BUILD_ID_SIZE)
				return PDF_ERR(pdfe_format);
		}
		name_max = (size_t)size - 36;
		if (name_max >= sizeof(name))
			name_max = sizeof(name) - 1;
		memcpy(name, e + 36, name_max);
		name[name_max] = 0;
		err = archive_one(t, dirfd, name, e + 12, id_len, st, fn, arg);
		if (err)
			return err;
		at += size;
	}
	return at == sec->len ? 0 : PDF_ERR(pdfe_format);
}

/* A ringside file's names are in its own cache, beside it; perf's cache
 * is for perf's files (docs/perfdata.md, "Where guest names go"). */
static int default_dir(const char *perf_data, char *dir, size_t size)
{
	struct pdf_reader *r;
	int err = pdf_reader_open(&r, perf_data);

	if (!err)
		pdf_reader_close(r);
	if (err == PDF_ERR(pdfe_not_ringside))
		return pdf_cache_perf_dir(dir, size);
	return pdf_cache_dir_of(perf_data, dir, size);
}

int pdf_archive_write(const char *perf_data, const char *tar_path,
		      const char *buildid_dir, struct pdf_archive_stats *st,
		      pdf_archive_fn fn, void *arg)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	uint8_t end[2 * TAR_BLOCK];
	struct tar t = { .fd = -1 };
	struct pdf_buf sec;
	int in, dirfd = -1, err;

	if (!perf_data || !tar_path || !st)
		return PDF_ERR(pdfe_invalid);
	memset(st, 0, sizeof(*st));
	if (buildid_dir) {
		if (strlen(buildid_dir) >= sizeof(dir))
			return -ENAMETOOLONG;
		strcpy(dir, buildid_dir);
	} else {
		err = default_dir(perf_data, dir, sizeof(dir));
		if (err)
			return err;
	}
	in = open(perf_data, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	pdf_buf_init(&sec);
	err = read_build_ids(in, &sec);
	close(in);
	if (err)
		goto out;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 && errno != ENOENT) {
		err = -errno;
		goto out;
	}
	t.fd = pdf_aside_open(tar_path, tmp, sizeof(tmp));
	if (t.fd < 0) {
		err = t.fd;
		goto out;
	}
	err = archive_ids(&t, dirfd, &sec, st, fn, arg);
	if (!err) {
		memset(end, 0, sizeof(end));
		err = rs_io_write_all(t.fd, end, sizeof(end));
	}
	if (err)
		pdf_aside_discard(t.fd, tmp);
	else
		err = pdf_aside_commit(t.fd, tmp, tar_path);
out:
	if (dirfd >= 0)
		close(dirfd);
	pdf_buf_fini(&sec);
	return err;
}
