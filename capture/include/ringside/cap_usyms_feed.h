/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_USYMS_FEED_H
#define RINGSIDE_CAP_USYMS_FEED_H

#include <stdint.h>

#include "ringside/gi_usyms.h"
#include "ringside/ring.h"

/*
 * The guest's user symbols into a file: a record session reads the table
 * its agent appends to again now and then (gi_usyms: every entry checked
 * as a claim), a snapshot session once, and the entries the writer has not
 * had go to pdf_writer_add_ubins (perf's build-id cache, the file's build
 * ids) before it is finished.  What it came to, for the summary
 * (cap_recorder_stats, cap_snapper_stats):
 */
struct cap_usyms_feed_stats {
	uint32_t reads;           /* of the table */
	/* the last table that read whole, as checked */
	enum gi_usyms_state state;
	struct rs_usyms_info info; /* TRUNCATED, wanted (guest claims) */
	struct gi_usyms_stats st; /* refused, cut */
	uint32_t kept;            /* entries that passed the checks */
	/* the writer's: in the cache (and the file), failed, kept out */
	uint32_t cached, failed, other;
	int err;                  /* the last failure's */
};

#endif /* RINGSIDE_CAP_USYMS_FEED_H */
