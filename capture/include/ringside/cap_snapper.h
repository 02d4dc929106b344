/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_SNAPPER_H
#define RINGSIDE_CAP_SNAPPER_H

#include <stdint.h>

#include "ringside/cap_err.h"
#include "ringside/cap_guest_facts.h"
#include "ringside/cap_pstate.h"
#include "ringside/cap_tally.h"
#include "ringside/cap_usyms_feed.h"
#include "ringside/introspect.h"
#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * A flight-recorder snapshot of every ring, shared by `snapshot` and `run`.
 * Two steps: cap_snapper_copy copies every ring's records (and measures its AUX
 * area) into memory; cap_snapper_write files them oldest first.  A stable
 * snapshot pauses the writers around the copy only.  Where it failed,
 * s->fail says; what it copied, cut and lost, the struct.
 */

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
	struct pdf_rrec_clock clock;
	struct pdf_buf stash;     /* the records, in the order the copy gave them */
	struct pdf_buf offs;      /* u64 offset of each record in stash */
	struct pdf_buf aux_data;  /* the AUX area's valid bytes, oldest first */
	uint64_t aux_stored;      /* of them, in the file */
	/* between cap_snapper_take and cap_snapper_parse: the ring's bytes as
	 * copied, not yet walked */
	struct rs_snapshot *snap;
	void *copy;               /* data_size bytes */
	void *aux_copy;           /* aux_size bytes */
	int taken;                /* snap holds a copy to walk */
};

struct cap_snapper {
	const char *source;       /* the region, for the caller's words */
	const char *output;       /* NULL: count the records, write no file */
	int argc;                 /* the command line, for the file's header */
	char *const *argv;
	int stable;               /* the writers were stopped during the copy */
	int no_pstate;            /* file no records of the process state */
	int aux_opaque;           /* as struct cap_recorder's */
	const struct pdf_clock_sync *clock; /* NULL: the file says nothing */
	uint32_t nr_rings;
	uint64_t sample_type;
	uint32_t aux_format;      /* enum pdf_aux_format of the region */
	const struct gi_syms *syms; /* the guest kernel's symbols, or NULL */
	const struct gi_usyms *usyms; /* its user binaries' symbols, or NULL */
	struct cap_usyms_feed ufeed;  /* what of them went into the file */
	const char *buildid_dir;  /* the cache their table goes to (NULL:
				   * perf's own, pdf_cache_perf_dir) */
	struct gi_kbuf *kbuf;       /* records recovered from the guest
				   * kernel's perf buffers, or NULL */
	uint64_t kbuf_refused;    /* of them, refused by the writer */
	struct gi_vcpu *vcpu;       /* where each vCPU was, or NULL */
	struct gi_kcode *kcode;     /* the guest kernel's code for PT, or NULL */
	const struct gi_kcode_src *kcode_src;
	struct pdf_writer_stats wstats; /* the writer's (symbols) */
	struct pdf_host_facts host; /* what the host observed, as filed */
	struct cap_guest_facts guest; /* who the guest says it is (the copy's) */
	struct gi_pstate pstate;    /* its processes now, as its table says */
	struct cap_pstate_filed cap_pstate_filed; /* records filed of them at the
				   * head */
	struct cap_tally tally;
	struct cap_tally file_tally;  /* the file read back: claims checked */
	int have_file_tally;
	int readback_err;         /* reading it back failed (pdf_error_str) at
				   * readback_at: the summary is unchecked */
	uint64_t readback_at;
	struct cap_failure fail;  /* where cap_snapper_copy or _write failed */
	/* a stable copy: how long the writers stood still (cap_source_paused_ns),
	 * and of it the copy itself (cap_snapper_take); 0: not paused here */
	uint64_t pause_ns;
	uint64_t pause_inner_ns;
	uint64_t take_ns;
	struct cap_snapper_ring ring[RS_MAX_RINGS];
};

void cap_snapper_init(struct cap_snapper *s, const char *source);

/* Copy every ring of @region.  0, or the negative code s->fail names.
 * The same as cap_snapper_prepare, cap_snapper_take, cap_snapper_parse. */
int cap_snapper_copy(struct cap_snapper *s, const struct rs_region *region);

/*
 * cap_snapper_copy in three steps, for a copy under a pause of the writers
 * that should stop them as briefly as it can: _prepare allocates (and
 * touches) a buffer per ring before the pause; _take, between the pause
 * and the resume, only copies each ring's bytes (and its AUX area, the
 * guest's facts and its process table) into them, and sets s->take_ns;
 * _parse, after the resume, walks the copied records.  What the file
 * holds is what the rings held during _take.  0, or the negative code
 * s->fail names; on failure cap_snapper_fini frees what they allocated.
 */
int cap_snapper_prepare(struct cap_snapper *s, const struct rs_region *region);
int cap_snapper_take(struct cap_snapper *s, const struct rs_region *region);
int cap_snapper_parse(struct cap_snapper *s);

/* The host has just read the guest once more after the copy (its kernel's
 * perf buffers, its vCPUs): a live guest may have written what it read
 * there after the copy ended, so the window ends now. */
void cap_snapper_read_more(struct cap_snapper *s);

/* Mark the recovered records (s->kbuf) that the copied rings hold already:
 * the agent forwarded them but had not published its tail. */
void cap_snapper_kbuf_dedup(struct cap_snapper *s);

/* File the copied records in s->output (or only count them).  0, or the
 * negative code s->fail names; on failure no output file is left. */
int cap_snapper_write(struct cap_snapper *s);

void cap_snapper_fini(struct cap_snapper *s);

#endif /* RINGSIDE_CAP_SNAPPER_H */
