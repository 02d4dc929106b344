// SPDX-License-Identifier: MIT
/*
 * A traced vCPU: wires the MSR model, the output engine, the AUX driver
 * and the generator to the VMM's CPUID, MSR-exit and single-step hooks.
 * The hooks themselves are trace_msr.c and trace_step.c.
 */
#include <cpuid.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace_internal.h"

#define DEFAULT_CTL (PV_CTL_TRACEEN | PV_CTL_TOPA | PV_CTL_OS | \
		     PV_CTL_BRANCHEN | PV_CTL_TSCEN)

static const uint32_t rtit_msrs[] = {
	PV_MSR_RTIT_OUTPUT_BASE, PV_MSR_RTIT_OUTPUT_MASK_PTRS,
	PV_MSR_RTIT_CTL, PV_MSR_RTIT_STATUS, PV_MSR_RTIT_CR3_MATCH,
	0x580, 0x581, 0x582, 0x583, 0x584, 0x585, 0x586, 0x587,
};

static void *guest_ptr(void *arg, uint64_t gpa, uint64_t len)
{
	return vmm_mem_guest_ptr(arg, gpa, len);
}

static int64_t to_aux(void *arg, const void *buf, uint64_t len)
{
	struct pv_trace *t = arg;

	return pv_aux_write(&t->aux, buf, len);
}

/* A PMI that crossed the AUX watermark rings the ring's doorbell, as the
 * guest's driver would: the host consumer polls that eventfd. */
static void ring_doorbell(void *arg)
{
	struct pv_trace *t = arg;
	uint64_t one = 1;
	int fd = vmm_doorbell_fd(t->vm, t->p.ring);

	if (fd >= 0 && write(fd, &one, sizeof(one)) == sizeof(one))
		t->st.doorbells++;
}

/* Leaf 0 high enough, leaf 7 EBX[25], leaf 0x14 sub-leaves 0 and 1. */
static int advertise(struct pv_trace *t)
{
	struct vmm_cpuid o[4];
	unsigned max = __get_cpuid_max(0, NULL);

	memset(o, 0, sizeof(o));
	o[0].function = 0;
	o[0].value[0] = max > PV_CPUID_PT_LEAF ? max : PV_CPUID_PT_LEAF;
	o[0].mask[0] = ~0u;
	o[1].function = 7;
	o[1].significant_index = 1;
	o[1].value[1] = PV_CPUID7_EBX_PT;
	o[1].mask[1] = PV_CPUID7_EBX_PT;
	for (uint32_t sub = 0; sub < 2; sub++) {
		struct vmm_cpuid *e = &o[2 + sub];

		e->function = PV_CPUID_PT_LEAF;
		e->index = sub;
		e->significant_index = 1;
		pv_cpuid_14(&t->msr.caps, sub, e->value);
		memset(e->mask, 0xff, sizeof(e->mask));
	}
	return vmm_cpuid_override(t->vm, o, 4) < 0 ? -pve_kvm : 0;
}

static int build(struct pv_trace *t)
{
	const struct rs_region *region = vmm_region(t->vm);
	struct pv_topa_params tp = {
		.size = sizeof(tp),
		.region_size = t->p.region_size ? t->p.region_size : 4096,
		.table_gpa = PV_GUEST_TABLE_GPA,
		.entries_per_table = t->p.entries_per_table,
		.flags = t->p.single ? PV_TOPA_SINGLE : 0,
		.maxphyaddr = t->msr.caps.maxphyaddr,
	};
	struct pv_mem mem = { guest_ptr, t->vm };
	void *tables = vmm_mem_guest_ptr(t->vm, PV_GUEST_TABLE_GPA,
					PV_GUEST_TABLE_MAX);
	uint64_t aux_gpa;
	int ret;

	if (!region || !tables)
		return -pve_invalid;
	if (rs_producer_init(&t->prod, region, t->p.ring) < 0)
		return -pve_invalid;
	tp.watermark = rs_region_config(region)->aux_watermark;
	aux_gpa = RS_BOOT_REGION_GPA + (uint64_t)(t->prod.ring.aux - region->base);
	pv_out_init(&t->out, &t->msr, &mem, NULL, NULL);
	ret = pv_aux_init(&t->aux, &t->prod, &t->out, aux_gpa, &tp, tables,
			  PV_GUEST_TABLE_MAX);
	if (ret < 0)
		return ret;
	pv_aux_on_wake(&t->aux, ring_doorbell, t);

	t->mb = vmm_mem_guest_ptr(t->vm, PV_GUEST_MAILBOX_GPA, sizeof(*t->mb));
	if (!t->mb)
		return -pve_invalid;
	memset(t->mb, 0, sizeof(*t->mb));
	t->mb->magic = PV_GUEST_MAGIC;
	t->mb->version = PV_GUEST_VERSION;
	t->mb->workload = t->p.workload;
	t->mb->iterations = t->p.iterations;
	t->mb->ctl = t->p.ctl;
	return pv_aux_output_msrs(&t->aux, &t->mb->output_base,
				  &t->mb->output_mask);
}

