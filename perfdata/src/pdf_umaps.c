/* SPDX-License-Identifier: MIT */
/* The user-space mappings of a guest's processes (ringside/perfdata/umaps.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ringside/perfdata/umaps.h"

int pdf_umaps_init(struct pdf_umaps *t, uint32_t max, uint32_t max_files,
		   uint64_t moves)
{
	struct pdf_ufiles *f = &t->files;

	memset(t, 0, sizeof(*t));
	t->maps = calloc(max ? max : 1, sizeof(*t->maps));
	f->files = calloc(max_files ? max_files : 1, sizeof(*f->files));
	f->slot = calloc(max_files ? 2u * (size_t)max_files : 1,
			 sizeof(*f->slot));
	if (!t->maps || !f->files || !f->slot) {
		pdf_umaps_fini(t);
		return -ENOMEM;
	}
	t->max = max;
	t->moves = moves;
	f->max = max_files;
	return 0;
}

void pdf_umaps_fini(struct pdf_umaps *t)
{
	for (uint32_t i = 0; t->files.files && i < t->files.nr; i++)
		free(t->files.files[i].name);
	free(t->files.files);
	free(t->files.slot);
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

int pdf_umaps_file(struct pdf_umaps *u, const char *name,
		   const struct rs_perf_mmap2_body *m, uint16_t misc,
		   uint32_t *idx)
{
	uint32_t len = (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ?
		       m->u.build_id.size : 0;   /* <= 20: classify checked */
	struct pdf_ufiles *t = &u->files;
	uint64_t h = 1469598103934665603ull;       /* FNV-1a */
	struct pdf_ufile *f;
	uint32_t i, at;

	if (!t->max)
		return -1;
	for (i = 0; name[i]; i++)
		h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
	for (i = 0; i < len; i++)
		h = (h ^ m->u.build_id.id[i]) * 1099511628211ull;
	for (at = (uint32_t)(h % (t->max * 2ull)); t->slot[at];
	     at = (uint32_t)((at + 1ull) % (t->max * 2ull))) {
		f = &t->files[t->slot[at] - 1];
		if (f->id_len == len && !memcmp(f->id, m->u.build_id.id, len) &&
		    !strcmp(f->name, name)) {
			*idx = t->slot[at] - 1;
			return 0;
		}
	}
	if (t->nr == t->max)
		return -1;
	f = &t->files[t->nr];
	f->name = strdup(name);
	if (!f->name)
		return -1;
	f->id_len = len;
	memcpy(f->id, m->u.build_id.id, len);
	*idx = t->nr++;
	t->slot[at] = t->nr;
	return 0;
}
