/* SPDX-License-Identifier: MIT */
/*
 * The host's consumer of one ring (consumer.c): drains the records and
 * AUX bytes the guest published, one host thread per consumer, while the
 * producer writes on in another address space.  Every shared value is
 * hostile: read once, bounded, and what cannot be read is counted.
 */
#ifndef RINGSIDE_RING_CONSUMER_H
#define RINGSIDE_RING_CONSUMER_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a consumer has seen; every loss is counted here. */
struct rs_cons_stats {
	uint64_t records;        /* records handed to the callback */
	uint64_t bytes;          /* their bytes */
	uint64_t batches;
	uint64_t lost;           /* sum of the LOST records' counts */
	uint64_t lost_records;   /* LOST records seen */
	uint64_t corrupt;        /* implausible heads and malformed records */
	uint64_t corrupt_bytes;  /* ring bytes discarded because of them */
	uint64_t aux_records;    /* PERF_RECORD_AUX records */
	uint64_t aux_truncated;  /* ... with TRUNCATED */
	uint64_t aux_partial;    /* ... with PARTIAL */
	uint64_t aux_bytes;      /* AUX bytes drained */
	uint64_t aux_corrupt;    /* implausible aux_head values seen */
	uint64_t bad_heads;      /* of corrupt: data heads/tails that cannot
				  * be true (the rest are malformed records) */
	/* The region restored under the consumer (rs_consumer_reattach): a
	 * save and restore, a managed save, a migration.  Events the host
	 * expects, never corruption. */
	uint64_t reattaches;
	uint64_t tail_back;      /* the restored data_tail was behind ours */
	uint64_t skip_records;   /* records behind our position (or the
				  * restored head) that were delivered
				  * already: not delivered again */
	uint64_t skip_bytes;     /* their bytes, and any the walk could not
				  * frame (skip_unframed) */
	uint64_t skip_unframed;  /* of skip_bytes, not framed as records */
	uint64_t head_back;      /* the restored data_head was behind our
				  * position: the copy predates records we
				  * had taken */
	uint64_t head_back_bytes;/* bytes taken beyond it: delivered, but not
				  * in the restored guest's history (its
				  * counters do not count them) */
	uint64_t unsure_records; /* then read from the restored tail: records
				  * delivered that may repeat earlier ones
				  * (an older copy of what we read) or may
				  * be new (a region laid out anew) */
	uint64_t unsure_bytes;
	uint64_t tail_ahead;     /* the restored data_tail was ahead of ours */
	uint64_t tail_ahead_bytes; /* bytes between: never read here */
	uint64_t aux_skip_bytes; /* the same for the AUX area */
	uint64_t aux_unsure_bytes;
	uint64_t aux_head_back_bytes;
	uint64_t aux_tail_ahead_bytes;
};

/* Consumer state: private to the host reader of a ring. */
struct rs_consumer {
	struct rs_ring ring;
	uint64_t tail;           /* private data_tail */
	uint64_t aux_tail;       /* private aux_tail */
	uint64_t bad_head;       /* last implausible data_head seen */
	uint64_t bad_aux_head;
	uint32_t watermark;      /* the producer's, from the configuration */
	uint32_t aux_watermark;  /* (event suppression's re-check) */
	struct rs_cons_stats stats;
	_Alignas(8) uint8_t rec[RS_RECORD_MAX + 8]; /* copy of the current record */
};

/* Called for each valid record; @rec is a private, 8-aligned copy valid
 * until the next call.  Return < 0 to stop: that record is not consumed
 * and the drain returns the value. */
typedef int (*rs_record_fn)(const struct rs_perf_header *rec, void *arg);

/* Called with AUX bytes (at most two chunks per drain when data wraps).
 * @pos is the AUX position of @chunk[0].  Return < 0 to stop. */
typedef int (*rs_aux_fn)(const void *chunk, uint64_t len, uint64_t pos,
			 void *arg);

/* Attach to ring @index, starting at the current tails.  -rse_invalid. */
int rs_consumer_init(struct rs_consumer *c, const struct rs_region *region,
		     uint32_t index);
void rs_consumer_fini(struct rs_consumer *c);
struct rs_consumer *rs_consumer_alloc(const struct rs_region *region,
				      uint32_t index);
void rs_consumer_free(struct rs_consumer *c);

