// SPDX-License-Identifier: MIT
/*
 * The vCPU run loop: one thread per vCPU calling KVM_RUN, and the exits
 * this guest can cause: port I/O (console, done, error), MMIO (a write to
 * the guarded header page, a doorbell no ioeventfd took, or a stray
 * access), HLT, SHUTDOWN (triple fault),
 * internal errors.  A vCPU that stops leaves guest memory and the region
 * alone, so the flight recorder survives a crashed guest.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "vmm_internal.h"

static void console_put(struct vmm_vcpu *vcpu, uint8_t c)
{
	/* Keep the last bytes: a chatty guest cannot grow host memory. */
	if (vcpu->console_len == sizeof(vcpu->console) - 1) {
		memmove(vcpu->console, vcpu->console + 1, vcpu->console_len - 1);
		vcpu->console_len--;
	}
	vcpu->console[vcpu->console_len++] = (char)c;
	vcpu->console[vcpu->console_len] = 0;
}

static uint32_t io_value(const struct kvm_run *run)
{
	const uint8_t *data = (const uint8_t *)run + run->io.data_offset;
	uint32_t v = 0;

	memcpy(&v, data, run->io.size <= 4 ? run->io.size : 4);
	return v;
}

static void handle_io(struct vmm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct vmm *vm = vcpu->vm;

	vmm_counter_inc(&vcpu->exits.io);
	if (run->io.direction == KVM_EXIT_IO_IN) {
		/* Nothing to read on any port: all ones, like an empty bus. */
		memset((uint8_t *)run + run->io.data_offset, 0xff,
		       (size_t)run->io.size * run->io.count);
		return;
	}
	pthread_mutex_lock(&vm->lock);
	switch (run->io.port) {
	case RS_PORT_CONSOLE:
		console_put(vcpu, (uint8_t)io_value(run));
		break;
	case RS_PORT_DONE:
		vcpu->done = 1;
		vcpu->done_value = io_value(run);
		break;
	case RS_PORT_ERROR:
		vcpu->guest_error = (int32_t)io_value(run);
		break;
	case RS_PORT_READY:
		/* vCPU 0 opened the region: the others may start */
		if (vcpu->id == 0 && !vm->aps_go) {
			vm->aps_go = true;
			pthread_cond_broadcast(&vm->cond);
		}
		break;
	}
	pthread_mutex_unlock(&vm->lock);
}

static void handle_mmio(struct vmm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	vmm_counter_inc(&vcpu->exits.mmio);
	if (run->mmio.is_write && vmm_doorbell_is(run->mmio.phys_addr))
		vmm_counter_inc(&vcpu->exits.doorbell_mmio);
	if (!run->mmio.is_write)
		memset(run->mmio.data, 0xff, sizeof(run->mmio.data));
}

static uint64_t vcpu_rip(struct vmm_vcpu *vcpu)
{
	struct kvm_regs regs;

	if (ioctl(vcpu->fd, KVM_GET_REGS, &regs) < 0)
		return 0;
	return regs.rip;
}

/* One exit; returns the vCPU's final state, or RS_VCPU_RUNNING to go on. */
static uint32_t handle_exit(struct vmm_vcpu *vcpu, int32_t *err)
{
	struct kvm_run *run = vcpu->run;
	uint32_t end = RS_VCPU_FAILED;

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		handle_io(vcpu);
		return RS_VCPU_RUNNING;
	case KVM_EXIT_MMIO:
		handle_mmio(vcpu);
		return RS_VCPU_RUNNING;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		vmm_msr_exit(vcpu);
		return RS_VCPU_RUNNING;
	case KVM_EXIT_DEBUG:
		*err = vmm_step_exit(vcpu);
		return *err < 0 ? RS_VCPU_FAILED : RS_VCPU_RUNNING;
	case KVM_EXIT_HLT:
		/* No in-kernel irqchip, so nothing could ever wake it. */
		vmm_counter_inc(&vcpu->exits.hlt);
		return RS_VCPU_HALTED;
	case KVM_EXIT_INTR:
		vmm_counter_inc(&vcpu->exits.kicks);
		return RS_VCPU_RUNNING;
	/* the rest end the vCPU, counted as other exits */
	case KVM_EXIT_SHUTDOWN:
		end = RS_VCPU_SHUTDOWN;
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		*err = (int32_t)run->internal.suberror;
		break;
	case KVM_EXIT_FAIL_ENTRY:
		*err = (int32_t)run->fail_entry.hardware_entry_failure_reason;
		break;
	default:
		break;
	}
	vmm_counter_inc(&vcpu->exits.other);
	return end;
}

void *vmm_run_vcpu(void *arg)
{
	struct vmm_vcpu *vcpu = arg;
	struct vmm *vm = vcpu->vm;
	uint32_t state = RS_VCPU_RUNNING;
	int32_t err = 0;
	uint64_t rip;
	char name[16];

	/* QEMU's name for a vCPU thread (debug-threads=on), so that host
	 * tools and ringside's own host view find it the same way. */
	snprintf(name, sizeof(name), "CPU %u/KVM", vcpu->id);
	pthread_setname_np(pthread_self(), name);
	vmm_pause_bind(vcpu->run);
	while (state == RS_VCPU_RUNNING) {
		if (vmm_pause_park(vcpu)) {
			state = RS_VCPU_STOPPED;
			break;
		}
		err = vmm_step_arm(vcpu);
		if (err < 0) {
			state = RS_VCPU_FAILED;
			break;
		}
		if (ioctl(vcpu->fd, KVM_RUN, 0) < 0) {
			vmm_counter_inc(&vcpu->exits.total);
			if (errno == EINTR || errno == EAGAIN) {
				/* A kick: pause or stop; park decides. */
				vmm_counter_inc(&vcpu->exits.kicks);
				vcpu->kick_counted = true;
				continue;
			}
			err = -errno;
			state = RS_VCPU_FAILED;
			break;
		}
		/* The header guard's exits are counted as its own
		 * (vmm_region_info), apart from the guest's other exits. */
		if (vcpu->run->exit_reason == KVM_EXIT_MMIO && vmm_guard_mmio(vcpu))
			continue;
		vmm_counter_inc(&vcpu->exits.total);
		state = handle_exit(vcpu, &err);
	}
	rip = vcpu_rip(vcpu);

	pthread_mutex_lock(&vm->lock);
	vcpu->rip = rip;
	vcpu->error = err;
	vcpu->exit_reason = vcpu->run->exit_reason;
	vcpu->state = state;
	if (vcpu->id == 0)
		vm->aps_go = true;   /* whatever happened, they are not held */
	vm->running--;
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	return NULL;
}
