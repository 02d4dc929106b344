/* SPDX-License-Identifier: MIT */
/*
 * The guest's processes as they are now: a table of two copies in the
 * sideband area, the newest complete one readable whenever the guest
 * stopped (pstate.c; abi.h, struct rs_pstate_desc).
 */
#ifndef RINGSIDE_RING_PSTATE_H
#define RINGSIDE_RING_PSTATE_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The guest's private state of its table. */
struct rs_pstate_writer {
	uint8_t *area;            /* copy 0's first byte */
	uint64_t table_offset;    /* from the sideband area's start */
	uint64_t copy_size;       /* bytes of each copy, its head included */
	uint64_t generation;      /* of the newest complete copy, 0: none */
	uint32_t next;            /* the copy to rewrite next */
	uint32_t open;            /* rs_pstate_open'ed, not yet closed */
	uint32_t open_seq;        /* its seqcount while open */
	struct rs_pstate_desc *desc;
};

/*
 * Guest: set up a table of two copies in @table_size bytes at
 * @table_offset of the sideband area (after the user symbols, before the
 * perf buffer table), both empty, and describe it in the header.
 * -rse_invalid (not 8-aligned, outside the area), -rse_absent (no
 * sideband area), -rse_too_small (no room for two copy heads).
 */
int rs_pstate_begin(const struct rs_region *region, struct rs_pstate_writer *w,
		    uint64_t table_offset, uint64_t table_size);

/*
 * Guest: rewrite the copy that does not hold the newest state with
 * @head's counts (magic, seq and generation are the writer's) and its
 * @head->length bytes of process entries, then make it the newest.
 * -rse_invalid, -rse_too_small (length over the copy: nothing written).
 */
int rs_pstate_publish(struct rs_pstate_writer *w,
		      const struct rs_pstate_copy *head, const void *entries);

/*
 * Guest: rs_pstate_publish in two steps, for entries built in place
 * rather than copied.  rs_pstate_open marks the copy that does not hold
 * the newest state as being written (a reader passes it by) and returns
 * where its entries go, *@room bytes of them; NULL (no writer, one open
 * already).  rs_pstate_close puts @head's counts on it and makes it the
 * newest: 0, or -rse_invalid (none open, @head NULL or misaligned) and
 * -rse_too_small (more than *@room), and the copy is left as no reader
 * takes it, the newest complete one still the other.  rs_pstate_publish
 * refuses while a copy is open.
 */
void *rs_pstate_open(struct rs_pstate_writer *w, uint64_t *room);
int rs_pstate_close(struct rs_pstate_writer *w,
		    const struct rs_pstate_copy *head);

/* What the host read: the layout and the copy it took. */
struct rs_pstate_info {
	uint64_t table_offset;
	uint64_t copy_size;
	uint32_t copy;            /* 0 or 1 */
	uint32_t bad_copies;      /* complete copies whose head was refused */
	struct rs_pstate_copy head; /* claims: counts, generation, time */
};

/*
 * Host: copy the newest complete copy's entries once into @buf (@buf_size
 * >= rs_sideband_size()), bounded by the host's own layout.  1 copied
 * (@info->head.length bytes, possibly 0), 0 no table or no complete copy
 * yet, -rse_invalid, -rse_absent, -rse_too_small (@buf), -rse_busy (a
 * copy being written and none complete: a first rewrite, or a guest that
 * died in it), -rse_corrupt (a bad descriptor: magic, copies outside the
 * area; or no good copy and a complete one refused: magic, a length
 * beyond the copy or not 8-aligned, unknown flags, TRUNCATED without a
 * count left out or the reverse, more processes or mappings than could
 * fit).  The entries are claims for the caller (introspect's gpstate).
 */
int rs_pstate_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		   struct rs_pstate_info *info);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_PSTATE_H */
