/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: the ELF header of the files ringside makes for
 * perf's build-id cache, a kernel's kcore (pdf_kcore.c) and a user
 * binary's symbols (pdf_uelf.c): 64-bit little-endian, its program
 * headers right after it.
 */
#ifndef RINGSIDE_PDF_ELF_H
#define RINGSIDE_PDF_ELF_H

#include <elf.h>
#include <stdint.h>
#include <string.h>

static inline void pdf_elf_header(Elf64_Ehdr *eh, uint16_t type,
				  uint16_t machine, uint16_t phnum)
{
	memset(eh, 0, sizeof(*eh));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh->e_type = type;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = phnum;
}

#endif /* RINGSIDE_PDF_ELF_H */
