/* SPDX-License-Identifier: MIT */
/*
 * The user-space mappings of a guest's processes, from the MMAP2 records
 * of a file read in order (perfdata/src/pdf_umaps.c): a newer mapping
 * takes the place of those it overlaps, as in the process.  Kept sorted
 * by (pid, start) for lookups by address; the readers of user samples
 * (introspect's gi_symfs, pprof) keep one each.
 */
#ifndef RINGSIDE_PERFDATA_UMAPS_H
#define RINGSIDE_PERFDATA_UMAPS_H

#include <stdint.h>

#include "ringside/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pdf_umap {
	uint32_t pid;
	uint32_t file;            /* the caller's index of the mapped file */
	uint64_t start, end, pgoff;
	int64_t mapping;          /* the caller's own, 0 when added */
};

struct pdf_umaps {
	struct pdf_umap *maps;    /* by (pid, start), none overlapping */
	uint32_t nr, max;
	/* entries that keeping the order may still move (a caller bounds the
	 * time a hostile order of records costs); UINT64_MAX: no bound */
	uint64_t moves;
};

/* An empty table of room for @max mappings.  0, -ENOMEM. */
int pdf_umaps_init(struct pdf_umaps *t, uint32_t max, uint64_t moves);
void pdf_umaps_fini(struct pdf_umaps *t);

/* The user-space mapping that the MMAP2 record @rec (classified
 * PDF_RREC_MMAP2) makes: its body into @m and its file name; NULL for a
 * mapping of a kernel's, an empty one or one that wraps. */
const char *pdf_umaps_mmap2(const struct rs_perf_header *rec,
			    struct rs_perf_mmap2_body *m);

/* The mapping @m (from pdf_umaps_mmap2) of the caller's file @file, in the
 * place of those it overlaps.  0, or -ENOSPC when the table is full or
 * the moves it takes are more than are left: not kept. */
int pdf_umaps_add(struct pdf_umaps *t, const struct rs_perf_mmap2_body *m,
		  uint32_t file);

/* The mapping of @pid that holds @addr, or NULL. */
struct pdf_umap *pdf_umaps_find(const struct pdf_umaps *t, uint32_t pid,
				uint64_t addr);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_UMAPS_H */
