/* SPDX-License-Identifier: MIT */
/*
 * A guest's vCPU registers as QEMU's monitor prints them ("info registers
 * -a" of an x86-64 guest: a "CPU#N" line, then "RAX=... RSP=...",
 * "RIP=... CPL=n ... HLT=n" lines), taken apart.  The text comes from
 * QEMU, not the guest, but is parsed as untrusted all the same: bounded,
 * and a CPU without RIP or RSP is not reported.
 */
#ifndef RINGSIDE_CLI_VCPU_REGS_H
#define RINGSIDE_CLI_VCPU_REGS_H

#include <stdint.h>

#define VCPU_REGS_MAX 256u

struct vcpu_regs {
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
int vcpu_regs_parse(const char *text, struct vcpu_regs *out, uint32_t max,
		    uint32_t *n);

#endif /* RINGSIDE_CLI_VCPU_REGS_H */
