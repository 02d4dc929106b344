/* SPDX-License-Identifier: MIT */
/*
 * The client side of the ringside VMM control socket (vmm/control_client.c),
 * for a process other than the VMM's: ringside record and snapshot --vm,
 * tests.  The protocol itself is ringside/vmm_control.h.
 */
#ifndef RINGSIDE_VMM_CLIENT_H
#define RINGSIDE_VMM_CLIENT_H

#include <stdint.h>

#include "ringside/vmm.h"
#include "ringside/vmm_control.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* REGION: the layout and the header guard.  -errno, -EOPNOTSUPP from a VMM
 * that predates it. */
int rs_vmm_client_region(int sock, struct rs_ctl_region *region);

/* Map the region memfd read-write (consumers write data_tail).  Its size
 * comes from the fd, not from the peer.  -errno. */
int rs_vmm_client_map(int region_fd, void **mem, uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_VMM_CLIENT_H */
