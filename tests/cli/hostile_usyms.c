/* SPDX-License-Identifier: MIT */
/*
 * A hostile guest's user symbol table, for cli_hostnames.sh:
 *
 *   cli-hostile-usyms REGION PROGRAM NAME
 *
 * publishes into REGION's sideband (laid out by cli-producer create
 * --sideband-pages) one entry that claims PROGRAM, a program of the
 * host, by its path and its real GNU build id, with its PT_LOADs and
 * .text as they are, and a single function NAME that covers the whole
 * of .text: what a guest whose agent lies would send to have the host's
 * own profiles of PROGRAM name every sample NAME.  Prints the build id.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/elf_note.h"
#include "ringside/ring.h"

static void die(const char *what, const char *why)
{
	fprintf(stderr, "cli-hostile-usyms: %s: %s\n", what, why);
	exit(1);
}

static void *map_file(const char *path, int writable, size_t *len)
{
	struct stat st;
	void *p;
	int fd = open(path, writable ? O_RDWR : O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(path, strerror(errno));
	*len = (size_t)st.st_size;
	p = mmap(NULL, *len, PROT_READ | (writable ? PROT_WRITE : 0),
		 writable ? MAP_SHARED : MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die(path, strerror(errno));
	return p;
}

int main(int argc, char **argv)
{
	struct rs_usyms_load loads[RS_USYMS_MAX_LOADS];
	struct rs_usyms_entry e;
	struct rs_usyms_sym sym;
	struct rs_usyms_writer w;
	struct rs_region region;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	const Elf64_Shdr *sh;
	const char *shstr;
	uint8_t *elf, *entry, *at;
	size_t elf_len, reg_len, plen, nlen, id_len = RS_USYMS_BUILD_ID_MAX;
	uint32_t i, nl = 0, len;
	void *mem;
	int err;

	if (argc != 4)
		die("usage", "cli-hostile-usyms REGION PROGRAM NAME");
	memset(&e, 0, sizeof(e));
	elf = map_file(argv[2], 0, &elf_len);
	eh = (const Elf64_Ehdr *)elf;
	if (elf_len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(*ph) > elf_len ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > elf_len ||
	    eh->e_shstrndx >= eh->e_shnum)
		die(argv[2], "not a 64-bit ELF file this reads");
	ph = (const Elf64_Phdr *)(elf + eh->e_phoff);
	sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
	shstr = (const char *)elf + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_NOTE && ph[i].p_offset +
		    ph[i].p_filesz <= elf_len && !e.build_id_len &&
		    !rs_elf_note_buildid(elf + ph[i].p_offset, ph[i].p_filesz,
					 ph[i].p_align, e.build_id, &id_len))
			e.build_id_len = (uint8_t)id_len;
		if (ph[i].p_type != PT_LOAD || nl == RS_USYMS_MAX_LOADS)
			continue;
		loads[nl++] = (struct rs_usyms_load){ ph[i].p_vaddr,
			ph[i].p_offset, ph[i].p_filesz, ph[i].p_memsz,
			ph[i].p_flags, 0 };
	}
	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(shstr + sh[i].sh_name, ".text")) {
			e.text_addr = sh[i].sh_addr;
			e.text_offset = sh[i].sh_offset;
			e.text_size = sh[i].sh_size;
		}
	if (!e.build_id_len || !nl || !e.text_size)
		die(argv[2], "no build id, PT_LOAD or .text");

	plen = strlen(argv[2]);
	nlen = strlen(argv[3]) + 1;
	len = (uint32_t)((sizeof(e) + nl * sizeof(loads[0]) + sizeof(sym) +
			  plen + nlen + 7) & ~(size_t)7);
	e.length = len;
	e.e_type = eh->e_type;
	e.e_machine = eh->e_machine;
	e.nr_loads = (uint16_t)nl;
	e.path_len = (uint16_t)plen;
	e.nr_syms = 1;
	e.str_size = (uint32_t)nlen;
	/* one function over all of .text: every sample in it is NAME's */
	sym = (struct rs_usyms_sym){ e.text_addr, (uint32_t)e.text_size, 0 };
	entry = calloc(1, len);
	if (!entry)
		die("entry", strerror(ENOMEM));
	at = entry;
	memcpy(at, &e, sizeof(e));
	at += sizeof(e);
	memcpy(at, loads, nl * sizeof(loads[0]));
	at += nl * sizeof(loads[0]);
	memcpy(at, &sym, sizeof(sym));
	at += sizeof(sym);
	memcpy(at, argv[2], plen);
	at += plen;
	memcpy(at, argv[3], nlen);

	mem = map_file(argv[1], 1, &reg_len);
	err = rs_region_open(&region, mem, reg_len);
	if (err)
		die(argv[1], rs_error_str(err));
	err = rs_usyms_begin(&region, &w, 0, 64 * RS_PAGE_SIZE);
	if (err)
		die("rs_usyms_begin", rs_error_str(err));
	if (rs_usyms_append(&w, entry, len) != 1)
		die("rs_usyms_append", "the entry did not fit");
	for (i = 0; i < e.build_id_len; i++)
		printf("%02x", e.build_id[i]);
	putchar('\n');
	free(entry);
	return 0;
}
