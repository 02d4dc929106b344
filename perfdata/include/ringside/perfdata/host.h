/* SPDX-License-Identifier: MIT */
/*
 * What the host itself observed while it read the rings, kept in
 * ringside's host feature (perfdata/src/pdf_host.c).
 */
#ifndef RINGSIDE_PERFDATA_HOST_H
#define RINGSIDE_PERFDATA_HOST_H

#include <stdint.h>

#include "ringside/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A file's records are what the guest wrote: their contents, LOST counts
 * and times are the guest's claims.  What the host saw while it read the
 * rings is kept apart, in ringside's host feature: when it read them (host
 * CLOCK_MONOTONIC), each ring's geometry from the validated layout, and
 * what it had to discard.  `ringside report` checks the claims against it
 * (docs/cli.md, "Host facts and guest claims").
 */
enum pdf_host_kind {
	PDF_HOST_NONE = 0,        /* the file says nothing (an older ringside) */
	PDF_HOST_DRAIN,           /* record: consumers drained the rings */
	PDF_HOST_SNAPSHOT,        /* snapshot: the rings were copied */
	PDF_HOST_KIND_MAX
};

struct pdf_host_ring {
	uint64_t data_size;       /* data area bytes (the host's layout) */
	uint64_t aux_size;        /* AUX area bytes, 0: none */
	uint64_t corrupt;         /* corruption events: malformed records,
				   * heads or tails that cannot be true */
	uint64_t corrupt_bytes;   /* ring bytes discarded because of them */
	uint64_t bad_heads;       /* of corrupt: impossible data heads/tails */
	uint64_t aux_bad_heads;   /* impossible AUX heads/tails */
	uint64_t aux_bytes;       /* AUX bytes taken from the ring */
	uint64_t aux_stored;      /* of them, in the file (AUXTRACE) */
	uint64_t cut_bytes;       /* snapshot: cut as possibly overwritten */
	uint64_t not_written;     /* records perf.data cannot carry */
	uint64_t frames_trimmed;  /* call chain frames cut (the writer's
				   * count, pdf_writer_stats; 0 in files
				   * written before it was counted) */
	/* A recording (drain): what the ring held when it attached.  Those
	 * records are in the file, first in their ring; the LOST and
	 * LOST_SAMPLES among them (and a LOST the producer wrote first
	 * after the attach: drops of the ring it found full) are not, their
	 * counts are here.  0 in files written before these were kept. */
	uint64_t early_records;   /* in the file, from before the attach */
	uint64_t early_lost_records;   /* LOST left out, counts summed ... */
	uint64_t early_lost;           /* ... here (guest claims, checked) */
	uint64_t early_lost_samples_records; /* LOST_SAMPLES likewise */
	uint64_t early_lost_samples;
	uint64_t early_flagged;   /* LOST left out, counts implausible: not
				   * summed */
	uint64_t early_flagged_samples; /* LOST_SAMPLES likewise */
	/* A snapshot of a normal ring: records found past data_head, which
	 * a producer that publishes its head per batch had committed but
	 * not published, nor counted in its published ext.produced yet.
	 * In the file; 0 in files written before it was kept. */
	uint64_t sealed_records;
};
#define PDF_HOST_RING_WORDS 19u   /* u64 words of pdf_host_ring in the file */

struct pdf_host_facts {
	uint32_t kind;            /* enum pdf_host_kind */
	uint32_t nr_rings;        /* entries of ring[] in use */
	uint64_t start_ns;        /* host CLOCK_MONOTONIC before the first
				   * read of a ring (attach, or the copy) */
	uint64_t end_ns;          /* ... after the last one */
	struct pdf_host_ring ring[RS_MAX_RINGS];
};

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_HOST_H */
