/* SPDX-License-Identifier: MIT */
/*
 * Files written aside and renamed into place (ringside/perfdata/aside.h):
 * a random name in the file's own directory, O_EXCL|O_NOFOLLOW, then
 * fsync and rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ringside/perfdata.h"

#include "pdf_io.h"

/* Six letters or digits, unpredictable to another local user: the
 * kernel's random bytes, or (without them) the clock and pid mixed. */
static void aside_name(char *x)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	struct timespec ts;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t v;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
		    ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)x;
		v *= 0x9e3779b97f4a7c15ull;
		memcpy(r, &v, sizeof(r));
	}
	for (int i = 0; i < 6; i++)
		x[i] = set[r[i] % (sizeof(set) - 1)];
}

int pdf_aside_open(const char *path, char *tmp, size_t size)
{
	size_t n;
	int err = -EEXIST;

	if (!path || !tmp || !*path)
		return -EINVAL;
	n = strlen(path);
	if (size < n + sizeof(PDF_ASIDE_SUFFIX)) {
		if (size)
			tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	for (int tries = 0; tries < 100 && err == -EEXIST; tries++) {
		int fd;

		memcpy(tmp, path, n);
		memcpy(tmp + n, PDF_ASIDE_SUFFIX, sizeof(PDF_ASIDE_SUFFIX));
		aside_name(tmp + n + sizeof(PDF_ASIDE_SUFFIX) - 7);
		/* a name nobody had: never a file or link someone planted */
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
		if (fd >= 0)
			return fd;
		err = -errno;
	}
	tmp[0] = '\0';      /* no name of ours to remove */
	return err;
}

int pdf_aside_commit(int fd, const char *tmp, const char *path)
{
	/* rename replaces whatever @path is, a link too, never its target */
	return rs_io_commit(fd, tmp, path);
}

void pdf_aside_discard(int fd, const char *tmp)
{
	if (fd >= 0)
		close(fd);
	if (tmp && *tmp)
		unlink(tmp);
}

int pdf_aside_write(const char *path, const void *buf, size_t len)
{
	char tmp[PATH_MAX];
	int fd = pdf_aside_open(path, tmp, sizeof(tmp));
	int err;

	if (fd < 0)
		return fd;
	err = rs_io_write_all(fd, buf, len);
	if (err) {
		pdf_aside_discard(fd, tmp);
		return err;
	}
	return pdf_aside_commit(fd, tmp, path);
}
