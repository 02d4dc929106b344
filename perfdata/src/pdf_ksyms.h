/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: a parsed guest kallsyms (pdf_ksyms.c makes it,
 * pdf_kernel.c reads its maps).
 */
#ifndef RINGSIDE_PDF_KSYMS_H
#define RINGSIDE_PDF_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata/ksyms.h"

#define NO_MOD 0xffffu

struct ksym {
	uint64_t addr;
	uint32_t name;               /* offset in pdf_ksyms.str */
	uint16_t name_len;
	uint16_t mod;                /* index in pdf_ksyms.mods, NO_MOD: kernel */
	char type;
};

/* A map: the kernel's (mod NO_MOD) or a module's. */
struct kmap {
	uint64_t lo, hi;             /* its lowest and highest symbol */
	uint64_t start, end;         /* its MMAP */
	uint16_t mod;
	uint32_t first, nr;          /* its symbols in pdf_ksyms.syms */
};

struct kmod {
	uint32_t name;               /* offset in pdf_ksyms.str, NUL-terminated */
	uint16_t name_len;
};

struct pdf_ksyms {
	char *str;                   /* the text, NULs after names and modules */
	struct ksym *syms;
	size_t nr;
	struct kmod *mods;
	unsigned nr_mods;
	struct kmap *maps;           /* by address; maps[i].mod */
	unsigned nr_maps;
	struct pdf_ksyms_stats stats;
};

/* A function symbol's type, as perf reads kallsyms. */
static inline int pdf_ksym_is_func(char t)
{
	return t == 'T' || t == 't' || t == 'W' || t == 'w';
}

static inline uint64_t pdf_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif /* RINGSIDE_PDF_KSYMS_H */
