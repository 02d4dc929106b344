/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ringside/mark.h"

int rs_mark_open(struct rs_marker *m, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	sa_family_t autobind = AF_UNIX;

	m->fd = -1;
	m->bound = 0;
	if (!path)
		path = getenv(RS_MARK_ENV);
	if (!path || !*path)
		path = RS_MARK_SOCKET;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	m->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (m->fd < 0)
		return -errno;
	/* An abstract address of the kernel's choosing, so that the agent
	 * can answer RS_MARK_SYNC. */
	m->bound = !bind(m->fd, (const struct sockaddr *)&autobind,
			 sizeof(autobind));
	if (connect(m->fd, (const struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		rs_mark_close(m);
		return err;
	}
	return 0;
}

static int wait_ack(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint32_t ack;
	ssize_t n;

	if (poll(&p, 1, 1000) <= 0)
		return -ETIMEDOUT;
	n = recv(fd, &ack, sizeof(ack), 0);
	if (n < 0)
		return -errno;
	return n == sizeof(ack) && ack == RS_MARK_ACK ? 0 : -EPROTO;
}

int rs_mark_send(struct rs_marker *m, uint32_t id, const char *text,
		 uint32_t len, uint32_t flags)
{
	struct rs_mark_msg msg = {
		.magic = RS_MARK_MAGIC,
		.id = id,
		.tid = (uint32_t)syscall(SYS_gettid),
		.flags = flags,
	};
	struct iovec iov[2];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct timespec ts;

	if (m->fd < 0)
		return -EBADF;
	if (id >= RS_MARK_ID_AGENT || (!text && len))
		return -EINVAL;
	if ((flags & RS_MARK_SYNC) && !m->bound)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	msg.time = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	msg.len = len < RS_MARK_TEXT_MAX ? len : RS_MARK_TEXT_MAX;
	iov[0].iov_base = &msg;
	iov[0].iov_len = sizeof(msg);
	iov[1].iov_base = (void *)(uintptr_t)text;
	iov[1].iov_len = msg.len;
	if (sendmsg(m->fd, &mh, 0) < 0)
		return -errno;
	return (flags & RS_MARK_SYNC) ? wait_ack(m->fd) : 0;
}

void rs_mark_close(struct rs_marker *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	m->bound = 0;
}
