/* SPDX-License-Identifier: MIT */
/* A user binary's symbols, from the ELF file perf's build-id cache holds
 * for its build id (ringside's symbol file of a guest binary, or any ELF
 * with a symbol table and that build id), read as untrusted input. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/elf_note.h"

#include "pprof_int.h"

#define UELF_MAX_BYTES (64u << 20)
#define UELF_MAX_PHDRS 64u
#define UELF_MAX_SHDRS 4096u

struct pprof_uelf {
	uint8_t *data;            /* the file */
	const char *strtab;       /* in data, NUL-terminated where used */
	struct pdf_uelf_sym *syms; /* at: the file offset */
	size_t nr;
};

/* @off + @len inside @size, without wrapping. */
static int inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* The file's GNU build id equals @id. */
static int id_matches(const uint8_t *d, size_t size, const Elf64_Shdr *sh,
		      unsigned shnum, const uint8_t *id, uint32_t id_len)
{
	unsigned i;

	for (i = 0; i < shnum; i++) {
		uint8_t got[PDF_BUILD_ID_SIZE];
		size_t got_len = sizeof(got);

		if (sh[i].sh_type != SHT_NOTE ||
		    !inside(sh[i].sh_offset, sh[i].sh_size, size))
			continue;
		if (rs_elf_note_buildid(d + sh[i].sh_offset, (size_t)sh[i].sh_size,
					sh[i].sh_addralign, got, &got_len))
			continue;
		return got_len == id_len && !memcmp(got, id, id_len);
	}
	return 0;
}

/* A symbol's value as a file offset, as perf keeps a user DSO's symbols:
 * through the PT_LOAD holding it, else through its section. */
static int sym_offset(const Elf64_Phdr *ph, unsigned phnum, const Elf64_Shdr *sh,
		      unsigned shnum, const Elf64_Sym *s, uint64_t *off)
{
	unsigned i;

	for (i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_LOAD && s->st_value >= ph[i].p_vaddr &&
		    s->st_value - ph[i].p_vaddr < ph[i].p_memsz) {
			*off = s->st_value - ph[i].p_vaddr + ph[i].p_offset;
			return 0;
		}
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= shnum ||
	    s->st_value < sh[s->st_shndx].sh_addr)
		return -1;
	*off = s->st_value - sh[s->st_shndx].sh_addr + sh[s->st_shndx].sh_offset;
	return 0;
}

static int parse_uelf(struct pprof_uelf *u, size_t size, const uint8_t *id,
		      uint32_t id_len)
{
	const uint8_t *d = u->data;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[UELF_MAX_PHDRS];
	Elf64_Shdr *sh = NULL;
	const Elf64_Shdr *symtab = NULL, *strtab;
	uint64_t nsyms, i;
	int err = -ENOEXEC;

	if (size < sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, d, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phnum > UELF_MAX_PHDRS ||
	    eh.e_shnum == 0 || eh.e_shnum > UELF_MAX_SHDRS ||
	    (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !inside(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), size) ||
	    !inside(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
		return -ENOEXEC;
	if (eh.e_phnum)
		memcpy(ph, d + eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr));
	sh = malloc(eh.e_shnum * sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	memcpy(sh, d + eh.e_shoff, eh.e_shnum * sizeof(*sh));
	if (!id_matches(d, size, sh, eh.e_shnum, id, id_len))
		goto out;
	for (i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB) {
			symtab = &sh[i];
			break;
		}
	if (!symtab || symtab->sh_link >= eh.e_shnum ||
	    symtab->sh_entsize != sizeof(Elf64_Sym) ||
	    !inside(symtab->sh_offset, symtab->sh_size, size))
		goto out;
	strtab = &sh[symtab->sh_link];
	if (strtab->sh_type != SHT_STRTAB || !strtab->sh_size ||
	    !inside(strtab->sh_offset, strtab->sh_size, size) ||
	    d[strtab->sh_offset + strtab->sh_size - 1] != 0)
		goto out;
	u->strtab = (const char *)d + strtab->sh_offset;
	nsyms = symtab->sh_size / sizeof(Elf64_Sym);
	u->syms = calloc(nsyms ? nsyms : 1, sizeof(*u->syms));
	if (!u->syms) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nsyms; i++) {
		Elf64_Sym s;
		uint64_t off;

		memcpy(&s, d + symtab->sh_offset + i * sizeof(s), sizeof(s));
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !s.st_name ||
		    s.st_name >= strtab->sh_size ||
		    sym_offset(ph, eh.e_phnum, sh, eh.e_shnum, &s, &off))
			continue;
		u->syms[u->nr++] = (struct pdf_uelf_sym){ off, s.st_size,
							  s.st_name };
	}
	pdf_uelf_sort(u->syms, u->nr);
	err = 0;
out:
	free(sh);
	return err;
}

int pprof_uelf_load(struct pprof_uelf **up, const char *dir,
		    const uint8_t *id, uint32_t id_len)
{
	char rel[sizeof(".build-id///elf") + 2 * PDF_BUILD_ID_SIZE],
	     hex[2 * PDF_BUILD_ID_SIZE + 1];
	struct pprof_uelf *u;
	size_t size;
	int err;

	*up = NULL;
	if (!id_len || id_len > PDF_BUILD_ID_SIZE)
		return -ENOENT;
	pprof_names_hex(hex, id, id_len);
	/* the link perf follows: .build-id/XX/REST, a directory with "elf" */
	snprintf(rel, sizeof(rel), ".build-id/%.2s/%s/elf", hex, hex + 2);
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	err = pprof_names_read(dir, rel, UELF_MAX_BYTES, &u->data, &size);
	if (!err)
		err = parse_uelf(u, size, id, id_len);
	if (err) {
		pprof_uelf_free(u);
		return err;
	}
	*up = u;
	return 0;
}

void pprof_uelf_free(struct pprof_uelf *u)
{
	if (!u)
		return;
	free(u->syms);
	free(u->data);
	free(u);
}

const char *pprof_uelf_find(const struct pprof_uelf *u, uint64_t off)
{
	const struct pdf_uelf_sym *s = pdf_uelf_find(u->syms, u->nr, off);

	return s ? u->strtab + s->name : NULL;
}
