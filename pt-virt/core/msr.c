// SPDX-License-Identifier: MIT
/*
 * The RTIT MSRs with the SDM's WRMSR rules (36.2.7): reserved bits and
 * encodings fault, nothing but CTL may change while TraceEn=1, and CTL
 * only by writing itself back or by clearing TraceEn.
 */
#include "pv_internal.h"

#define STATUS_RO (PV_STATUS_FILTEREN | PV_STATUS_CONTEXTEN | PV_STATUS_TRIGGEREN)

static bool cap0(const struct pv_msr *m, int reg, uint32_t bit)
{
	return m->caps.leaf0[reg] & bit;
}

static uint32_t nr_ranges(const struct pv_msr *m)
{
	return m->caps.leaf0[0] >= 1 ? m->caps.leaf1[0] & 7 : 0;
}

static bool has_output(const struct pv_msr *m)
{
	return cap0(m, 2, PV_CAP0_ECX_TOPA) || cap0(m, 2, PV_CAP0_ECX_SNGLRNG);
}

static bool canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << 16) >> 16) == va;
}

void pv_msr_init(struct pv_msr *m, const struct pv_caps *caps)
{
	if (!m)
		return;
	memset(m, 0, sizeof(*m));
	if (caps)
		m->caps = *caps;
	else
		pv_cpuid_default(&m->caps);
	if (!m->caps.maxphyaddr)
		m->caps.maxphyaddr = PV_DEFAULT_MAXPHYADDR;
	m->output_mask = PV_MASK_LOWER;
}

static bool is_rtit(uint32_t index)
{
	return index == PV_MSR_RTIT_OUTPUT_BASE ||
	       index == PV_MSR_RTIT_OUTPUT_MASK_PTRS ||
	       (index >= PV_MSR_RTIT_CTL && index <= PV_MSR_RTIT_CR3_MATCH) ||
	       (index >= PV_MSR_RTIT_ADDR0_A && index <= PV_MSR_RTIT_ADDR3_B);
}

bool pv_msr_exists(const struct pv_msr *m, uint32_t index)
{
	if (!m || !is_rtit(index))
		return false;
	switch (index) {
	case PV_MSR_RTIT_OUTPUT_BASE:
	case PV_MSR_RTIT_OUTPUT_MASK_PTRS:
		return has_output(m);
	case PV_MSR_RTIT_CR3_MATCH:
		return cap0(m, 1, PV_CAP0_EBX_CR3FILTER);
	case PV_MSR_RTIT_CTL:
	case PV_MSR_RTIT_STATUS:
		return true;
	default:
		return (index - PV_MSR_RTIT_ADDR0_A) / 2 < nr_ranges(m);
	}
}

/* 1 if encoding @v of a 4-bit field is in @bitmap. */
static bool encoding_ok(uint64_t v, uint32_t bitmap)
{
	return (bitmap >> v) & 1;
}

static bool ctl_valid(const struct pv_msr *m, uint64_t v)
{
	bool psb_cyc = cap0(m, 1, PV_CAP0_EBX_PSB_CYC);
	bool mtc = cap0(m, 1, PV_CAP0_EBX_MTC);
	uint64_t cyc = PV_CTL_FIELD4(v, PV_CTL_CYCTHRESH_SHIFT);
	uint64_t psb = PV_CTL_FIELD4(v, PV_CTL_PSBFREQ_SHIFT);
	uint64_t mtcf = PV_CTL_FIELD4(v, PV_CTL_MTCFREQ_SHIFT);

	if (v & ~PV_CTL_DEFINED)
		return false;
	if (!psb_cyc && ((v & PV_CTL_CYCEN) || cyc || psb))
		return false;
	if (psb_cyc && (!encoding_ok(cyc, m->caps.leaf1[1] & 0xffff) ||
			!encoding_ok(psb, m->caps.leaf1[1] >> 16)))
		return false;
	if (!mtc && ((v & PV_CTL_MTCEN) || mtcf))
		return false;
	if (mtc && !encoding_ok(mtcf, m->caps.leaf1[0] >> 16))
		return false;
	if ((v & (PV_CTL_PTWEN | PV_CTL_FUPONPTW)) &&
	    !cap0(m, 1, PV_CAP0_EBX_PTWRITE))
		return false;
	if ((v & PV_CTL_PWREVTEN) && !cap0(m, 1, PV_CAP0_EBX_PWREVT))
		return false;
	if ((v & PV_CTL_FABRICEN) && !cap0(m, 2, PV_CAP0_ECX_FABRIC))
		return false;
	if ((v & PV_CTL_CR3FILTER) && !cap0(m, 1, PV_CAP0_EBX_CR3FILTER))
		return false;
	if ((v & PV_CTL_TOPA) && !cap0(m, 2, PV_CAP0_ECX_TOPA))
		return false;
	if ((v & PV_CTL_TRACEEN) && !(v & (PV_CTL_TOPA | PV_CTL_FABRICEN)) &&
	    !cap0(m, 2, PV_CAP0_ECX_SNGLRNG))
		return false;
	for (uint32_t n = 0; n < PV_RTIT_MAX_RANGES; n++) {
		uint64_t cfg = PV_CTL_FIELD4(v, PV_CTL_ADDR_CFG_SHIFT(n));

		if (cfg > PV_ADDR_CFG_STOP || (cfg && n >= nr_ranges(m)))
			return false;
	}
	return true;
}

