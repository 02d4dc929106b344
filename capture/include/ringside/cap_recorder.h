/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_RECORDER_H
#define RINGSIDE_CAP_RECORDER_H

#include <stdint.h>

#include "ringside/cap_drain.h"
#include "ringside/cap_err.h"
#include "ringside/cap_guest_facts.h"
#include "ringside/cap_pstate.h"
#include "ringside/cap_stop.h"
#include "ringside/cap_sync.h"
#include "ringside/cap_tally.h"
#include "ringside/cap_usyms_feed.h"
#include "ringside/introspect.h"
#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * A record session: open the perf.data writer, attach a consumer to every
 * ring (drain), take batches until stopped, complete the file.  Between
 * passes it sleeps until a wake descriptor fires (the rings' doorbells) or
 * the interval runs out.  What happens while it runs reaches the caller
 * through hooks; where it failed, through r->fail.  The next_output hook
 * rotates files: each is complete on its own (its records and their
 * tally, the host facts of its window, the symbols, the clock).
 */
#define CAP_RECORDER_MAX_WAKE (RS_MAX_RINGS + 2)

/* Why the recording ended. */
enum cap_recorder_end {
	CAP_RECORDER_END_SIGNAL = 1,   /* SIGINT or SIGTERM */
	CAP_RECORDER_END_DURATION,     /* --duration ran out */
	CAP_RECORDER_END_FINISHED,     /* the producer is gone for good */
};

struct cap_recorder;

/* Each hook may be NULL; @arg is the hooks' own. */
struct cap_recorder_hooks {
	/* every quarter second while recording (@final 0), and once when it
	 * ends (@final 1) */
	void (*progress)(void *arg, const struct cap_recorder *r, int final);
	/* doorbell descriptor @fd hung up: polling every interval_ms */
	void (*doorbell_lost)(void *arg, const struct cap_recorder *r, int fd);
	/* the guest kernel's code is in the build-id cache (r->kread.g):
	 * the domain may go */
	void (*kcode_cached)(void *arg, const struct cap_recorder *r);
	/* after each pass that did not end the recording: the path of the
	 * next file, or NULL to go on with this one.  The string must live
	 * until the next call.  Only when an output is written. */
	const char *(*next_output)(void *arg, const struct cap_recorder *r);
	/* a file was completed because of next_output: r->output, r->tally,
	 * r->file_tally, r->host are that file's */
	void (*file_done)(void *arg, const struct cap_recorder *r);
	/* the source went away for now (finished said CAP_RECORDER_AWAY), after
	 * a last pass over its rings */
	void (*gone_away)(void *arg, const struct cap_recorder *r);
	/* when it runs again and a file is written: the path of the file
	 * for the records from then on (its clock synced anew: one offset
	 * per file; the string must live until the next call).  Without
	 * it, or NULL: the recording ends when the source goes away. */
	const char *(*back_output)(void *arg, const struct cap_recorder *r);
	/* it runs again: every ring reattached (@events: the OR of the
	 * rings' enum rs_reattach_event), the records from here on go to
	 * r->output */
	void (*came_back)(void *arg, const struct cap_recorder *r, int events);
	/* NULL: a full disk (ENOSPC, EDQUOT) ends the recording as any
	 * write error does.  Else the recording goes on: this is called to
	 * make room (the caller removes old files), the file is cut back to
	 * its last whole record on disk and completed (file_done, with
	 * r->salvaged set; what it could not hold is counted in
	 * r->disk_lost), and the recorder pauses (r->full): no pass drains
	 * the rings, so their producers count what they drop, until
	 * next_output gives the path of a new file and it opens. */
	void (*disk_full)(void *arg, const struct cap_recorder *r);
	void *arg;
};


/* Where the source is, as the finished and reopen callbacks say. */
enum cap_recorder_src {
	CAP_RECORDER_HERE = 0,        /* it may write (finished) */
	CAP_RECORDER_GONE = 1,        /* no record can come any more */
	CAP_RECORDER_AWAY = 2,        /* stopped for now with its memory, the
				   * region included, saved (a saved
				   * domain): it may run again */
	CAP_RECORDER_BACK = 3,        /* it runs again (reopen) */
};

struct cap_recorder {
	/* set by the caller (cap_recorder_init gives the defaults) */
	const char *source;        /* the region, for the caller's words */
	const char *output;        /* NULL: count the records, write no file */
	int argc;                  /* the command line, for the file's header */
	char *const *argv;
	double duration;           /* 0: until stopped */
	uint32_t interval_ms;      /* the longest sleep between passes */
	int aux_opaque;            /* the AUX areas hold bytes that are not PT
				    * whatever the region's trace mask says */
	struct cap_recorder_hooks hooks;
	int (*finished)(void *arg);/* enum cap_recorder_src: CAP_RECORDER_GONE once
				    * no record can come any more,
				    * CAP_RECORDER_AWAY while it is saved, else
				    * CAP_RECORDER_HERE (0) */
	void *finished_arg;
	/* NULL (then away is gone), or asked with finished_arg while the
	 * source is away: CAP_RECORDER_BACK when it runs again, its region
	 * opened anew in *@region, mapped writable at *@sync_mem (the old
	 * mapping must stay until the next call or the end);
	 * CAP_RECORDER_AWAY while it is still away; CAP_RECORDER_GONE when it will
	 * not come back; < 0, noted in @e, when it cannot be opened (the
	 * recording fails: CAP_FAIL_ATTACH) */
	int (*reopen)(void *arg, const struct rs_region **region,
		      void **sync_mem, struct cap_err *e);
	/* NULL, or called with finished_arg once a signal or --duration
	 * ends the recording, before the last pass: a producer it stops
	 * there writes nothing that pass could miss */
	void (*stopping)(void *arg);
	struct gi_syms *syms;        /* the guest kernel's symbols, or NULL;
				    * read again while the guest has not
				    * published them */
	struct cap_usyms_feed usyms;   /* with syms: its user binaries' symbols */
	struct gi_kcode *kcode;      /* the guest kernel's code for PT, or NULL */
	const struct gi_kcode_src *kcode_src; /* read and cached early, in a
				    * thread (gi_kcode_reader); read at the
				    * end when that did not work */
	struct gi_kcode_reader kread;
	int kread_failed, kread_said;
	struct cap_sync *sync;        /* NULL: no time sync; else one at the start
				    * and one at the end, into the file */
	void *sync_mem;            /* the region, mapped writable */
	const struct rs_region *region; /* set by cap_recorder_run */
	/* what it wakes on; see cap_recorder_add_wake */
	struct cap_stop_fd wake[CAP_RECORDER_MAX_WAKE];
	int wake_ring[CAP_RECORDER_MAX_WAKE];
	unsigned nr_wake;
	/* results, valid after cap_recorder_run until cap_recorder_fini; those of
	 * the file are the last file's */
	struct cap_failure fail;   /* where cap_recorder_run failed */
	struct cap_tally tally;
	struct cap_drain drain;
	double seconds;
	uint64_t passes;
	uint64_t woken;            /* passes that a wake descriptor started */
	uint64_t rechecks;         /* sleeps skipped: a doorbell may have been
				    * suppressed during the pass */
	uint32_t files;            /* files opened, rotations included */
	uint32_t aways;            /* times the source went away */
	uint32_t backs;            /* ... and came back, every ring reattached */
	int away;                  /* away now (at the end: it ended away) */
	int back_events;           /* the OR of every reattach's events */
	enum cap_recorder_end end;
	struct pdf_host_facts host;   /* what the host observed, as filed */
	struct cap_tally file_tally;      /* the file read back: claims checked
				       * against host facts and clock */
	int have_file_tally;
	int readback_err;             /* reading it back failed (pdf_error_str)
				       * at offset readback_at: the file is
				       * whole, the summary the poorer */
	uint64_t readback_at;
	struct pdf_writer_stats wstats; /* the writer's (symbols) */
	int syms_late;             /* the symbols came after the start */
	/* a full disk (hooks.disk_full): times it filled, files cut back
	 * to what was on disk (r->salvaged: the last file completed is one)
	 * and lost whole, records drained that no file holds (with, of them,
	 * the LOST records and their counts), paused now */
	uint32_t disk_fulls;
	uint32_t salvaged_files;
	uint32_t disk_files_lost;
	int salvaged;
	struct pdf_writer_part disk_lost;
	int full;
	struct cap_guest_facts guest;  /* who the guest says it is, as the last
				    * file has it; read again while the
				    * guest has not published it */
	int guest_late;            /* ... it came after that file was opened */
	int no_pstate;             /* file no records of the process state */
	struct gi_pstate pstate;     /* the guest's processes as each file
				    * began, filed before its first timed
				    * record (cap_pstate_file) */
	struct cap_pstate_filed cap_pstate_filed; /* ... of the last file */
	int pstate_due;            /* the current file's are not filed yet */
	/* private */
	struct pdf_writer *w;      /* the current file's */
	uint64_t file_start_ns;
	struct pdf_host_facts base;   /* the counters when it was opened */
};

void cap_recorder_init(struct cap_recorder *r, const char *source);

/*
 * Wake on @fd: an eventfd or pipe, read when it fires (@ring >= 0: ring
 * @ring's doorbell, counted per ring), or with @hangup_only a descriptor
 * whose hang-up means the producer is gone (a VMM's control socket).
 * -ENOSPC when full.
 */
int cap_recorder_add_wake(struct cap_recorder *r, int fd, int ring, int hangup_only);

/* Record @region until stopped.  0, or the negative code of the step
 * r->fail names (no output file is left of the file it was writing). */
int cap_recorder_run(struct cap_recorder *r, const struct rs_region *region);

/* Doorbells of ring @ring read while recording. */
uint64_t cap_recorder_doorbells(const struct cap_recorder *r, uint32_t ring);

void cap_recorder_fini(struct cap_recorder *r);

#endif /* RINGSIDE_CAP_RECORDER_H */
