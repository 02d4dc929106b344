// SPDX-License-Identifier: MIT
/*
 * One debug exit: the instruction at prev_ip has executed and the vCPU
 * stands at rip.  If rip is where that instruction can go, it retired:
 * it joins the ground truth and the generator emits its packets.  If not,
 * an event intervened (it faulted): FUP(prev_ip) + TIP(rip), as PT reports
 * asynchronous events.  INT3 and INT n are emulated here before the CPU
 * sees them (a software interrupt under single-step is an emulation
 * failure for some KVMs, and a natively delivered one runs its handler
 * with TF clear, unseen), and so is the interrupt a test asks for.
 * Stepping stops before a HLT: KVM reports a HLT as thousands of debug
 * exits.
 */
#include <stdlib.h>
#include <x86intrin.h>

#include "trace_internal.h"

#define RFLAGS_TF (1ull << 8)
#define RFLAGS_IF (1ull << 9)
#define RFLAGS_NT (1ull << 14)
#define RFLAGS_RF (1ull << 16)

static uint64_t pv_trace_tsc(void)
{
	return __rdtsc();
}

int pv_trace_step_insn_at(struct pv_trace *t, uint64_t ip, struct pv_insn *in)
{
	const uint8_t *p;
	size_t len = 15;

	/* Identity-mapped payload: a virtual address is a physical one. */
	while (len && !(p = vmm_mem_guest_ptr(t->vm, ip, len)))
		len--;
	if (!len)
		return -pve_unmapped;
	return pv_insn_classify(p, len, ip, in);
}

static int truth_add(struct pv_trace *t, uint64_t ip)
{
	if (t->ntruth == t->truth_cap) {
		uint64_t cap = t->truth_cap ? 2 * t->truth_cap : 4096;
		uint64_t *n = realloc(t->truth, cap * sizeof(*n));

		if (!n)
			return -pve_nomem;
		t->truth = n;
		t->truth_cap = cap;
	}
	t->truth[t->ntruth++] = ip;
	return 0;
}

/* After every generator call: bytes lost at a ToPA STOP need a sync. */
static int resync(struct pv_trace *t, uint64_t ip)
{
	if (!t->aux.resync)
		return 0;
	t->aux.resync = false;
	return pv_gen_psb(t->gen, ip, pv_trace_tsc());
}

int pv_trace_step_retire(struct pv_trace *t, const struct pv_insn *in, uint64_t next)
{
	int ret = truth_add(t, in->ip);

	t->st.insns++;
	if (ret == 0)
		ret = pv_gen_insn(t->gen, in, next, pv_trace_tsc());
	if (ret == 0)
		ret = resync(t, next);
	return ret;
}

/* Deliver vector @vec through the guest's IDT (64-bit interrupt gate) as
 * the CPU would, returning to @ret_ip.  The new RIP in *@handler. */
static int deliver(struct pv_trace *t, struct vmm_cpu *cpu, unsigned vec,
		   uint64_t ret_ip, uint64_t *handler)
{
	struct kvm_sregs sr;
	struct kvm_regs r;
	const uint8_t *g;
	uint64_t frame[5], rsp, lo, hi;
	void *stack;

	if (vmm_cpu_get_sregs(cpu, &sr) < 0 || vmm_cpu_get_regs(cpu, &r) < 0)
		return -pve_kvm;
	if (vec * 16 + 15 > sr.idt.limit ||
	    !(g = vmm_mem_guest_ptr(t->vm, sr.idt.base + vec * 16, 16)))
		return -pve_unmapped;
	memcpy(&lo, g, 8);
	memcpy(&hi, g + 8, 8);
	if (!(lo & (1ull << 47)))
		return -pve_invalid;        /* gate not present */
	*handler = (lo & 0xffff) | ((lo >> 32) & 0xffff0000ull) | (hi << 32);
	rsp = (r.rsp & ~0xfull) - sizeof(frame);
	frame[0] = ret_ip;
	frame[1] = sr.cs.selector;
	frame[2] = r.rflags & ~RFLAGS_TF;
	frame[3] = r.rsp;
	frame[4] = sr.ss.selector;
	stack = vmm_mem_guest_ptr(t->vm, rsp, sizeof(frame));
	if (!stack)
		return -pve_unmapped;
	memcpy(stack, frame, sizeof(frame));
	r.rsp = rsp;
	r.rip = *handler;
	if (((lo >> 40) & 0xf) == 0xe)      /* interrupt gate: IF off */
		r.rflags &= ~RFLAGS_IF;
	r.rflags &= ~(RFLAGS_TF | RFLAGS_NT | RFLAGS_RF);
	return vmm_cpu_set_regs(cpu, &r) < 0 ? -pve_kvm : 0;
}

