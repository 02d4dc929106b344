/* SPDX-License-Identifier: MIT */
/*
 * The guest's user symbol table (docs/abi.md, "User symbols"): copied
 * once from the sideband (rs_usyms_read), then every entry judged as the
 * guest's claim it is before anything of it reaches the perf.data writer:
 * lengths and counts inside the entry and abi.h's bounds, the PT_LOADs
 * and .text free of overflow, .text and every symbol inside a PT_LOAD,
 * names NUL-terminated, printable and bounded, the path absolute and
 * clean (it names a directory of the build-id cache), one entry per build
 * id, at most GI_USYMS_MAX_BINS of them.  An entry that fails is refused and
 * counted; the others are kept.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gi_usyms.h"
#include "ringside/text.h"

#define HDR sizeof(struct rs_usyms_entry)

/* Absolute, printable, no empty, "." or ".." component, no final '/';
 * or the vdso's name, "[vdso]" (in no file). */
static int path_ok(const char *p, size_t n)
{
	size_t i, start;

	if (n == 6 && !memcmp(p, "[vdso]", 6))
		return 1;
	if (!n || p[0] != '/' || p[n - 1] == '/' || !rs_text_graph(p, n))
		return 0;
	for (i = 1, start = 1; i <= n; i++) {
		if (i < n && p[i] != '/')
			continue;
		if (i == start || (i - start == 1 && p[start] == '.') ||
		    (i - start == 2 && p[start] == '.' && p[start + 1] == '.'))
			return 0;
		start = i + 1;
	}
	return 1;
}

static int in_loads(const struct pdf_ubin *b, uint64_t v)
{
	uint32_t i;

	for (i = 0; i < b->nr_loads; i++)
		if (v >= b->loads[i].vaddr &&
		    v - b->loads[i].vaddr < b->loads[i].memsz)
			return 1;
	return 0;
}

/* Entry @p of @len bytes (its own length) into @gb: 0, or why not. */
static enum gi_usyms_why check(const uint8_t *p, uint64_t len,
			       struct gi_usyms_bin *gb)
{
	struct pdf_ubin *b = &gb->ub;
	struct rs_usyms_entry e;
	const uint8_t *q;
	const char *names;
	uint64_t need;
	uint32_t i;

	memcpy(&e, p, sizeof(e));
	if (e.build_id_len < 1 || e.build_id_len > RS_USYMS_BUILD_ID_MAX ||
	    e.build_id_len > PDF_BUILD_ID_SIZE)
		return GI_USYMS_WHY_BUILD_ID;
	if ((e.e_type != ET_EXEC && e.e_type != ET_DYN) ||
	    (e.flags & ~(uint32_t)(RS_USYMS_E_CUT | RS_USYMS_E_DYNSYM)))
		return GI_USYMS_WHY_HEADER;
	if (!e.nr_loads || e.nr_loads > RS_USYMS_MAX_LOADS ||
	    e.nr_loads > PDF_UBIN_MAX_LOADS || e.nr_syms > RS_USYMS_MAX_SYMS ||
	    !e.path_len || e.path_len > RS_USYMS_PATH_MAX || !e.str_size)
		return GI_USYMS_WHY_COUNTS;
	need = HDR + (uint64_t)e.nr_loads * sizeof(struct rs_usyms_load) +
	       (uint64_t)e.nr_syms * sizeof(struct rs_usyms_sym) +
	       e.path_len + (uint64_t)e.str_size;
	if (need > len || len - need >= 8)
		return GI_USYMS_WHY_LENGTH;
	memset(gb, 0, sizeof(*gb));
	b->e_type = e.e_type;
	b->e_machine = e.e_machine;
	b->build_id_len = e.build_id_len;
	memcpy(b->build_id, e.build_id, e.build_id_len);
	b->nr_loads = e.nr_loads;
	q = p + HDR;
	for (i = 0; i < e.nr_loads; i++, q += sizeof(struct rs_usyms_load)) {
		struct rs_usyms_load l;

		memcpy(&l, q, sizeof(l));
		if (!l.memsz || l.filesz > l.memsz ||
		    l.vaddr > UINT64_MAX - l.memsz ||
		    l.offset > UINT64_MAX - l.filesz)
			return GI_USYMS_WHY_LOADS;
		b->loads[i] = (struct pdf_uload){ l.vaddr, l.offset, l.filesz,
						  l.memsz, l.flags };
	}
	if (!e.text_size || e.text_addr > UINT64_MAX - e.text_size ||
	    e.text_offset > UINT64_MAX - e.text_size ||
	    !in_loads(b, e.text_addr))
		return GI_USYMS_WHY_TEXT;
	b->text_addr = e.text_addr;
	b->text_offset = e.text_offset;
	b->text_size = e.text_size;
	names = (const char *)q + (uint64_t)e.nr_syms * sizeof(struct rs_usyms_sym) +
		e.path_len;
	if (names[e.str_size - 1])
		return GI_USYMS_WHY_NAMES;
	if (!path_ok(names - e.path_len, e.path_len))
		return GI_USYMS_WHY_PATH;
	memcpy(gb->path, names - e.path_len, e.path_len);
	gb->path[e.path_len] = 0;
	b->path = gb->path;
	if (e.nr_syms) {
		gb->syms = malloc((size_t)e.nr_syms * sizeof(*gb->syms));
		if (!gb->syms)
			return GI_USYMS_WHY_MEMORY;
	}
	for (i = 0; i < e.nr_syms; i++, q += sizeof(struct rs_usyms_sym)) {
		struct rs_usyms_sym s;
		size_t n;

		memcpy(&s, q, sizeof(s));
		if (s.name >= e.str_size)
			return GI_USYMS_WHY_NAMES;
		n = strnlen(names + s.name, e.str_size - s.name);
		if (!n || n > RS_USYMS_NAME_MAX ||
		    !rs_text_graph(names + s.name, n))
			return GI_USYMS_WHY_NAMES;
		if (!in_loads(b, s.value) || s.value > UINT64_MAX - s.size)
			return GI_USYMS_WHY_SYMBOLS;
		gb->syms[i] = (struct pdf_usym){ s.value, s.size, s.name };
	}
	b->nr_syms = e.nr_syms;
	b->syms = gb->syms;
	b->names = names;
	b->names_len = e.str_size;
	gb->flags = e.flags;
	return GI_USYMS_WHY_NONE;
}

