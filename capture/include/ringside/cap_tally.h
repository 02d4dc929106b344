/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_TALLY_H
#define RINGSIDE_CAP_TALLY_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/perfdata.h"

/*
 * Per-ring accounting of ring records: what `ringside report` shows, and
 * what record and snapshot say at the end.  The same code counts records
 * live from the rings and read back from a file, so the two must agree.
 *
 * Every record is the guest's: its LOST counts, AUX sizes and times are
 * claims.  With the host's own facts about the reading (struct
 * cap_tally_bounds: when it read the rings, their geometry) a claim no honest
 * producer could make is flagged and left out of the sums and the time
 * span instead of being added up.  Every sum saturates at UINT64_MAX.
 */

/*
 * A producer drops a record only when it tries to write one into a full
 * ring, and each try costs it far more than a nanosecond (the kernel's
 * perf output path, ringside's producer: hundreds).  So a ring cannot
 * lose more than one record per nanosecond of the time it ran, and LOST
 * (and LOST_SAMPLES) counts beyond that are flagged; docs/cli.md, "Host
 * facts and guest claims", has the windows this is applied to.
 */
#define CAP_TALLY_LOST_PER_NS 1u

struct cap_tally_ring {
	uint64_t records;
	uint64_t bytes;
	uint64_t by_class[PDF_RREC_MAX];
	uint64_t lost;            /* sum of the LOST records' counts (claims
				   * not flagged) */
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
	uint64_t first_time;      /* of the times not flagged, of the
				   * records with a time of their own
				   * (pdf_rrec_timed) */
	uint64_t last_time;
	/* claims flagged as implausible: records, not summed */
	uint64_t flag_lost;       /* LOST records, count over the bound */
	uint64_t flag_lost_samples; /* LOST_SAMPLES records, likewise */
	uint64_t flag_aux;        /* AUX records larger than the AUX area */
	uint64_t flag_time;       /* records filed outside the window */
};

/* What the host knows about the reading, to bound the claims against. */
/* A Linux agent forwards what the guest kernel's perf buffers hold when
 * it wakes: for data, a marker or its beat (a second), so a sample can
 * reach its ring up to a beat after it was taken.  Two beats. */
#define CAP_TALLY_HELD_NS 2000000000ull

struct cap_tally_bounds {
	uint32_t kind;            /* PDF_HOST_DRAIN, _SNAPSHOT; NONE: nothing
				   * known, nothing flagged */
	uint64_t start_ns;        /* host CLOCK_MONOTONIC: the attach or copy */
	uint64_t end_ns;          /* ... the last read; 0: now (live) */
	int times_host;           /* record times are host CLOCK_MONOTONIC:
				   * check them against the window */
	uint64_t slack_ns;        /* the times' error allowed around it */
	uint64_t held_ns;         /* how much older than its write a record
				   * after the attach may be: what a guest's
				   * agent held before it forwarded it (the
				   * Linux agent: its kernel buffers, up to a
				   * beat); CAP_TALLY_HELD_NS */
	uint64_t data_size[RS_MAX_RINGS];
	uint64_t aux_size[RS_MAX_RINGS]; /* 0: not known */
};

struct cap_tally {
	uint64_t sample_type;     /* of the region's SAMPLE records */
	uint32_t nr_rings;        /* highest ring seen + 1, or as set */
	struct cap_tally_bounds bounds;
	struct cap_tally_ring ring[RS_MAX_RINGS];
	/* what a ring's next record is checked with of those before it
	 * (cap_tally_add's running state, no count) */
	struct cap_tally_track {
		uint64_t lost_late;   /* LOST counts of drops after the attach */
		uint64_t lost_samples_late;
		uint64_t prev_size;   /* the ring's previous record */
	} track[RS_MAX_RINGS];
	/* records the host wrote, no ring: COMM and MMAP2 of the guest's
	 * process table at the file's head (cap_tally_state) */
	uint64_t state_comms;
	uint64_t state_mmaps;
};

void cap_tally_init(struct cap_tally *t, uint32_t nr_rings, uint64_t sample_type);

/* Count @rec, a record the host wrote of the process table. */
void cap_tally_state(struct cap_tally *t, const struct rs_perf_header *rec);

/* Count @ev of a file: the host's records apart from the rings'. */
void cap_tally_event(struct cap_tally *t, const struct pdf_event *ev);

/* Check the claims counted from now on against @b. */
void cap_tally_set_bounds(struct cap_tally *t, const struct cap_tally_bounds *b);

/* The bounds a file's host feature and clock give (kind NONE: none). */
void cap_tally_bounds_from_info(struct cap_tally_bounds *b, const struct pdf_info *info);

/* Count @rec of ring @ring (< RS_MAX_RINGS, else ignored), filed at @time. */
void cap_tally_add(struct cap_tally *t, uint32_t ring, uint64_t time,
		   const struct rs_perf_header *rec);

/* Sum of all rings into @sum (times: the earliest and latest). */
void cap_tally_total(const struct cap_tally *t, struct cap_tally_ring *sum);

/* Claims flagged on @r, all kinds. */
uint64_t cap_tally_flagged(const struct cap_tally_ring *r);

/* Records per second over the ring's time span (ns); 0 when no span. */
double cap_tally_rate(const struct cap_tally_ring *r);

/* @a + @b, UINT64_MAX where that would wrap. */
static inline uint64_t cap_tally_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Tally the file at @path (cap_tally_init with its rings, bounds from its host
 * feature and clock) into @t; its info into *@info when not NULL.  0, or
 * the perf.data library's code (pdf_error_str), with the offset of a bad
 * record in *@bad_offset.
 */
int cap_tally_file(const char *path, struct cap_tally *t, struct pdf_info *info,
		   uint64_t *bad_offset);

#endif /* RINGSIDE_CAP_TALLY_H */
