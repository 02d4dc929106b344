/* SPDX-License-Identifier: MIT */
/*
 * Contract between pt-virt's tracer and the PT guest payload
 * (guest-agent/pt-payload/): a mailbox page at a fixed guest-physical address.
 * The host writes what the guest's "driver" must program (the output MSRs
 * for the ToPA the VMM built, and CTL); the guest writes back what it saw.
 * Freestanding: constants and plain structs only.
 */
#ifndef RINGSIDE_PT_GUEST_H
#define RINGSIDE_PT_GUEST_H

#include <stdint.h>

#define PV_GUEST_MAILBOX_GPA 0x3f000ull
#define PV_GUEST_TABLE_GPA   0x40000ull   /* ToPA tables ... */
#define PV_GUEST_TABLE_MAX   0x40000ull   /* ... up to 256 KiB */
#define PV_GUEST_MAGIC       0x58424c4954505352ull /* "RSPTILBX" */
#define PV_GUEST_VERSION     1u
#define PV_GUEST_IRQ_VECTOR  0x20u        /* the "timer" the VMM injects */

enum pv_guest_workload {
	PV_WL_BRANCHES  = 0,  /* a loop of conditional branches */
	PV_WL_CALLS     = 1,  /* calls and returns (recursion) */
	PV_WL_INDIRECT  = 2,  /* jump table and function pointers */
	PV_WL_EXCEPTION = 3,  /* INT3 with a handler; an injected interrupt */
	PV_WL_ALL       = 4,  /* all of the above in one trace */
	PV_WL_MSR_RULES = 5,  /* invalid WRMSRs that must #GP, no tracing */
	PV_WL_MAX
};

enum pv_guest_phase {
	PV_PHASE_BOOT = 0,
	PV_PHASE_TRACING = 1,
	PV_PHASE_DONE = 2,
	PV_PHASE_FAILED = 3,
};

struct pv_guest_mailbox {
	uint64_t magic;
	uint32_t version;
	uint32_t workload;        /* enum pv_guest_workload */
	uint32_t iterations;
	uint32_t reserved0;
	/* host -> guest: written before the guest starts */
	uint64_t output_base;
	uint64_t output_mask;
	uint64_t ctl;             /* with TraceEn */
	/* guest -> host */
	uint32_t phase;           /* enum pv_guest_phase */
	int32_t error;
	uint64_t result;          /* the workload's checksum */
	uint32_t cpuid_pt;        /* CPUID said: Intel PT with ToPA */
	uint32_t gp_faults;       /* #GP taken (each skips a 2-byte WRMSR) */
	uint32_t breakpoints;
	uint32_t interrupts;
	uint64_t rdmsr_ctl;       /* CTL read back while tracing */
	uint64_t rdmsr_status;    /* STATUS read back after tracing */
	uint32_t cpuid7_ebx;      /* as the guest saw them */
	uint32_t cpuid14_ecx;
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct pv_guest_mailbox) == 128, "mailbox layout");

#endif /* RINGSIDE_PT_GUEST_H */
