// SPDX-License-Identifier: MIT
/*
 * The PT guest payload: acts as its own PT driver (CPUID leaf 0x14, the
 * RTIT MSRs programmed with what the mailbox says), then runs a workload
 * that exercises every kind of control flow PT reports: conditional
 * branches, calls and returns, indirect jumps and calls, INT3 and an
 * interrupt the VMM injects.
 */
#include <stdint.h>

#include "ringside/guest_boot.h"
#include "ringside/pt_guest.h"
#include "ringside/rtit.h"

void pt_idt_init(void);
void pt_main(void);
void pt_bp_stub(void);
void pt_gp_stub(void);
void pt_irq_stub(void);
extern uint64_t pt_idt[512];

volatile uint32_t pt_bp_count, pt_gp_count, pt_irq_count;

static struct pv_guest_mailbox *const mb =
	(struct pv_guest_mailbox *)PV_GUEST_MAILBOX_GPA;

static void gate(unsigned vec, void (*fn)(void))
{
	uint64_t a = (uint64_t)fn;

	pt_idt[2 * vec] = (a & 0xffff) | (0x08ull << 16) | (0x8eull << 40) |
			  ((a >> 16) & 0xffff) << 48;
	pt_idt[2 * vec + 1] = a >> 32;
}

void pt_idt_init(void)
{
	gate(3, pt_bp_stub);
	gate(13, pt_gp_stub);
	gate(PV_GUEST_IRQ_VECTOR, pt_irq_stub);
}

static void wrmsr(uint32_t idx, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(idx), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)) : "memory");
}

