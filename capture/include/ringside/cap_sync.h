/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_SYNC_H
#define RINGSIDE_CAP_SYNC_H

#include <pthread.h>
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
	/* a sync that is not the final one runs in a thread of its own, so
	 * that the drain goes on while the guest's agent takes up to its
	 * beat to look (cap_sync_join collects it) */
	int running;                    /* a thread was started: joined yet? */
	int ran;                        /* it is done (atomic) */
	pthread_t thread;
	void *run_mem;                  /* its region header, writable */
	struct rs_tsync_result run_res;
	int run_ret;
};

/* Before a first use; never while a sync runs (cap_sync_join first). */
void cap_sync_init(struct cap_sync *c);

/*
 * One sync of the region @region, whose header is mapped writable at
 * @wmem (NULL: not writable here, no sync).  Decides first whether a sync
 * makes sense: rings whose time a VMM converts already (PDF_CLOCK_HOST),
 * no agent attached (PDF_CLOCK_NO_AGENT).  The guest answers when its
 * agent next looks (the Linux agent: at its next wake, at the latest its
 * beat, a second); the wait for a guest that does not answer is bounded
 * (rs_tsync_params_init's wait_ns).  The first successful sync is the
 * file's first point, the latest one its second.  @final: the last one
 * (the end of a recording, a snapshot), whose outcome the summary
 * reports, made before this returns; any other runs in a thread (a
 * running one is collected first, cap_sync_join) and counts once collected
 * (cap_sync_poll, cap_sync_join).  @wmem must stay mapped until then.
 */
void cap_sync_take(struct cap_sync *c, const struct rs_region *region, void *wmem,
		   int final);

/* The sync running in its thread, if any, waited for and counted. */
void cap_sync_join(struct cap_sync *c);

/*
 * Between passes of a recording: a sync that ran in its thread counted
 * once done; a sync as soon as an agent attaches if none succeeded yet (a
 * recording started before the guest's agent), and one every
 * CAP_SYNC_PERIOD seconds after, so that a guest whose agent detaches before
 * the end still has a late point.  Each is an exchange the guest's agent
 * answers (a burst of its CPU), so they are rare: a recording syncs at
 * its start and its end.  Nothing after a sync failed.  Cheap when
 * nothing is due: one clock read.
 */
#define CAP_SYNC_PERIOD 60.0
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
