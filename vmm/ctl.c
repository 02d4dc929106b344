// SPDX-License-Identifier: MIT
/*
 * What both ends of the control socket share (ringside/vmm_control.h):
 * the wire encoding of a reply (header, payload and descriptors in one
 * sendmsg), used by the VMM's control thread and by stand-ins that speak
 * for a VMM (tests); and the one translation between the REGION payload
 * (struct rs_ctl_region) and the ring library's struct rs_region_params,
 * for the VMM that answers REGION and for the clients that open the
 * region by it.
 */
#include <errno.h>
#include <stddef.h>
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

/* The layout fields struct rs_ctl_region and struct rs_region_params share,
 * by name: one list for both directions. */
#define REGION_FIELDS(X) \
	X(nr_rings) X(data_pages) X(aux_pages) X(data_mode) X(aux_mode) \
	X(data_watermark) X(aux_watermark) X(trace_mask) X(sample_type) \
	X(sample_freq) X(doorbell_addr) X(sideband_pages) X(features)

#define SAME_SIZE(f) \
	_Static_assert(sizeof(((struct rs_ctl_region *)0)->f) == \
		       sizeof(((struct rs_region_params *)0)->f), #f);
REGION_FIELDS(SAME_SIZE)

#define FIELD(f) { offsetof(struct rs_ctl_region, f), \
		   offsetof(struct rs_region_params, f), \
		   sizeof(((struct rs_region_params *)0)->f) },
static const struct {
	uint8_t r, p, size;       /* offsets in either struct, bytes */
} fields[] = { REGION_FIELDS(FIELD) };
#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

int vmm_ctl_region_from_params(struct rs_ctl_region *r,
			       const struct rs_region_params *p,
			       uint64_t region_size)
{
	if (!r || !p)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->region_size = region_size;
	for (size_t i = 0; i < NR_FIELDS; i++) {
		size_t end = (size_t)fields[i].p + fields[i].size;

		/* A caller built against the first version of the struct
		 * (RS_REGION_PARAMS_SIZE_V1) has no sideband nor features:
		 * what lies past its size is not read. */
		if (end <= p->size || end <= RS_REGION_PARAMS_SIZE_V1)
			memcpy((uint8_t *)r + fields[i].r,
			       (const uint8_t *)p + fields[i].p, fields[i].size);
	}
	return 0;
}

int vmm_ctl_region_to_params(const struct rs_ctl_region *r,
			     struct rs_region_params *p)
{
	uint64_t size;

	if (!r || !p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	for (size_t i = 0; i < NR_FIELDS; i++)
		memcpy((uint8_t *)p + fields[i].p,
		       (const uint8_t *)r + fields[i].r, fields[i].size);
	p->features &= RS_FEATURES_KNOWN;
	/* A peer's answer: the ring library judges the geometry, and the
	 * region it needs must fit the one the peer says it made. */
	if (rs_region_size(p, &size) < 0 || size > r->region_size)
		return -EPROTO;
	return 0;
}
