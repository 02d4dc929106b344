/* SPDX-License-Identifier: MIT */
/*
 * The ringside VMM control socket: how a separate process (ringside record,
 * ringside snapshot, a test) gets the trace region and asks for stable
 * snapshots.  docs/vmm.md describes the protocol; this header is its
 * definition (the client calls are the vmm library's: ringside/vmm_client.h).
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
 *   RS_CTL_REGION  payload struct rs_ctl_region: how the VMM laid the
 *                  region out (a client opens it by that, not by the
 *                  guest-writable header) and the header page's guard
 *
 * A connection that closes with pauses outstanding has them undone, so a
 * crashed snapshot tool cannot leave the guest frozen.
 */
#ifndef RINGSIDE_VMM_CONTROL_H
#define RINGSIDE_VMM_CONTROL_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/guest_boot.h"

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
	RS_CTL_REGION = 5,
	RS_CTL_BELLS  = 6,  /* arg: first ring; the doorbells HELLO left out */
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
	uint32_t nr_fds;        /* fds of this reply: 1 + the doorbells of
				 * rings 0 .. min(nr_rings, RS_CTL_BATCH) - 1 */
	uint32_t reserved0;
	uint64_t tsc_khz;
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct rs_ctl_hello) == 64, "rs_ctl_hello layout");

/* Descriptors of one reply at most: HELLO's region memfd and the
 * doorbells of the first RS_CTL_BATCH rings; BELLS's next RS_CTL_BATCH
 * (SCM_MAX_FD, 253, bounds one message: a region of 1024 rings has its
 * doorbells in batches). */
#define RS_CTL_BATCH   48u
#define RS_CTL_MAX_FDS (1 + RS_CTL_BATCH)

/* RS_CTL_BELLS reply payload: doorbells of rings first .. first + count
 * - 1 in SCM_RIGHTS, count <= RS_CTL_BATCH.  -ERANGE: first is not a
 * ring. */
struct rs_ctl_bells {
	uint32_t first;
	uint32_t count;
	uint64_t reserved;
};
_Static_assert(sizeof(struct rs_ctl_bells) == 16, "rs_ctl_bells layout");

/*
 * RS_CTL_REGION payload.  The first block is the VMM's struct
 * rs_region_params, field for field (the ring library's
 * rs_region_layout(mem, region_size, params) made the region); the second
 * is the guard on the header page (docs/abi.md, "The header page guard").
 */
struct rs_ctl_region {
	uint64_t region_size;
	uint32_t nr_rings;
	uint32_t data_pages;
	uint32_t aux_pages;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint32_t data_watermark;
	uint32_t aux_watermark;
	uint32_t sideband_pages;
	uint64_t trace_mask;
	uint64_t sample_type;
	uint64_t sample_freq;
	uint64_t doorbell_addr;
	uint32_t header_guarded;   /* 1: the guest cannot write the header
				    * page but through the VMM */
	uint32_t features;         /* config.features (enum rs_feature) */
	uint64_t header_refused;   /* guest writes to host-only header bytes,
				    * dropped (all vCPUs) */
	uint64_t header_applied;   /* guest writes to its own header fields,
				    * applied by the VMM */
	uint64_t reserved[4];
};
_Static_assert(sizeof(struct rs_ctl_region) == 128, "rs_ctl_region layout");

/* ---- RS_CTL_STATUS payload: one vCPU as the VMM sees it ------------------ */

enum rs_vcpu_state {
	RS_VCPU_CREATED  = 0,
	RS_VCPU_RUNNING  = 1,
	RS_VCPU_HALTED   = 2,  /* hlt (after RS_PORT_DONE: done) */
	RS_VCPU_SHUTDOWN = 3,  /* triple fault */
	RS_VCPU_FAILED   = 4,  /* internal error, failed entry, KVM_RUN error */
	RS_VCPU_STOPPED  = 5,  /* stopped by vmm_stop while running */
};

/* Exits to user space, by reason.  Kicks (pause, stop) are counted apart
 * because the guest did not cause them; the header page guard's MMIO
 * exits are not here but in struct rs_ctl_region. */
struct rs_vmm_exits {
	uint64_t total;        /* KVM_RUN returns, kicks included */
	uint64_t io;
	uint64_t mmio;
	uint64_t doorbell_mmio;/* MMIO writes at the doorbell no ioeventfd took */
	uint64_t hlt;
	uint64_t kicks;        /* -EINTR: pause or stop */
	uint64_t other;
};

struct rs_vmm_vcpu_info {
	uint32_t id;
	uint32_t state;          /* enum rs_vcpu_state */
	int32_t error;           /* -errno of KVM_RUN, or KVM internal suberror */
	uint32_t exit_reason;    /* last KVM exit reason */
	uint32_t done;           /* the guest wrote RS_PORT_DONE */
	uint32_t done_value;
	int32_t guest_error;     /* value written to RS_PORT_ERROR */
	uint32_t header_refused; /* this vCPU's writes to host-only bytes of
				  * the header page, dropped (saturates) */
	uint64_t rip;            /* at the final exit (SHUTDOWN, FAILED) */
	struct rs_vmm_exits exits;
	struct rs_guest_report report;  /* copy of the guest's report */
	char console[256];       /* last bytes written to RS_PORT_CONSOLE */
};
_Static_assert(sizeof(struct rs_vmm_vcpu_info) == 480, "rs_vmm_vcpu_info layout");

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_VMM_CONTROL_H */