int pv_trace_attach(struct pv_trace **out, struct vmm *vm,
		    const struct pv_trace_params *p)
{
	struct pv_gen_params gp = { .size = sizeof(gp), .sink = to_aux };
	struct pv_trace *t;
	int ret;

	if (!out || !vm || !p || p->size < sizeof(*p))
		return -pve_invalid;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -pve_nomem;
	t->vm = vm;
	t->p = *p;
	if (!t->p.ctl)
		t->p.ctl = DEFAULT_CTL;
	if (!t->p.max_insns)
		t->p.max_insns = 1u << 20;
	if (!t->p.code_len) {
		t->p.code_gpa = RS_BOOT_LOAD_GPA;
		t->p.code_len = 0x40000;
	}
	pv_msr_init(&t->msr, NULL);
	if ((ret = advertise(t)) < 0 || (ret = build(t)) < 0)
		goto fail;
	gp.sink_arg = t;
	/* The generator follows the CTL the guest will write; it is
	 * configured again when TraceEn is set (trace_msr.c). */
	t->gen = pv_gen_alloc(&gp);
	if (!t->gen) {
		ret = -pve_nomem;
		goto fail;
	}
	if (vmm_msr_intercept(vm, rtit_msrs, sizeof(rtit_msrs) /
				 sizeof(rtit_msrs[0]), pv_trace_msr_exit, t) < 0 ||
	    vmm_step_hook(vm, pv_trace_step_exit, t) < 0) {
		ret = -pve_kvm;
		goto fail;
	}
	*out = t;
	return 0;
fail:
	pv_trace_free(t);
	return ret;
}

int pv_trace_finish(struct pv_trace *t)
{
	if (!t)
		return -pve_invalid;
	pv_aux_flush(&t->aux, 0);
	return t->st.error;
}

void pv_trace_free(struct pv_trace *t)
{
	if (!t)
		return;
	pv_gen_free(t->gen);
	free(t->truth);
	free(t);
}

const struct pv_trace_stats *pv_trace_stats(const struct pv_trace *t)
{
	return t ? &t->st : NULL;
}

const struct pv_gen_stats *pv_trace_gen_stats(const struct pv_trace *t)
{
	return t ? pv_gen_stats(t->gen) : NULL;
}

const struct pv_out_stats *pv_trace_out_stats(const struct pv_trace *t)
{
	return t ? &t->out.stats : NULL;
}

const struct pv_aux_stats *pv_trace_aux_stats(const struct pv_trace *t)
{
	return t ? &t->aux.stats : NULL;
}

const struct pv_msr *pv_trace_msr(const struct pv_trace *t)
{
	return t ? &t->msr : NULL;
}

const struct pv_guest_mailbox *pv_trace_mailbox(const struct pv_trace *t)
{
	return t ? t->mb : NULL;
}

const uint64_t *pv_trace_truth(const struct pv_trace *t, uint64_t *n)
{
	if (n)
		*n = t ? t->ntruth : 0;
	return t ? t->truth : NULL;
}

int pv_trace_capture(const struct pv_trace *t, struct pv_capture *c,
		     const void *trace, uint64_t len, uint64_t pos)
{
	struct pv_capture_info info = {
		.snapshot = t && t->aux.snapshot,
		.truncated = t && t->aux.stats.truncated,
	};
	const void *code;
	int ret;

	if (!t || !c)
		return -pve_invalid;
	info.psb_period = pv_msr_psb_period(&t->msr);
	code = vmm_mem_guest_ptr(t->vm, t->p.code_gpa, t->p.code_len);
	if (!code)
		return -pve_invalid;
	if ((ret = pv_capture_add(c, PV_CAP_INFO, 0, &info, sizeof(info))) < 0 ||
	    (ret = pv_capture_add(c, PV_CAP_MEM, t->p.code_gpa, code,
			      t->p.code_len)) < 0 ||
	    (ret = pv_capture_add(c, PV_CAP_TRUTH, 0, t->truth,
			      t->ntruth * sizeof(uint64_t))) < 0)
		return ret;
	return pv_capture_add(c, PV_CAP_TRACE, pos, trace, len);
}
