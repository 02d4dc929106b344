// SPDX-License-Identifier: MIT
/*
 * The trace region: a sealed memfd laid out by ring/ (one ring pair per
 * vCPU), mapped into the guest at RS_BOOT_REGION_GPA (header_guard.c) and
 * into this process.  Consumers in other processes map the same memfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ringside/vmm_client.h"
#include "vmm_internal.h"

/* ring/ speaks enum rs_error; the VMM speaks errno. */
static int ring_errno(int rse)
{
	switch (-rse) {
	case rse_invalid:
	case rse_geometry:
		return -EINVAL;
	case rse_too_small:
		return -ENOSPC;
	case rse_too_big:
		return -E2BIG;
	default:
		return -EPROTO;
	}
}

int vmm_region_init(struct vmm *vm, const struct rs_region_params *rp)
{
	uint64_t size;
	void *mem;
	int ret;

	ret = rs_region_size(rp, &size);
	if (ret < 0) {
		vmm_log(vm, "region layout: %s", rs_error_str(ret));
		return ring_errno(ret);
	}
	if (size > RS_BOOT_REGION_MAX)
		return vmm_log(vm, "region of %llu bytes: at most %llu",
			       (unsigned long long)size,
			       (unsigned long long)RS_BOOT_REGION_MAX), -E2BIG;

	vm->region_fd = memfd_create("ringside-region",
				     MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (vm->region_fd < 0) {
		ret = -errno;
		vmm_log(vm, "memfd_create: %s", strerror(errno));
		return ret;
	}
	if (ftruncate(vm->region_fd, (off_t)size) < 0) {
		ret = -errno;
		vmm_log(vm, "region of %llu bytes: %s",
			(unsigned long long)size, strerror(errno));
		return ret;
	}
	/* A consumer process that got the fd must not be able to shrink it
	 * under us (SIGBUS in the VMM) or grow it. */
	if (fcntl(vm->region_fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		ret = -errno;
		vmm_log(vm, "sealing the region: %s", strerror(errno));
		return ret;
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   vm->region_fd, 0);
	if (mem == MAP_FAILED) {
		ret = -errno;
		vmm_log(vm, "mapping the region: %s", strerror(errno));
		return ret;
	}
	vm->region_mem = mem;
	vm->region_size = size;
	vm->region_params = *rp;
	vm->nr_rings = rp->nr_rings;

	/* The layout carries the doorbell (rp->doorbell_addr); tracing is on
	 * from the start, and the private copy is taken with it on. */
	ret = rs_region_layout(mem, size, rp);
	if (!ret)
		ret = rs_region_enable(mem);
	if (ret < 0) {
		vmm_log(vm, "region layout: %s", rs_error_str(ret));
		return ring_errno(ret);
	}
	ret = rs_region_open(&vm->region, mem, size);
	if (ret < 0) {
		vmm_log(vm, "region open: %s", rs_error_str(ret));
		return ring_errno(ret);
	}
	return vmm_guard_map(vm);
}

void vmm_region_fini(struct vmm *vm)
{
	if (vm->region_mem)
		munmap(vm->region_mem, vm->region_size);
	if (vm->region_fd >= 0)
		close(vm->region_fd);
	vm->region_mem = NULL;
	vm->region_fd = -1;
}

const struct rs_region *vmm_region(const struct vmm *vm)
{
	return vm ? &vm->region : NULL;
}

int vmm_region_fd(const struct vmm *vm)
{
	return vm ? vm->region_fd : -EINVAL;
}

uint64_t vmm_region_size(const struct vmm *vm)
{
	return vm ? vm->region_size : 0;
}

int vmm_region_info(const struct vmm *vm, struct rs_ctl_region *r)
{
	int ret;

	if (!vm || !r)
		return -EINVAL;
	ret = vmm_ctl_region_from_params(r, &vm->region_params,
					    vm->region_size);
	if (ret < 0)
		return ret;
	r->header_guarded = vm->header_guarded;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		r->header_refused += vmm_counter_read(&vm->vcpus[i].header_refused);
		r->header_applied += vmm_counter_read(&vm->vcpus[i].header_applied);
	}
	return 0;
}
