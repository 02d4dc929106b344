/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's symbols, from the region's sideband (docs/abi.md,
 * "Sideband"): read once, checked, handed to the perf.data writer, and
 * described in one summary line.  Everything in them is the guest's
 * claim, used only to name addresses (docs/threat-model.md).
 */
#ifndef RINGSIDE_CLI_GUEST_SYMS_H
#define RINGSIDE_CLI_GUEST_SYMS_H

#include <stdint.h>
#include <stdio.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

enum gsyms_state {
	GSYMS_ABSENT = 0,  /* the region has no sideband area */
	GSYMS_NONE,        /* the guest has not written it (yet) */
	GSYMS_BUSY,        /* the guest was still writing it */
	GSYMS_CORRUPT,     /* a descriptor no agent writes */
	GSYMS_OTHER,       /* another kind of content */
	GSYMS_REFUSED,     /* kallsyms text perf must not get (parse_err) */
	GSYMS_OK,
};

struct gsyms {
	enum gsyms_state state;
	int parse_err;            /* GSYMS_REFUSED: pdf_ksyms_parse's */
	struct rs_sideband_info info;
	uint8_t *text;            /* info.length bytes, private copy */
	uint64_t functions;       /* what perf gets (GSYMS_OK) */
	uint32_t modules;
};

/* Read @region's sideband once (with @wait, a write in progress is waited
 * for, up to about a second) and check the text.  Never fails: the state
 * says what there is.  @g zeroed (or read before: its buffer is reused).
 * -ENOMEM only. */
int gsyms_read(struct gsyms *g, const struct rs_region *region, int wait);

/* 1 when a later read may find more: nothing written yet, or being
 * written. */
int gsyms_pending(const struct gsyms *g);

/* Give the writer the text and build id, when they are usable. */
void gsyms_writer_params(const struct gsyms *g, struct pdf_writer_params *wp);

/* "guest kernel symbols: ..." lines on @out, with what the writer made of
 * them (@ws: NULL when no file was written). */
void gsyms_summary(FILE *out, const struct gsyms *g,
		   const struct pdf_writer_stats *ws);

void gsyms_fini(struct gsyms *g);

#endif /* RINGSIDE_CLI_GUEST_SYMS_H */
