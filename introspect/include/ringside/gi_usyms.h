/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_USYMS_H
#define RINGSIDE_GI_USYMS_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * The symbol tables of the guest's user binaries, as its agent published
 * them in the sideband (docs/abi.md, "User symbols"): copied once,
 * every entry checked as a guest claim (bounds, counts, names, symbols
 * inside their PT_LOADs), the good ones handed to the perf.data writer
 * (pdf_writer_add_ubins), the others refused and counted.
 */
#define GI_USYMS_MAX_BINS 4096u

enum gi_usyms_state {
	GI_USYMS_ABSENT = 0, /* the region has no sideband area */
	GI_USYMS_NONE,       /* the guest has published no table (yet) */
	GI_USYMS_BUSY,       /* the guest was writing it */
	GI_USYMS_CORRUPT,    /* a descriptor no agent writes */
	GI_USYMS_OK,
};

/* Why the last refused entry was refused. */
enum gi_usyms_why {
	GI_USYMS_WHY_NONE = 0,
	GI_USYMS_WHY_LENGTH,
	GI_USYMS_WHY_BUILD_ID,
	GI_USYMS_WHY_HEADER,
	GI_USYMS_WHY_COUNTS,
	GI_USYMS_WHY_LOADS,
	GI_USYMS_WHY_TEXT,
	GI_USYMS_WHY_PATH,
	GI_USYMS_WHY_NAMES,
	GI_USYMS_WHY_SYMBOLS,
	GI_USYMS_WHY_DUPLICATE,
	GI_USYMS_WHY_MEMORY,
};

struct gi_usyms_bin {
	struct pdf_ubin ub;       /* names point into gi_usyms.table */
	struct pdf_usym *syms;
	uint32_t flags;           /* enum rs_usyms_entry_flag (claim) */
	char path[RS_USYMS_PATH_MAX + 1];
};

struct gi_usyms_stats {
	uint32_t claimed;         /* entries the descriptor says */
	uint32_t refused;         /* entries refused (checks failed) */
	uint32_t over;            /* good or not, past GI_USYMS_MAX_BINS */
	uint32_t cut;             /* kept, flagged: symbols left out */
	uint64_t symbols;         /* of the kept ones */
	enum gi_usyms_why why;      /* of the last refused */
};

struct gi_usyms {
	enum gi_usyms_state state;
	struct rs_usyms_info info; /* TRUNCATED and wanted: not all fit */
	uint8_t *table;           /* info.length bytes, a copy of its own */
	uint32_t nr;              /* good binaries in bins */
	struct gi_usyms_bin *bins;
	struct gi_usyms_stats st;
};

/* Copy @region's table once and check it (@g zeroed first, or read
 * before).  Never fails on what the guest wrote: the state and stats say.
 * -ENOMEM, -EINVAL. */
int gi_usyms_read(struct gi_usyms *g, const struct rs_region *region);

/* Check @len bytes of entries (@entries claimed) into @g's bins; the
 * names stay in @table, which must outlive @g's use.  -ENOMEM, -EINVAL. */
int gi_usyms_parse(struct gi_usyms *g, const uint8_t *table, uint64_t len,
		   uint32_t entries);

const char *gi_usyms_why_str(enum gi_usyms_why why);

void gi_usyms_fini(struct gi_usyms *g);

#endif /* RINGSIDE_GI_USYMS_H */
