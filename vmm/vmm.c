// SPDX-License-Identifier: MIT
/*
 * The VM object: parameter checks, then vmm_create brings the parts up
 * in the order KVM needs them and vmm_destroy takes them down in reverse,
 * after the destroy hooks of what was built on top (the control server).
 * In between, its life as its users see it: start, wait and stop the vCPU
 * threads (run.c is a thread's loop), pause and resume them (pause.c is
 * the kick), and the log line every part writes through.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmm_internal.h"

void vmm_params_init(struct vmm_params *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->nr_vcpus = 1;
	p->data_pages = 1;
	p->data_mode = RS_MODE_NORMAL;
	p->aux_mode = RS_MODE_NORMAL;
	p->boot.workload = RS_WL_STEADY;
	p->boot.records = 1000;
	p->boot.fill = 16;
	p->boot.sample_every = 8;
	p->boot.aux_every = 16;
	p->boot.aux_bytes = 256;
	/* data_head per 16 KiB rather than per record (the agent lowers it
	 * to half a smaller data area): docs/benchmarks.md, vmm-bench. */
	p->boot.data_batch = 16384;
}

static int check_params(struct vmm *vm, const struct vmm_params *p)
{
	uint32_t rings = p->nr_rings ? p->nr_rings : p->nr_vcpus;
	uint64_t stacks = (uint64_t)p->nr_vcpus * RS_BOOT_STACK_SIZE;

	if (p->nr_vcpus == 0)
		return vmm_log(vm, "need at least one vCPU"), -EINVAL;
	if (p->nr_vcpus > RS_MAX_VCPUS || rings > RS_MAX_RINGS)
		return vmm_log(vm, "%u vCPUs / %u rings: at most %u",
			       p->nr_vcpus, rings, RS_MAX_RINGS), -ERANGE;
	if (rings < p->nr_vcpus)
		return vmm_log(vm, "%u vCPUs but only %u rings: one ring per vCPU",
			       p->nr_vcpus, rings), -ERANGE;
	if (!rs_is_pow2(p->data_pages))
		return vmm_log(vm, "data pages %u: not a power of two",
			       p->data_pages), -EINVAL;
	if (p->aux_pages && !rs_is_pow2(p->aux_pages))
		return vmm_log(vm, "aux pages %u: not a power of two",
			       p->aux_pages), -EINVAL;
	if (p->data_mode > RS_MODE_OVERWRITE || p->aux_mode > RS_MODE_OVERWRITE)
		return vmm_log(vm, "unknown ring mode"), -EINVAL;
	if (p->boot.workload >= RS_WL_MAX)
		return vmm_log(vm, "unknown workload %u", p->boot.workload), -EINVAL;
	if (p->ram_size && (p->ram_size & (RS_PAGE_SIZE - 1)))
		return vmm_log(vm, "RAM size not page aligned"), -EINVAL;
	if (p->ram_size > RS_BOOT_REGION_GPA ||
	    (p->ram_size && p->ram_size < RS_BOOT_LOAD_GPA + stacks + (1u << 20)))
		return vmm_log(vm, "RAM size %llu out of range",
			       (unsigned long long)p->ram_size), -E2BIG;
	return 0;
}

static void fill_region_params(struct rs_region_params *rp,
			       const struct vmm_params *p)
{
	/* check_params() passed: rs_region_size() judges the rest. */
	rs_region_params_init(rp, p->nr_rings ? p->nr_rings : p->nr_vcpus,
			      p->data_pages, p->aux_pages, p->data_mode,
			      p->aux_mode);
	rp->doorbell_addr = RS_BOOT_DOORBELL_GPA;
	rp->data_watermark = p->data_watermark;
	rp->aux_watermark = p->aux_watermark;
	rp->trace_mask = p->trace_mask;
	if (!rp->trace_mask)
		rp->trace_mask = RS_TRACE_TEST | RS_TRACE_SAMPLES |
				 (p->aux_pages ? RS_TRACE_AUX : 0);
	rp->sample_type = p->sample_type;
	if (!rp->sample_type)
		rp->sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID |
				  RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_CPU;
}

