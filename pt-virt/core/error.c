// SPDX-License-Identifier: MIT
/* Error strings: one enum for the library and the ToPA validator. */
#include "ringside/pt_core.h"
#include "ringside/ring_error.h"

const char *pv_error_str(int err)
{
	static const char *const names[] = {
		[pve_ok] = "success",
		[pve_internal] = "internal error",
		[pve_invalid] = "invalid argument",
		[pve_nomem] = "out of memory",
		[pve_geometry] = "bad geometry (size, alignment, power of two)",
		[pve_gp] = "general-protection fault (#GP)",
		[pve_no_msr] = "not an RTIT MSR",
		[pve_unmapped] = "guest-physical range outside guest memory",
		[pve_no_space] = "no free output region",
		[pve_topa_rsvd] = "ToPA entry reserved bit set",
		[pve_topa_maxphys] = "ToPA base above MAXPHYADDR",
		[pve_topa_table_align] = "ToPA table base not 4 KiB aligned",
		[pve_topa_region_align] = "ToPA region base not aligned to its size",
		[pve_topa_offset] = "OutputOffset not below the region size",
		[pve_topa_end_flags] = "STOP or INT on an END entry",
		[pve_topa_end_first] = "END in entry 0 of a ToPA table",
		[pve_topa_single_not_end] = "single-entry ToPA: entry 1 is not END",
		[pve_topa_single_base] = "single-entry ToPA: END does not point back to the table",
		[pve_insn] = "undecodable instruction",
		[pve_encode] = "packet encoder error",
		[pve_decode] = "trace decoder error",
		[pve_format] = "malformed capture file",
		[pve_io] = "I/O error",
		[pve_kvm] = "KVM call failed",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == pve_max,
		       "a name for every enum pv_error");

	return rs_error_name(err, names, pve_max, "unknown error");
}
