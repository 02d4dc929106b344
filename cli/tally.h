/* SPDX-License-Identifier: MIT */
/*
 * Per-ring accounting of ring records: what `ringside report` shows, and
 * what record and snapshot say at the end.  The same code counts records
 * live from the rings and read back from a file, so the two must agree.
 */
#ifndef RINGSIDE_CLI_TALLY_H
#define RINGSIDE_CLI_TALLY_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/perfdata.h"

struct tally_ring {
	uint64_t records;
	uint64_t bytes;
	uint64_t by_class[PDF_RREC_MAX];
	uint64_t lost;            /* sum of the LOST records' counts */
	uint64_t lost_samples;    /* sum of the LOST_SAMPLES records' counts */
	uint64_t aux_bytes;       /* sum of the AUX records' sizes */
	uint64_t aux_truncated;   /* AUX records flagged TRUNCATED */
	uint64_t aux_partial;
	uint64_t aux_collision;
	uint64_t seq_bad;         /* RS_RECORD_SEQ failing its checksum */
	uint64_t seq_gaps;        /* sequence numbers skipped */
	uint64_t seq_back;        /* sequence numbers repeated or going back */
	uint64_t seq_first;
	uint64_t seq_last;
	int have_seq;
	int have_time;
	uint64_t first_time;
	uint64_t last_time;
};

struct tally {
	uint64_t sample_type;     /* of the region's SAMPLE records */
	uint32_t nr_rings;        /* highest ring seen + 1, or as set */
	struct tally_ring ring[RS_MAX_RINGS];
};

void tally_init(struct tally *t, uint32_t nr_rings, uint64_t sample_type);

/* Count @rec of ring @ring (< RS_MAX_RINGS, else ignored), filed at @time. */
void tally_add(struct tally *t, uint32_t ring, uint64_t time,
	       const struct rs_perf_header *rec);

/* Sum of all rings into @sum (times: the earliest and latest). */
void tally_total(const struct tally *t, struct tally_ring *sum);

/* Records per second over the ring's time span (ns); 0 when no span. */
double tally_rate(const struct tally_ring *r);

#endif /* RINGSIDE_CLI_TALLY_H */
