/* SPDX-License-Identifier: MIT */
/*
 * The ringside VMM control socket: how a separate process (ringside record,
 * ringside snapshot, a test) gets the trace region and asks for stable
 * snapshots.  docs/vmm.md describes the protocol; this header is its
 * definition.
 *
 * A unix SOCK_SEQPACKET socket: every request is one struct rs_ctl_msg,
 * every reply one struct rs_ctl_reply followed by reply.len payload bytes,
 * in one packet.  Requests on one connection are answered in order.
 *
 *   RS_CTL_HELLO   payload struct rs_ctl_hello; SCM_RIGHTS carries the
 *                  region memfd, then one doorbell eventfd per ring
 *   RS_CTL_PAUSE   reply once no vCPU runs guest code (nests)
 *   RS_CTL_RESUME  undo one PAUSE of this connection
 *   RS_CTL_STATUS  arg = vCPU; payload struct rs_vmm_vcpu_info
 *
 * A connection that closes with pauses outstanding has them undone, so a
 * crashed snapshot tool cannot leave the guest frozen.
 */
#ifndef RINGSIDE_VMM_CONTROL_H
#define RINGSIDE_VMM_CONTROL_H

#include <stdint.h>

#include "ringside/vmm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_CTL_MAGIC   0x4d565352u  /* "RSVM" */
#define RS_CTL_VERSION 1u

enum rs_ctl_op {
	RS_CTL_HELLO  = 1,
	RS_CTL_PAUSE  = 2,
	RS_CTL_RESUME = 3,
	RS_CTL_STATUS = 4,
};

struct rs_ctl_msg {
	uint32_t magic;
	uint16_t version;
	uint16_t op;        /* enum rs_ctl_op */
	uint32_t arg;
	uint32_t reserved;
};
_Static_assert(sizeof(struct rs_ctl_msg) == 16, "rs_ctl_msg layout");

struct rs_ctl_reply {
	uint32_t magic;
	uint16_t version;
	uint16_t op;        /* the request's op */
	int32_t status;     /* 0 or -errno */
	uint32_t len;       /* payload bytes that follow */
};
_Static_assert(sizeof(struct rs_ctl_reply) == 16, "rs_ctl_reply layout");

struct rs_ctl_hello {
	uint64_t region_size;
	uint64_t region_gpa;
	uint32_t nr_rings;
	uint32_t nr_vcpus;
	uint32_t nr_fds;        /* 1 + nr_rings */
	uint32_t reserved0;
	uint64_t tsc_khz;
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct rs_ctl_hello) == 64, "rs_ctl_hello layout");

#define RS_CTL_MAX_FDS (1 + RS_MAX_RINGS)

/* ---- client side ---------------------------------------------------------- */

/* Connect to the VMM listening on @path.  Returns the socket fd or -errno. */
int rs_vmm_client_connect(const char *path);

/*
 * HELLO: fill @hello and store up to @max_fds received fds in @fds (the
 * region memfd first).  Returns the number of fds received; the caller owns
 * them.  -EPROTO on a malformed reply.
 */
int rs_vmm_client_hello(int sock, struct rs_ctl_hello *hello, int *fds,
			unsigned max_fds);

int rs_vmm_client_pause(int sock);
int rs_vmm_client_resume(int sock);
int rs_vmm_client_status(int sock, uint32_t vcpu,
			 struct rs_vmm_vcpu_info *info);

/* Map the region memfd read-write (consumers write data_tail).  Its size
 * comes from the fd, not from the peer.  -errno. */
int rs_vmm_client_map(int region_fd, void **mem, uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_VMM_CONTROL_H */
