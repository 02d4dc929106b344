/* SPDX-License-Identifier: MIT */
/*
 * Draining every ring of a region into a perf.data writer: one consumer per
 * ring; a pass takes one batch from each ring's data area and AUX area.
 */
#ifndef RINGSIDE_CLI_DRAIN_H
#define RINGSIDE_CLI_DRAIN_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

#include "liberr.h"
#include "tally.h"

struct drain;

struct drain_ring {
	struct drain *drain;
	struct rs_consumer *cons;
	struct pdf_rrec_clock clock;
	uint32_t index;
	int has_aux;              /* an AUX area in normal mode */
	uint64_t data_size;       /* the host's layout */
	uint64_t aux_size;
	uint64_t aux_bytes;       /* AUX bytes drained */
	uint64_t aux_stored;      /* of them, in the file */
	uint64_t too_big;         /* records perf.data cannot carry */
	/* The first part of a read that wraps, written with the second. */
	const void *held;
	uint64_t held_len, held_pos;
};

struct drain {
	struct pdf_writer *writer;
	struct tally *tally;      /* of what went into the file */
	uint64_t sample_type;
	uint32_t nr_rings;
	int write_err;            /* the writer's (pdf_errstr): ends the drain */
	struct drain_ring ring[RS_MAX_RINGS];
};

/*
 * Attach a consumer to every ring of @region; records go to @w, or are only
 * counted in @t when @w is NULL.  Times are converted to ns where the
 * region publishes how (pdf_rrec_clock_init).  0, or the ring library's
 * -rse_* (rs_errstr): -rse_mode when a data ring is in overwrite mode
 * (snapshot it instead).
 */
int drain_init(struct drain *d, const struct rs_region *region,
	       uint64_t sample_type, struct pdf_writer *w, struct tally *t);

/* One pass over all rings.  Returns records written, or a negative code
 * noted in @e (liberr.h): the writer's (pdf_errstr) or the ring
 * library's (rs_errstr). */
int drain_pass(struct drain *d, struct liberr *e);

/* Consumer statistics of ring @i (corruption counts). */
const struct rs_cons_stats *drain_cons_stats(const struct drain *d, uint32_t i);

/* What the host observed on every ring so far, into @h (kind, times and
 * the AUX bytes stored are the caller's). */
void drain_host_facts(const struct drain *d, struct pdf_host_facts *h);

/* The bounds the live tally checks claims against: those of a drain
 * that attached at @start_ns (host CLOCK_MONOTONIC). */
void drain_bounds(const struct drain *d, uint64_t start_ns,
		  struct tally_bounds *b);

void drain_fini(struct drain *d);

#endif /* RINGSIDE_CLI_DRAIN_H */
