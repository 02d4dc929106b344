// SPDX-License-Identifier: MIT
/*
 * The top of KVM's fd chain: the system fd, the capabilities the VMM
 * relies on, the VM fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "vmm_internal.h"

static const struct {
	int cap;
	const char *name;
} needed_caps[] = {
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY" },
	{ KVM_CAP_IOEVENTFD, "KVM_CAP_IOEVENTFD" },
	{ KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT" },
	{ KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID" },
	{ KVM_CAP_SET_TSS_ADDR, "KVM_CAP_SET_TSS_ADDR" },
};

int vmm_kvm_open(struct vmm *vm, const char *path)
{
	int ret;

	vm->sys_fd = open(path, O_RDWR | O_CLOEXEC);
	if (vm->sys_fd < 0) {
		ret = -errno;
		vmm_log(vm, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	ret = ioctl(vm->sys_fd, KVM_GET_API_VERSION, 0);
	if (ret != KVM_API_VERSION) {
		vmm_log(vm, "%s: KVM API version %d, need %d", path, ret,
			KVM_API_VERSION);
		return -ENOSYS;
	}
	for (size_t i = 0; i < sizeof(needed_caps) / sizeof(needed_caps[0]); i++) {
		if (ioctl(vm->sys_fd, KVM_CHECK_EXTENSION, needed_caps[i].cap) <= 0) {
			vmm_log(vm, "%s: missing %s", path, needed_caps[i].name);
			return -ENOSYS;
		}
	}
	ret = ioctl(vm->sys_fd, KVM_CHECK_EXTENSION, KVM_CAP_NR_MEMSLOTS);
	vm->nr_memslots = ret > 0 ? (uint32_t)ret : 32;
	vm->run_size = ioctl(vm->sys_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vm->run_size <= 0) {
		ret = -errno;
		vmm_log(vm, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
		return ret;
	}
	vm->vm_fd = ioctl(vm->sys_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0) {
		ret = -errno;
		vmm_log(vm, "KVM_CREATE_VM: %s", strerror(errno));
		return ret;
	}
	/* VMX wants three pages for a real-mode TSS even though this guest
	 * never leaves long mode; put them where nothing else lives. */
	if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, 0xfffbd000ul) < 0) {
		ret = -errno;
		vmm_log(vm, "KVM_SET_TSS_ADDR: %s", strerror(errno));
		return ret;
	}
	return 0;
}

void vmm_kvm_close(struct vmm *vm)
{
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->sys_fd >= 0)
		close(vm->sys_fd);
	vm->vm_fd = vm->sys_fd = -1;
}
