/* SPDX-License-Identifier: MIT */
/* Errors by name. */
#include <string.h>

#include "ringside/hv_types.h"

static const char *const hv_error_names[hve_max] = {
	[hve_ok]         = "success",
	[hve_invalid]    = "invalid argument",
	[hve_perm]       = "perf events on that thread are not permitted "
			   "(kernel.perf_event_paranoid, no CAP_PERFMON, "
			   "or another user's process)",
	[hve_no_perf]    = "this kernel has no perf_event_open",
	[hve_no_tracefs] = "no tracefs mounted (/sys/kernel/tracing)",
	[hve_no_tp]      = "no such tracepoint on this host",
	[hve_format]     = "a tracepoint's format lacks a field it needs",
	[hve_short]      = "record shorter than its layout",
	[hve_corrupt]    = "record or buffer position no kernel writes",
	[hve_too_many]   = "more threads than the recorder holds",
	[hve_mlock]      = "perf buffers over kernel.perf_event_mlock_kb "
			   "and RLIMIT_MEMLOCK",
};

const char *hv_err_str(int err)
{
	/* Compare before negating: -INT_MIN does not exist. */
	if (err == 0)
		return hv_error_names[hve_ok];
	if (err <= -HV_ERR_BASE && err > -(HV_ERR_BASE + hve_max))
		return hv_error_names[-err - HV_ERR_BASE];
	if (err < 0 && err > -HV_ERR_BASE)
		return strerror(-err);
	return "unknown error";
}
