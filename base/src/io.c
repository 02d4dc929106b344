/* SPDX-License-Identifier: MIT */
/* Whole writes and reads, and a file's commit (ringside/io.h). */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "ringside/io.h"

enum how { WRITE, SEND, PWRITE, PREAD };

/* Every byte of @len at @buf (from @off for PWRITE and PREAD), over short
 * transfers and EINTR; the bytes moved are added to *@done (unless NULL)
 * as they go.  Only PREAD writes into @buf. */
static int all(int fd, const void *buf, size_t len, uint64_t off,
	       enum how how, size_t *done)
{
	char *p = (char *)(uintptr_t)buf;

	while (len) {
		ssize_t n;

		switch (how) {
		case WRITE: n = write(fd, p, len); break;
		case SEND: n = send(fd, p, len, MSG_NOSIGNAL); break;
		case PWRITE: n = pwrite(fd, p, len, (off_t)off); break;
		default: n = pread(fd, p, len, (off_t)off); break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
		if (done)
			*done += (size_t)n;
	}
	return 0;
}

int rs_io_write_all(int fd, const void *buf, size_t len)
{
	return all(fd, buf, len, 0, WRITE, NULL);
}

int rs_io_send_all(int fd, const void *buf, size_t len)
{
	return all(fd, buf, len, 0, SEND, NULL);
}

int rs_io_pwrite_all(int fd, const void *buf, size_t len, uint64_t offset)
{
	return all(fd, buf, len, offset, PWRITE, NULL);
}

int rs_io_pread_all(int fd, void *buf, size_t len, uint64_t offset)
{
	return all(fd, buf, len, offset, PREAD, NULL);
}

int rs_io_send_some(int fd, const void *buf, size_t len, size_t *off)
{
	return all(fd, (const char *)buf + *off, len - *off, 0, SEND, off);
}

ssize_t rs_io_recv_some(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(fd, buf, len, 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int rs_io_commit(int fd, const char *tmp, const char *path)
{
	int err = 0;

	if (fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
