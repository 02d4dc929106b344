// SPDX-License-Identifier: MIT
/*
 * Payload loading: an ELF64 x86-64 executable (PT_LOAD segments placed at
 * their physical addresses, which must equal their virtual ones: the guest
 * runs on an identity map) or a flat image at RS_BOOT_LOAD_GPA.  Images are
 * checked against the file and against the guest memory map before a byte
 * is copied.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm_internal.h"

#define PAYLOAD_FILE_MAX (64u << 20)

static int load_segment(struct vmm *vm, const uint8_t *image, size_t len,
			const Elf64_Phdr *ph)
{
	uint64_t limit = vmm_payload_limit(vm);
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

static int load_elf(struct vmm *vm, const uint8_t *image, size_t len)
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

int vmm_load_image(struct vmm *vm, const void *image, size_t len)
{
	void *copy;
	int ret;

	if (!vm || (!image && len))
		return -EINVAL;
	if (vm->started)
		return -EBUSY;
	if (len < sizeof(Elf64_Ehdr) || memcmp(image, ELFMAG, SELFMAG))
		return vmm_log(vm, "payload is not an ELF image"), -ENOEXEC;
	/* A copy gives the parser an aligned buffer that cannot change
	 * under it. */
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, len);
	ret = load_elf(vm, copy, len);
	free(copy);
	return ret;
}

int vmm_load_flat(struct vmm *vm, const void *image, size_t len)
{
	if (!vm || !image)
		return -EINVAL;
	if (vm->started)
		return -EBUSY;
	if (len == 0)
		return vmm_log(vm, "empty payload"), -ENOEXEC;
	if (len > vmm_payload_limit(vm) - RS_BOOT_LOAD_GPA)
		return vmm_log(vm, "payload of %zu bytes does not fit", len),
		       -E2BIG;
	memcpy(vmm_mem_ptr(vm, RS_BOOT_LOAD_GPA, len), image, len);
	vm->entry = RS_BOOT_LOAD_GPA;
	vm->loaded = true;
	return 0;
}

int vmm_load_file(struct vmm *vm, const char *path)
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
	ret = vmm_load_image(vm, buf, (size_t)got);
out:
	free(buf);
	close(fd);
	return ret;
}
