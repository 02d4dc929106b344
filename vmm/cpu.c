// SPDX-License-Identifier: MIT
/*
 * vCPUs: creation (KVM_CREATE_VCPU, the kvm_run mapping, CPUID with a
 * per-vCPU APIC id), the state other threads may read, and the registers
 * a tracer's hook reads and edits.  The run loop is in run.c.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmm_internal.h"

#define VCPU(cpu) ((struct vmm_vcpu *)(cpu))

static int get_supported(void *arg, struct kvm_cpuid2 *c)
{
	const struct vmm *vm = arg;

	return ioctl(vm->sys_fd, KVM_GET_SUPPORTED_CPUID, c) < 0 ? -errno : 0;
}

static int set_cpuid(struct vmm_vcpu *vcpu)
{
	struct vmm *vm = vcpu->vm;
	struct kvm_cpuid2 *cpuid;
	int ret;

	/* As large as KVM's table, however large that is. */
	ret = vmm_cpuid_fetch(get_supported, vm, &cpuid);
	if (ret < 0)
		return vmm_log(vm, "KVM_GET_SUPPORTED_CPUID: %s", strerror(-ret)),
		       ret;
	for (uint32_t i = 0; i < cpuid->nent; i++) {
		struct kvm_cpuid_entry2 *e = &cpuid->entries[i];

		/* Each vCPU sees its own APIC id. */
		if (e->function == 1)
			e->ebx = (e->ebx & 0x00ffffffu) | (vcpu->id << 24);
		if (e->function == 0xb || e->function == 0x1f)
			e->edx = vcpu->id;
	}
	/* Kept by the vCPU: overrides (cpuid.c) merge into this copy. */
	ret = vmm_cpuid_set(vcpu, cpuid);
	if (ret < 0)
		vmm_log(vm, "KVM_SET_CPUID2: %s", strerror(-ret));
	return ret;
}

static int vcpu_create(struct vmm *vm, struct vmm_vcpu *vcpu, uint32_t id)
{
	void *run;
	int ret;

	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->state = RS_VCPU_CREATED;
	vcpu->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, id);
	if (vcpu->fd < 0) {
		ret = -errno;
		vmm_log(vm, "KVM_CREATE_VCPU %u: %s", id, strerror(errno));
		return ret;
	}
	run = mmap(NULL, (size_t)vm->run_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED, vcpu->fd, 0);
	if (run == MAP_FAILED) {
		ret = -errno;
		vmm_log(vm, "mapping kvm_run of vCPU %u: %s", id, strerror(errno));
		return ret;
	}
	vcpu->run = run;
	return set_cpuid(vcpu);
}

int vmm_cpu_init(struct vmm *vm)
{
	int ret;

	vm->vcpus = calloc(vm->nr_vcpus, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		return -ENOMEM;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++)
		vm->vcpus[i].fd = -1;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		ret = vcpu_create(vm, &vm->vcpus[i], i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

void vmm_cpu_fini(struct vmm *vm)
{
	if (!vm->vcpus)
		return;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		struct vmm_vcpu *vcpu = &vm->vcpus[i];

		if (vcpu->run)
			munmap(vcpu->run, (size_t)vm->run_size);
		if (vcpu->fd >= 0)
			close(vcpu->fd);
		free(vcpu->cpuid);
	}
	free(vm->vcpus);
	vm->vcpus = NULL;
}

int vmm_cpu_info(struct vmm *vm, uint32_t id,
		     struct rs_vmm_vcpu_info *info)
{
	const struct rs_guest_report *rep;
	struct vmm_vcpu *vcpu;

	if (!vm || !info || id >= vm->nr_vcpus)
		return -EINVAL;
	vcpu = &vm->vcpus[id];
	memset(info, 0, sizeof(*info));
	pthread_mutex_lock(&vm->lock);
	info->id = id;
	info->state = vcpu->state;
	info->error = vcpu->error;
	info->exit_reason = vcpu->exit_reason;
	info->done = vcpu->done;
	info->done_value = vcpu->done_value;
	info->guest_error = vcpu->guest_error;
	info->rip = vcpu->rip;
	memcpy(info->console, vcpu->console, sizeof(info->console));
	pthread_mutex_unlock(&vm->lock);
	{
		uint64_t refused = vmm_counter_read(&vcpu->header_refused);

		info->header_refused = refused > UINT32_MAX ? UINT32_MAX :
				       (uint32_t)refused;
	}
	info->exits.total = vmm_counter_read(&vcpu->exits.total);
	info->exits.io = vmm_counter_read(&vcpu->exits.io);
	info->exits.mmio = vmm_counter_read(&vcpu->exits.mmio);
	info->exits.doorbell_mmio = vmm_counter_read(&vcpu->exits.doorbell_mmio);
	info->exits.hlt = vmm_counter_read(&vcpu->exits.hlt);
	info->exits.kicks = vmm_counter_read(&vcpu->exits.kicks);
	info->exits.other = vmm_counter_read(&vcpu->exits.other);
	/* Guest memory: a hint, exact once the vCPU is paused or stopped. */
	rep = vmm_mem_ptr(vm, RS_BOOT_REPORT_GPA + id * sizeof(*rep),
			  sizeof(*rep));
	if (rep)
		memcpy(&info->report, rep, sizeof(*rep));
	return 0;
}

const char *vmm_cpu_state_name(uint32_t state)
{
	static const char *const names[] = {
		[RS_VCPU_CREATED] = "created",
		[RS_VCPU_RUNNING] = "running",
		[RS_VCPU_HALTED] = "halted",
		[RS_VCPU_SHUTDOWN] = "shutdown (triple fault)",
		[RS_VCPU_FAILED] = "failed",
		[RS_VCPU_STOPPED] = "stopped",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

/* ---- a vCPU seen from a tracer's hook (its own thread) ------------------- */

uint32_t vmm_cpu_id(const struct vmm_cpu *cpu)
{
	return cpu ? ((const struct vmm_vcpu *)cpu)->id : 0;
}

struct vmm *vmm_cpu_vm(struct vmm_cpu *cpu)
{
	return cpu ? VCPU(cpu)->vm : NULL;
}

int vmm_cpu_get_regs(struct vmm_cpu *cpu, struct kvm_regs *regs)
{
	if (!cpu || !regs)
		return -EINVAL;
	return ioctl(VCPU(cpu)->fd, KVM_GET_REGS, regs) < 0 ? -errno : 0;
}

int vmm_cpu_set_regs(struct vmm_cpu *cpu, const struct kvm_regs *regs)
{
	if (!cpu || !regs)
		return -EINVAL;
	return ioctl(VCPU(cpu)->fd, KVM_SET_REGS, regs) < 0 ? -errno : 0;
}

int vmm_cpu_get_sregs(struct vmm_cpu *cpu, struct kvm_sregs *sregs)
{
	if (!cpu || !sregs)
		return -EINVAL;
	return ioctl(VCPU(cpu)->fd, KVM_GET_SREGS, sregs) < 0 ? -errno : 0;
}
