// SPDX-License-Identifier: MIT
/*
 * MSR exits to user space: KVM_CAP_X86_USER_SPACE_MSR with an MSR filter
 * that denies the listed indices, so every RDMSR/WRMSR of them leaves KVM
 * (KVM_EXIT_X86_RDMSR / WRMSR) and the hook decides.  A hook that refuses
 * makes KVM inject #GP into the guest, as the hardware would.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm_internal.h"

#define MAX_RANGES 16   /* KVM_MSR_FILTER_MAX_RANGES */

int vmm_msr_intercept(struct vmm *vm, const uint32_t *idx, uint32_t n,
			 vmm_msr_fn fn, void *arg)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	struct kvm_msr_filter filter;
	/* All zero: every listed MSR is denied, hence an exit. */
	static uint8_t deny[MAX_RANGES * 8];
	uint32_t r = 0;

	if (!vm || !fn || !idx || !n)
		return -EINVAL;
	if (vm->started)
		return -EBUSY;
	if (ioctl(vm->sys_fd, KVM_CHECK_EXTENSION, KVM_CAP_X86_USER_SPACE_MSR) <= 0 ||
	    ioctl(vm->sys_fd, KVM_CHECK_EXTENSION, KVM_CAP_X86_MSR_FILTER) <= 0)
		return vmm_log(vm, "KVM lacks user-space MSR exits"), -ENOSYS;
	memset(&filter, 0, sizeof(filter));
	filter.flags = KVM_MSR_FILTER_DEFAULT_ALLOW;
	/* One range per run of consecutive indices (the list is sorted). */
	for (uint32_t i = 0; i < n; i++) {
		struct kvm_msr_filter_range *rg = &filter.ranges[r ? r - 1 : 0];

		if (r && idx[i] == rg->base + rg->nmsrs && rg->nmsrs < 64) {
			rg->nmsrs++;
			continue;
		}
		if (r == MAX_RANGES)
			return -E2BIG;
		rg = &filter.ranges[r++];
		rg->flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE;
		rg->base = idx[i];
		rg->nmsrs = 1;
		rg->bitmap = deny;
	}
	if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap) < 0) {
		vmm_log(vm, "KVM_CAP_X86_USER_SPACE_MSR: %s", strerror(errno));
		return -errno;
	}
	if (ioctl(vm->vm_fd, KVM_X86_SET_MSR_FILTER, &filter) < 0) {
		vmm_log(vm, "KVM_X86_SET_MSR_FILTER: %s", strerror(errno));
		return -errno;
	}
	vm->msr_fn = fn;
	vm->msr_arg = arg;
	return 0;
}

void vmm_msr_exit(struct vmm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct vmm *vm = vcpu->vm;
	bool write = run->exit_reason == KVM_EXIT_X86_WRMSR;
	uint64_t value = write ? run->msr.data : 0;
	int ret;

	vmm_counter_inc(&vcpu->exits.other);
	ret = vm->msr_fn ? vm->msr_fn(vm->msr_arg, (struct vmm_cpu *)vcpu,
				      run->msr.index, write, &value) : -EPERM;
	run->msr.error = ret < 0;
	if (!write && ret >= 0)
		run->msr.data = value;
}
