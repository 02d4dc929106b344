/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: what a file needs so that perf names a guest's
 * samples (docs/perfdata.md, "Guest kernel symbols", "Guest user
 * symbols"): the kernel's and modules' PERF_RECORD_MMAPs (pdf_kernel.c),
 * the entries of HEADER_BUILD_ID and the host's own build id
 * (pdf_buildid.c), ringside's build-id cache (pdf_cache.c) and the guest's
 * user binaries in it (pdf_uelf.c).
 */
#ifndef RINGSIDE_PDF_KERNEL_H
#define RINGSIDE_PDF_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "pdf_format.h"

/* perf's name of the host kernel's DSO (machine->mmap_name), and the
 * feature bit of HEADER_BUILD_ID. */
#define PDF_KERNEL_DSO    "[kernel.kallsyms]"
#define PDF_FEAT_BUILD_ID 2u
/* The guest kernel's vdso: perf keeps its cache entry as
 * DIR/[vdso]/HEX/vdso (build_id_cache__basename()). */
#define PDF_VDSO_DSO      "[vdso]"
/* perf's own misc bit of a HEADER_BUILD_ID entry (tools/perf/util/event.h):
 * the entry says how many of its 20 bytes the id has. */
#define PDF_MISC_BUILD_ID_SIZE (1u << 15)

/* ---- pdf_kernel.c --------------------------------------------------------- */

/*
 * Append to @out the PERF_RECORD_MMAPs perf 6.1 makes its kernel maps of:
 * the kernel ("[kernel.kallsyms]_text", pgoff the address of _text, as
 * `perf record` writes it), then each module ("[name]"); pid -1 (perf's
 * host kernel), misc KERNEL, the sample_id trailer of ringside:ring at
 * time 0.  0, -ENOMEM.
 */
int pdf_kernel_mmaps(const struct pdf_ksyms *k, const struct pdf_layout *lay,
		     struct pdf_buf *out);

/* One /proc/modules line per module map of @k (name, size, address), as
 * perf checks kcore's modules against the file's maps.  0, -ENOMEM. */
int pdf_kernel_modules_text(const struct pdf_ksyms *k, struct pdf_buf *out);

/* Where perf finds the kernel's own kcore segment: _stext's address, else
 * _text's, else the kernel map's start. */
uint64_t pdf_kernel_stext(const struct pdf_ksyms *k);

/* ---- pdf_buildid.c -------------------------------------------------------- */

/* One HEADER_BUILD_ID entry onto @ids: DSO @name (NUL-terminated, at most
 * PATH_MAX bytes) of pid -1 with misc @misc (PERF_RECORD_MISC_KERNEL or
 * _USER) and build id @id (@len <= 20 bytes). */
void pdf_buildid_add(struct pdf_buf *ids, uint16_t misc, const uint8_t *id,
		     size_t len, const char *name);

/* The running kernel's build id (/sys/kernel/notes): its length, or 0
 * when there is none to read. */
size_t pdf_buildid_host(uint8_t id[PDF_BUILD_ID_SIZE]);

/* A HEADER_BUILD_ID entry for "[vdso]" with an id no vdso has, onto @ids
 * unless it names the vdso already: the reader's own vdso never names the
 * guest's.  1 added, 0 not needed, or @ids's error. */
int pdf_buildid_vdso_unknown(struct pdf_buf *ids);

/* That id: its bytes, then zeros to 20 (no cache entry has it: an
 * archive passes it over). */
#define PDF_VDSO_UNKNOWN_ID "ringside:novdso"

/* 1 if @id (@len bytes) is PDF_VDSO_UNKNOWN_ID's. */
int pdf_buildid_is_vdso_unknown(const uint8_t *id, size_t len);

/* ---- pdf_cache.c ---------------------------------------------------------- */

/*
 * ringside's build-id cache at @dir (docs/perfdata.md, "Where guest names
 * go"), opened for writing: made (0700) if absent, its parent being
 * there; never through a link; a directory of this user that nobody else
 * can write, and not perf's own cache (pdf_cache_perf_dir(), or ~/.debug
 * of this user's home).  Its descriptor, or -errno, PDF_ERR(pdfe_invalid),
 * PDF_ERR(pdfe_cache_unsafe).
 */
int pdf_cache_root(const char *dir);

/* Directory @rel ("a/b/c": no empty, "." or ".." component) under @at,
 * each component made (0755) if absent and opened as pdf_cache_root
 * opens the root (a link, or one not ours: PDF_ERR(pdfe_cache_unsafe)).
 * Its descriptor, or -errno, PDF_ERR(pdfe_invalid). */
int pdf_cache_subdir(int at, const char *rel);

/* @root/.build-id/XX/REST -> ../../@dso/XXREST (@hex the id in hex; @dso
 * a path relative to the root), as perf links its cache; a link there is
 * kept.  0, -errno, PDF_ERR(pdfe_cache_unsafe). */
int pdf_cache_link_at(int root, const char *dso, const char *hex);

/*
 * File @name of directory @at to hold @len bytes @data: written aside
 * (0600, O_EXCL|O_NOFOLLOW under a random name) and linked into place,
 * never replacing what is there.  0 (written, or there with the same
 * bytes), 1 (there with other bytes, kept), -errno,
 * PDF_ERR(pdfe_cache_unsafe) (a link or no regular file there).
 */
int pdf_cache_put_at(int at, const char *name, const void *data, size_t len);

/* DIR/[kernel.kallsyms]/HEX(@id)/@name, put as pdf_cache_put_at puts it
 * and linked from DIR/.build-id; its results. */
int pdf_cache_kernel_put(const char *dir, const uint8_t *id, size_t id_len,
			 const char *name, const void *data, size_t len);

/* 1 when DIR/[kernel.kallsyms]/HEX(@id)/@name is a regular file with
 * bytes in a cache pdf_cache_root opens, else 0. */
int pdf_cache_kernel_has(const char *dir, const uint8_t *id, size_t id_len,
			 const char *name);

/* ---- pdf_uelf.c ----------------------------------------------------------- */

/*
 * pdf_writer_add_ubins for the writer: each of @nr binaries not yet in
 * @ids into the cache at @dir and, when there, its HEADER_BUILD_ID entry
 * (misc USER) onto @ids; counted in @st.  Returns how many were added.
 */
int pdf_uelf_add_all(struct pdf_buf *ids, struct pdf_writer_stats *st,
		     const char *dir, const struct pdf_ubin *b, uint32_t nr);

#endif /* RINGSIDE_PDF_KERNEL_H */