int vmm_create(struct vmm **out, const struct vmm_params *user)
{
	struct vmm_params p;
	struct rs_region_params rp;
	struct vmm *vm;
	int ret;

	if (!out || !user || user->size < offsetof(struct vmm_params, log))
		return -EINVAL;
	*out = NULL;
	/* Accept older, shorter params: what they lack stays zero. */
	memset(&p, 0, sizeof(p));
	memcpy(&p, user, user->size < sizeof(p) ? user->size : sizeof(p));

	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->log = p.log;
	vm->log_arg = p.log_arg;
	vm->sys_fd = vm->vm_fd = vm->region_fd = -1;
	for (uint32_t i = 0; i < RS_MAX_RINGS; i++)
		vm->doorbells[i].fd = -1;
	pthread_mutex_init(&vm->lock, NULL);
	pthread_cond_init(&vm->cond, NULL);

	ret = check_params(vm, &p);
	if (ret < 0)
		goto fail;
	vm->nr_vcpus = p.nr_vcpus;
	vm->boot = p.boot;
	fill_region_params(&rp, &p);

	/* each step in order; the first that fails ends it */
	if ((ret = vmm_pause_init()) < 0 ||
	    (ret = vmm_kvm_open(vm, p.kvm_path ? p.kvm_path : "/dev/kvm")) < 0 ||
	    /* room for the payload and a stack per vCPU (RS_BOOT_STACK_SIZE) */
	    (ret = vmm_mem_init(vm, p.ram_size ? p.ram_size : (8ull << 20) +
				2ull * p.nr_vcpus * RS_BOOT_STACK_SIZE)) < 0 ||
	    (ret = vmm_region_init(vm, &rp)) < 0 ||
	    (ret = vmm_doorbell_init(vm)) < 0 ||
	    (ret = vmm_boot_tables(vm)) < 0 ||
	    (ret = vmm_cpu_init(vm)) < 0 ||
	    (ret = vmm_tsc_init(vm)) < 0)
		goto fail;
	*out = vm;
	return 0;
fail:
	vmm_destroy(vm);
	return ret;
}

void vmm_destroy(struct vmm *vm)
{
	if (!vm)
		return;
	vmm_stop(vm);
	while (vm->nr_destroy_hooks) {
		uint32_t i = --vm->nr_destroy_hooks;

		vm->destroy_hooks[i].fn(vm, vm->destroy_hooks[i].arg);
	}
	vmm_cpu_fini(vm);
	/* The VM goes before the memory and eventfds it holds. */
	vmm_kvm_close(vm);
	vmm_doorbell_fini(vm);
	vmm_region_fini(vm);
	vmm_mem_fini(vm);
	pthread_cond_destroy(&vm->cond);
	pthread_mutex_destroy(&vm->lock);
	free(vm);
}

int vmm_destroy_hook(struct vmm *vm, vmm_destroy_fn fn, void *arg)
{
	if (!vm || !fn)
		return -EINVAL;
	for (uint32_t i = 0; i < vm->nr_destroy_hooks; i++)
		if (vm->destroy_hooks[i].fn == fn)
			return -EBUSY;
	if (vm->nr_destroy_hooks == VMM_MAX_DESTROY_HOOKS)
		return -ENOSPC;
	vm->destroy_hooks[vm->nr_destroy_hooks].fn = fn;
	vm->destroy_hooks[vm->nr_destroy_hooks].arg = arg;
	vm->nr_destroy_hooks++;
	return 0;
}

int vmm_destroy_unhook(struct vmm *vm, vmm_destroy_fn fn)
{
	if (!vm || !fn)
		return -EINVAL;
	for (uint32_t i = 0; i < vm->nr_destroy_hooks; i++) {
		if (vm->destroy_hooks[i].fn != fn)
			continue;
		/* the others keep their order */
		memmove(&vm->destroy_hooks[i], &vm->destroy_hooks[i + 1],
			(vm->nr_destroy_hooks - i - 1) *
			sizeof(vm->destroy_hooks[0]));
		vm->nr_destroy_hooks--;
		return 0;
	}
	return -ENOENT;
}

uint32_t vmm_nr_vcpus(const struct vmm *vm)
{
	return vm ? vm->nr_vcpus : 0;
}

uint32_t vmm_nr_rings(const struct vmm *vm)
{
	return vm ? vm->nr_rings : 0;
}

