/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's code, for perf's PT decoder (perfdata/src/pdf_kcore.c).
 *
 * perf 6.1 reads kernel instructions from a "kcore" file beside the
 * kallsyms of the kernel's build-id cache entry (dso__load_kcore(),
 * symbol.c): an ELF core file whose executable PT_LOAD segments sit at
 * their kernel addresses, checked against a "modules" file there
 * (docs/perfdata.md, "Guest kernel code").
 */
#ifndef RINGSIDE_PERFDATA_KCORE_H
#define RINGSIDE_PERFDATA_KCORE_H

#include <stdint.h>

#include "ringside/perfdata/buf.h"
#include "ringside/perfdata/ksyms.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PDF_KCORE_MAX_SEGS  (PDF_KSYMS_MAX_MODULES + 1u)
#define PDF_KCORE_MAX_BYTES (512ull << 20)

struct pdf_kcore_seg {
	uint64_t addr;            /* kernel virtual address, >= PDF_KSYMS_MIN_ADDR */
	uint64_t len;
	const void *data;
};

/*
 * The ELF image of @nr segments (sorted, none overlapping, in the kernel
 * half, @len > 0, PDF_KCORE_MAX_BYTES at most in all) into @out; the
 * program header of the segment holding address @last (the kernel's
 * _stext: perf 6.1 must meet it first, and takes them in reverse) comes
 * last.  PDF_ERR(pdfe_invalid), -ENOMEM.
 */
int pdf_kcore_image(const struct pdf_kcore_seg *segs, uint32_t nr,
		    uint64_t last, struct pdf_buf *out);

/*
 * The PT_LOAD segments of a kcore image (@len bytes at @image, which the
 * segments' data then point into): 64-bit little-endian ELF, each segment
 * inside the image and in the kernel half; when all fit in @max, sorted by
 * address and refused if any overlap (what pdf_kcore_image writes, and
 * /proc/kcore's form).  Returns how many there are.  PDF_ERR(pdfe_format).
 */
int pdf_kcore_parse(const uint8_t *image, uint64_t len,
		    struct pdf_kcore_seg *segs, uint32_t max);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_KCORE_H */
