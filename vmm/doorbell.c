// SPDX-License-Identifier: MIT
/*
 * Doorbells: the guest writes its ring index (4 bytes) to
 * RS_BOOT_DOORBELL_GPA when rs_producer_commit says the watermark was
 * crossed.  One KVM_IOEVENTFD per ring, same address, datamatch = ring
 * index, so KVM signals that ring's eventfd in the kernel and the vCPU never
 * exits to user space for a doorbell.  A write no ioeventfd matches becomes
 * an MMIO exit, counted as doorbell_mmio by the run loop.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ringside/vmm_client.h"
#include "vmm_internal.h"

bool vmm_doorbell_is(uint64_t gpa)
{
	return gpa >= RS_BOOT_DOORBELL_GPA && gpa < RS_BOOT_DOORBELL_GPA + 8;
}

int vmm_doorbell_init(struct vmm *vm)
{
	int ret;

	/* an eventfd per ring, a vCPU fd each, and room for the rest */
	ret = vmm_client_nofile(2 * vm->nr_rings + 256);
	if (ret)
		vmm_log(vm, "RLIMIT_NOFILE below %u: %s", 2 * vm->nr_rings + 256,
			strerror(-ret));
	for (uint32_t i = 0; i < vm->nr_rings; i++) {
		struct kvm_ioeventfd ev = {
			.datamatch = i,
			.addr = RS_BOOT_DOORBELL_GPA,
			.len = 4,
			.flags = KVM_IOEVENTFD_FLAG_DATAMATCH,
		};
		int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		if (fd < 0) {
			ret = -errno;
			vmm_log(vm, "eventfd: %s", strerror(errno));
			return ret;
		}
		vm->doorbells[i].fd = fd;
		ev.fd = fd;
		if (ioctl(vm->vm_fd, KVM_IOEVENTFD, &ev) < 0) {
			ret = -errno;
			vmm_log(vm, "KVM_IOEVENTFD ring %u: %s", i, strerror(errno));
			return ret;
		}
	}
	return 0;
}

/* Called after the VM fd is closed, which drops KVM's references. */
void vmm_doorbell_fini(struct vmm *vm)
{
	for (uint32_t i = 0; i < RS_MAX_RINGS; i++) {
		if (vm->doorbells[i].fd >= 0)
			close(vm->doorbells[i].fd);
		vm->doorbells[i].fd = -1;
	}
}

int vmm_doorbell_fd(const struct vmm *vm, uint32_t ring)
{
	if (!vm || ring >= vm->nr_rings)
		return -EINVAL;
	return vm->doorbells[ring].fd;
}

int64_t vmm_doorbell_collect(struct vmm *vm, uint32_t ring)
{
	uint64_t n;

	if (!vm || ring >= vm->nr_rings)
		return -EINVAL;
	/* An eventfd read returns the sum since the last read and resets it. */
	if (read(vm->doorbells[ring].fd, &n, sizeof(n)) != sizeof(n))
		return errno == EAGAIN ? 0 : -errno;
	rs_shared_add(&vm->doorbells[ring].count, n);
	return (int64_t)n;
}

uint64_t vmm_doorbell_count(const struct vmm *vm, uint32_t ring)
{
	if (!vm || ring >= vm->nr_rings)
		return 0;
	return vmm_counter_read(&vm->doorbells[ring].count);
}
