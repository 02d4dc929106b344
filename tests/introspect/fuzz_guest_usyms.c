/* SPDX-License-Identifier: MIT */
/*
 * Target: the guest's user symbol table as the host checks it
 * (gi_usyms_parse, introspect/src/gi_usyms.c) and the symbol file it then
 * builds of each entry kept (pdf_uelf_image).  The input: the number of
 * entries the guest claims (one byte), then the table's bytes.  A kept
 * entry must be one the checks promise: loads in bounds, every symbol's
 * name inside the names and every symbol inside a PT_LOAD.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ringside/introspect.h"

static uint8_t table[1u << 16] __attribute__((aligned(8)));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gi_usyms g;
	struct fz_in in;
	uint32_t entries, i, k;
	size_t len;

	fz_in_init(&in, data, size);
	entries = fz_u8(&in);
	len = fz_take(&in, table, in.left < sizeof(table) ? in.left :
		      sizeof(table));
	memset(&g, 0, sizeof(g));
	if (gi_usyms_parse(&g, table, len, entries))
		return 0;
	if (g.nr + g.st.refused + g.st.over > entries + 1u)
		abort();
	for (i = 0; i < g.nr; i++) {
		const struct pdf_ubin *b = &g.bins[i].ub;
		struct pdf_buf img;

		if (!b->nr_loads || b->nr_loads > PDF_UBIN_MAX_LOADS ||
		    (b->path[0] != '/' && strcmp(b->path, "[vdso]")) ||
		    b->names[b->names_len - 1])
			abort();
		for (k = 0; k < b->nr_syms; k++) {
			uint32_t l, in_load = 0;

			if (b->syms[k].name >= b->names_len)
				abort();
			for (l = 0; l < b->nr_loads; l++)
				in_load |= b->syms[k].value >= b->loads[l].vaddr &&
					   b->syms[k].value - b->loads[l].vaddr <
					   b->loads[l].memsz;
			if (!in_load)
				abort();
		}
		pdf_buf_init(&img);
		if (pdf_uelf_image(b, &img))
			abort();
		pdf_buf_fini(&img);
	}
	gi_usyms_fini(&g);
	return 0;
}
