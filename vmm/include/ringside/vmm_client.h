/* SPDX-License-Identifier: MIT */
/*
 * The client side of the ringside VMM control socket (vmm/client.c),
 * for a process other than the VMM's: ringside record and snapshot --vm,
 * tests.  The protocol itself is ringside/vmm_control.h.
 */
#ifndef RINGSIDE_VMM_CLIENT_H
#define RINGSIDE_VMM_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ringside/vmm.h"
#include "ringside/vmm_control.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The server's side of the wire (vmm/ctl.c), for the VMM and for
 * stand-ins that speak for one: send @niov buffers with up to
 * VMM_CTL_SEND_MAX_FDS descriptors; send one reply (header, @len bytes of
 * @payload, up to RS_CTL_MAX_FDS descriptors).  0 or -errno (-EINVAL: too
 * many descriptors).
 */
#define VMM_CTL_SEND_MAX_FDS (RS_CTL_MAX_FDS + 2)
int vmm_ctl_sendmsg(int fd, struct iovec *iov, size_t niov,
		       const int *fds, unsigned nfds);
int vmm_ctl_reply(int fd, uint16_t op, int32_t status, const void *payload,
		     uint32_t len, const int *fds, unsigned nfds);

/*
 * The REGION payload and the ring library's struct rs_region_params
 * (vmm/ctl.c), the one translation both sides of the socket use.
 *
 * From params: @r gets @p's layout fields and @region_size; the header
 * guard's fields (header_guarded, header_refused, header_applied) are 0,
 * and so is sideband_pages when @p->size does not reach it (a caller
 * built against RS_REGION_PARAMS_SIZE_V1).  Nothing is judged.  -EINVAL
 * (NULL).
 *
 * To params: @p (size = sizeof(*p)) from @r's layout fields, judged as a
 * peer's answer.  -EPROTO when rs_region_size() refuses the geometry or
 * needs more than @r->region_size (@p is filled all the same); -EINVAL
 * (NULL).
 */
int vmm_ctl_region_from_params(struct rs_ctl_region *r,
				  const struct rs_region_params *p,
				  uint64_t region_size);
int vmm_ctl_region_to_params(const struct rs_ctl_region *r,
			     struct rs_region_params *p);

/*
 * HELLO, BELLS, PAUSE, RESUME, STATUS and REGION (below) are each one request
 * and one reply.  A signal that interrupts the wait (a handler installed
 * without SA_RESTART, such as a CLI's SIGINT handler) does not end a
 * call: it sends its request once and goes on waiting for the reply, so
 * -EINTR is never returned and the caller looks at its own flag once the
 * call is back.  A socket with
 * SO_RCVTIMEO or SO_SNDTIMEO bounds each wait; a wait resumed after a
 * signal starts that timeout again (-EAGAIN when it runs out).
 */

/* Connect to the VMM listening on @path.  Returns the socket fd or -errno. */
int vmm_client_connect(const char *path);

/*
 * HELLO: fill @hello and store up to @max_fds received fds in @fds (the
 * region memfd first).  Returns the number of fds received; the caller owns
 * them.  -EPROTO on a malformed reply.
 */
int vmm_client_hello(int sock, struct rs_ctl_hello *hello, int *fds,
			unsigned max_fds);

/*
 * Raise this process's soft RLIMIT_NOFILE to @need descriptors if it is
 * lower (a VMM or a consumer of 1024 rings holds an eventfd per ring and
 * the default soft limit is 1024).  0, -EMFILE (the hard limit is lower),
 * -errno.
 */
int vmm_client_nofile(uint32_t need);

/*
 * BELLS: the doorbells of rings @first .. (at most RS_CTL_BATCH, those
 * HELLO had no room for) into @fds, their count in @bells.  Returns the
 * number of fds received, -ERANGE (@first is not a ring), -EPROTO.
 */
int vmm_client_bells(int sock, uint32_t first, struct rs_ctl_bells *bells,
		     int *fds, unsigned max_fds);

int vmm_client_pause(int sock);
int vmm_client_resume(int sock);
int vmm_client_status(int sock, uint32_t vcpu,
			 struct rs_vmm_vcpu_info *info);
/* REGION: the layout and the header guard.  -errno, -EOPNOTSUPP from a VMM
 * that predates it. */
int vmm_client_region(int sock, struct rs_ctl_region *region);

/* Map the region memfd read-write (consumers write data_tail).  Its size
 * comes from the fd, not from the peer.  -errno. */
int vmm_client_map(int region_fd, void **mem, uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_VMM_CLIENT_H */
