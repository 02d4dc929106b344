/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "pdf_io.h"

enum io_op { IO_WRITE, IO_PWRITE, IO_PREAD };

/* The one loop of the three: EINTR retried, a short transfer continued,
 * none at all (the end of the file) -EIO.  Writes never write through @p
 * (their callers' buffers are const). */
static int io_all(enum io_op op, int fd, char *p, size_t len, uint64_t offset)
{
	while (len) {
		ssize_t n;

		if (op == IO_PREAD)
			n = pread(fd, p, len, (off_t)offset);
		else if (op == IO_PWRITE)
			n = pwrite(fd, p, len, (off_t)offset);
		else
			n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

int rs_io_write_all(int fd, const void *buf, size_t len)
{
	return io_all(IO_WRITE, fd, (char *)(uintptr_t)buf, len, 0);
}

int rs_io_pwrite_all(int fd, const void *buf, size_t len, uint64_t offset)
{
	return io_all(IO_PWRITE, fd, (char *)(uintptr_t)buf, len, offset);
}

int rs_io_pread_all(int fd, void *buf, size_t len, uint64_t offset)
{
	return io_all(IO_PREAD, fd, buf, len, offset);
}
