/* SPDX-License-Identifier: MIT */
/* Inside ringside-pprof: where the guest's functions get their names. */
#ifndef RINGSIDE_PPROF_INT_H
#define RINGSIDE_PPROF_INT_H

#include "ringside/pprof.h"

/* ---- pprof_names.c: files of the build-id cache --------------------------- */

/* "aabb..." of @len bytes into @dst (2 * len + 1 bytes). */
void pprof_names_hex(char *dst, const uint8_t *id, uint32_t len);

/* The whole regular file DIR/@rel of the build-id cache @dir, at most
 * @max bytes, malloc'ed into *@datap (one byte more, not counted).  0;
 * -ENOENT (no @dir, no file), -EFBIG, -EINVAL (not a regular file),
 * -ENAMETOOLONG, -errno. */
int pprof_names_read(const char *dir, const char *rel, uint64_t max,
		     uint8_t **datap, size_t *lenp);

/*
 * The guest kernel's symbols for build id @id: DIR/[kernel.kallsyms]/HEX/
 * kallsyms of the build-id cache @dir (ringside's, beside the file),
 * checked by pdf_ksyms_parse().  Never the host's /proc/kallsyms.  0 and
 * *@kp; -ENODATA (no id), -ENOENT (no entry), -EFBIG, -errno, a
 * pdf_ksyms_parse() error.
 */
int pprof_names_ksyms(struct pdf_ksyms **kp, const char *dir,
		      const uint8_t *id, uint32_t id_len);

/* ---- pprof_uelf.c: a user binary's symbols ------------------------------- */

/* A user binary's symbols, from the ELF file perf's build-id cache holds
 * for its build id (ringside's symbol file of a guest binary, or any ELF
 * with a symbol table and that build id). */
struct pprof_uelf;

/*
 * DIR/.build-id/XX/REST/elf for build id @id, read as untrusted input:
 * 64-bit little-endian, every header, table and name inside the file, its
 * GNU build id equal to @id.  0 and *@up; -ENOENT (no file), -EFBIG,
 * -ENOEXEC (not such a file, or another build id), -errno.
 */
int pprof_uelf_load(struct pprof_uelf **up, const char *dir,
		    const uint8_t *id, uint32_t id_len);
void pprof_uelf_free(struct pprof_uelf *u);

/* The function at file offset @off as perf names it (the symbol whose
 * offset range holds it; a symbol of size 0 ends at the next), or NULL. */
const char *pprof_uelf_find(const struct pprof_uelf *u, uint64_t off);

#endif /* RINGSIDE_PPROF_INT_H */
