// SPDX-License-Identifier: MIT
/* CPUID leaf 0x14: what the virtual CPU says about its Intel PT. */
#include "pv_internal.h"

void pv_cpuid_default(struct pv_caps *c)
{
	if (!c)
		return;
	memset(c, 0, sizeof(*c));
	c->leaf0[0] = 1;                       /* highest sub-leaf */
	c->leaf0[1] = PV_CAP0_EBX_CR3FILTER | PV_CAP0_EBX_PSB_CYC |
		      PV_CAP0_EBX_IPFILTER;
	c->leaf0[2] = PV_CAP0_ECX_TOPA | PV_CAP0_ECX_MENTRY;
	c->leaf1[0] = 2;                       /* address ranges; no MTC */
	c->leaf1[1] = 0x0001u | (0x003fu << 16); /* CycThresh 0; PSBFreq 0..5 */
	c->maxphyaddr = PV_DEFAULT_MAXPHYADDR;
}

void pv_cpuid_14(const struct pv_caps *c, uint32_t subleaf, uint32_t out[4])
{
	if (!out)
		return;
	memset(out, 0, 4 * sizeof(out[0]));
	if (!c)
		return;
	if (subleaf == 0)
		memcpy(out, c->leaf0, sizeof(c->leaf0));
	else if (subleaf == 1 && c->leaf0[0] >= 1)
		memcpy(out, c->leaf1, sizeof(c->leaf1));
}
