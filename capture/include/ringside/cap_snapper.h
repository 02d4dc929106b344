/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_SNAPPER_H
#define RINGSIDE_CAP_SNAPPER_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/cap_err.h"
#include "ringside/cap_guest_facts.h"
#include "ringside/cap_host.h"
#include "ringside/cap_pstate.h"
#include "ringside/cap_tally.h"
#include "ringside/cap_usyms_feed.h"
#include "ringside/gi_kbuf.h"
#include "ringside/gi_kcode.h"
#include "ringside/gi_pstate.h"
#include "ringside/gi_syms.h"
#include "ringside/gi_usyms.h"
#include "ringside/gi_vcpu.h"
#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * A flight-recorder snapshot of every ring, shared by `snapshot`, `run`
 * and the flight recorder's capture.  Two steps: cap_snapper_copy copies
 * every ring's records (and measures its AUX area) into memory;
 * cap_snapper_write files them oldest first.  A stable snapshot pauses the
 * writers around the copy only.  Where it failed, and what it copied, cut
 * and lost, cap_snapper_stats says.
 *
 *	struct cap_snapper_config c;
 *	struct cap_snapper *s;
 *
 *	cap_snapper_config_init(&c);
 *	c.output = "flight.data";
 *	if (!cap_snapper_new(&s, &c)) {
 *		if (cap_snapper_copy(s, region) || cap_snapper_write(s))
 *			...cap_snapper_stats(s)->fail...
 *		cap_snapper_free(s);
 *	}
 */

struct cap_snapper;

/* What a snapshot session is told; cap_snapper_new keeps a copy. */
struct cap_snapper_config {
	size_t size;              /* sizeof(struct cap_snapper_config) as the
				   * caller knows it: what lies past it is 0
				   * (cap_snapper_config_init) */
	const char *source;       /* the region, for the caller's words */
	const char *output;       /* NULL: count the records, write no file */
	int argc;                 /* the command line, for the file's header */
	char *const *argv;
	int stable;               /* the writers are stopped during the copy */
	int no_pstate;            /* file no records of the process state */
	int aux_opaque;           /* as struct cap_recorder_config's */
	const struct pdf_clock_sync *clock; /* NULL: the file says nothing;
				   * read when the file is written */
	const struct gi_syms *syms; /* the guest kernel's symbols, or NULL */
	const struct gi_usyms *usyms; /* its user binaries' symbols, or NULL */
	const char *buildid_dir;  /* the cache their table goes to (NULL:
				   * perf's own, pdf_cache_perf_dir) */
	/* What the caller reads of the guest between the copy and the
	 * write, filed with the rings (NULL: nothing): the records
	 * recovered from the guest kernel's perf buffers, where each vCPU
	 * was, the guest kernel's code for PT (put in the build-id cache
	 * through kcode_src when the region traces PT: how it went, in
	 * *kcode). */
	struct gi_kbuf *kbuf;
	struct gi_vcpu *vcpu;
	struct gi_kcode *kcode;
	const struct gi_kcode_src *kcode_src;
	/* NULL, or the host's flight recorder of the VMM's vCPU threads
	 * (cap_host, HV_MODE_OVERWRITE): what it holds is filed with the
	 * rings (cap_host_capture) */
	struct cap_host *host;
};

/* @c zeroed, its size set. */
void cap_snapper_config_init(struct cap_snapper_config *c);

/* What the copy found of one ring, and what was filed of it. */
struct cap_snapper_ring {
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
	uint64_t aux_stored;      /* of the AUX bytes, in the file */
};

struct cap_snapper_stats {
	uint32_t nr_rings;
	uint64_t sample_type;
	uint32_t aux_format;      /* enum pdf_aux_format of the region */
	struct cap_failure fail;  /* where a step failed */
	struct cap_tally tally;
	struct cap_tally file_tally; /* the file read back: claims checked */
	int have_file_tally;
	int readback_err;         /* reading it back failed (pdf_error_str) at
				   * readback_at: the summary is unchecked */
	uint64_t readback_at;
	struct pdf_host_facts host; /* what the host observed, as filed */
	struct pdf_writer_stats wstats; /* the writer's (symbols) */
	struct cap_guest_facts guest; /* who the guest says it is (the copy's) */
	struct cap_pstate_filed pstate_out; /* records filed at the head of
				   * its processes (cap_snapper_pstate) */
	struct cap_usyms_feed_stats usyms; /* its user binaries' symbols */
	uint64_t kbuf_refused;    /* recovered records the writer refused */
	/* a stable copy: how long the writers stood still
	 * (cap_snapper_set_pause), and of it the copy itself
	 * (cap_snapper_take); 0: not paused here */
	uint64_t pause_ns;
	uint64_t pause_inner_ns;
	uint64_t take_ns;
	struct cap_snapper_ring ring[RS_MAX_RINGS];
};

/* A session of @c (copied; the strings and what it points to must live
 * as long as the session) into *@sp.  0, -EINVAL, -ENOMEM. */
int cap_snapper_new(struct cap_snapper **sp, const struct cap_snapper_config *c);

/* Copy every ring of @region.  0, or the negative code the stats' fail
 * names.  The same as cap_snapper_prepare, _take, _parse. */
int cap_snapper_copy(struct cap_snapper *s, const struct rs_region *region);

/*
 * cap_snapper_copy in three steps, for a copy under a pause of the writers
 * that should stop them as briefly as it can: _prepare allocates (and
 * touches) a buffer per ring before the pause; _take, between the pause
 * and the resume, only copies each ring's bytes (and its AUX area, the
 * guest's facts and its process table) into them, and sets take_ns;
 * _parse, after the resume, walks the copied records.  What the file
 * holds is what the rings held during _take.  0, or the negative code the
 * stats' fail names; on failure cap_snapper_free frees what they
 * allocated.
 */
int cap_snapper_prepare(struct cap_snapper *s, const struct rs_region *region);
int cap_snapper_take(struct cap_snapper *s, const struct rs_region *region);
int cap_snapper_parse(struct cap_snapper *s);

/* How long the writers stood still around _take (cap_source_paused_ns,
 * at most and at least), for the summary. */
void cap_snapper_set_pause(struct cap_snapper *s, uint64_t pause_ns,
			   uint64_t inner_ns);

/* The host has just read the guest once more after the copy (its vCPUs):
 * a live guest may have written what it read there after the copy ended,
 * so the window ends now. */
void cap_snapper_read_more(struct cap_snapper *s);

/* Mark the recovered records (config kbuf, read before the copy) that the
 * copied rings hold already: the agent forwarded them since, or had not
 * given their space back yet. */
void cap_snapper_kbuf_dedup(struct cap_snapper *s);

/* File the copied records in the output (or only count them).  0, or the
 * negative code the stats' fail names; on failure no output file is
 * left. */
int cap_snapper_write(struct cap_snapper *s);

/* Its config, and what it found so far. */
const struct cap_snapper_config *cap_snapper_config(const struct cap_snapper *s);
const struct cap_snapper_stats *cap_snapper_stats(const struct cap_snapper *s);

/* The guest's processes as the copy found them (its state table,
 * checked). */
const struct gi_pstate *cap_snapper_pstate(const struct cap_snapper *s);

/* Accepts NULL. */
void cap_snapper_free(struct cap_snapper *s);

#endif /* RINGSIDE_CAP_SNAPPER_H */
