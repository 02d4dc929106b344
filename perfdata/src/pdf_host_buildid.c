/* SPDX-License-Identifier: MIT */
/*
 * The build id of the kernel this host runs: a guest that claims it gets
 * a content id instead (pdf_writer.c), since perf would take the host's
 * own kallsyms for it.
 */
#include <fcntl.h>
#include <unistd.h>

#include "ringside/elf_note.h"

#include "pdf_kernel.h"

size_t pdf_buildid_host(uint8_t id[PDF_BUILD_ID_SIZE])
{
	uint8_t notes[4096];
	size_t len = PDF_BUILD_ID_SIZE;
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, notes, sizeof(notes));
	close(fd);
	if (n <= 0 || rs_elf_note_buildid(notes, (size_t)n, 4, id, &len))
		return 0;
	return len;
}
