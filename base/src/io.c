/* SPDX-License-Identifier: MIT */
/* Whole writes (ringside/io.h). */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ringside/io.h"

static int all(int fd, const void *buf, size_t len, int sock)
{
	const char *p = buf;

	while (len) {
		ssize_t n = sock ? send(fd, p, len, MSG_NOSIGNAL) :
				   write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rs_io_write_all(int fd, const void *buf, size_t len)
{
	return all(fd, buf, len, 0);
}

int rs_io_send_all(int fd, const void *buf, size_t len)
{
	return all(fd, buf, len, 1);
}
