/* SPDX-License-Identifier: MIT */
/*
 * AUX output, the producer's other area (aux.c): perf's
 * aux_output_begin/end for one ring, on a producer of ring_producer.h.
 */
#ifndef RINGSIDE_RING_AUX_H
#define RINGSIDE_RING_AUX_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_producer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An AUX transaction between rs_aux_begin and rs_aux_end. */
struct rs_aux_handle {
	uint64_t start;         /* aux position where this output starts */
	uint64_t room;          /* bytes that may be written */
	uint64_t written;
	uint64_t flags;         /* RS_PERF_AUX_FLAG_* accumulated */
};

/*
 * Start AUX output of up to @max bytes.  Normal mode: room is limited by
 * aux_tail; snapshot (overwrite) mode: room is min(@max, AUX size), old data
 * is overwritten.  Returns the room (0 is not an error: rs_aux_end then
 * emits a TRUNCATED record).  -rse_invalid, -rse_mode (no AUX area),
 * -rse_nesting (already inside begin/end).
 */
int64_t rs_aux_begin(struct rs_producer *p, struct rs_aux_handle *h,
		     uint64_t max);

/* Copy up to @len bytes into the AUX area; what does not fit marks the
 * output TRUNCATED.  Returns bytes copied.  -rse_invalid. */
int64_t rs_aux_write(struct rs_producer *p, struct rs_aux_handle *h,
		     const void *src, uint64_t len);

/* Advance over @len bytes written in place (as a PMU would).  Returns bytes
 * skipped.  -rse_invalid. */
int64_t rs_aux_skip(struct rs_producer *p, struct rs_aux_handle *h,
		    uint64_t len);

/*
 * Publish aux_head and emit PERF_RECORD_AUX with the accumulated flags plus
 * @flags (PARTIAL, COLLISION, TRUNCATED).  Returns 1 when a doorbell is due:
 * the AUX head crossed the AUX watermark (normal mode), or the AUX record
 * took the data head across the data watermark; else 0.  -rse_no_space: the
 * AUX record found the data ring full and was dropped and counted, like any
 * record (the bytes are published all the same and the output is over); an
 * AUX wakeup due then is reported by the next rs_aux_end that places its
 * record.  -rse_invalid, -rse_nesting.
 */
int rs_aux_end(struct rs_producer *p, struct rs_aux_handle *h,
	       uint64_t flags);

/*
 * rs_aux_end without the PERF_RECORD_AUX: publish aux_head (and count a
 * TRUNCATED output) but leave the data ring alone.  For a producer that
 * plays the hardware beside a guest that owns the data ring (the QEMU PT
 * plugin): the data ring keeps its single producer.  -rse_invalid,
 * -rse_nesting.
 */
int rs_aux_publish(struct rs_producer *p, struct rs_aux_handle *h,
		   uint64_t flags);

/*
 * An overwrite area written in place outside rs_aux_begin/end (a PMU that
 * publishes only now and then: pt-virt's engine between two PERF_RECORD_AUX):
 * announce that up to @len bytes past aux_head are about to be written,
 * before writing them, so that a live snapshot cuts what they overwrite
 * (at most the AUX size).  The next rs_aux_begin re-announces, and its
 * end brings the limit back to aux_head.  Normal mode: nothing to announce
 * (aux_tail keeps the writer out of unread bytes); returns 0.
 * -rse_invalid, -rse_mode (no AUX area), -rse_nesting (inside begin/end).
 */
int rs_aux_announce(struct rs_producer *p, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_AUX_H */
