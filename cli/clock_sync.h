/* SPDX-License-Identifier: MIT */
/*
 * The guest's clock against the host's CLOCK_MONOTONIC for `record` (a
 * sync at the start and one at the end) and `snapshot` (one): the ring
 * library's rs_tsync_host_run through the region header, never blocking
 * longer than its bounded wait, never failing the command.  What it found
 * goes into the perf.data file (pdf_writer_set_clock) and the summary.
 * Part of the command layer: it prints only through csync_print.
 */
#ifndef RINGSIDE_CLI_CLOCK_SYNC_H
#define RINGSIDE_CLI_CLOCK_SYNC_H

#include <stdio.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

struct csync {
	struct pdf_clock_sync cs;       /* for the file */
	struct rs_tsync_result res[2];  /* of each sync tried */
	int ret[2];                     /* rs_tsync_host_run's, or 1: not tried */
	int tried;
	int end_dropped;                /* the end's offset implied a drift no
					 * clock has: not used */
	const char *why_not;            /* no sync, and no state says why */
};

void csync_init(struct csync *c);

/*
 * One sync of the region @region, whose header is mapped writable at
 * @wmem (NULL: not writable here, no sync).  Decides first whether a sync
 * makes sense: rings whose time a VMM converts already (PDF_CLOCK_HOST),
 * no agent attached (PDF_CLOCK_NO_AGENT).  Waits at most about a second
 * for a guest that does not answer.
 */
void csync_take(struct csync *c, const struct rs_region *region, void *wmem);

/*
 * The region header behind descriptor @fd mapped writable (one page), for
 * a command that opened the region read-only (snapshot): reopened through
 * /proc/self/fd.  NULL when that is not allowed.  csync_unmap(NULL) is
 * fine.
 */
void *csync_map_header(int fd);
void csync_unmap(void *hdr);

/* "guest clock: host CLOCK_MONOTONIC + X ns, error bound ..." lines. */
void csync_print(const struct csync *c, FILE *out);

/* The same for a file's clock feature (report). */
void csync_print_file(const struct pdf_info *info, FILE *out);

#endif /* RINGSIDE_CLI_CLOCK_SYNC_H */
