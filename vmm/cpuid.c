// SPDX-License-Identifier: MIT
/*
 * CPUID: the table every vCPU gets (what KVM supports, cpu.c adds the APIC
 * id), and overrides on top of it: a tracer advertises a feature (Intel PT:
 * leaf 7 EBX[25], leaf 0x14) that the VMM then emulates.  Applied to every
 * vCPU before it first runs.
 *
 * The VMM keeps a copy of the table it gave each vCPU and merges overrides
 * into that copy; it never reads the table back with KVM_GET_CPUID2, whose
 * nent on return cannot be relied on (the Debian 6.1 kernel leaves it as
 * passed, so a 256-entry buffer came back as 256 entries, zeros after the
 * real ones).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm_internal.h"

/* KVM caps its tables at 256 entries today; this only bounds the loop. */
#define CPUID_MAX_ENTRIES (1u << 16)

static struct kvm_cpuid2 *cpuid_alloc(uint32_t nent)
{
	struct kvm_cpuid2 *c;

	c = calloc(1, sizeof(*c) + (size_t)nent * sizeof(c->entries[0]));
	if (c)
		c->nent = nent;
	return c;
}

int vmm_cpuid_fetch(vmm_cpuid_get_fn get, void *arg, struct kvm_cpuid2 **out)
{
	struct kvm_cpuid2 *c;
	uint32_t cap = 64;
	int ret;

	*out = NULL;
	for (;;) {
		c = cpuid_alloc(cap);
		if (!c)
			return -ENOMEM;
		ret = get(arg, c);
		if (ret == 0 && c->nent <= cap)
			break;
		free(c);
		if (ret == 0)
			return -EOVERFLOW;      /* wrote past what we gave it */
		if (ret != -E2BIG || cap >= CPUID_MAX_ENTRIES)
			return ret;
		cap *= 2;
	}
	*out = c;
	return 0;
}

uint32_t vmm_cpuid_merge(struct kvm_cpuid_entry2 *e, uint32_t nent,
			 const struct vmm_cpuid *o, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct kvm_cpuid_entry2 *t = NULL;

		for (uint32_t j = 0; j < nent && !t; j++)
			if (e[j].function == o[i].function &&
			    e[j].index == o[i].index)
				t = &e[j];
		if (!t) {
			t = &e[nent++];
			memset(t, 0, sizeof(*t));
			t->function = o[i].function;
			t->index = o[i].index;
			t->flags = o[i].significant_index ?
				   KVM_CPUID_FLAG_SIGNIFCANT_INDEX : 0;
		}
		t->eax = (t->eax & ~o[i].mask[0]) | (o[i].value[0] & o[i].mask[0]);
		t->ebx = (t->ebx & ~o[i].mask[1]) | (o[i].value[1] & o[i].mask[1]);
		t->ecx = (t->ecx & ~o[i].mask[2]) | (o[i].value[2] & o[i].mask[2]);
		t->edx = (t->edx & ~o[i].mask[3]) | (o[i].value[3] & o[i].mask[3]);
	}
	return nent;
}

int vmm_cpuid_set(struct vmm_vcpu *vcpu, struct kvm_cpuid2 *c)
{
	int ret;

	if (ioctl(vcpu->fd, KVM_SET_CPUID2, c) < 0) {
		ret = -errno;
		free(c);
		return ret;
	}
	free(vcpu->cpuid);
	vcpu->cpuid = c;
	return 0;
}

static int override_one(struct vmm_vcpu *vcpu, const struct vmm_cpuid *o,
			uint32_t n)
{
	const struct kvm_cpuid2 *cur = vcpu->cpuid;
	struct kvm_cpuid2 *c;

	/* Room for the table plus one new entry per override. */
	c = cpuid_alloc(cur->nent + n);
	if (!c)
		return -ENOMEM;
	memcpy(c->entries, cur->entries, cur->nent * sizeof(c->entries[0]));
	c->nent = vmm_cpuid_merge(c->entries, cur->nent, o, n);
	return vmm_cpuid_set(vcpu, c);
}

int vmm_cpuid_override(struct vmm *vm, const struct vmm_cpuid *o,
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
