// SPDX-License-Identifier: MIT
/* The control socket's client side (ringside/vmm_client.h; the protocol is
 * ringside/vmm_control.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ringside/vmm_client.h"

int vmm_client_connect(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	if (!path || strlen(path) >= sizeof(addr.sun_path))
		return -EINVAL;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A connect waits while the server's backlog is full; a signal
	 * (the CLI's SIGINT handler) breaks that wait with EINTR.  A Unix
	 * socket's connect either completed or left the socket unconnected,
	 * so it is simply made again. */
	do
		ret = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	while (ret < 0 && errno == EINTR);
	if (ret < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static void close_fds(const struct msghdr *msg)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm;
	     cm = CMSG_NXTHDR((struct msghdr *)(uintptr_t)msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	}
}

/*
 * A signal handled in this process (the CLI's SIGINT handler, installed
 * without SA_RESTART) breaks a blocked send or recvmsg with EINTR.  Both
 * are retried: on a SOCK_SEQPACKET socket a request is queued whole or
 * not at all, so an interrupted send sent nothing and the request cannot
 * go out twice; an interrupted recvmsg took nothing, so the reply is
 * still read whole.  The caller sees its flag once the call returns.
 */
static ssize_t send_request(int sock, const struct rs_ctl_msg *m)
{
	ssize_t n;

	do
		n = send(sock, m, sizeof(*m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

static ssize_t recv_reply(int sock, struct msghdr *msg)
{
	ssize_t n;

	do
		n = recvmsg(sock, msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	return n;
}

/*
 * One request, one reply.  The payload must be exactly @len bytes.  Any
 * fds go to @fds (at most @max_fds, the rest are closed); returns their
 * number, or the reply's negative status, or -EPROTO.
 */
static int call(int sock, uint16_t op, uint32_t arg, void *payload,
		uint32_t len, int *fds, unsigned max_fds)
{
	struct rs_ctl_msg m = { RS_CTL_MAGIC, RS_CTL_VERSION, op, arg, 0 };
	struct rs_ctl_reply rep;
	struct iovec iov[2] = {
		{ .iov_base = &rep, .iov_len = sizeof(rep) },
		{ .iov_base = payload, .iov_len = len },
	};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * RS_CTL_MAX_FDS)];
	} cbuf;
	struct msghdr msg = {
		.msg_iov = iov, .msg_iovlen = 2,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct cmsghdr *cm;
	unsigned got = 0;
	ssize_t n;

	if (send_request(sock, &m) != sizeof(m))
		return -errno;
	n = recv_reply(sock, &msg);
	if (n < 0)
		return -errno;
	cm = CMSG_FIRSTHDR(&msg);
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || n < (ssize_t)sizeof(rep) ||
	    rep.magic != RS_CTL_MAGIC || rep.op != op ||
	    (rep.status == 0 && (rep.len != len || (size_t)n != sizeof(rep) + len)) ||
	    (cm && (!fds || cm->cmsg_type != SCM_RIGHTS))) {
		close_fds(&msg);
		return n == 0 ? -ECONNRESET : -EPROTO;
	}
	if (rep.status < 0) {
		close_fds(&msg);
		return rep.status;
	}
	if (cm) {
		got = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned i = 0; i < got; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (i < max_fds)
				fds[i] = fd;
			else
				close(fd);
		}
	}
	return (int)(got < max_fds ? got : max_fds);
}

int vmm_client_nofile(uint32_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
			return -EMFILE;
		rl.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			return -errno;
	}
	return 0;
}

int vmm_client_bells(int sock, uint32_t first, struct rs_ctl_bells *bells,
		     int *fds, unsigned max_fds)
{
	int n;

	if (!bells || !fds)
		return -EINVAL;
	n = call(sock, RS_CTL_BELLS, first, bells, sizeof(*bells), fds, max_fds);
	if (n >= 0 && (bells->first != first || bells->count != (uint32_t)n ||
		       bells->count > RS_CTL_BATCH)) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		return -EPROTO;
	}
	return n;
}

int vmm_client_hello(int sock, struct rs_ctl_hello *hello, int *fds,
			unsigned max_fds)
{
	if (!hello || !fds)
		return -EINVAL;
	return call(sock, RS_CTL_HELLO, 0, hello, sizeof(*hello), fds, max_fds);
}

int vmm_client_pause(int sock)
{
	return call(sock, RS_CTL_PAUSE, 0, NULL, 0, NULL, 0);
}

int vmm_client_resume(int sock)
{
	return call(sock, RS_CTL_RESUME, 0, NULL, 0, NULL, 0);
}

int vmm_client_status(int sock, uint32_t vcpu, struct rs_vmm_vcpu_info *info)
{
	if (!info)
		return -EINVAL;
	return call(sock, RS_CTL_STATUS, vcpu, info, sizeof(*info), NULL, 0);
}

int vmm_client_region(int sock, struct rs_ctl_region *region)
{
	if (!region)
		return -EINVAL;
	return call(sock, RS_CTL_REGION, 0, region, sizeof(*region), NULL, 0);
}

int vmm_client_map(int region_fd, void **mem, uint64_t *size)
{
	struct stat st;
	void *p;

	if (!mem || !size)
		return -EINVAL;
	if (fstat(region_fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0)
		return -EINVAL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 region_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*mem = p;
	*size = (uint64_t)st.st_size;
	return 0;
}
