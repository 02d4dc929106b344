/* SPDX-License-Identifier: MIT */
/*
 * The producer of one ring's records (producer.c): perf's output path,
 * reserve/write/commit or output in one call, used by one CPU at a time
 * (writers nested from interrupt or signal context on that CPU are
 * allowed).  The same code builds for the host, a Linux guest and a
 * freestanding guest: nothing here prints, allocates or calls libc beyond
 * memcpy/memset.  The AUX area's output is ring_aux.h's.
 */
#ifndef RINGSIDE_RING_PRODUCER_H
#define RINGSIDE_RING_PRODUCER_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writers nested into each other on one ring with a batch set: deeper
 * ones drop their record (counted lost). */
#define RS_NEST_MAX 4u

/* Producer state: private to the single writer of a ring. */
struct rs_producer {
	struct rs_ring ring;
	uint64_t head;          /* reservation head; changed by nested writers */
	uint64_t tail_cache;    /* last data_tail seen */
	uint64_t wakeup;        /* head at the last doorbell */
	uint64_t lost_pending;  /* dropped since the last LOST record */
	uint64_t lost_total;
	uint64_t produced;
	uint64_t doorbells;
	uint64_t published;     /* data_head as last stored */
	uint32_t batch;         /* publish data_head per this many bytes; 0: per commit */
	uint32_t prefetch;      /* 1: the CPU has PREFETCHW */
	uint32_t nest;          /* writers inside reserve..commit */
	uint32_t watermark;
	/* AUX */
	uint64_t aux_head;
	uint64_t aux_tail_cache;
	uint64_t aux_wakeup;
	uint64_t aux_truncated;
	uint32_t aux_watermark;
	uint32_t aux_busy;
	/* event suppression */
	uint32_t suppress;      /* 1: config.features has RS_FEATURE_EVENT_SUPPRESS */
	uint32_t reserved;
	uint64_t suppressed;    /* doorbells due but not rung */
	/* Sealed records (a batch): per nesting level, the header slot a
	 * writer clears after it took its space, and the header a writer
	 * nested into it sealed there meanwhile (0: none), for it to put
	 * back (producer_inline.h, rs_slot_claim). */
	uint64_t slot_pos[RS_NEST_MAX];
	uint64_t slot_header[RS_NEST_MAX];
};

/* A reservation of one record. */
struct rs_handle {
	uint64_t pos;           /* ring position of the record's first byte */
	uint32_t size;          /* record size */
	uint32_t written;       /* bytes written so far */
	uint64_t header;        /* the header's bytes: stored last, at commit */
	uint32_t lost;          /* 1: a LOST record in front, sealed after this one */
	uint32_t reserved;
};

/*
 * Attach a producer to ring @index of @region, resuming from the ring's
 * current heads.  Mode and watermarks come from the region's configuration.
 * -rse_invalid.
 */
int rs_producer_init(struct rs_producer *p, const struct rs_region *region,
		     uint32_t index);

/*
 * A producer of ring @index's AUX area only: reads the AUX positions and
 * writes nothing of the data ring's state, for a writer beside the data
 * ring's own producer (the QEMU PT plugin beside the guest agent).  Use it
 * with rs_aux_begin/write/skip and rs_aux_publish only, never rs_aux_end
 * or the data calls.  -rse_invalid, -rse_mode (no AUX area).
 */
int rs_producer_init_aux(struct rs_producer *p, const struct rs_region *region,
			 uint32_t index);

/*
 * Reserve @size bytes (header included, multiple of 8, 8 .. RS_RECORD_MAX)
 * for one record.  Nested reservations on the same producer are allowed;
 * head is published when the outermost one commits.  In normal mode a full
 * ring drops the record: it is counted and -rse_no_space is returned; a LOST
 * record with the count goes in at the next reservation that has room.
 * -rse_invalid (size < 8 or not a multiple of 8), -rse_too_big (larger than
 * RS_RECORD_MAX, or than the data area minus room for one LOST record),
 * -rse_no_space, -rse_nesting (with a batch, a writer nested more than
 * RS_NEST_MAX deep: dropped and counted as a full ring's are).
 */
int rs_producer_reserve(struct rs_producer *p, struct rs_handle *h,
			uint32_t size);

/* Copy @len bytes into the reserved record after what was written.
 * -rse_invalid (past the reservation). */