/*
 * One batch: read data_head once, copy out and validate every record up to
 * it, call @fn for each, publish data_tail once.  A head more than a ring
 * ahead of the tail (or behind it) is counted as corruption (once per
 * value) and ignored: nothing is consumed until the head is plausible.  A
 * malformed header is counted and the rest of the batch up to head is
 * discarded (counted in corrupt_bytes).  Returns the
 * number of records delivered.  -rse_invalid, -rse_mode (overwrite ring),
 * or @fn's negative return.
 */
int rs_consumer_drain(struct rs_consumer *c, rs_record_fn fn, void *arg);

/* Same for the AUX area: returns bytes delivered.  -rse_invalid,
 * -rse_mode (no AUX area or snapshot mode), or @fn's negative return. */
int64_t rs_consumer_drain_aux(struct rs_consumer *c, rs_aux_fn fn, void *arg);

/* What rs_consumer_reattach found, as a mask (0: the restored tails
 * were where the consumer had left them). */
enum rs_reattach_event {
	RS_REATTACH_TAIL_BACK  = 1u << 0, /* a tail behind our position */
	RS_REATTACH_HEAD_BACK  = 1u << 1, /* a head behind our position */
	RS_REATTACH_TAIL_AHEAD = 1u << 2, /* a tail ahead of it */
	RS_REATTACH_CORRUPT    = 1u << 3, /* a head and tail that cannot be
					   * true (counted as at init) */
};

/*
 * Go on reading ring @index of @region, a new mapping of the region @c
 * read until now, restored under it (QEMU restores a saved or migrated
 * guest's region with its memory), keeping the 64-bit positions @c has
 * reached.  The host-written tails come back as they were when the page
 * was copied, which may be older than what @c has taken since, and the
 * guest's heads as the guest then was.  Per area, with P our position and
 * T, H the restored tail and head, read once:
 *   T <= P <= H: resume at P; the bytes in [T, P) were delivered already
 *     and are not delivered again (skip_records, skip_bytes; tail_back).
 *   H < P: the region's history is not the one @c read up to P: a
 *     region laid out anew (a fresh boot: H and T from 0), or a copy
 *     older than what @c took.  Resume at T: what it holds is delivered,
 *     and what cannot be known is counted: the H - T bytes (and their
 *     records, by walking them) may repeat records delivered before
 *     (unsure_records, unsure_bytes), and the P - H bytes taken beyond
 *     H are not in the restored guest's history, whose counters do not
 *     count them (head_back, head_back_bytes).  A save with the guest's
 *     vCPUs stopped (virsh save, managedsave) never gives this case: the
 *     guest's head cannot move after its copy.
 *   P < T: resume at T; the T - P bytes between were never read here
 *     (tail_ahead, tail_ahead_bytes).
 * A restored head more than a ring ahead of its tail is counted as at
 * rs_consumer_init (corrupt, bad_heads) and read from the head.  The
 * tails resumed from are written back at once.  Skipped records are
 * counted by walking their headers in the restored bytes.  Returns a
 * mask of enum rs_reattach_event.  -rse_invalid; -rse_geometry: the
 * ring's sizes or modes differ from those @c read (nothing changed).
 */
int rs_consumer_reattach(struct rs_consumer *c, const struct rs_region *region,
			 uint32_t index);

/* Bytes between tail and head right now (0 if the head is implausible). */
uint64_t rs_consumer_pending(const struct rs_consumer *c);

/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS, docs/abi.md): the consumer
 * says in the ring's control page whether it polls.  A consumer that
 * sleeps on the doorbell calls rs_consumer_sleep_prepare before it sleeps
 * and sleeps only when it returns 0; it calls rs_consumer_awake when it
 * wakes (or decides not to sleep) and goes on draining.  In a region
 * without the feature both only write the word, which no producer reads.
 */

/* Store RS_CONSUMER_WAKE, full fence, re-read data_head and aux_head:
 * 1 when either crossed a multiple of its watermark past what @c consumed
 * (a doorbell may have fallen due while the consumer polled, and been
 * suppressed: drain instead of sleeping), 0 when it may sleep: a producer
 * that crosses the next one sees WAKE and rings, so the consumer sleeps
 * with less than a watermark's worth pending, as without suppression.
 * -rse_invalid. */
int rs_consumer_sleep_prepare(struct rs_consumer *c);

/* Store RS_CONSUMER_POLLING: due doorbells are suppressed until the next
 * rs_consumer_sleep_prepare.  -rse_invalid. */
int rs_consumer_awake(struct rs_consumer *c);

const struct rs_cons_stats *rs_consumer_stats(const struct rs_consumer *c);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_CONSUMER_H */