static uint64_t rdmsr(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(idx) : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

static void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

/* ---- workloads ------------------------------------------------------------ */

__attribute__((noinline)) static uint64_t wl_branches(uint32_t n)
{
	uint64_t a = 1;

	for (uint32_t i = 0; i < n; i++) {
		if (i % 3 == 0)
			a += i;
		else if (i & 1)
			a ^= (uint64_t)i << 3;
		else
			a -= 7;
	}
	return a;
}

__attribute__((noinline)) static uint64_t fib(uint32_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static uint64_t wl_calls(uint32_t n)
{
	return fib(n % 8 + 3);
}

__attribute__((noinline)) static uint64_t op0(uint64_t x) { return x + 3; }
__attribute__((noinline)) static uint64_t op1(uint64_t x) { return x * 5; }
__attribute__((noinline)) static uint64_t op2(uint64_t x) { return x ^ 0x55; }
__attribute__((noinline)) static uint64_t op3(uint64_t x) { return x >> 1; }

static uint64_t (*const volatile ops[4])(uint64_t) = { op0, op1, op2, op3 };

__attribute__((noinline)) static uint64_t sw(uint32_t i, uint64_t x)
{
	/* Dense cases: a jump table, an indirect jmp. */
	switch (i % 7) {
	case 0: return x + 11;
	case 1: return x - 13;
	case 2: return x * 3;
	case 3: return x ^ 0xf0;
	case 4: return x + (x >> 2);
	case 5: return ~x;
	default: return x | 1;
	}
}

__attribute__((noinline)) static uint64_t wl_indirect(uint32_t n)
{
	uint64_t x = 5;

	for (uint32_t i = 0; i < n; i++)
		x = sw(i, ops[i & 3](x));
	return x;
}

__attribute__((noinline)) static uint64_t wl_exception(uint32_t n)
{
	uint64_t x = 0;

	for (uint32_t i = 0; i < n; i++) {
		x += i;
		if (i % 4 == 0)
			__asm__ volatile("int3" : : : "memory");
	}
	return x + pt_bp_count;
}

static uint64_t run(uint32_t wl, uint32_t n)
{
	switch (wl) {
	case PV_WL_BRANCHES:  return wl_branches(n);
	case PV_WL_CALLS:     return wl_calls(n);
	case PV_WL_INDIRECT:  return wl_indirect(n);
	case PV_WL_EXCEPTION: return wl_exception(n);
	default:
		return wl_branches(n) + wl_calls(n) + wl_indirect(n) +
		       wl_exception(n / 4);
	}
}

/* Each of these must #GP (and be skipped by the handler). */
static void msr_rules(void)
{
	uint64_t on = PV_CTL_TRACEEN | PV_CTL_TOPA | PV_CTL_OS | PV_CTL_BRANCHEN;

	wrmsr(PV_MSR_RTIT_CTL, 1ull << 18);                /* reserved bit */
	wrmsr(PV_MSR_RTIT_CTL, 7ull << PV_CTL_ADDR_CFG_SHIFT(0)); /* bad cfg */
	wrmsr(PV_MSR_RTIT_OUTPUT_BASE, mb->output_base | 0x40); /* bits 6:0 */
	wrmsr(PV_MSR_RTIT_CR3_MATCH, 0x1001);              /* bits 4:0 */
	wrmsr(PV_MSR_RTIT_ADDR0_A, 0x0000800000000000ull); /* not canonical */
	wrmsr(PV_MSR_RTIT_ADDR0_A + 4, 0);                 /* no ADDR2 */
	wrmsr(PV_MSR_RTIT_OUTPUT_BASE, mb->output_base);
	wrmsr(PV_MSR_RTIT_OUTPUT_MASK_PTRS, mb->output_mask);
	wrmsr(PV_MSR_RTIT_CTL, on);
	mb->rdmsr_ctl = rdmsr(PV_MSR_RTIT_CTL);
	wrmsr(PV_MSR_RTIT_STATUS, 0);                      /* while tracing */
	wrmsr(PV_MSR_RTIT_CTL, on | PV_CTL_USER);          /* change while on */
	wrmsr(PV_MSR_RTIT_CTL, on & ~PV_CTL_TRACEEN);
	mb->rdmsr_status = rdmsr(PV_MSR_RTIT_STATUS);
}

void pt_main(void)
{
	uint32_t r[4];

	if (mb->magic != PV_GUEST_MAGIC || mb->version != PV_GUEST_VERSION) {
		outl(RS_PORT_ERROR, 1);
		return;
	}
	/* Leaf 7 EBX[25] says "Intel PT"; some KVMs (this project's CI
	 * hosts) rewrite leaf 7 from the host, so leaf 0x14 decides. */
	cpuid(7, 0, r);
	mb->cpuid7_ebx = r[1];
	cpuid(PV_CPUID_PT_LEAF, 0, r);
	mb->cpuid14_ecx = r[2];
	mb->cpuid_pt = (r[2] & PV_CAP0_ECX_TOPA) != 0;
	if (!mb->cpuid_pt) {
		mb->phase = PV_PHASE_FAILED;
		outl(RS_PORT_ERROR, 2);
		return;
	}
	if (mb->workload == PV_WL_MSR_RULES) {
		msr_rules();
	} else {
		__asm__ volatile("sti");
		wrmsr(PV_MSR_RTIT_STATUS, 0);
		wrmsr(PV_MSR_RTIT_OUTPUT_BASE, mb->output_base);
		wrmsr(PV_MSR_RTIT_OUTPUT_MASK_PTRS, mb->output_mask);
		mb->phase = PV_PHASE_TRACING;
		wrmsr(PV_MSR_RTIT_CTL, mb->ctl);
		mb->result = run(mb->workload, mb->iterations);
		wrmsr(PV_MSR_RTIT_CTL, mb->ctl & ~PV_CTL_TRACEEN);
		__asm__ volatile("cli");
		mb->rdmsr_status = rdmsr(PV_MSR_RTIT_STATUS);
	}
	mb->gp_faults = pt_gp_count;
	mb->breakpoints = pt_bp_count;
	mb->interrupts = pt_irq_count;
	mb->phase = PV_PHASE_DONE;
	outl(RS_PORT_DONE, (uint32_t)mb->result);
}