void vmm_log(const struct vmm *vm, const char *fmt, ...)
{
	va_list ap;

	if (!vm)
		return;
	va_start(ap, fmt);
	rs_log_v(vm->log, vm->log_arg, RS_LOG_ERR, fmt, ap);
	va_end(ap);
}

/* ---- running ------------------------------------------------------------- */

int vmm_start(struct vmm *vm)
{
	int ret;

	if (!vm)
		return -EINVAL;
	if (!vm->loaded)
		return vmm_log(vm, "no payload loaded"), -ENOEXEC;
	if (vm->started)
		return -EBUSY;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		ret = vmm_boot_vcpu(&vm->vcpus[i]);
		if (ret < 0)
			return ret;
	}
	vm->started = true;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		struct vmm_vcpu *vcpu = &vm->vcpus[i];

		/* Under the lock so that pause and stop see a thread to kick
		 * whenever they see a running vCPU. */
		pthread_mutex_lock(&vm->lock);
		ret = pthread_create(&vcpu->thread, NULL, vmm_run_vcpu, vcpu);
		if (!ret) {
			vcpu->thread_started = true;
			vcpu->state = RS_VCPU_RUNNING;
			vm->running++;
		}
		pthread_mutex_unlock(&vm->lock);
		if (ret) {
			vmm_log(vm, "vCPU %u thread: %s", i, strerror(ret));
			vmm_stop(vm);
			return -ret;
		}
	}
	return 0;
}

int vmm_wait(struct vmm *vm, int timeout_ms)
{
	struct timespec dl;
	int ret = 0;

	if (!vm)
		return -EINVAL;
	clock_gettime(CLOCK_REALTIME, &dl);
	if (timeout_ms >= 0) {
		dl.tv_sec += timeout_ms / 1000;
		dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
		if (dl.tv_nsec >= 1000000000) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000;
		}
	}
	pthread_mutex_lock(&vm->lock);
	while (vm->running && ret == 0) {
		if (timeout_ms < 0)
			pthread_cond_wait(&vm->cond, &vm->lock);
		else
			ret = pthread_cond_timedwait(&vm->cond, &vm->lock, &dl);
	}
	ret = vm->running ? -ETIMEDOUT : 0;
	pthread_mutex_unlock(&vm->lock);
	return ret;
}

int vmm_stop(struct vmm *vm)
{
	if (!vm || !vm->vcpus)
		return vm ? 0 : -EINVAL;
	pthread_mutex_lock(&vm->lock);
	vm->stopping = true;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].state == RS_VCPU_RUNNING &&
		    vm->vcpus[i].thread_started)
			vmm_pause_kick(&vm->vcpus[i]);
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	/* Only the controlling thread starts threads, so reading
	 * thread_started outside the lock is safe here. */
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		if (!vm->vcpus[i].thread_started)
			continue;
		pthread_join(vm->vcpus[i].thread, NULL);
		pthread_mutex_lock(&vm->lock);
		vm->vcpus[i].thread_started = false;
		pthread_mutex_unlock(&vm->lock);
	}
	return 0;
}

/* ---- pausing (the kick that makes it work: pause.c) ------------------------ */

static bool all_parked(const struct vmm *vm)
{
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		const struct vmm_vcpu *vcpu = &vm->vcpus[i];

		if (vcpu->state == RS_VCPU_RUNNING && !vcpu->parked)
			return false;
	}
	return true;
}

int vmm_pause(struct vmm *vm)
{
	if (!vm)
		return -EINVAL;
	pthread_mutex_lock(&vm->lock);
	if (vm->pause_depth++ == 0) {
		for (uint32_t i = 0; i < vm->nr_vcpus; i++)
			if (vm->vcpus[i].state == RS_VCPU_RUNNING &&
			    vm->vcpus[i].thread_started)
				vmm_pause_kick(&vm->vcpus[i]);
	}
	while (!all_parked(vm) && !vm->stopping)
		pthread_cond_wait(&vm->cond, &vm->lock);
	pthread_mutex_unlock(&vm->lock);
	return 0;
}

int vmm_resume(struct vmm *vm)
{
	int ret = 0;

	if (!vm)
		return -EINVAL;
	pthread_mutex_lock(&vm->lock);
	if (vm->pause_depth == 0)
		ret = -EALREADY;
	else if (--vm->pause_depth == 0)
		pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	return ret;
}
