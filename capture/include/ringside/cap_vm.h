/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_VM_H
#define RINGSIDE_CAP_VM_H

#include <stdint.h>

#include "ringside/vmm_control.h"

/*
 * A ringside VMM's control socket as a source of a region (`--vm SOCKET`):
 * HELLO hands over the region memfd and one doorbell eventfd per ring,
 * PAUSE/RESUME bracket a stable snapshot, STATUS says whether any vCPU
 * still runs.  The protocol is abi/include/ringside/vmm_control.h.
 */

struct cap_vm;

/*
 * Connect to @path and say HELLO, into *@vp (cap_vm_close frees it; NULL
 * on failure).  -errno: -ENOMEM, -ENOENT (no such path),
 * -ECONNREFUSED (nobody listens there, or it is not a socket), -EPROTOTYPE
 * (a socket of another kind), -ETIMEDOUT (no answer), -EPROTO (the peer
 * does not speak the ringside VMM protocol), -ECONNRESET (it hung up).
 */
int cap_vm_open(struct cap_vm **vp, const char *path);

/* What HELLO handed over: the vCPUs, the region (an open file description
 * of this process's own), one doorbell eventfd per ring (@i's, or -1 past
 * the last), and the socket itself, which hangs up when the VMM goes (a
 * recorder wakes on both: cap_recorder_add_wake). */
uint32_t cap_vm_nr_vcpus(const struct cap_vm *v);
int cap_vm_region_fd(const struct cap_vm *v);
uint32_t cap_vm_nr_doorbells(const struct cap_vm *v);
int cap_vm_doorbell(const struct cap_vm *v, uint32_t i);
int cap_vm_socket(const struct cap_vm *v);

/* PAUSE: returns once no vCPU runs guest code.  RESUME undoes one.  -errno. */
int cap_vm_pause(struct cap_vm *v);
int cap_vm_resume(struct cap_vm *v);

/* REGION: how the VMM laid the region out, and its header page guard.
 * -errno; -EOPNOTSUPP from a VMM that predates it. */
int cap_vm_region(struct cap_vm *v, struct rs_ctl_region *r);

/* vCPU @id's state, exits and the guest's report.  -errno. */
int cap_vm_status(struct cap_vm *v, uint32_t id,
		  struct rs_vmm_vcpu_info *info);

/* 1 when every vCPU has stopped for good (halted, crashed, failed, stopped),
 * 0 while one still runs or has not started, -errno. */
int cap_vm_stopped(struct cap_vm *v);

/* Undo outstanding pauses, close everything, free @v.  Accepts NULL. */
void cap_vm_close(struct cap_vm *v);

#endif /* RINGSIDE_CAP_VM_H */
