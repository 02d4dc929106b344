/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's maps as perf makes them (perfdata/src/pdf_kernel.c):
 * where its code lies, for the kcore a PT decoder reads.
 */
#ifndef RINGSIDE_PERFDATA_KERNEL_H
#define RINGSIDE_PERFDATA_KERNEL_H

#include <stdint.h>

#include "ringside/perfdata/ksyms.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Guest code perf reads to decode Intel PT of the kernel: [start, end). */
struct pdf_code_range {
	uint64_t start, end;
};

/*
 * Where perf looks for the instructions of a kernel PT trace, by address:
 * the kernel's functions in clusters (from a function's page to two pages
 * on, joined while less than 1 MiB apart: its text, init text and exit
 * text each one range, the data between them none; within its map), then
 * each module's map.  perf drops the symbols outside these, so they hold
 * every function.  Fills up to @max of @r (sorted only when all fit);
 * returns how many there are.  PDF_ERR(pdfe_invalid).
 */
int pdf_kernel_code_ranges(const struct pdf_ksyms *k,
			  struct pdf_code_range *r, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_KERNEL_H */
