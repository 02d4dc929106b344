/* SPDX-License-Identifier: MIT */
/*
 * The user-space mappings of a guest's processes, from the MMAP2 records
 * of a file read in order (perfdata/src/pdf_umaps.c): a newer mapping
 * takes the place of those it overlaps, as in the process.  Kept sorted
 * by (pid, start) for lookups by address; the readers of user samples
 * (introspect's gi_symfs, pprof) keep one each, with the mapped files.
 */
#ifndef RINGSIDE_PERFDATA_UMAPS_H
#define RINGSIDE_PERFDATA_UMAPS_H

#include <stdint.h>

#include "ringside/perfdata/cache.h"
#include "ringside/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A mapped file (pdf_umaps_file): each (name, build id) once, numbered in
 * the order first met; a reader keeps what it reads of the file under the
 * same index. */
struct pdf_ufile {
	char *name;
	uint8_t id[PDF_BUILD_ID_SIZE];
	uint32_t id_len;          /* 0: the MMAP2 had none */
};

struct pdf_ufiles {
	struct pdf_ufile *files;  /* nr of them */
	uint32_t nr, max;
	uint32_t *slot;           /* open addressing: index + 1, 2 * max */
};

struct pdf_umap {
	uint32_t pid;
	uint32_t file;            /* the mapped file's index (pdf_umaps_file) */
	uint64_t start, end, pgoff;
	int64_t mapping;          /* the caller's own, 0 when added */
};

struct pdf_umaps {
	struct pdf_umap *maps;    /* by (pid, start), none overlapping */
	uint32_t nr, max;
	/* entries that keeping the order may still move (a caller bounds the
	 * time a hostile order of records costs); UINT64_MAX: no bound */
	uint64_t moves;
	struct pdf_ufiles files;  /* the mapped files */
};

/* An empty table of room for @max mappings of @max_files files.  0,
 * -ENOMEM. */
int pdf_umaps_init(struct pdf_umaps *t, uint32_t max, uint32_t max_files,
		   uint64_t moves);
void pdf_umaps_fini(struct pdf_umaps *t);

/* The user-space mapping that the MMAP2 record @rec (classified
 * PDF_RREC_MMAP2) makes: its body into @m and its file name; NULL for a
 * mapping of a kernel's, an empty one or one that wraps. */
const char *pdf_umaps_mmap2(const struct rs_perf_header *rec,
			    struct rs_perf_mmap2_body *m);

/* The mapping @m (from pdf_umaps_mmap2) of file @file (pdf_umaps_file),
 * in the place of those it overlaps.  0, or -ENOSPC when the table is
 * full or the moves it takes are more than are left: not kept. */
int pdf_umaps_add(struct pdf_umaps *t, const struct rs_perf_mmap2_body *m,
		  uint32_t file);

/* The mapping of @pid that holds @addr, or NULL. */
struct pdf_umap *pdf_umaps_find(const struct pdf_umaps *t, uint32_t pid,
				uint64_t addr);

/* The index in @t->files of file @name of the mapping @m (from
 * pdf_umaps_mmap2; its build id when @misc has
 * PERF_RECORD_MISC_MMAP_BUILD_ID), added when new, in *@idx: the @file of
 * pdf_umaps_add.  0; -1 when the files are full or out of memory. */
int pdf_umaps_file(struct pdf_umaps *t, const char *name,
		   const struct rs_perf_mmap2_body *m, uint16_t misc,
		   uint32_t *idx);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_UMAPS_H */
