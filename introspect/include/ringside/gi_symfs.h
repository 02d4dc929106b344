/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_SYMFS_H
#define RINGSIDE_GI_SYMFS_H

#include <stdint.h>

#include "ringside/ring.h"

/*
 * The guest's user samples by function, for `ringside report`: the
 * MMAP2 records of a file say which guest file and offset each user-mode
 * sample hit; the functions are named from that file's ELF symbol table
 * under a --symfs directory (a copy of the guest's files), as perf does.
 * Everything in the file is the guest's claim and the symfs files are
 * read as untrusted input: every count, size and offset is bounded.
 * Returns codes, never prints (print.c does).
 */

#define GI_SYMFS_MAX_MAPS   8192u    /* mappings kept, all processes */
#define GI_SYMFS_MAX_FILES  1024u    /* distinct mapped files */
#define GI_SYMFS_MAX_HITS   65536u   /* distinct (file, offset) pairs */

struct gi_symfs;

struct gi_symfs_summary {
	uint64_t samples;         /* user-mode samples seen */
	uint64_t unmapped;        /* of them, in no mapping of their process */
	uint64_t dropped;         /* of them, past GI_SYMFS_MAX_HITS */
	uint64_t maps_dropped;    /* MMAP2 records past GI_SYMFS_MAX_MAPS/_FILES */
	uint32_t files;           /* files the samples are in */
	uint32_t unnamed_files;   /* of them, not found or not usable under
				   * --symfs (or no --symfs) */
	uint32_t mismatched;      /* of them, found with another build id */
};

/* One row of the table: samples in one function of one file, or at one
 * offset of it when no symbol covers it. */
struct gi_symfs_row {
	const char *file;         /* the guest's path, as its MMAP2 said */
	const char *function;     /* NULL: not named (see @offset) */
	uint64_t offset;          /* in the file, when @function is NULL */
	uint64_t samples;
};

/* @symfs: the directory the guest's files are under (NULL: name none).
 * 0, -ENOMEM. */
int gi_symfs_new(struct gi_symfs **up, const char *symfs);
void gi_symfs_free(struct gi_symfs *u);

/* One ring record in file order: MMAP2 records map, user-mode samples
 * (laid out for @sample_type, with IP and TID) count. */
void gi_symfs_add(struct gi_symfs *u, const struct rs_perf_header *rec,
		  uint64_t sample_type);

/* Name what was counted and fill up to @max rows, most samples first.
 * Returns the number of rows, or -ENOMEM.  Rows stay valid while @u
 * lives. */
int gi_symfs_top(struct gi_symfs *u, struct gi_symfs_row *rows, unsigned max,
		 struct gi_symfs_summary *sum);

#endif /* RINGSIDE_GI_SYMFS_H */