int rs_producer_write(struct rs_producer *p, struct rs_handle *h,
		      const void *src, uint32_t len);

/*
 * Finish a reservation; bytes not written read as zero, and a record whose
 * header was not written becomes an RS_RECORD_PAD of the reserved size.
 * Returns 1 when
 * the data head crossed the watermark and the consumer should be woken (the
 * doorbell), 0 otherwise.  -rse_invalid, -rse_nesting.
 */
int rs_producer_commit(struct rs_producer *p, struct rs_handle *h);

/* reserve + write header and body + commit.  Same returns as commit, and
 * reserve's errors; -rse_invalid also for a body shorter than @type's
 * fixed part (consumers would drop such a record). */
int rs_producer_output(struct rs_producer *p, uint32_t type, uint16_t misc,
		       const void *body, uint32_t body_len);

/*
 * @nr whole records one after the other at @recs, @len bytes in all (each
 * header's size its record's length: aligned, at least its type's fixed
 * part), into one reservation: the records rs_producer_output would write
 * one by one, in the same order for a reader, for one reservation's cost.
 * Same returns as commit.  A normal ring without room for all of them
 * takes none and counts none: -rse_no_space, and the caller writes them
 * one by one (each one that does not fit then counted).  -rse_invalid
 * (records that are not whole, @nr 0), -rse_too_big (@len above half the
 * data area, less a LOST record), -rse_nesting as reserve.
 */
int rs_producer_output_run(struct rs_producer *p, const void *recs,
			   uint32_t len, uint32_t nr);

/*
 * rs_producer_output_run for a run its caller has walked already, record
 * by record, with the checks rs_producer_output_run makes (a producer that
 * reads another's records, as the guest agent reads the kernel's): a
 * normal ring copies it without walking it again, and checks only @len.
 * Records that are not whole then make a ring its consumer refuses as
 * corrupt from that record on (as it would a hostile writer's), never
 * memory outside the data area.  An overwrite ring, which lays a run out
 * record by record, checks it as rs_producer_output_run does.  Same
 * returns.
 */
int rs_producer_output_walked(struct rs_producer *p, const void *recs,
			      uint32_t len, uint32_t nr);

/* Try to write a pending LOST record now.  0 nothing pending, 1 written,
 * 2 written and the doorbell is due (as commit's 1).  -rse_no_space: still
 * no room, try again after the consumer drained. */
int rs_producer_flush_lost(struct rs_producer *p);

/* Records dropped so far, total. */
uint64_t rs_producer_lost(const struct rs_producer *p);

/* Where the next record goes: data_head once published.  With a batch the
 * published data_head lags it by up to the batch; a producer that waits
 * for room measures it from here (and flushes first, so that the consumer
 * can see what it must free). */
uint64_t rs_producer_head(const struct rs_producer *p);

/*
 * Whether a normal data area has room for @bytes more past
 * rs_producer_head: by the tail the producer last saw, else by data_tail
 * as the consumer has it now (an acquire read).  It only looks: the
 * producer's own view of the tail is what its next reservation makes it,
 * so a producer that waits for a consumer to free room asks this between
 * its sleeps.  A data_tail past the head, or more than the area behind
 * it, frees nothing.  1 room, 0 none (or @bytes above the area, or no
 * data area); an overwrite ring always has room (it writes over).
 */
int rs_producer_has_room(const struct rs_producer *p, uint64_t bytes);

/*
 * Normal mode: publish data_head only when @bytes or more are unpublished
 * (0, the default: at every commit), when the doorbell is due, when a
 * reservation finds the ring full, and on rs_producer_flush.  A consumer
 * on another core then pays for the head's cache line once per batch.
 * Committed records past data_head stay findable by snapshots (sealed
 * records, docs/abi.md).  A producer that sets a batch must call
 * rs_producer_flush when it goes idle: until then the consumer may lag
 * by up to @bytes.  -rse_invalid (@bytes above half the data area),
 * -rse_mode (overwrite ring).
 */
int rs_producer_set_batch(struct rs_producer *p, uint32_t bytes);

/* Publish data_head now.  Returns 1 when the doorbell is due (as commit's
 * 1), else 0.  -rse_invalid, -rse_nesting (inside a reservation: its
 * commit publishes). */
int rs_producer_flush(struct rs_producer *p);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_PRODUCER_H */
