// SPDX-License-Identifier: MIT
/*
 * Boot without firmware: the VMM writes a GDT, identity page tables for the
 * low 4 GiB and the boot info page, loads the payload, and puts every vCPU
 * straight into 64-bit long mode (CR0.PG|PE, CR4.PAE, EFER.LME|LMA).
 * Memory map and register contract: ringside/guest_boot.h.  Loading the
 * payload is load.c's job.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm_internal.h"

#define CR0_PE  (1ull << 0)
#define CR0_MP  (1ull << 1)
#define CR0_ET  (1ull << 4)
#define CR0_NE  (1ull << 5)
#define CR0_WP  (1ull << 16)
#define CR0_PG  (1ull << 31)
#define CR4_PAE (1ull << 5)
#define EFER_LME (1ull << 8)
#define EFER_LMA (1ull << 10)

#define PTE_P   (1ull << 0)
#define PTE_W   (1ull << 1)
#define PTE_PS  (1ull << 7)

#define SEL_CODE 0x08
#define SEL_DATA 0x10
#define SEL_TSS  0x18

int vmm_boot_tables(struct vmm *vm)
{
	uint64_t *gdt = vmm_mem_ptr(vm, RS_BOOT_GDT_GPA, RS_PAGE_SIZE);
	uint64_t *pml4 = vmm_mem_ptr(vm, RS_BOOT_PML4_GPA, RS_PAGE_SIZE);
	uint64_t *pdpt = vmm_mem_ptr(vm, RS_BOOT_PDPT_GPA, RS_PAGE_SIZE);
	uint64_t *pd = vmm_mem_ptr(vm, RS_BOOT_PD_GPA, 4 * RS_PAGE_SIZE);
	struct rs_boot_info *bi = vmm_mem_ptr(vm, RS_BOOT_INFO_GPA, sizeof(*bi));

	if (!gdt || !pml4 || !pdpt || !pd || !bi)
		return -E2BIG;

	/* Flat segments: the descriptors only matter if the guest reloads a
	 * selector; KVM_SET_SREGS sets the hidden parts directly. */
	gdt[0] = 0;
	gdt[1] = 0x00af9b000000ffffull;  /* 64-bit code, DPL 0 */
	gdt[2] = 0x00cf93000000ffffull;  /* data, DPL 0 */
	gdt[3] = 0x00008b0000000067ull;  /* 64-bit busy TSS at 0 (never used) */
	gdt[4] = 0;

	pml4[0] = RS_BOOT_PDPT_GPA | PTE_P | PTE_W;
	for (uint64_t g = 0; g < 4; g++) {
		pdpt[g] = (RS_BOOT_PD_GPA + g * RS_PAGE_SIZE) | PTE_P | PTE_W;
		for (uint64_t e = 0; e < 512; e++) {
			uint64_t pa = (g << 30) | (e << 21);

			pd[g * 512 + e] = pa | PTE_P | PTE_W | PTE_PS;
		}
	}

	*bi = vm->boot;
	bi->magic = RS_BOOT_MAGIC;
	bi->version = RS_BOOT_VERSION;
	bi->size = sizeof(*bi);
	bi->region_gpa = RS_BOOT_REGION_GPA;
	bi->region_size = vm->region_size;
	bi->report_gpa = RS_BOOT_REPORT_GPA;
	bi->nr_vcpus = vm->nr_vcpus;
	bi->nr_rings = vm->nr_rings;
	return 0;
}

static void set_seg(struct kvm_segment *s, uint16_t sel, uint8_t type,
		    bool code)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->l = code;
	s->db = !code;
}

int vmm_boot_vcpu(struct vmm_vcpu *vcpu)
{
	struct vmm *vm = vcpu->vm;
	struct kvm_sregs sr;
	struct kvm_regs regs;
	int ret;

	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sr) < 0)
		goto fail;
	set_seg(&sr.cs, SEL_CODE, 0xb, true);
	set_seg(&sr.ds, SEL_DATA, 0x3, false);
	sr.es = sr.fs = sr.gs = sr.ss = sr.ds;
	memset(&sr.tr, 0, sizeof(sr.tr));
	sr.tr.selector = SEL_TSS;
	sr.tr.limit = 0x67;
	sr.tr.type = 0xb;
	sr.tr.present = 1;
	sr.ldt.unusable = 1;
	sr.gdt.base = RS_BOOT_GDT_GPA;
	sr.gdt.limit = 5 * 8 - 1;
	/* No IDT: any exception in the guest escalates to a triple fault,
	 * which is what the crash workload relies on. */
	sr.idt.base = 0;
	sr.idt.limit = 0;
	sr.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	sr.cr3 = RS_BOOT_PML4_GPA;
	sr.cr4 = CR4_PAE;
	sr.efer = EFER_LME | EFER_LMA;
	if (ioctl(vcpu->fd, KVM_SET_SREGS, &sr) < 0)
		goto fail;

	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;
	regs.rip = vm->entry;
	regs.rsp = vm->ram_size - (uint64_t)vcpu->id * RS_BOOT_STACK_SIZE;
	regs.rdi = RS_BOOT_INFO_GPA;
	regs.rsi = vcpu->id;
	regs.rdx = RS_BOOT_REGION_GPA;
	regs.rcx = vm->nr_rings;
	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0)
		goto fail;
	return 0;
fail:
	ret = -errno;
	vmm_log(vm, "vCPU %u boot state: %s", vcpu->id, strerror(errno));
	return ret;
}
