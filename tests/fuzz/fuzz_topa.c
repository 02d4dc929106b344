/* SPDX-License-Identifier: MIT */
/*
 * Target: the ToPA validator and the output engine that follows the
 * tables, over guest memory the guest wrote: the input is a 64-byte
 * header (OUTPUT_BASE, OUTPUT_MASK_PTRS, flags, packet bytes to store)
 * and then guest-physical memory from address 0.
 */
#include "fuzz_input.h"
#include "ringside/pt_core.h"
#include "ringside/rtit.h"

struct guest {
	uint8_t *mem;
	uint64_t size;
};

static void *guest_ptr(void *arg, uint64_t gpa, uint64_t len)
{
	struct guest *g = arg;

	if (gpa > g->size || len > g->size - gpa)
		return NULL;
	return g->mem + gpa;
}

static void on_pmi(void *arg, struct pv_out *o)
{
	(void)arg;
	(void)o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t mem[1 << 16];
	uint8_t packets[4096];
	struct pv_topa_fault fault;
	struct guest g = { mem, 0 };
	struct pv_mem pm = { guest_ptr, &g };
	struct pv_caps caps;
	struct pv_msr msr;
	struct pv_out out;
	struct fz_in in;
	uint64_t base, mask, ctl;
	uint32_t flags, maxphys, max_entries, out_len;

	fz_in_init(&in, data, size);
	base = fz_u64(&in);
	mask = fz_u64(&in);
	ctl = fz_u64(&in);
	flags = fz_u32(&in);
	maxphys = fz_u32(&in);
	max_entries = fz_u32(&in) % 4096;
	out_len = fz_u32(&in) % sizeof(packets);
	fz_u64(&in);
	fz_u64(&in);
	fz_u64(&in);
	/* Low addresses: most of what a table points at is in the input. */
	base %= 2 * sizeof(mem);
	if (flags & 8)
		base &= ~0xfffull;
	g.size = fz_take(&in, mem, sizeof(mem));

	pv_topa_check(&pm, base, mask, flags & 1, maxphys % 64, flags & 2,
		      max_entries, &fault);
	pv_topa_check_entry(mask, base, flags >> 8, maxphys % 64, flags & 4);

	/* The engine takes the same tables through the MSRs, as the guest
	 * programs them; what the MSRs refuse it never sees. */
	pv_cpuid_default(&caps);
	pv_msr_init(&msr, &caps);
	pv_msr_write(&msr, PV_MSR_RTIT_OUTPUT_BASE, base);
	pv_msr_write(&msr, PV_MSR_RTIT_OUTPUT_MASK_PTRS, mask);
	pv_msr_write(&msr, PV_MSR_RTIT_CTL,
		     (ctl & PV_CTL_DEFINED) | PV_CTL_TRACEEN | PV_CTL_TOPA);
	pv_out_init(&out, &msr, &pm, on_pmi, NULL);
	for (uint32_t i = 0; i < out_len; i++)
		packets[i] = (uint8_t)i;
	pv_out_write(&out, packets, out_len);
	pv_out_active(&out);
	return 0;
}
