/* SPDX-License-Identifier: MIT */
/*
 * A flight-recorder snapshot of every ring, shared by `snapshot` and `run`.
 * Two steps: snapper_copy copies every ring's records (and measures its AUX
 * area) into memory; snapper_write files them oldest first.  A stable
 * snapshot pauses the writers around the copy only.  Part of the command
 * layer: prints its errors and the summary.
 */
#ifndef RINGSIDE_CLI_SNAPPER_H
#define RINGSIDE_CLI_SNAPPER_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

#include "guest_kbuf.h"
#include "guest_kcode.h"
#include "guest_syms.h"
#include "guest_vcpu.h"
#include "tally.h"

struct snap_ring {
	struct rs_snap_stats data;
	int has_aux;
	struct rs_aux_snapshot aux;
	uint32_t data_mode;
	uint64_t produced;        /* the producer's own count at the copy (hint) */
	uint64_t too_big;         /* records perf.data cannot carry */
	uint64_t data_size;       /* the host's layout */
	uint64_t aux_size;
	uint64_t aux_bad_heads;   /* a normal AUX ring's head and tail cannot
				   * be true: nothing copied from it */
	struct pdf_rrec_clock clock;
	struct pdf_buf stash;     /* the records, in the order the copy gave them */
	struct pdf_buf offs;      /* u64 offset of each record in stash */
	struct pdf_buf aux_data;  /* the AUX area's valid bytes, oldest first */
	uint64_t aux_stored;      /* of them, in the file */
};

struct snapper {
	const char *cmd;          /* for messages */
	const char *source;
	const char *output;       /* NULL: count the records, write no file */
	int stable;               /* the writers were stopped during the copy */
	int aux_opaque;           /* as struct recorder's */
	const struct pdf_clock_sync *clock; /* NULL: the file says nothing */
	uint32_t nr_rings;
	uint64_t sample_type;
	uint32_t aux_format;      /* enum pdf_aux_format of the region */
	const struct gsyms *syms; /* the guest kernel's symbols, or NULL */
	struct gkbuf *kbuf;       /* records recovered from the guest
				   * kernel's perf buffers, or NULL */
	uint64_t kbuf_refused;    /* of them, refused by the writer */
	struct gvcpu *vcpu;       /* where each vCPU was, or NULL */
	struct gkcode *kcode;     /* the guest kernel's code for PT, or NULL */
	const struct gkcode_src *kcode_src;
	struct pdf_writer_stats wstats; /* the writer's (symbols) */
	struct pdf_host_facts host; /* what the host observed, as filed */
	struct tally tally;
	struct tally file_tally;  /* the file read back: claims checked */
	int have_file_tally;
	struct snap_ring ring[RS_MAX_RINGS];
};

void snapper_init(struct snapper *s, const char *cmd, const char *source);

/* Copy every ring of @region.  An enum cli_exit value. */
int snapper_copy(struct snapper *s, const struct rs_region *region);

/* The host has just read the guest once more after the copy (its kernel's
 * perf buffers, its vCPUs): a live guest may have written what it read
 * there after the copy ended, so the window ends now. */
void snapper_read_more(struct snapper *s);

/* Mark the recovered records (s->kbuf) that the copied rings hold already:
 * the agent forwarded them but had not published its tail. */
void snapper_kbuf_dedup(struct snapper *s);

/* File the copied records in s->output (or only count them).  An enum
 * cli_exit value; on failure no output file is left. */
int snapper_write(struct snapper *s);

/* What was copied, cut and lost, per ring, on stdout. */
void snapper_summary(const struct snapper *s);

/* Corruption and flagged claims on stderr (report_warn); 1 when there
 * were any: the command exits CLI_EXIT_CORRUPT. */
int snapper_warn(const struct snapper *s);

void snapper_fini(struct snapper *s);

#endif /* RINGSIDE_CLI_SNAPPER_H */
