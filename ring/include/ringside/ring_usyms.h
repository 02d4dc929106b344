/* SPDX-License-Identifier: MIT */
/*
 * The symbol tables of the guest's user binaries: an append-only table in
 * the sideband area (usyms.c; abi.h, struct rs_usyms_desc).
 */
#ifndef RINGSIDE_RING_USYMS_H
#define RINGSIDE_RING_USYMS_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The guest's private state of its table: what it published. */
struct rs_usyms_writer {
	uint8_t *area;            /* the table's first byte */
	uint64_t table_offset;    /* from the sideband area's start */
	uint64_t table_size;
	uint64_t length;          /* bytes of whole entries published */
	uint64_t wanted;          /* bytes offered */
	uint32_t entries;
	uint32_t flags;           /* RS_USYMS_TRUNCATED */
	struct rs_usyms_desc *desc;
};

/*
 * Guest: publish an empty table of @table_size bytes at @table_offset of
 * the sideband area (between the kallsyms content and the perf buffer
 * table), under the descriptor's seqcount.  -rse_invalid (not 8-aligned,
 * outside the area), -rse_absent (no sideband area).
 */
int rs_usyms_begin(const struct rs_region *region, struct rs_usyms_writer *w,
		   uint64_t table_offset, uint64_t table_size);

/*
 * Guest: append one entry of @len bytes (a multiple of 8, a struct
 * rs_usyms_entry first) after the published ones, under the seqcount; an
 * entry never changes once published.  1 written; 0 it did not fit: not
 * written, TRUNCATED set, @len added to wanted; -rse_invalid.
 */
int rs_usyms_append(struct rs_usyms_writer *w, const void *entry, uint64_t len);

/* What the host read: the guest's descriptor, its shape checked. */
struct rs_usyms_info {
	uint64_t table_offset;
	uint64_t table_size;
	uint64_t length;          /* bytes copied to the caller's buffer */
	uint64_t wanted;          /* the guest's total (claim, >= length) */
	uint32_t entries;         /* claim: the entries are not looked at */
	uint32_t flags;
	uint32_t seq;
};

/*
 * Host: copy the published entries once into @buf (@buf_size >=
 * rs_sideband_size()), bounded by the host's own layout.  1 copied
 * (@info->length bytes, possibly 0), 0 never written, -rse_invalid,
 * -rse_absent, -rse_too_small (@buf), -rse_busy, -rse_corrupt (bad magic,
 * a table outside the area, a length beyond it or not 8-aligned, wanted
 * below length, TRUNCATED without more wanted or the reverse, unknown
 * flags, more entries than could fit).  The entries are guest claims for
 * the caller to check (introspect's gusyms).
 */
int rs_usyms_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		  struct rs_usyms_info *info);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_USYMS_H */