static void bins_free(struct gi_usyms *g)
{
	uint32_t i;

	for (i = 0; i < g->nr; i++)
		free(g->bins[i].syms);
	free(g->bins);
	g->bins = NULL;
	g->nr = 0;
}

int gi_usyms_parse(struct gi_usyms *g, const uint8_t *table, uint64_t len,
		   uint32_t entries)
{
	uint64_t at = 0;
	uint32_t k, j;

	if (!g || (!table && len))
		return -EINVAL;
	bins_free(g);
	memset(&g->st, 0, sizeof(g->st));
	g->st.claimed = entries;
	g->bins = calloc(entries < GI_USYMS_MAX_BINS ? entries + 1u :
			 GI_USYMS_MAX_BINS, sizeof(*g->bins));
	if (!g->bins)
		return -ENOMEM;
	for (k = 0; k < entries && at < len; k++) {
		struct gi_usyms_bin *gb = &g->bins[g->nr];
		uint32_t elen;
		enum gi_usyms_why why;

		if (len - at < HDR) {
			g->st.refused++;
			g->st.why = GI_USYMS_WHY_LENGTH;
			break;
		}
		memcpy(&elen, table + at, sizeof(elen));
		if (elen < HDR || (elen & 7u) || elen > len - at ||
		    elen > RS_USYMS_ENTRY_MAX) {
			g->st.refused++;      /* no length to skip by: the rest */
			g->st.why = GI_USYMS_WHY_LENGTH;
			break;
		}
		if (g->nr == GI_USYMS_MAX_BINS) {
			g->st.over++;
			at += elen;
			continue;
		}
		why = check(table + at, elen, gb);
		for (j = 0; !why && j < g->nr; j++)
			if (g->bins[j].ub.build_id_len == gb->ub.build_id_len &&
			    !memcmp(g->bins[j].ub.build_id, gb->ub.build_id,
				    gb->ub.build_id_len))
				why = GI_USYMS_WHY_DUPLICATE;
		if (why == GI_USYMS_WHY_MEMORY) {
			free(gb->syms);
			return -ENOMEM;
		}
		at += elen;
		if (why) {
			free(gb->syms);
			memset(gb, 0, sizeof(*gb));
			g->st.refused++;
			g->st.why = why;
			continue;
		}
		g->st.symbols += gb->ub.nr_syms;
		if (gb->flags & RS_USYMS_E_CUT)
			g->st.cut++;
		g->nr++;
	}
	if (k < entries && !g->st.refused)
		g->st.refused += entries - k;  /* claimed, never met */
	if (at < len && k == entries)
		g->st.refused++;               /* bytes past the last entry */
	return 0;
}

int gi_usyms_read(struct gi_usyms *g, const struct rs_region *region)
{
	uint64_t size = rs_sideband_size(region);
	uint8_t *buf;
	int err;

	if (!g)
		return -EINVAL;
	bins_free(g);
	free(g->table);
	g->table = NULL;
	memset(&g->info, 0, sizeof(g->info));
	memset(&g->st, 0, sizeof(g->st));
	if (!size) {
		g->state = GI_USYMS_ABSENT;
		return 0;
	}
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	err = rs_usyms_read(region, buf, size, &g->info);
	if (err <= 0) {
		free(buf);
		g->state = err == 0 ? GI_USYMS_NONE : err == -rse_busy ?
			   GI_USYMS_BUSY : err == -rse_absent ? GI_USYMS_ABSENT :
			   GI_USYMS_CORRUPT;
		return 0;
	}
	g->table = buf;
	g->state = GI_USYMS_OK;
	return gi_usyms_parse(g, buf, g->info.length, g->info.entries);
}

void gi_usyms_fini(struct gi_usyms *g)
{
	if (!g)
		return;
	bins_free(g);
	free(g->table);
	memset(g, 0, sizeof(*g));
}

const char *gi_usyms_why_str(enum gi_usyms_why why)
{
	switch (why) {
	case GI_USYMS_WHY_NONE: return "none";
	case GI_USYMS_WHY_LENGTH: return "a length outside the table";
	case GI_USYMS_WHY_BUILD_ID: return "a build id of no valid length";
	case GI_USYMS_WHY_HEADER: return "an ELF type or flags no agent writes";
	case GI_USYMS_WHY_COUNTS: return "counts beyond the bounds";
	case GI_USYMS_WHY_LOADS: return "a PT_LOAD that overflows";
	case GI_USYMS_WHY_TEXT: return ".text outside the PT_LOADs";
	case GI_USYMS_WHY_PATH: return "a path not absolute and clean";
	case GI_USYMS_WHY_NAMES: return "a name unprintable, unbounded or outside";
	case GI_USYMS_WHY_SYMBOLS: return "a symbol outside the PT_LOADs";
	case GI_USYMS_WHY_DUPLICATE: return "a build id given twice";
	case GI_USYMS_WHY_MEMORY: return "out of memory";
	}
	return "?";
}
