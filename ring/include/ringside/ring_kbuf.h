/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's own perf buffers, where they are in guest memory: a
 * table at the end of the sideband area (kbuf.c; abi.h, struct
 * rs_kbuf_desc).
 */
#ifndef RINGSIDE_RING_KBUF_H
#define RINGSIDE_RING_KBUF_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The table's shape, as the guest gives it and the host reads it back. */
struct rs_kbuf_info {
	uint32_t nr_cpus;
	uint32_t data_pages;
	uint64_t table_offset;    /* from the sideband area's start */
	uint64_t table_len;       /* bytes */
	uint64_t sample_type;
	uint32_t seq;
};

/*
 * Guest: publish @info->nr_cpus rows of RS_KBUF_ROW_WORDS(data_pages) u64
 * (@rows) at the end of the sideband area, page-aligned, under the
 * descriptor's seqcount; @info->table_offset and table_len are set.
 * Publish it before the kallsyms (rs_sideband_limit to table_offset).
 * -rse_invalid (bounds of abi.h), -rse_absent (no sideband area),
 * -rse_too_small (the table does not fit).
 */
int rs_kbuf_publish(const struct rs_region *region, struct rs_kbuf_info *info,
		    const uint64_t *rows);

/* Guest: the buffers are going away (the agent stops): magic 0 under the
 * seqcount, which the host reads as no table.  -rse_invalid. */
int rs_kbuf_withdraw(const struct rs_region *region);

/*
 * Host: copy the table once into @buf (@buf_size >= rs_sideband_size()):
 * 1 copied (@info says its shape), 0 never written or withdrawn, -rse_invalid,
 * -rse_absent, -rse_too_small (@buf), -rse_busy, -rse_corrupt (bad magic,
 * counts beyond abi.h's bounds, data_pages not a power of two, a length
 * that does not match them, a table outside the host's own area).
 * The addresses in it are not looked at: guest claims.
 */
int rs_kbuf_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		 struct rs_kbuf_info *info);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_KBUF_H */
