/* SPDX-License-Identifier: MIT */
/*
 * HEADER_BUILD_ID, the feature perf finds a file's DSOs in its build-id
 * cache by: its entries (the guest's kernel, its user binaries, the vdso
 * placeholder), and the build id of the kernel this host runs, which a
 * guest that claims it does not get (pdf_writer.c gives it a content id:
 * perf would take the host's own kallsyms for it).
 */
#include <fcntl.h>
#include <string.h>
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

void pdf_buildid_add(struct pdf_buf *ids, uint16_t misc, const uint8_t *id,
		     size_t len, const char *name)
{
	/* perf_record_header_build_id: header, pid, 20 bytes of id, its size,
	 * 3 reserved; then the name, NUL-padded to a multiple of 64 */
	static const uint8_t zero[64];
	size_t name_len = strlen(name);
	size_t padded = (name_len + 1 + 63) & ~(size_t)63;
	uint8_t bid[24] = { 0 };
	struct rs_perf_header hdr = { 0, (uint16_t)(misc | PDF_MISC_BUILD_ID_SIZE),
		(uint16_t)(sizeof(hdr) + 4 + sizeof(bid) + padded) };
	int32_t pid = -1;

	if (len > PDF_BUILD_ID_SIZE)
		len = PDF_BUILD_ID_SIZE;
	memcpy(bid, id, len);
	bid[20] = (uint8_t)len;
	pdf_buf_add(ids, &hdr, sizeof(hdr));
	pdf_buf_add(ids, &pid, sizeof(pid));
	pdf_buf_add(ids, bid, sizeof(bid));
	pdf_buf_add(ids, name, name_len);
	pdf_buf_add(ids, zero, padded - name_len);
}

/* Whether @ids (HEADER_BUILD_ID entries) names DSO @name. */
static int names_dso(const struct pdf_buf *ids, const char *name)
{
	size_t at = 0, n = strlen(name);

	while (at + 36 <= ids->len) {
		struct rs_perf_header h;

		memcpy(&h, ids->data + at, sizeof(h));
		if (h.size < 36 + n + 1 || at + h.size > ids->len)
			break;
		if (!memcmp(ids->data + at + 36, name, n + 1))
			return 1;
		at += h.size;
	}
	return 0;
}

/*
 * A file whose guest did not describe its vdso still gets a build id for
 * it, one no vdso has: perf then never takes its own process's vdso (the
 * reading host's, another kernel's code) for the guest's, which would
 * name the guest's vdso samples after the host's functions; with an id
 * it finds in no cache it leaves them unnamed.
 */
int pdf_buildid_is_vdso_unknown(const uint8_t *id, size_t len)
{
	static const uint8_t unknown[20] = PDF_VDSO_UNKNOWN_ID;

	return len == sizeof(unknown) && !memcmp(id, unknown, len);
}

int pdf_buildid_vdso_unknown(struct pdf_buf *ids)
{
	/* "ringside:novdso" and zeros: not a build id any linker makes */
	static const uint8_t unknown[20] = PDF_VDSO_UNKNOWN_ID;

	if (!ids || names_dso(ids, PDF_VDSO_DSO))
		return 0;
	pdf_buildid_add(ids, PERF_RECORD_MISC_USER, unknown, sizeof(unknown),
			PDF_VDSO_DSO);
	return ids->err ? ids->err : 1;
}
