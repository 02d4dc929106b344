/* SPDX-License-Identifier: MIT */
/*
 * Where each vCPU of a guest was when the snapshot was taken: its
 * registers, read by the host (QEMU's monitor for a libvirt domain), and
 * its kernel stack, read from guest memory and walked (guest_stack.h).
 * This needs nothing from the guest, so it holds for a guest that
 * panicked or hung with its last samples still in flight: the panicked
 * vCPU sits in panic() with the crash path on its stack.  Each vCPU
 * becomes one sample, filed after the newest record of the snapshot, at
 * the end of the host's reading (gvcpu_time; docs/cli.md, `snapshot`).
 */
#ifndef RINGSIDE_CLI_GUEST_VCPU_H
#define RINGSIDE_CLI_GUEST_VCPU_H

#include <stdint.h>
#include <stdio.h>

#include "ringside/perfdata.h"

#include "guest_stack.h"
#include "vcpu_regs.h"

struct gvcpu_src {
	/* Every vCPU's registers, as "info registers -a" prints them,
	 * malloc'ed.  0 or a negative code @errstr names. */
	int (*registers)(void *ctx, char **text);
	gstack_peek_fn peek;      /* guest-virtual memory */
	void *ctx;
	const char *(*errstr)(int err);
};

enum gvcpu_state {
	GVCPU_ABSENT = 0,         /* not asked for */
	GVCPU_NO_SYMBOLS,         /* no usable guest kernel symbols */
	GVCPU_NO_REGISTERS,       /* the registers could not be read: err */
	GVCPU_BAD_REGISTERS,      /* text that is not an x86-64 guest's */
	GVCPU_OK,
};

struct gvcpu_one {
	struct vcpu_regs regs;
	struct gstack stack;
};

struct gvcpu {
	enum gvcpu_state state;
	int err;
	const char *(*errstr)(int err);
	const struct pdf_ksyms *ksyms;
	uint32_t nr;
	struct gvcpu_one *cpu;    /* nr of them */
	uint64_t refused;         /* samples the writer refused */
};

void gvcpu_init(struct gvcpu *g);
void gvcpu_fini(struct gvcpu *g);

/* Read every vCPU's registers and walk its stack, naming with @ksyms
 * (NULL: GVCPU_NO_SYMBOLS).  Never fails on what it reads: the state
 * says.  -ENOMEM only. */
int gvcpu_take(struct gvcpu *g, const struct gvcpu_src *src,
	       const struct pdf_ksyms *ksyms);

/*
 * vCPU @i's state as a PERF_RECORD_SAMPLE of @sample_type (the region's)
 * at @time, into @out (replaced): IP the vCPU's RIP, the stack as its
 * call chain, pid/tid -1 (which task ran is not known to the host),
 * period 1.  0; -EOPNOTSUPP: @sample_type has fields this cannot fill;
 * -E2BIG.
 */
int gvcpu_sample(const struct gvcpu *g, uint32_t i, uint64_t sample_type,
		 uint64_t time, struct pdf_buf *out);

/*
 * The time of the first vCPU sample (the others follow it by 1 ns each),
 * in the guest's clock as the records are: the moment @host_ns (host
 * CLOCK_MONOTONIC) the host had read everything, by @cs's time sync; the
 * vCPUs were where they are then, and every record the host read was
 * written before.  Without a usable sync, just after @newest, the newest
 * record's time.  Never a time a guest claimed when the sync can say it
 * (a record stamped in the far future stays that record's lie alone).
 */
uint64_t gvcpu_time(const struct pdf_clock_sync *cs, uint64_t host_ns,
		    uint64_t newest);

/* "vCPU stacks: ..." lines on @out. */
void gvcpu_summary(FILE *out, const struct gvcpu *g);

#endif /* RINGSIDE_CLI_GUEST_VCPU_H */
