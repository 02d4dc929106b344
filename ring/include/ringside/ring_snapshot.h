/* SPDX-License-Identifier: MIT */
/*
 * Snapshots (snapshot.c): a copy of one ring's data or AUX area taken
 * without consuming anything, while its producer may still be writing.
 */
#ifndef RINGSIDE_RING_SNAPSHOT_H
#define RINGSIDE_RING_SNAPSHOT_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Result of a snapshot of one ring's data area. */
struct rs_snap_stats {
	uint64_t records;        /* intact records returned */
	uint64_t bytes;
	uint64_t cut_bytes;      /* in the copy, but possibly overwritten during it */
	uint64_t overwritten;    /* 1 if the oldest record was partly overwritten */
	uint64_t corrupt;        /* walk stopped at a malformed header */
	uint64_t lost;           /* sum of LOST records met */
	uint64_t sealed_bytes;   /* of the records, bytes found past data_head */
	uint64_t sealed;         /* ... and their number: committed, but not in
				  * the producer's published count yet */
};

/* A copy of one ring's data area and an iterator over its records. */
struct rs_snapshot {
	uint8_t *copy;           /* caller's buffer, data_size bytes */
	uint64_t size;
	uint64_t start;          /* ring position of the first record to return */
	uint64_t limit;          /* readable bytes from start */
	uint64_t pos;            /* iterator position, relative to start */
	uint32_t mode;
	uint32_t done;
	struct rs_snap_stats stats;
	_Alignas(8) uint8_t rec[RS_RECORD_MAX + 8];
};

/* Result of a snapshot of one ring's AUX area. */
struct rs_aux_snapshot {
	uint64_t head;           /* aux_head the copy ends at */
	uint64_t start;          /* aux position of the first valid byte */
	uint64_t len;            /* valid bytes, oldest first, in the buffer */
	uint64_t cut_bytes;      /* copied but possibly overwritten during the copy */
	uint64_t overwritten;    /* bytes written since the start that the ring no longer holds */
};

/*
 * Copy ring @index's data area into @buf (@buf_size >= data size) without
 * consuming anything, and prepare to iterate.  Overwrite ring: records from
 * data_head, newest first; after the copy the writer's frontier is re-read
 * and whatever it may have overwritten meanwhile is cut and counted.
 * Normal ring: the records between data_tail and data_head, oldest first.
 * -rse_invalid, -rse_too_small.
 */
int rs_snapshot_take(struct rs_snapshot *s, const struct rs_region *region,
		     uint32_t index, void *buf, uint64_t buf_size);

/* Next record into *@rec (a private copy).  1 record, 0 end. */
int rs_snapshot_next(struct rs_snapshot *s, const struct rs_perf_header **rec);

const struct rs_snap_stats *rs_snapshot_stats(const struct rs_snapshot *s);

struct rs_snapshot *rs_snapshot_alloc(void);
void rs_snapshot_free(struct rs_snapshot *s);

/*
 * Copy the valid part of ring @index's AUX area into @buf (@buf_size >= AUX
 * size), oldest byte first.  Snapshot mode: the bytes the writer may have
 * overwritten during the copy are cut.  Normal mode: [aux_tail, aux_head).
 * -rse_invalid, -rse_mode (no AUX area), -rse_too_small, -rse_corrupt
 * (normal mode: heads and tails that cannot be true).
 */
int rs_snapshot_aux(struct rs_aux_snapshot *a, const struct rs_region *region,
		    uint32_t index, void *buf, uint64_t buf_size);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_SNAPSHOT_H */
