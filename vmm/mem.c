// SPDX-License-Identifier: MIT
/* Guest RAM: anonymous memory at guest-physical 0, memslot 0. */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "vmm_internal.h"

int vmm_mem_slot_add(struct vmm *vm, uint32_t slot, uint64_t gpa,
		    uint64_t size, void *host, uint32_t flags)
{
	struct kvm_userspace_memory_region mr = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)host,
	};
	int ret;

	if (slot >= vm->nr_memslots)
		return vmm_log(vm, "memslot %u: KVM has %u", slot,
			       vm->nr_memslots), -ENOSPC;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &mr) < 0) {
		ret = -errno;
		vmm_log(vm, "KVM_SET_USER_MEMORY_REGION slot %u at %#llx: %s",
			slot, (unsigned long long)gpa, strerror(errno));
		return ret;
	}
	return 0;
}

int vmm_mem_init(struct vmm *vm, uint64_t size)
{
	void *ram;
	int ret;

	ram = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED) {
		ret = -errno;
		vmm_log(vm, "guest RAM of %llu bytes: %s",
			(unsigned long long)size, strerror(errno));
		return ret;
	}
	vm->ram = ram;
	vm->ram_size = size;
	return vmm_mem_slot_add(vm, 0, 0, size, ram, 0);
}

void vmm_mem_fini(struct vmm *vm)
{
	if (vm->ram)
		munmap(vm->ram, vm->ram_size);
	vm->ram = NULL;
}

/* Host address of [gpa, gpa + len) in guest RAM, or NULL if any of it is
 * outside RAM.  Written to avoid overflow on a hostile gpa/len. */
void *vmm_mem_ptr(const struct vmm *vm, uint64_t gpa, uint64_t len)
{
	if (gpa > vm->ram_size || len > vm->ram_size - gpa)
		return NULL;
	return vm->ram + gpa;
}

void *vmm_mem_guest_ptr(const struct vmm *vm, uint64_t gpa, uint64_t len)
{
	if (!vm)
		return NULL;
	if (gpa >= RS_BOOT_REGION_GPA && gpa - RS_BOOT_REGION_GPA <= vm->region_size &&
	    len <= vm->region_size - (gpa - RS_BOOT_REGION_GPA))
		return vm->region_mem + (gpa - RS_BOOT_REGION_GPA);
	return vmm_mem_ptr(vm, gpa, len);
}
