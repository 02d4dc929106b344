/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
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

/* The agent takes markers at its passes; a sender that waits for one
 * wakes it through the wake socket beside the one @fd is connected to
 * (mark_wire.h).  An agent without one wakes for every marker anyway. */
static void wake_agent(int fd)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	uint32_t magic = RS_MARK_MAGIC;
	size_t n;
	int w;

	memset(&sa, 0, sizeof(sa));
	if (getpeername(fd, (struct sockaddr *)&sa, &len) ||
	    sa.sun_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path))
		return;
	n = strnlen(sa.sun_path, len - offsetof(struct sockaddr_un, sun_path));
	if (!n || n + sizeof(RS_MARK_WAKE_SUFFIX) > sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path + n, RS_MARK_WAKE_SUFFIX, sizeof(RS_MARK_WAKE_SUFFIX));
	w = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (w < 0)
		return;
	(void)!sendto(w, &magic, sizeof(magic), MSG_DONTWAIT,
		      (const struct sockaddr *)&sa, sizeof(sa));
	close(w);
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
	if (!(flags & RS_MARK_SYNC))
		return 0;
	wake_agent(m->fd);
	return wait_ack(m->fd);
}

void rs_mark_close(struct rs_marker *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	m->bound = 0;
}
