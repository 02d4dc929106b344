/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_VCPU_H
#define RINGSIDE_GI_VCPU_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/gi_stack.h"

/*
 * A guest's vCPU registers as QEMU's monitor prints them ("info registers
 * -a" of an x86-64 guest: a "CPU#N" line, then "RAX=... RSP=...",
 * "RIP=... CPL=n ... HLT=n" lines), taken apart.  The text comes from
 * QEMU, not the guest, but is parsed as untrusted all the same: bounded,
 * and a CPU without RIP or RSP is not reported.
 */

#define GI_VCPU_REGS_MAX 256u

struct gi_vcpu_regs {
	uint32_t cpu;             /* QEMU's CPU index */
	uint32_t cpl;             /* privilege level: 0 kernel, 3 user */
	int halted;               /* HLT=1: waiting for an interrupt */
	uint64_t rip, rsp, rbp;
};

/*
 * Parse @text into at most @max entries of @out; *@n gets how many.
 * 0; -EINVAL: no CPU with both RIP and RSP in @text (not that command's
 * output: another target, an error message).
 */
int gi_vcpu_regs_parse(const char *text, struct gi_vcpu_regs *out, uint32_t max,
		       uint32_t *n);

/* ---- gi_vcpu (src/gi_vcpu.c; the registers above: src/gi_vcpu_regs.c) ---- */
/*
 * Where each vCPU of a guest was when the snapshot was taken: its
 * registers, read by the host (QEMU's monitor for a libvirt domain), and
 * its kernel stack, read from guest memory and walked (guest_stack.h).
 * This needs nothing from the guest, so it holds for a guest that
 * panicked or hung with its last samples still in flight: the panicked
 * vCPU sits in panic() with the crash path on its stack.  Each vCPU
 * becomes one sample, filed after the newest record of the snapshot, at
 * the end of the host's reading (gi_vcpu_time; docs/cli.md, `snapshot`).
 */

struct gi_vcpu_src {
	/* Every vCPU's registers, as "info registers -a" prints them,
	 * malloc'ed.  0 or a negative code @errstr names. */
	int (*registers)(void *ctx, char **text);
	gi_stack_peek_fn peek;      /* guest-virtual memory */
	void *ctx;
	const char *(*errstr)(int err);
};

enum gi_vcpu_state {
	GI_VCPU_ABSENT = 0,         /* not asked for */
	GI_VCPU_NO_SYMBOLS,         /* no usable guest kernel symbols */
	GI_VCPU_NO_REGISTERS,       /* the registers could not be read: err */
	GI_VCPU_BAD_REGISTERS,      /* text that is not an x86-64 guest's */
	GI_VCPU_OK,
};

struct gi_vcpu_one {
	struct gi_vcpu_regs regs;
	struct gi_stack stack;
};

struct gi_vcpu {
	enum gi_vcpu_state state;
	int err;
	const char *(*errstr)(int err);
	const struct pdf_ksyms *ksyms;
	uint32_t nr;
	struct gi_vcpu_one *cpu;    /* nr of them */
	uint64_t refused;         /* samples the writer refused */
};

void gi_vcpu_init(struct gi_vcpu *g);
void gi_vcpu_fini(struct gi_vcpu *g);

/* Read every vCPU's registers and walk its stack, naming with @ksyms
 * (NULL: GI_VCPU_NO_SYMBOLS).  Never fails on what it reads: the state
 * says.  -ENOMEM only. */
int gi_vcpu_take(struct gi_vcpu *g, const struct gi_vcpu_src *src,
		 const struct pdf_ksyms *ksyms);

/*
 * vCPU @i's state as a PERF_RECORD_SAMPLE of @sample_type (the region's)
 * at @time, into @out (replaced): IP the vCPU's RIP, the stack as its
 * call chain, pid/tid -1 (which task ran is not known to the host),
 * period 1.  0; -EOPNOTSUPP: @sample_type has fields this cannot fill;
 * -E2BIG.
 */
int gi_vcpu_sample(const struct gi_vcpu *g, uint32_t i, uint64_t sample_type,
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
uint64_t gi_vcpu_time(const struct pdf_clock_sync *cs, uint64_t host_ns,
		      uint64_t newest);

#endif /* RINGSIDE_GI_VCPU_H */
