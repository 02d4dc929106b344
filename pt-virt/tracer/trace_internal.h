/* SPDX-License-Identifier: MIT */
/* Private to pt-virt/tracer/: the traced vCPU's state. */
#ifndef PV_TRACE_INTERNAL_H
#define PV_TRACE_INTERNAL_H

#include <linux/kvm.h>
#include <string.h>

#include "ringside/pt_guest.h"
#include "ringside/pt_tracer.h"
#include "ringside/ring.h"
#include "ringside/vmm.h"

struct pv_trace {
	struct vmm *vm;
	struct pv_trace_params p;
	struct pv_msr msr;
	struct pv_out out;
	struct pv_aux aux;
	struct rs_producer prod;
	struct pv_gen *gen;
	struct pv_guest_mailbox *mb;
	struct pv_trace_stats st;
	bool packet_en;            /* the generator is enabled */
	bool pending_enable;       /* TraceEn just set by the WRMSR at wrmsr_ip */
	uint64_t wrmsr_ip;
	uint64_t prev_ip;          /* the instruction the vCPU executes next */
	uint64_t *truth;
	uint64_t ntruth, truth_cap;
};

/* trace_msr.c */
int pv_trace_msr_exit(void *arg, struct vmm_cpu *cpu, uint32_t index,
		      bool write, uint64_t *value);

/* trace_step.c */
int pv_trace_step_exit(void *arg, struct vmm_cpu *cpu,
		       const struct vmm_debug *d);
int pv_trace_step_retire(struct pv_trace *t, const struct pv_insn *in,
			 uint64_t next);
int pv_trace_step_insn_at(struct pv_trace *t, uint64_t ip,
			  struct pv_insn *in);

static inline int pv_trace_fail(struct pv_trace *t, int err)
{
	if (!t->st.error)
		t->st.error = err;
	return err;
}

#endif /* PV_TRACE_INTERNAL_H */
