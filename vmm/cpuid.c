// SPDX-License-Identifier: MIT
/*
 * CPUID overrides on top of what KVM supports: a tracer advertises a
 * feature (Intel PT: leaf 7 EBX[25], leaf 0x14) that the VMM then emulates.
 * Applied to every vCPU before it first runs.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm_internal.h"

#define MAX_ENTRIES 256

static int override_one(struct vmm_vcpu *vcpu, const struct rs_vmm_cpuid *o,
			uint32_t n)
{
	struct kvm_cpuid2 *c;
	int ret = 0;

	c = calloc(1, sizeof(*c) + (MAX_ENTRIES + n) * sizeof(c->entries[0]));
	if (!c)
		return -ENOMEM;
	c->nent = MAX_ENTRIES;
	if (ioctl(vcpu->fd, KVM_GET_CPUID2, c) < 0) {
		ret = -errno;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct kvm_cpuid_entry2 *e = NULL;

		for (uint32_t j = 0; j < c->nent; j++)
			if (c->entries[j].function == o[i].function &&
			    c->entries[j].index == o[i].index)
				e = &c->entries[j];
		if (!e) {
			e = &c->entries[c->nent++];
			memset(e, 0, sizeof(*e));
			e->function = o[i].function;
			e->index = o[i].index;
			e->flags = o[i].significant_index ?
				   KVM_CPUID_FLAG_SIGNIFCANT_INDEX : 0;
		}
		e->eax = (e->eax & ~o[i].mask[0]) | (o[i].value[0] & o[i].mask[0]);
		e->ebx = (e->ebx & ~o[i].mask[1]) | (o[i].value[1] & o[i].mask[1]);
		e->ecx = (e->ecx & ~o[i].mask[2]) | (o[i].value[2] & o[i].mask[2]);
		e->edx = (e->edx & ~o[i].mask[3]) | (o[i].value[3] & o[i].mask[3]);
	}
	if (ioctl(vcpu->fd, KVM_SET_CPUID2, c) < 0)
		ret = -errno;
out:
	free(c);
	return ret;
}

int rs_vmm_cpuid_override(struct rs_vmm *vm, const struct rs_vmm_cpuid *o,
			  uint32_t n)
{
	int ret;

	if (!vm || (!o && n))
		return -EINVAL;
	if (vm->started)
		return -EBUSY;
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		ret = override_one(&vm->vcpus[i], o, n);
		if (ret < 0)
			return vmm_log(vm, "CPUID override on vCPU %u: %s", i,
				       strerror(-ret)), ret;
	}
	return 0;
}
