/* SPDX-License-Identifier: MIT */
/* Errors, and the names of the library's enums. */
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

const char *hv_errstr(int err)
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

static const char *const hv_src_names[HV_SRC_MAX] = {
	[HV_SRC_SWITCH]    = "switch",
	[HV_SRC_MIGRATE]   = "migrate",
	[HV_SRC_KVM_EXIT]  = "kvm_exit",
	[HV_SRC_KVM_ENTRY] = "kvm_entry",
	[HV_SRC_KVM_UEXIT] = "kvm_userspace_exit",
};

const char *hv_src_name(uint32_t src)
{
	return src < HV_SRC_MAX ? hv_src_names[src] : NULL;
}

static const char *const hv_ev_names[HV_EV_MAX] = {
	[HV_EV_NONE]       = "none",
	[HV_EV_SWITCH_IN]  = "switch-in",
	[HV_EV_SWITCH_OUT] = "switch-out",
	[HV_EV_PREEMPT]    = "preempt",
	[HV_EV_MIGRATE]    = "migrate",
	[HV_EV_KVM_EXIT]   = "kvm-exit",
	[HV_EV_KVM_ENTRY]  = "kvm-entry",
	[HV_EV_KVM_UEXIT]  = "kvm-userspace-exit",
	[HV_EV_LOST]       = "lost",
	[HV_EV_EXIT]       = "exit",
	[HV_EV_FORK]       = "fork",
	[HV_EV_OTHER]      = "other",
};

const char *hv_ev_name(uint32_t type)
{
	return type < HV_EV_MAX ? hv_ev_names[type] : "unknown";
}
