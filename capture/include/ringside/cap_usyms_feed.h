/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_USYMS_FEED_H
#define RINGSIDE_CAP_USYMS_FEED_H

#include <stdint.h>

#include "ringside/gi_usyms.h"
#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * The guest's user symbols into a file: the table its agent appends to
 * is read again now and then (gi_usyms: every entry checked as a claim) and
 * the entries the current writer has not had go to pdf_writer_add_ubins
 * (perf's build-id cache, the file's build ids), before it is finished.
 */
struct cap_usyms_feed {
	struct gi_usyms g;          /* the last read, private */
	uint32_t given;           /* of its bins, given to the current writer */
	uint32_t reads;
	/* for the summary: the last table that read whole, as checked */
	enum gi_usyms_state state;
	struct rs_usyms_info info; /* TRUNCATED, wanted (guest claims) */
	struct gi_usyms_stats st;   /* refused, cut */
	uint32_t kept;            /* entries that passed the checks */
	/* the writer's: in the cache (and the file), failed, kept out */
	uint32_t cached, failed, other;
	int err;                  /* the last failure's */
};

/* A new writer: every entry is given again. */
void cap_usyms_feed_restart(struct cap_usyms_feed *f);
/* Read @region's table and give @w the new entries.  0, -ENOMEM,
 * -EINVAL. */
int cap_usyms_feed_pass(struct cap_usyms_feed *f, const struct rs_region *region,
		    struct pdf_writer *w);
/* Give @w every entry of @g, read before (a snapshot's copy). */
void cap_usyms_feed_give(struct cap_usyms_feed *f, const struct gi_usyms *g,
		     struct pdf_writer *w);
void cap_usyms_feed_fini(struct cap_usyms_feed *f);

#endif /* RINGSIDE_CAP_USYMS_FEED_H */
