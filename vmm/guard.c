// SPDX-License-Identifier: MIT
/*
 * The header page guard.  The region's first page holds the layout and the
 * configuration, which only the host writes, beside a few blocks the guest
 * does write (its status, the sideband and perf buffer descriptors, its
 * line of the time sync).  A guest that scribbles over the layout would
 * otherwise take the flight recorder down with it, so the page is mapped
 * through a read-only memslot: guest reads are plain memory, guest writes
 * exit to user space as MMIO, and this file applies those that fall inside
 * the guest's own blocks and drops (and counts) the rest.  The other pages
 * of the region are written by the guest in normal operation (heads,
 * records, sideband) and stay ordinary memory.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ringside/vmm_control.h"
#include "vmm_internal.h"

/* The bytes of the header's member @m. */
#define HEADER_FIELD(m) { offsetof(struct rs_region_header, m), \
			  sizeof(((struct rs_region_header *)0)->m) }

/* The byte ranges of the header page the guest writes (docs/abi.md, "Who
 * writes what"); everything else there is the host's. */
static const struct {
	uint32_t off, len;
} guest_ranges[] = {
	HEADER_FIELD(status),
	HEADER_FIELD(sideband),
	HEADER_FIELD(kbuf),
	HEADER_FIELD(usyms),
	HEADER_FIELD(pstate),
	HEADER_FIELD(info),
	{ offsetof(struct rs_region_header, time_sync) +
	  offsetof(struct rs_time_sync, echo),
	  sizeof(struct rs_time_sync) - offsetof(struct rs_time_sync, echo) },
};

static bool guest_writable(uint64_t off, uint64_t len)
{
	for (size_t i = 0; i < sizeof(guest_ranges) / sizeof(guest_ranges[0]); i++)
		if (off >= guest_ranges[i].off &&
		    off + len <= guest_ranges[i].off + guest_ranges[i].len)
			return true;
	return false;
}

int vmm_guard_map(struct vmm *vm)
{
	uint64_t gpa = RS_BOOT_REGION_GPA;
	int ret;

	if (ioctl(vm->sys_fd, KVM_CHECK_EXTENSION, KVM_CAP_READONLY_MEM) <= 0) {
		/* The region still works; the guest can write its header. */
		vmm_log(vm, "KVM has no KVM_CAP_READONLY_MEM: the region header "
			"stays guest-writable");
		return vmm_mem_slot_add(vm, 1, gpa, vm->region_size,
				       vm->region_mem, 0);
	}
	ret = vmm_mem_slot_add(vm, 1, gpa, RS_PAGE_SIZE, vm->region_mem,
			      KVM_MEM_READONLY);
	if (!ret)
		ret = vmm_mem_slot_add(vm, 2, gpa + RS_PAGE_SIZE,
				      vm->region_size - RS_PAGE_SIZE,
				      vm->region_mem + RS_PAGE_SIZE, 0);
	if (!ret)
		vm->header_guarded = true;
	return ret;
}

/* Store like the guest's own store: the header's words are u32 and u64,
 * and an aligned write of one of them goes in whole (ringside/shared.h),
 * so a host reader never sees half of it. */
static void apply(uint8_t *dst, const uint8_t *data, uint32_t len)
{
	uint64_t v = 0;

	memcpy(&v, data, len);
	if (len == 8 && !((uintptr_t)dst & 7))
		rs_shared_store((uint64_t *)(void *)dst, v);
	else if (len == 4 && !((uintptr_t)dst & 3))
		rs_shared_store32((uint32_t *)(void *)dst, (uint32_t)v);
	else
		memcpy(dst, data, len);
}

bool vmm_guard_mmio(struct vmm_vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	struct vmm *vm = vcpu->vm;
	uint64_t gpa = run->mmio.phys_addr, off;
	uint32_t len = run->mmio.len;

	if (!vm->header_guarded || gpa < RS_BOOT_REGION_GPA ||
	    gpa - RS_BOOT_REGION_GPA >= RS_PAGE_SIZE)
		return false;
	off = gpa - RS_BOOT_REGION_GPA;
	if (len == 0 || len > sizeof(run->mmio.data) || off + len > RS_PAGE_SIZE) {
		vmm_counter_inc(&vcpu->header_refused);
		return true;
	}
	if (!run->mmio.is_write) {
		/* Reads of a read-only slot do not exit; answer one anyway. */
		memcpy(run->mmio.data, vm->region_mem + off, len);
		return true;
	}
	if (!guest_writable(off, len)) {
		vmm_counter_inc(&vcpu->header_refused);
		return true;
	}
	apply(vm->region_mem + off, run->mmio.data, len);
	vmm_counter_inc(&vcpu->header_applied);
	return true;
}
