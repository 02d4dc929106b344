// SPDX-License-Identifier: MIT
/*
 * Guest time.  Records carry the guest's TSC.  Every control page gets the
 * conversion to host CLOCK_MONOTONIC nanoseconds in perf's scheme
 * (perf_event_mmap_page, cap_user_time_zero):
 *
 *   quot = tsc >> time_shift;  rem = tsc & ((1 << time_shift) - 1);
 *   ns   = time_zero + quot * time_mult + ((rem * time_mult) >> time_shift)
 *
 * The guest TSC runs at KVM's virtual TSC rate (KVM_GET_TSC_KHZ); time_zero
 * anchors one guest TSC reading (MSR 0x10 of vCPU 0) to the host clock.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "vmm_internal.h"

#define MSR_IA32_TSC 0x10

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int guest_tsc(struct vmm *vm, uint64_t *tsc)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} msrs;

	memset(&msrs, 0, sizeof(msrs));
	msrs.hdr.nmsrs = 1;
	msrs.e.index = MSR_IA32_TSC;
	if (ioctl(vm->vcpus[0].fd, KVM_GET_MSRS, &msrs) != 1)
		return -EIO;
	*tsc = msrs.e.data;
	return 0;
}

int vmm_tsc_init(struct vmm *vm)
{
	struct rs_time_conv *tc = &vm->time;
	uint64_t tsc, before, after;
	int khz;

	khz = ioctl(vm->vcpus[0].fd, KVM_GET_TSC_KHZ, 0);
	if (khz <= 0)
		/* Not fatal: records keep raw TSC, capabilities say so. */
		return vmm_log(vm, "KVM_GET_TSC_KHZ unavailable; no time conversion"), 0;
	vm->tsc_khz = (uint64_t)khz;
	/* Largest shift whose multiplier still fits 32 bits: most precision. */
	for (tc->time_shift = 32; tc->time_shift > 0; tc->time_shift--) {
		uint64_t mult = (1000000ull << tc->time_shift) / vm->tsc_khz;

		if (mult <= UINT32_MAX) {
			tc->time_mult = (uint32_t)mult;
			break;
		}
	}
	before = mono_ns();
	if (guest_tsc(vm, &tsc) < 0)
		return vmm_log(vm, "cannot read the guest TSC"), -EIO;
	after = mono_ns();
	/* time_zero such that tsc converts to the midpoint of the reading. */
	tc->time_zero = 0;
	tc->time_zero = before + (after - before) / 2 - rs_time_to_ns(tc, tsc);

	for (uint32_t i = 0; i < vm->nr_rings; i++) {
		struct rs_ring ring;

		if (rs_region_ring(&vm->region, i, &ring) < 0 ||
		    rs_ring_time_publish(&ring, tc) < 0)
			return -EPROTO;
	}
	return 0;
}

uint64_t vmm_tsc_to_ns(const struct vmm *vm, uint64_t tsc)
{
	if (!vm || !vm->time.time_mult)
		return 0;
	return rs_time_to_ns(&vm->time, tsc);
}

uint64_t vmm_tsc_khz(const struct vmm *vm)
{
	return vm ? vm->tsc_khz : 0;
}
