/* SPDX-License-Identifier: MIT */
/*
 * Full definitions of the ring library's objects.
 *
 * They are visible so that a freestanding guest (no malloc) can place them
 * in static storage or on its stack.  Their fields are private: use the
 * functions in ringside/ring.h, never the fields.
 */
#ifndef RINGSIDE_RING_TYPES_H
#define RINGSIDE_RING_TYPES_H

#include <stdint.h>

#include "ringside/abi.h"

/* A validated region: the caller's private copy of the layout. */
struct rs_region {
	uint8_t *base;
	uint64_t size;
	uint32_t nr_rings;
	uint32_t reserved;
	struct rs_config config;                 /* as read at open */
	struct rs_ring_desc rings[RS_MAX_RINGS]; /* validated */
	uint64_t sideband_offset;                /* validated; 0 size: none */
	uint64_t sideband_size;
	uint64_t skipped;      /* bit i: ring i failed rs_region_open_layout */
};

/* One ring, resolved to addresses inside a validated region.  Unlike the
 * other structs here its fields are public and read-only. */
struct rs_ring {
	struct rs_ctrl_page *ctrl;
	uint8_t *data;
	uint8_t *aux;
	uint64_t data_size;
	uint64_t aux_size;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint32_t index;
	uint32_t reserved;
};

/* The answering side of time synchronization (rs_tsync_guest_*). */
struct rs_tsync_guest {
	uint64_t last_seq;      /* the seq answered last: never twice */
	uint64_t answers;
	uint32_t guest_clock;   /* RS_TSYNC_CLOCK_* of the answers */
	uint32_t window;
};

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

/* The guest's sideband in the making (rs_sideband_begin .. commit). */
struct rs_sideband_writer {
	uint8_t *area;
	uint64_t size;
	uint64_t length;        /* content bytes written */
	uint64_t wanted;        /* content bytes offered */
	uint32_t flags;
	uint32_t seq;           /* the odd value begin stored */
	uint32_t build_id_len;
	uint32_t reserved;
	struct rs_sideband_desc *desc;
	uint8_t build_id[RS_SIDEBAND_BUILD_ID_MAX];
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

/* An AUX transaction between rs_aux_begin and rs_aux_end. */
struct rs_aux_handle {
	uint64_t start;         /* aux position where this output starts */
	uint64_t room;          /* bytes that may be written */
	uint64_t written;
	uint64_t flags;         /* RS_PERF_AUX_FLAG_* accumulated */
};

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

/* Result of a snapshot of one ring's data area. */
struct rs_snap_stats {
	uint64_t records;        /* intact records returned */
	uint64_t bytes;
	uint64_t cut_bytes;      /* in the copy, but possibly overwritten during it */
	uint64_t overwritten;    /* 1 if the oldest record was partly overwritten */
	uint64_t corrupt;        /* walk stopped at a malformed header */
	uint64_t lost;           /* sum of LOST records met */
	uint64_t sealed_bytes;   /* of the records, bytes found past data_head */
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

#endif /* RINGSIDE_RING_TYPES_H */
