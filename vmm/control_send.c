// SPDX-License-Identifier: MIT
/*
 * The control socket's wire encoding of a reply (ringside/vmm_control.h):
 * header, payload and descriptors in one sendmsg.  Shared by the VMM's
 * control thread and by stand-ins that speak for a VMM (tests).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "ringside/vmm_client.h"

int vmm_ctl_sendmsg(int fd, struct iovec *iov, size_t niov,
		       const int *fds, unsigned nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * VMM_CTL_SEND_MAX_FDS)];
	} cbuf;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = niov };

	if (nfds > VMM_CTL_SEND_MAX_FDS)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	return sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int vmm_ctl_reply(int fd, uint16_t op, int32_t status, const void *payload,
		     uint32_t len, const int *fds, unsigned nfds)
{
	struct rs_ctl_reply rep = {
		.magic = RS_CTL_MAGIC, .version = RS_CTL_VERSION,
		.op = op, .status = status, .len = len,
	};
	struct iovec iov[2] = {
		{ .iov_base = &rep, .iov_len = sizeof(rep) },
		{ .iov_base = (void *)(uintptr_t)payload, .iov_len = len },
	};

	if (nfds > RS_CTL_MAX_FDS)
		return -EINVAL;
	return vmm_ctl_sendmsg(fd, iov, len ? 2 : 1, fds, nfds);
}
