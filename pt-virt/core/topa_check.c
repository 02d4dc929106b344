// SPDX-License-Identifier: MIT
/*
 * The ToPA validator: every operational error of the SDM's "ToPA Errors",
 * checked per entry and along the walk the hardware makes from the output
 * MSRs.
 */
#include "pv_internal.h"

int pv_topa_check_entry(uint64_t e, uint64_t table, uint32_t index,
			uint32_t maxphyaddr, bool single)
{
	uint64_t above = pv_above_maxphys(maxphyaddr ? maxphyaddr :
					  PV_DEFAULT_MAXPHYADDR);

	if (e & PV_TOPA_RSVD_LOW)
		return -pve_topa_rsvd;
	if (e & above)
		return -pve_topa_maxphys;
	if (e & PV_TOPA_END) {
		if (e & (PV_TOPA_STOP | PV_TOPA_INT))
			return -pve_topa_end_flags;
		if (index == 0)
			return -pve_topa_end_first;
		if (single && pv_entry_base(e) != table)
			return -pve_topa_single_base;
		return 0;
	}
	if (single && index >= 1)
		return -pve_topa_single_not_end;
	if (pv_entry_base(e) & (pv_entry_bytes(e) - 1))
		return -pve_topa_region_align;
	return 0;
}

static int fail(struct pv_topa_fault *f, int err, uint64_t table,
		uint32_t index, uint64_t e)
{
	if (f) {
		f->err = err;
		f->table = table;
		f->index = index;
		f->entry = e;
	}
	return err;
}

int pv_topa_check(const struct pv_mem *mem, uint64_t base, uint64_t mask_ptrs,
		  bool stopped, uint32_t maxphyaddr, bool single,
		  uint32_t max_entries, struct pv_topa_fault *fault)
{
	uint32_t index = (uint32_t)((mask_ptrs >> PV_MASK_TABLE_SHIFT) &
				    PV_MASK_TABLE_MASK);
	uint64_t offset = mask_ptrs >> PV_MASK_OFFSET_SHIFT;
	uint64_t table = base, start = base, e;
	uint32_t start_index = index;
	bool first_output = true;
	int err;

	fail(fault, 0, 0, 0, 0);
	if (!mem || !mem->ptr)
		return fail(fault, -pve_unmapped, base, index, 0);
	if (base & pv_above_maxphys(maxphyaddr ? maxphyaddr :
				    PV_DEFAULT_MAXPHYADDR))
		return fail(fault, -pve_topa_maxphys, base, index, 0);
	if (base & 0xfff)
		return fail(fault, -pve_topa_table_align, base, index, 0);

	for (uint32_t n = 0; n < max_entries; n++) {
		if (pv_entry_load(mem, table + (uint64_t)index * 8, &e) < 0)
			return fail(fault, -pve_unmapped, table, index, 0);
		err = pv_topa_check_entry(e, table, index, maxphyaddr, single);
		if (err)
			return fail(fault, err, table, index, e);
		if (e & PV_TOPA_END) {
			table = pv_entry_base(e);
			index = 0;
		} else {
			if (first_output && !stopped && offset >= pv_entry_bytes(e))
				return fail(fault, -pve_topa_offset, table, index, e);
			first_output = false;
			if (!mem->ptr(mem->arg, pv_entry_base(e), pv_entry_bytes(e)))
				return fail(fault, -pve_unmapped, table, index, e);
			index++;
		}
		if (table == start && index == start_index)
			break;
	}
	return 0;
}
