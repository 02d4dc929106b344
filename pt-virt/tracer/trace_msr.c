// SPDX-License-Identifier: MIT
/*
 * The guest's RDMSR/WRMSR of RTIT MSRs.  The MSR model decides (#GP or
 * not); a TraceEn change starts or stops single-stepping and packet
 * generation.  The enabling WRMSR itself is not traced (tracing starts
 * after it); the disabling one is, and ends the trace with FUP + TIP.PGD
 * at the instruction after it.
 */
#include "trace_internal.h"

static int start(struct pv_trace *t, struct vmm_cpu *cpu)
{
	struct kvm_regs regs;

	t->st.enables++;
	/* CPL0 payload: OS decides whether anything is traced at all. */
	if (!(t->msr.ctl & PV_CTL_OS) || !(t->msr.ctl & PV_CTL_BRANCHEN))
		return 0;
	if (vmm_cpu_get_regs(cpu, &regs) < 0)
		return pv_trace_fail(t, -pve_kvm);
	pv_gen_config(t->gen, pv_msr_psb_period(&t->msr),
		      t->msr.ctl & PV_CTL_TSCEN, t->msr.ctl & PV_CTL_DISRETC);
	t->pending_enable = true;
	t->wrmsr_ip = regs.rip;
	return vmm_step_set(cpu, true);
}

static int stop(struct pv_trace *t, struct vmm_cpu *cpu)
{
	struct pv_insn in;
	int ret = 0;

	t->st.disables++;
	if (t->packet_en) {
		/* The WRMSR at prev_ip retires, then PacketEn drops. */
		ret = pv_trace_step_insn_at(t, t->prev_ip, &in);
		if (ret == 0)
			ret = pv_trace_step_retire(t, &in, in.ip + in.len);
		if (ret == 0)
			ret = pv_gen_disable(t->gen, in.ip + in.len);
		t->packet_en = false;
	}
	t->pending_enable = false;
	pv_aux_flush(&t->aux, 0);
	vmm_step_set(cpu, false);
	return ret < 0 ? pv_trace_fail(t, ret) : 0;
}

int pv_trace_msr_exit(void *arg, struct vmm_cpu *cpu, uint32_t index,
		    bool write, uint64_t *value)
{
	struct pv_trace *t = arg;
	int ret;

	if (!write) {
		t->st.msr_reads++;
		ret = pv_msr_read(&t->msr, index, value);
	} else {
		/* Checked on a copy: clearing TraceEn flushes the last
		 * packets first, which needs TraceEn still set. */
		struct pv_msr next = t->msr;

		t->st.msr_writes++;
		ret = pv_msr_write(&next, index, *value);
		if (ret == 1 && !(next.ctl & PV_CTL_TRACEEN))
			stop(t, cpu);
		if (ret >= 0)
			t->msr = next;
		if (ret == 1 && (next.ctl & PV_CTL_TRACEEN))
			start(t, cpu);
	}
	if (ret < 0) {
		t->st.msr_gp++;
		return -1;
	}
	return 0;
}
