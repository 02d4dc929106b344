/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's vdso among the user binaries: every process maps
 * the same image, which is in no file, so the agent publishes its
 * symbols from its own mapping (AT_SYSINFO_EHDR), under the name
 * "[vdso]" and the image's build id.  The host files it where perf looks
 * a vdso up by build id (DIR/[vdso]/ID/vdso): a reader names the guest's
 * vdso samples by the guest's vdso, never by its own.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ringside/elf_note.h"

#include "agent.h"

#define VDSO_MAX (1u << 20)   /* bytes of image published at most */

/* The [vdso] line's extent in /proc/self/maps: its bytes readable. */
static size_t mapped_bytes(uintptr_t start)
{
	char line[256];
	size_t bytes = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;

		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &s, &e) == 2 && s == start &&
		    e > s) {
			bytes = (size_t)(e - s);
			break;
		}
	}
	fclose(f);
	return bytes;
}

void agent_vdso_usyms(void)
{
	const uint8_t *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	uint8_t id[RS_USYMS_BUILD_ID_MAX];
	size_t id_len = 0, size, mapped;
	int fd;

	if (!img)
		return;
	mapped = mapped_bytes((uintptr_t)img);
	if (mapped < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > mapped ||
	    eh->e_phnum > (mapped - eh->e_phoff) / sizeof(Elf64_Phdr))
		return;
	size = (size_t)eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff +
						      i * sizeof(*ph));

		if (ph->p_offset > mapped || ph->p_filesz > mapped - ph->p_offset)
			return;
		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > size)
			size = ph->p_offset + ph->p_filesz;
		if (ph->p_type == PT_NOTE && !id_len) {
			id_len = sizeof(id);
			if (rs_elf_note_buildid(img + ph->p_offset, ph->p_filesz,
						ph->p_align, id, &id_len))
				id_len = 0;
		}
	}
	if (!id_len || size > mapped || size > VDSO_MAX)
		return;
	fd = memfd_create("ringside-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, img, size) == (ssize_t)size)
		agent_usyms_note(fd, "[vdso]", id, (uint8_t)id_len);
	close(fd);
}