static int write_ctl(struct pv_msr *m, uint64_t v)
{
	uint64_t old = m->ctl;

	if ((old & PV_CTL_TRACEEN) && v != old && (v & PV_CTL_TRACEEN))
		return -pve_gp;
	if (v != old && !ctl_valid(m, v))
		return -pve_gp;
	m->ctl = v;
	return ((old ^ v) & PV_CTL_TRACEEN) ? 1 : 0;
}

static int write_status(struct pv_msr *m, uint64_t v)
{
	uint64_t rw = PV_STATUS_ERROR | PV_STATUS_STOPPED;

	if (cap0(m, 1, PV_CAP0_EBX_PSB_CYC))
		rw |= PV_STATUS_BYTECNT_MASK;
	if (v & ~(rw | STATUS_RO))
		return -pve_gp;
	m->status = (m->status & STATUS_RO) | (v & rw);
	return 0;
}

int pv_msr_write(struct pv_msr *m, uint32_t index, uint64_t v)
{
	if (!m)
		return -pve_invalid;
	if (!is_rtit(index))
		return -pve_no_msr;
	if (!pv_msr_exists(m, index))
		return -pve_gp;
	if (index == PV_MSR_RTIT_CTL)
		return write_ctl(m, v);
	/* Every other RTIT MSR is frozen while tracing. */
	if (m->ctl & PV_CTL_TRACEEN)
		return -pve_gp;
	switch (index) {
	case PV_MSR_RTIT_STATUS:
		return write_status(m, v);
	case PV_MSR_RTIT_OUTPUT_BASE:
		if ((v & 0x7f) || (v & pv_above_maxphys(m->caps.maxphyaddr)))
			return -pve_gp;
		m->output_base = v;
		return 0;
	case PV_MSR_RTIT_OUTPUT_MASK_PTRS:
		m->output_mask = v | PV_MASK_LOWER;
		return 0;
	case PV_MSR_RTIT_CR3_MATCH:
		if (v & 0x1f)
			return -pve_gp;
		m->cr3_match = v;
		return 0;
	default:
		if (!canonical(v))
			return -pve_gp;
		m->addr[index - PV_MSR_RTIT_ADDR0_A] = v;
		return 0;
	}
}

int pv_msr_read(const struct pv_msr *m, uint32_t index, uint64_t *v)
{
	if (!m || !v)
		return -pve_invalid;
	if (!is_rtit(index))
		return -pve_no_msr;
	if (!pv_msr_exists(m, index))
		return -pve_gp;
	switch (index) {
	case PV_MSR_RTIT_CTL:              *v = m->ctl; break;
	case PV_MSR_RTIT_STATUS:           *v = m->status; break;
	case PV_MSR_RTIT_OUTPUT_BASE:      *v = m->output_base; break;
	case PV_MSR_RTIT_OUTPUT_MASK_PTRS: *v = m->output_mask; break;
	case PV_MSR_RTIT_CR3_MATCH:        *v = m->cr3_match; break;
	default: *v = m->addr[index - PV_MSR_RTIT_ADDR0_A]; break;
	}
	return 0;
}

uint64_t pv_msr_psb_period(const struct pv_msr *m)
{
	if (!m)
		return 0;
	return 2048ull << PV_CTL_FIELD4(m->ctl, PV_CTL_PSBFREQ_SHIFT);
}
