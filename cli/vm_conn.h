/* SPDX-License-Identifier: MIT */
/*
 * A ringside VMM's control socket as a source of a region (`--vm SOCKET`):
 * HELLO hands over the region memfd and one doorbell eventfd per ring,
 * PAUSE/RESUME bracket a stable snapshot, STATUS says whether any vCPU
 * still runs.  The protocol is abi/include/ringside/vmm_control.h.
 */
#ifndef RINGSIDE_CLI_VM_CONN_H
#define RINGSIDE_CLI_VM_CONN_H

#include <stdint.h>

#include "ringside/vmm_client.h"

struct vm_conn {
	int sock;
	int region_fd;            /* an open file description of our own */
	uint32_t nr_rings;
	uint32_t nr_vcpus;
	uint32_t nr_doorbells;    /* doorbell[i] is ring i's eventfd */
	int doorbell[RS_MAX_RINGS];
	uint64_t tsc_khz;
	uint32_t pauses;          /* outstanding PAUSEs */
};

/*
 * Connect to @path and say HELLO.  -errno: -ENOENT (no such path),
 * -ECONNREFUSED (nobody listens there, or it is not a socket), -EPROTOTYPE
 * (a socket of another kind), -ETIMEDOUT (no answer), -EPROTO (the peer
 * does not speak the ringside VMM protocol), -ECONNRESET (it hung up).
 */
int vm_conn_open(struct vm_conn *v, const char *path);

/* PAUSE: returns once no vCPU runs guest code.  RESUME undoes one.  -errno. */
int vm_conn_pause(struct vm_conn *v);
int vm_conn_resume(struct vm_conn *v);

/* REGION: how the VMM laid the region out, and its header page guard.
 * -errno; -EOPNOTSUPP from a VMM that predates it. */
int vm_conn_region(struct vm_conn *v, struct rs_ctl_region *r);

/* vCPU @id's state, exits and the guest's report.  -errno. */
int vm_conn_status(struct vm_conn *v, uint32_t id,
		   struct rs_vmm_vcpu_info *info);

/* 1 when every vCPU has stopped for good (halted, crashed, failed, stopped),
 * 0 while one still runs or has not started, -errno. */
int vm_conn_stopped(struct vm_conn *v);

/* Undo outstanding pauses, close everything.  Accepts NULL. */
void vm_conn_close(struct vm_conn *v);

#endif /* RINGSIDE_CLI_VM_CONN_H */
