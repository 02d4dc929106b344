// SPDX-License-Identifier: MIT
/*
 * Boot without firmware: the VMM writes a GDT, identity page tables for the
 * low 4 GiB and the boot info page, loads the payload, and puts every vCPU
 * straight into 64-bit long mode (CR0.PG|PE, CR4.PAE, EFER.LME|LMA).
 * Memory map and register contract: ringside/guest_boot.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

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

#define PAYLOAD_FILE_MAX (64u << 20)

/* Highest byte + 1 a payload may occupy: the vCPU stacks sit above it. */
static uint64_t payload_limit(const struct rs_vmm *vm)
{
	return vm->ram_size - (uint64_t)vm->nr_vcpus * RS_BOOT_STACK_SIZE;
}

int vmm_boot_tables(struct rs_vmm *vm)
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

static int load_segment(struct rs_vmm *vm, const uint8_t *image, size_t len,
			const Elf64_Phdr *ph)
{
	uint64_t limit = payload_limit(vm);
	uint8_t *dst;

	if (ph->p_filesz > ph->p_memsz || ph->p_offset > len ||
	    ph->p_filesz > len - ph->p_offset)
		return vmm_log(vm, "ELF segment outside the file"), -ENOEXEC;
	if (ph->p_vaddr != ph->p_paddr)
		return vmm_log(vm, "ELF segment not identity mapped"), -ENOEXEC;
	if (ph->p_paddr < RS_BOOT_LOAD_GPA || ph->p_paddr > limit ||
	    ph->p_memsz > limit - ph->p_paddr)
		return vmm_log(vm, "ELF segment at %#llx+%#llx outside "
			       "[%#llx, %#llx)",
			       (unsigned long long)ph->p_paddr,
			       (unsigned long long)ph->p_memsz,
			       (unsigned long long)RS_BOOT_LOAD_GPA,
			       (unsigned long long)limit), -E2BIG;
	dst = vmm_mem_ptr(vm, ph->p_paddr, ph->p_memsz);
	memcpy(dst, image + ph->p_offset, ph->p_filesz);
	memset(dst + ph->p_filesz, 0, ph->p_memsz - ph->p_filesz);
	return 0;
}

static int load_elf(struct rs_vmm *vm, const uint8_t *image, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)image;
	bool entry_ok = false;
	unsigned loads = 0;
	int ret;

	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_type != ET_EXEC)
		return vmm_log(vm, "not an x86-64 ELF executable"), -ENOEXEC;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > len ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len - eh->e_phoff)
		return vmm_log(vm, "ELF program headers outside the file"),
		       -ENOEXEC;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		/* The image may be unaligned: copy the header out. */
		memcpy(&ph, image + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		ret = load_segment(vm, image, len, &ph);
		if (ret < 0)
			return ret;
		loads++;
		if (eh->e_entry >= ph.p_vaddr &&
		    eh->e_entry - ph.p_vaddr < ph.p_memsz && (ph.p_flags & PF_X))
			entry_ok = true;
	}
	if (!loads)
		return vmm_log(vm, "ELF without loadable segments"), -ENOEXEC;
	if (!entry_ok)
		return vmm_log(vm, "ELF entry %#llx not in executable segment",
			       (unsigned long long)eh->e_entry), -ENOEXEC;
	vm->entry = eh->e_entry;
	vm->loaded = true;
	return 0;
}

int rs_vmm_load_image(struct rs_vmm *vm, const void *image, size_t len)
{
	if (!vm || (!image && len))
		return -EINVAL;
	if (vm->started)
		return -EBUSY;
	if (len < sizeof(Elf64_Ehdr) || memcmp(image, ELFMAG, SELFMAG))
		return vmm_log(vm, "payload is not an ELF image"), -ENOEXEC;
	/* A copy gives the parser an aligned buffer it can trust to stay put. */
	void *copy = malloc(len);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, len);
	ret = load_elf(vm, copy, len);
	free(copy);
	return ret;
}

int rs_vmm_load_flat(struct rs_vmm *vm, const void *image, size_t len)
{
	if (!vm || !image)
		return -EINVAL;
	if (vm->started)
		return -EBUSY;
	if (len == 0)
		return vmm_log(vm, "empty payload"), -ENOEXEC;
	if (len > payload_limit(vm) - RS_BOOT_LOAD_GPA)
		return vmm_log(vm, "payload of %zu bytes does not fit", len),
		       -E2BIG;
	memcpy(vmm_mem_ptr(vm, RS_BOOT_LOAD_GPA, len), image, len);
	vm->entry = RS_BOOT_LOAD_GPA;
	vm->loaded = true;
	return 0;
}

int rs_vmm_load_file(struct rs_vmm *vm, const char *path)
{
	struct stat st;
	void *buf = NULL;
	ssize_t got;
	int fd, ret;

	if (!vm || !path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		vmm_log(vm, "payload %s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > PAYLOAD_FILE_MAX) {
		vmm_log(vm, "payload %s: not a regular file of at most %u bytes",
			path, PAYLOAD_FILE_MAX);
		ret = -ENOEXEC;
		goto out;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	got = read(fd, buf, (size_t)st.st_size);
	if (got != st.st_size) {
		ret = got < 0 ? -errno : -EIO;
		goto out;
	}
	ret = rs_vmm_load_image(vm, buf, (size_t)got);
out:
	free(buf);
	close(fd);
	return ret;
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
	struct rs_vmm *vm = vcpu->vm;
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
