/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_SYMS_H
#define RINGSIDE_GI_SYMS_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * The guest kernel's symbols, from the region's sideband (docs/abi.md,
 * "Sideband"): read once, checked, handed to the perf.data writer, and
 * described by the caller.  Everything in them is the guest's
 * claim, used only to name addresses (docs/threat-model.md).
 */

enum gi_syms_state {
	GI_SYMS_ABSENT = 0,  /* the region has no sideband area */
	GI_SYMS_NONE,        /* the guest has not written it (yet) */
	GI_SYMS_BUSY,        /* the guest was still writing it */
	GI_SYMS_CORRUPT,     /* a descriptor no agent writes */
	GI_SYMS_OTHER,       /* another kind of content */
	GI_SYMS_REFUSED,     /* kallsyms text perf must not get (parse_err) */
	GI_SYMS_OK,
};

struct gi_syms {
	enum gi_syms_state state;
	int parse_err;            /* GI_SYMS_REFUSED: pdf_ksyms_parse's */
	struct rs_sideband_info info;
	uint8_t *text;            /* info.length bytes, a copy of its own */
	uint64_t functions;       /* what perf gets (GI_SYMS_OK) */
	uint32_t modules;
	uint32_t modules_refused; /* left out, amid another module or the
				   * kernel (pdf_ksyms_stats) */
	uint64_t refused;         /* their functions */
};

/* Read @region's sideband once (with @wait, a write in progress is waited
 * for, up to about a second) and check the text.  Never fails: the state
 * says what there is.  @g zeroed (or read before: its buffer is reused).
 * -ENOMEM only. */
int gi_syms_read(struct gi_syms *g, const struct rs_region *region, int wait);

/* 1 when a later read may find more: nothing written yet, or being
 * written. */
int gi_syms_pending(const struct gi_syms *g);

/* Give the writer the text and build id, when they are usable. */
void gi_syms_writer_params(const struct gi_syms *g, struct pdf_writer_params *wp);

void gi_syms_fini(struct gi_syms *g);

#endif /* RINGSIDE_GI_SYMS_H */
