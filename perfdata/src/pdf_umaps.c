/* SPDX-License-Identifier: MIT */
/* The user-space mappings of a guest's processes (ringside/perfdata/umaps.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ringside/perfdata/umaps.h"

int pdf_umaps_init(struct pdf_umaps *t, uint32_t max, uint64_t moves)
{
	memset(t, 0, sizeof(*t));
	t->maps = calloc(max ? max : 1, sizeof(*t->maps));
	if (!t->maps)
		return -ENOMEM;
	t->max = max;
	t->moves = moves;
	return 0;
}

void pdf_umaps_fini(struct pdf_umaps *t)
{
	free(t->maps);
	memset(t, 0, sizeof(*t));
}

const char *pdf_umaps_mmap2(const struct rs_perf_header *rec,
			    struct rs_perf_mmap2_body *m)
{
	uint16_t mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	memcpy(m, rec + 1, sizeof(*m));
	if (mode != PERF_RECORD_MISC_USER && mode != PERF_RECORD_MISC_GUEST_USER)
		return NULL;
	if (!m->len || m->addr + m->len < m->addr)
		return NULL;
	return (const char *)(rec + 1) + sizeof(*m);
}

/* The first mapping at or after (@pid, @addr). */
static uint32_t lower(const struct pdf_umaps *t, uint32_t pid, uint64_t addr)
{
	uint32_t lo = 0, hi = t->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct pdf_umap *m = &t->maps[mid];

		if (m->pid < pid || (m->pid == pid && m->start < addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pdf_umaps_add(struct pdf_umaps *t, const struct rs_perf_mmap2_body *m,
		  uint32_t file)
{
	struct pdf_umap nm = { .pid = m->pid, .file = file, .start = m->addr,
			       .end = m->addr + m->len, .pgoff = m->pgoff };
	uint32_t i = lower(t, m->pid, m->addr), j, cost;

	if (i > 0 && t->maps[i - 1].pid == m->pid && t->maps[i - 1].end > m->addr)
		i--;
	for (j = i; j < t->nr && t->maps[j].pid == m->pid &&
	     t->maps[j].start < nm.end; j++)
		;
	/* maps[i, j) overlap the new one: it takes their place */
	cost = j == i ? t->nr - i : j > i + 1 ? t->nr - j : 0;
	if ((j == i && t->nr == t->max) || cost > t->moves)
		return -ENOSPC;
	if (t->moves != UINT64_MAX)
		t->moves -= cost;
	if (j == i) {
		memmove(&t->maps[i + 1], &t->maps[i],
			(t->nr - i) * sizeof(t->maps[0]));
		t->nr++;
	} else if (j > i + 1) {
		memmove(&t->maps[i + 1], &t->maps[j],
			(t->nr - j) * sizeof(t->maps[0]));
		t->nr -= j - i - 1;
	}
	t->maps[i] = nm;
	return 0;
}

struct pdf_umap *pdf_umaps_find(const struct pdf_umaps *t, uint32_t pid,
				uint64_t addr)
{
	uint32_t i = lower(t, pid, addr + 1);
	struct pdf_umap *m;

	if (!i || addr == UINT64_MAX)
		return NULL;
	m = &t->maps[i - 1];
	return m->pid == pid && m->start <= addr && addr < m->end ? m : NULL;
}
