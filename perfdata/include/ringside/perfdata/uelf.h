/* SPDX-License-Identifier: MIT */
/*
 * A guest user binary's symbols (perfdata/src/pdf_uelf.c).
 *
 * perf names a user binary's samples from a file in its build-id cache,
 * DIR/PATH/ID/elf, found through DIR/.build-id/XX/REST.  For a guest
 * binary ringside writes there a small ELF file of its own making from the
 * symbols the guest's agent published (docs/perfdata.md, "Guest user
 * symbols"): the binary's e_type, e_machine and PT_LOADs, its build id
 * note, .text as NOBITS with the binary's address and offset, and its
 * FUNC symbols, so that perf computes the same addresses as from the
 * binary itself.
 */
#ifndef RINGSIDE_PERFDATA_UELF_H
#define RINGSIDE_PERFDATA_UELF_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata/buf.h"
#include "ringside/perfdata/cache.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PDF_UBIN_MAX_LOADS 16u

struct pdf_uload {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags;
};

struct pdf_usym {
	uint64_t value;
	uint32_t size;
	uint32_t name;            /* offset in pdf_ubin.names */
};

/* One binary, checked by its producer (introspect's gusyms): loads
 * 1..PDF_UBIN_MAX_LOADS, each symbol inside one, every name
 * NUL-terminated inside names, path absolute and clean. */
struct pdf_ubin {
	uint16_t e_type, e_machine;
	uint32_t build_id_len;    /* 1..PDF_BUILD_ID_SIZE */
	uint8_t build_id[PDF_BUILD_ID_SIZE];
	uint32_t nr_loads;
	struct pdf_uload loads[PDF_UBIN_MAX_LOADS];
	uint64_t text_addr, text_offset, text_size;
	uint32_t nr_syms;
	const struct pdf_usym *syms;
	uint32_t names_len;
	const char *names;
	const char *path;         /* NUL-terminated, "/..." */
};

/* The ELF symbol file of @b into @out.  0, PDF_ERR(pdfe_invalid),
 * -ENOMEM. */
int pdf_uelf_image(const struct pdf_ubin *b, struct pdf_buf *out);

/*
 * Make DIR/PATH/HEX(id)/elf hold pdf_uelf_image(@b) and link
 * DIR/.build-id/XX/REST to it (DIR: @dir, a cache of ringside's own, as
 * pdf_ksyms_cache_put takes it), as pdf_ksyms_cache_put does: never
 * replacing an entry.  The build id is the guest's claim: perf's own
 * cache would give the guest's names to the host's binary of that id.
 * 0 (written, or there with the same bytes), 1 (there with other bytes:
 * kept), -errno, PDF_ERR(pdfe_invalid) (NULL @dir among others),
 * PDF_ERR(pdfe_cache_unsafe).
 */
int pdf_uelf_cache_put(const struct pdf_ubin *b, const char *dir);

/* A function of a user ELF file as the host's readers of such files keep
 * it (introspect's gi_symfs, pprof's pprof_uelf): where it starts (an
 * address or a file offset, the reader's choice), its size (0: it runs to
 * the next), its name's offset in the file's string table. */
struct pdf_uelf_sym {
	uint64_t at, size;
	uint32_t name;
};

/* Sort @nr symbols by where they start. */
void pdf_uelf_sort(struct pdf_uelf_sym *syms, size_t nr);

/* The symbol of @syms (@nr, sorted) that holds @at: the last one at or
 * below it, if @at is inside its size (one of size 0 runs to the next);
 * NULL when none does. */
const struct pdf_uelf_sym *pdf_uelf_find(const struct pdf_uelf_sym *syms,
					 size_t nr, uint64_t at);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_UELF_H */