/* Execute the software interrupt @in (INT3, INT n) in place of the CPU. */
static int soft_int(struct pv_trace *t, struct vmm_cpu *cpu,
		    const struct pv_insn *in)
{
	uint64_t handler;
	int ret;

	t->st.breakpoints++;
	ret = deliver(t, cpu, (unsigned)in->vector, in->ip + in->len, &handler);
	if (ret < 0 || !t->packet_en)
		return ret;
	/* A far transfer: it retires with a TIP to the handler. */
	if ((ret = pv_trace_step_retire(t, in, handler)) < 0)
		return ret;
	t->prev_ip = handler;
	return 0;
}

static int on_breakpoint(struct pv_trace *t, struct vmm_cpu *cpu,
			 uint64_t rip)
{
	struct pv_insn in;
	int ret = pv_trace_step_insn_at(t, rip, &in);

	if (ret < 0)
		return ret;
	in.vector = 3;
	return soft_int(t, cpu, &in);
}

static int maybe_irq(struct pv_trace *t, struct vmm_cpu *cpu, uint64_t rip)
{
	struct kvm_regs r;
	uint64_t handler;
	int ret;

	if (!t->p.irq_at || t->st.insns != t->p.irq_at)
		return 0;
	if (vmm_cpu_get_regs(cpu, &r) < 0)
		return -pve_kvm;
	if (!(r.rflags & RFLAGS_IF)) {
		t->p.irq_at++;              /* try again after the next one */
		return 0;
	}
	if ((ret = deliver(t, cpu, PV_GUEST_IRQ_VECTOR, rip, &handler)) < 0)
		return ret;
	t->st.irqs++;
	t->st.async++;
	t->prev_ip = handler;
	return pv_gen_event(t->gen, rip, handler);
}

static int stop_here(struct pv_trace *t, struct vmm_cpu *cpu, uint64_t ip)
{
	t->packet_en = false;
	vmm_step_set(cpu, false);
	return pv_gen_disable(t->gen, ip);
}

static int step(struct pv_trace *t, struct vmm_cpu *cpu, uint64_t rip)
{
	struct pv_insn in;
	int ret;

	if (t->pending_enable) {
		t->pending_enable = false;
		t->packet_en = true;
		t->prev_ip = t->wrmsr_ip + 2;
		if ((ret = pv_gen_enable(t->gen, t->prev_ip, pv_trace_tsc())) < 0 ||
		    (ret = resync(t, t->prev_ip)) < 0)
			return ret;
		/* The first exit may just complete the enabling WRMSR. */
		if (rip == t->prev_ip)
			goto next;
	}
	if (!t->packet_en)
		return 0;
	if ((ret = pv_trace_step_insn_at(t, t->prev_ip, &in)) < 0)
		return ret;
	if (pv_insn_can_reach(&in, rip)) {
		ret = pv_trace_step_retire(t, &in, rip);
	} else {
		t->st.async++;
		ret = pv_gen_event(t->gen, t->prev_ip, rip);
	}
	if (ret < 0)
		return ret;
	t->prev_ip = rip;
	if ((ret = maybe_irq(t, cpu, rip)) < 0)
		return ret;
next:
	if (t->st.insns >= t->p.max_insns)
		return stop_here(t, cpu, t->prev_ip);
	/* Look at what comes next: a handler may start with another INT. */
	for (int n = 0; n < 4; n++) {
		if ((ret = pv_trace_step_insn_at(t, t->prev_ip, &in)) < 0)
			return ret;
		if (in.hlt) {
			t->st.hlt_stops++;
			return stop_here(t, cpu, t->prev_ip);
		}
		if (in.vector < 0)
			return 0;
		if ((ret = soft_int(t, cpu, &in)) < 0)
			return ret;
	}
	return 0;
}

int pv_trace_step_exit(void *arg, struct vmm_cpu *cpu,
		     const struct vmm_debug *d)
{
	struct pv_trace *t = arg;
	struct kvm_regs r;
	int ret;

	t->st.steps++;
	if (vmm_cpu_get_regs(cpu, &r) < 0)
		return pv_trace_fail(t, -pve_kvm);
	if (d->exception == 3)
		ret = on_breakpoint(t, cpu, r.rip);
	else
		ret = step(t, cpu, r.rip);
	return ret < 0 ? pv_trace_fail(t, ret) : 0;
}
