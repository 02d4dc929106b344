/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_SYNC_H
#define RINGSIDE_CAP_SYNC_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * The guest's clock against the host's CLOCK_MONOTONIC for `record` (a
 * sync at the start and one at the end) and `snapshot` (one): the ring
 * library's rs_tsync_host_run through the region header, never blocking
 * longer than its bounded wait, never failing the command.  What it found
 * goes into the perf.data file (pdf_writer_set_clock) and the struct
 * below, which the caller describes.
 */

/* How the last sync of a recording went (cap_sync_take with @final). */
enum cap_sync_final {
	CAP_SYNC_FINAL_NONE = 0,      /* not tried */
	CAP_SYNC_FINAL_OK,
	CAP_SYNC_FINAL_NO_AGENT,      /* the agent had detached */
	CAP_SYNC_FINAL_FAILED,        /* timed out, or every answer refused */
};

struct cap_sync {
	struct pdf_clock_sync cs;       /* for the file: the first sync and
					 * the last one */
	struct rs_tsync_result last;    /* of the last sync tried */
	int last_ret;                   /* rs_tsync_host_run's */
	uint64_t wait_ns;               /* its longest wait for a first answer */
	int final;                      /* enum cap_sync_final */
	int end_dropped;                /* the last sync implied a drift no
					 * clock has: not used */
	int gave_up;                    /* a sync failed: no more before the
					 * final one (a hung guest would stall
					 * every drain for the wait) */
	double last_try;                /* cap_time_now() of the last look / sync */
	const char *why_not;            /* no sync, and no state says why */
};

void cap_sync_init(struct cap_sync *c);

/*
 * One sync of the region @region, whose header is mapped writable at
 * @wmem (NULL: not writable here, no sync).  Decides first whether a sync
 * makes sense: rings whose time a VMM converts already (PDF_CLOCK_HOST),
 * no agent attached (PDF_CLOCK_NO_AGENT).  Waits at most about a second
 * for a guest that does not answer.  The first successful sync is the
 * file's first point, the latest one its second.  @final: the last one
 * (the end of a recording), whose outcome the summary reports.
 */
void cap_sync_take(struct cap_sync *c, const struct rs_region *region, void *wmem,
		   int final);

/*
 * Between passes of a recording: a sync as soon as an agent attaches if
 * none succeeded yet (a recording started before the guest's agent), and
 * one every CAP_SYNC_PERIOD seconds after, so that a guest whose agent
 * detaches before the end still has a late point.  Nothing after a sync
 * failed.  Cheap when nothing is due: one clock read.
 */
#define CAP_SYNC_PERIOD 5.0
void cap_sync_poll(struct cap_sync *c, const struct rs_region *region, void *wmem);

/*
 * The region header behind descriptor @fd mapped writable (one page), for
 * a command that opened the region read-only (snapshot): reopened through
 * /proc/self/fd.  NULL when that is not allowed.  cap_sync_unmap(NULL) is
 * fine.
 */
void *cap_sync_map_header(int fd);
void cap_sync_unmap(void *hdr);

#endif /* RINGSIDE_CAP_SYNC_H */
