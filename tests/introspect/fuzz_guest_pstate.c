/* SPDX-License-Identifier: MIT */
/*
 * Target: the guest's process state table as the host checks it
 * (gi_pstate_parse, introspect/src/gi_pstate.c) and the COMM and MMAP2
 * records it then builds of each process kept (gi_pstate_comm,
 * gi_pstate_mmap2).  The input: the number of processes the guest claims
 * (two bytes), then the copy's bytes.  A kept process must be one the
 * checks promise: a pid given once, its mappings inside the table, not
 * wrapping, named by an absolute printable path or "[vdso]", and records
 * of the size perf reads.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "ringside/introspect.h"

static uint8_t table[1u << 16] __attribute__((aligned(8)));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gi_pstate g;
	struct pdf_buf rec;
	struct fz_in in;
	uint32_t procs, i, j, maps = 0;
	size_t len;

	fz_in_init(&in, data, size);
	procs = fz_u8(&in);
	procs |= (uint32_t)fz_u8(&in) << 8;
	len = fz_take(&in, table, in.left < sizeof(table) ? in.left :
		      sizeof(table));
	memset(&g, 0, sizeof(g));
	if (gi_pstate_parse(&g, table, len, procs))
		return 0;
	if (g.nr_procs + g.st.refused > procs + 1u)
		abort();
	pdf_buf_init(&rec);
	for (i = 0; i < g.nr_procs; i++) {
		const struct gi_pstate_proc *p = &g.procs[i];

		if (!p->pid || p->nr_maps > RS_PSTATE_MAX_MAPS ||
		    p->first_map != maps || strlen(p->comm) > RS_PSTATE_COMM_LEN)
			abort();
		for (j = 0; j < i; j++)
			if (g.procs[j].pid == p->pid)
				abort();
		if (gi_pstate_comm(&g, i, &rec) || rec.len % 8 || rec.len < 16)
			abort();
		for (j = 0; j < p->nr_maps; j++) {
			const struct gi_pstate_map *m = &g.maps[p->first_map + j];

			if (!m->len || m->start + m->len < m->start ||
			    !m->name_len || m->name_len > RS_PSTATE_NAME_MAX ||
			    (const uint8_t *)m->name < table ||
			    (const uint8_t *)m->name + m->name_len > table + len ||
			    (m->name[0] != '/' && memcmp(m->name, "[vdso]", 6)) ||
			    memchr(m->name, 0, m->name_len))
				abort();
			if (gi_pstate_mmap2(&g, i, j, &rec) || rec.len % 8 ||
			    rec.len != ((8u + 64u + m->name_len + 1u + 7u) & ~7u))
				abort();
		}
		maps += p->nr_maps;
	}
	if (maps != g.nr_maps)
		abort();
	pdf_buf_fini(&rec);
	gi_pstate_fini(&g);
	return 0;
}
