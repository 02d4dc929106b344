// SPDX-License-Identifier: MIT
/*
 * Single-stepping for software PT.  While a vCPU's stepping is on, every
 * KVM_RUN is preceded by KVM_SET_GUEST_DEBUG(SINGLESTEP): the call re-arms
 * the trap flag KVM keeps on the guest, which an IRET or POPF of the guest
 * would otherwise clear.  Each KVM_EXIT_DEBUG goes to the hook, which may
 * edit the registers (interrupt delivery, an emulated INT3) through the
 * vmm_cpu_* calls (cpu.c).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm_internal.h"

#define VCPU(cpu) ((struct vmm_vcpu *)(cpu))

int vmm_step_hook(struct vmm *vm, vmm_step_fn fn, void *arg)
{
	if (!vm || !fn)
		return -EINVAL;
	if (vm->started)
		return -EBUSY;
	vm->step_fn = fn;
	vm->step_arg = arg;
	return 0;
}

int vmm_step_set(struct vmm_cpu *cpu, bool on)
{
	if (!cpu)
		return -EINVAL;
	VCPU(cpu)->step_on = on;
	return 0;
}

/* Before each KVM_RUN on the vCPU thread. */
int vmm_step_arm(struct vmm_vcpu *vcpu)
{
	struct kvm_guest_debug dbg;

	if (!vcpu->step_on && !vcpu->step_armed)
		return 0;
	memset(&dbg, 0, sizeof(dbg));
	if (vcpu->step_on)
		dbg.control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_SINGLESTEP;
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &dbg) < 0) {
		vmm_log(vcpu->vm, "KVM_SET_GUEST_DEBUG: %s", strerror(errno));
		return -errno;
	}
	vcpu->step_armed = vcpu->step_on;
	return 0;
}

/* KVM_EXIT_DEBUG: returns 0 to go on, < 0 to fail the vCPU. */
int vmm_step_exit(struct vmm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct vmm *vm = vcpu->vm;
	struct vmm_debug d = {
		.rip = run->debug.arch.pc,
		.exception = run->debug.arch.exception,
		.dr6 = run->debug.arch.dr6,
	};

	vmm_counter_inc(&vcpu->exits.other);
	if (!vm->step_fn)
		return -ENOSYS;
	return vm->step_fn(vm->step_arg, (struct vmm_cpu *)vcpu, &d);
}
