/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: call chains trimmed of the frames the guest's
 * unwinder could not stand behind (pdf_trim.c).
 */
#ifndef RINGSIDE_PDF_TRIM_H
#define RINGSIDE_PDF_TRIM_H

#include <stddef.h>
#include <stdint.h>

#include "pdf_format.h"

/* User maps remembered, at most; past them user frames are no longer
 * checked against maps (a map the table lost must not trim a frame). */
#define PDF_TRIM_MAPS 8192u

struct pdf_trim_map {
	uint32_t pid;
	uint32_t res;
	uint64_t start, end;
};

struct pdf_trim {
	uint32_t nr;
	int full;                 /* a map was not kept: maps not checked */
	struct pdf_trim_map map[PDF_TRIM_MAPS];
};

/* Remember the map of MMAP2 record @rec (its class checked by the caller). */
void pdf_trim_mmap2(struct pdf_trim *t, const struct rs_perf_header *rec);

/*
 * The guest sample @in (type @sample_type, native: PDF_SAMPLE_KNOWN bits
 * only) with its call chain's trailing bad frames cut, into @out (at most
 * @out_size bytes): 0, a value in the context markers' range that is none
 * of perf's markers, a non-canonical address, a kernel-context address
 * outside the kernel half, a user-context address in the kernel half or,
 * for a pid with maps seen, under none of them.  Context markers left at
 * the end go too (not counted).  *@frames: the frames cut.  Returns 1
 * (@out holds the sample), 0 (nothing to cut: @in stands), or
 * PDF_ERR(pdfe_format) for a sample that does not parse,
 * PDF_ERR(pdfe_too_big).
 */
int pdf_trim_sample(const struct pdf_trim *t, uint64_t sample_type,
		    const struct rs_perf_header *in, void *out,
		    size_t out_size, uint32_t *frames);

#endif /* RINGSIDE_PDF_TRIM_H */
