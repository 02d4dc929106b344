/* SPDX-License-Identifier: MIT */
/*
 * Intel PT for perf's intel_pt decoder (perfdata/src/pdf_intel_pt.c): the
 * file ringside-pt-trace writes.
 */
#ifndef RINGSIDE_PERFDATA_INTEL_PT_H
#define RINGSIDE_PERFDATA_INTEL_PT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pdf_intel_pt_params {
	uint32_t size;            /* sizeof(struct pdf_intel_pt_params) */
	const void *trace;        /* the PT packet bytes */
	uint64_t trace_len;
	/* Where the traced code comes from: an ELF whose bytes at
	 * @code_offset (@code_len of them) are the code at @code_vaddr. */
	const char *elf;
	uint64_t code_vaddr;
	uint64_t code_len;
	uint64_t code_offset;
};

/*
 * Write @p's trace to @path as a perf.data that `perf script --itrace`
 * decodes with perf's own intel_pt decoder: AUXTRACE_INFO of type
 * intel_pt, one AUXTRACE record, an MMAP of the code for a made-up thread
 * (docs/pt-virt.md).  @path is opened as fopen(path, "wb") would open it.
 * PDF_ERR(pdfe_invalid) (a NULL, a short @p->size, an ELF path of 4096
 * bytes or more), -ENOMEM, -errno (nothing is written before the open).
 */
int pdf_intel_pt_write(const char *path, const struct pdf_intel_pt_params *p);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_INTEL_PT_H */
