/* SPDX-License-Identifier: MIT */
/*
 * The perf events behind each source: their attrs, opening them, the
 * tracepoints they read.  Every event of a thread has the same clock
 * (CLOCK_MONOTONIC, ringside's host time) and the same sample_id_all
 * trailer, so that they can share one buffer and be told apart by id.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

uint64_t hv_src_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hv_src_attr(uint32_t src, uint32_t tp_id, int backward, uint32_t wakeup,
		 struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = HV_SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->write_backward = backward ? 1 : 0;
	if (!backward && wakeup) {
		a->watermark = 1;
		a->wakeup_watermark = wakeup;
	}
	switch (src) {
	case HV_SRC_SWITCH:
		/* No samples: only the side-band records.  exclude_kernel
		 * asks for nothing of the kernel's, so that a process may
		 * record its own threads under perf_event_paranoid 2. */
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
		a->context_switch = 1;
		a->task = 1;
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		break;
	case HV_SRC_MIGRATE:
		/* Counted in the scheduler: kernel context, so not
		 * exclude_kernel. */
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_MIGRATIONS;
		a->sample_period = 1;
		break;
	default:
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = tp_id;
		a->sample_period = 1;
		a->sample_type |= PERF_SAMPLE_RAW;
		break;
	}
}

int hv_src_perf_open(struct perf_event_attr *attr, int32_t tid)
{
	long fd = syscall(SYS_perf_event_open, attr, (pid_t)tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int hv_src_open_error(int err)
{
	switch (err) {
	case -EACCES:
	case -EPERM:
		return HV_ERR(hve_perm);
	case -ENOSYS:
		return HV_ERR(hve_no_perf);
	}
	return err;
}

static const char *const exit_fields[] = { "exit_reason", "isa" };
static const char *const uexit_fields[] = { "reason", "errno" };

static const struct hv_tp_want tp_wants[HV_SRC_MAX] = {
	[HV_SRC_KVM_EXIT]  = { "kvm_exit", exit_fields, 2 },
	[HV_SRC_KVM_ENTRY] = { "kvm_entry", NULL, 0 },
	[HV_SRC_KVM_UEXIT] = { "kvm_userspace_exit", uexit_fields, 2 },
};

const struct hv_tp_want *hv_src_tp(uint32_t src)
{
	return src < HV_SRC_MAX && tp_wants[src].event ? &tp_wants[src] : NULL;
}

/* Without kvm_exit's isa field (kernels before 5.13): the vendor module
 * that is loaded says which exit codes these are. */
static uint32_t isa_of_host(void)
{
	if (access("/sys/module/kvm_intel", F_OK) == 0)
		return HV_ISA_VMX;
	if (access("/sys/module/kvm_amd", F_OK) == 0)
		return HV_ISA_SVM;
	return HV_ISA_UNKNOWN;
}

int hv_src_load(const char *tracefs, uint32_t sources, uint32_t *ids,
		struct hv_layout *l, int *errs)
{
	int first = 0;

	for (uint32_t s = 0; s < HV_SRC_MAX; s++) {
		const struct hv_tp_want *w = hv_src_tp(s);
		struct hv_tp tp;
		int ret;

		ids[s] = 0;
		errs[s] = 0;
		if (!w || !(sources & HV_SRC_BIT(s)))
			continue;
		ret = hv_tp_load(tracefs, "kvm", w->event, w->fields,
				 w->nfields, &tp);
		if (!ret && s == HV_SRC_KVM_EXIT && !tp.f[0].size)
			ret = HV_ERR(hve_format);
		if (!ret && s == HV_SRC_KVM_UEXIT && !tp.f[0].size)
			ret = HV_ERR(hve_format);
		if (!ret && !tp.id)
			ret = HV_ERR(hve_format);
		if (ret) {
			errs[s] = ret;
			if (!first)
				first = ret;
			continue;
		}
		ids[s] = tp.id;
		if (s == HV_SRC_KVM_EXIT) {
			l->exit_reason = tp.f[0];
			l->exit_isa = tp.f[1];
			if (!tp.f[1].size)
				l->isa = isa_of_host();
		} else if (s == HV_SRC_KVM_UEXIT) {
			l->uexit_reason = tp.f[0];
			l->uexit_errno = tp.f[1];
		}
	}
	return first;
}
