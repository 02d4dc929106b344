/* SPDX-License-Identifier: MIT */
/*
 * A guest kernel's symbols (perfdata/src/pdf_ksyms.c).
 */
#ifndef RINGSIDE_PERFDATA_KSYMS_H
#define RINGSIDE_PERFDATA_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata/buf.h"
#include "ringside/perfdata/cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A guest's /proc/kallsyms ("ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]"
 * lines), checked as untrusted input and put in the form perf 6.1 reads
 * from its build-id cache (docs/perfdata.md, "Guest kernel symbols").
 *
 * Refused, the whole text (a kallsyms that is wrong in one place is not
 * trusted anywhere else):
 *   pdfe_ksyms_size     more than PDF_KSYMS_MAX_BYTES bytes or
 *                       PDF_KSYMS_MAX_LINES lines, or more than
 *                       PDF_KSYMS_MAX_MODULES modules;
 *   pdfe_ksyms_format   a line not of that form: an address that is not 1-16
 *                       hex digits, a type that is not an ASCII letter, a
 *                       name that is empty, longer than PDF_KSYMS_NAME_MAX
 *                       (the kernel's own bound) or has a byte outside
 *                       '!'..'~' or a '[' or ']' (so no NUL, newline, space
 *                       or tab), a module that is not [A-Za-z0-9_-]{1,55}
 *                       in brackets after one tab, or is one of perf's own
 *                       names (vdso, vdso32, vdsox32, vsyscall); an empty
 *                       line;
 *   pdfe_ksyms_range    a function (type T, t, W or w) below
 *                       PDF_KSYMS_MIN_ADDR: no kernel has one there, and
 *                       all-zero addresses are what kptr_restrict prints;
 *   pdfe_ksyms_empty    no function of the kernel proper.
 * Refused, one module (counted in pdf_ksyms_stats.modules_refused, its
 * symbols in .refused; pdfe_ksyms_overlap names the reason): a module
 * whose functions are not one run of addresses of its own (another
 * module's or the kernel's symbol amid them, or at one of their
 * addresses), or that reaches into the span of the kernel's symbols.  A
 * read of /proc/kallsyms racing a module's load gives such a table (the
 * module's .init symbols, listed until its init memory is freed, lie in
 * another allocation); the kernel and the other modules keep their names.
 * Read but not kept (counted in pdf_ksyms_stats): lines of a type perf does
 * not read (it keeps T t W w D d B b), data symbols (D d B b) below
 * PDF_KSYMS_MIN_ADDR (x86-64's per-CPU offsets) and of modules (a module's
 * data need not lie next to its text), the symbols of the pseudo-modules
 * [bpf] and [__builtin__*] (they have no range of their own), and repeats
 * of an identical line.  The rest is sorted by address (the input need not
 * be); symbols at one address are all kept.  The last line may lack its
 * newline.
 */
#define PDF_KSYMS_MAX_BYTES   (64u << 20)
#define PDF_KSYMS_MAX_LINES   (1u << 21)
#define PDF_KSYMS_MAX_MODULES 4096u
#define PDF_KSYMS_NAME_MAX    511u     /* bytes of a name: KSYM_NAME_LEN - 1 */
#define PDF_KSYMS_MODULE_MAX  55u      /* bytes of a module name */
#define PDF_KSYMS_MIN_ADDR    0xffff800000000000ull

struct pdf_ksyms;

struct pdf_ksyms_stats {
	uint64_t lines;           /* lines read */
	uint64_t symbols;         /* kept: what perf gets */
	uint64_t ignored;         /* of a type perf does not read */
	uint64_t dropped;         /* low or module data, pseudo-modules, repeats */
	uint64_t refused;         /* functions of the refused modules */
	uint32_t modules;         /* modules named by the kept symbols */
	uint32_t modules_refused; /* modules amid another map: left out */
	int have_text;            /* "_text" present (perf's reference symbol) */
	uint64_t text;            /* its address */
	uint64_t kernel_start;    /* the kernel's map (its MMAP record) */
	uint64_t kernel_end;
};

/*
 * Parse and check @len bytes of kallsyms text at @text.  0 and *@kp, or
 * PDF_ERR(pdfe_ksyms_*) as above, PDF_ERR(pdfe_invalid), -ENOMEM.
 */
int pdf_ksyms_parse(struct pdf_ksyms **kp, const void *text, size_t len);

/* Accepts NULL. */
void pdf_ksyms_free(struct pdf_ksyms *k);

const struct pdf_ksyms_stats *pdf_ksyms_stats(const struct pdf_ksyms *k);

/* A kept symbol; @name and @module stay valid while @k lives. */
struct pdf_ksym {
	uint64_t addr;
	char type;
	const char *name;         /* NUL-terminated */
	const char *module;       /* without brackets; NULL for the kernel */
};

/*
 * The symbol for @addr as perf finds it: the last one at or below it in the
 * same map (the kernel's or one module's).  Of aliases (several symbols at
 * one address) this gives the last by name; perf picks one by rules of its
 * own (symbols__fixup_duplicate()).  1 found, 0 none (outside every map).
 */
int pdf_ksyms_find(const struct pdf_ksyms *k, uint64_t addr,
		   struct pdf_ksym *sym);

/* The kept symbols as kallsyms text, sorted: what the cache entry holds. */
int pdf_ksyms_text(const struct pdf_ksyms *k, struct pdf_buf *out);

/* The build id perf is given when the guest's own is not used: the first
 * 20 bytes of SHA-256 over pdf_ksyms_text(). */
int pdf_ksyms_content_id(const struct pdf_ksyms *k,
			 uint8_t id[PDF_BUILD_ID_SIZE]);

/*
 * Make DIR/[kernel.kallsyms]/HEX(@id)/kallsyms hold pdf_ksyms_text(@k)
 * (DIR: @dir, a cache of ringside's own: made 0700 if absent, never a
 * link, this user's and writable by nobody else, never perf's own), as
 * perf's cache lays it out: directories 0755, the file written aside
 * (O_EXCL|O_NOFOLLOW) and linked into place, and DIR/.build-id/XX/REST
 * linked to it (perf reads its cache through that link alone under
 * --symfs).  An entry already there is never replaced: 0 when it holds
 * the same bytes, 1 when it holds others.  -errno, PDF_ERR(pdfe_invalid)
 * (NULL @dir among others), PDF_ERR(pdfe_cache_unsafe).
 */
int pdf_ksyms_cache_put(const struct pdf_ksyms *k,
			const uint8_t *id, size_t id_len, const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_KSYMS_H */
