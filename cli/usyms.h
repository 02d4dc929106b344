/* SPDX-License-Identifier: MIT */
/*
 * The guest's user samples by function, for `ringside report`: the
 * MMAP2 records of a file say which guest file and offset each user-mode
 * sample hit; the functions are named from that file's ELF symbol table
 * under a --symfs directory (a copy of the guest's files), as perf does.
 * Everything in the file is the guest's claim and the symfs files are
 * read as untrusted input: every count, size and offset is bounded.
 * Returns codes, never prints (report_out.c does).
 */
#ifndef RINGSIDE_CLI_USYMS_H
#define RINGSIDE_CLI_USYMS_H

#include <stdint.h>

#include "ringside/perfdata.h"

#define USYMS_MAX_MAPS   8192u    /* mappings kept, all processes */
#define USYMS_MAX_FILES  1024u    /* distinct mapped files */
#define USYMS_MAX_HITS   65536u   /* distinct (file, offset) pairs */

struct usyms;

struct usyms_summary {
	uint64_t samples;         /* user-mode samples seen */
	uint64_t unmapped;        /* of them, in no mapping of their process */
	uint64_t dropped;         /* of them, past USYMS_MAX_HITS */
	uint64_t maps_dropped;    /* MMAP2 records past USYMS_MAX_MAPS/_FILES */
	uint32_t files;           /* files the samples are in */
	uint32_t unnamed_files;   /* of them, not found or not usable under
				   * --symfs (or no --symfs) */
	uint32_t mismatched;      /* of them, found with another build id */
};

/* One row of the table: samples in one function of one file, or at one
 * offset of it when no symbol covers it. */
struct usyms_row {
	const char *file;         /* the guest's path, as its MMAP2 said */
	const char *function;     /* NULL: not named (see @offset) */
	uint64_t offset;          /* in the file, when @function is NULL */
	uint64_t samples;
};

/* @symfs: the directory the guest's files are under (NULL: name none).
 * 0, -ENOMEM. */
int usyms_new(struct usyms **up, const char *symfs);
void usyms_free(struct usyms *u);

/* One ring record in file order: MMAP2 records map, user-mode samples
 * (laid out for @sample_type, with IP and TID) count. */
void usyms_add(struct usyms *u, const struct rs_perf_header *rec,
	       uint64_t sample_type);

/* Name what was counted and fill up to @max rows, most samples first.
 * Returns the number of rows, or -ENOMEM.  Rows stay valid while @u
 * lives. */
int usyms_top(struct usyms *u, struct usyms_row *rows, unsigned max,
	      struct usyms_summary *sum);

#endif /* RINGSIDE_CLI_USYMS_H */
