/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_RECORDER_H
#define RINGSIDE_CAP_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/cap_err.h"
#include "ringside/cap_guest_facts.h"
#include "ringside/cap_host.h"
#include "ringside/cap_pstate.h"
#include "ringside/cap_sync.h"
#include "ringside/cap_tally.h"
#include "ringside/cap_usyms_feed.h"
#include "ringside/gi_kcode.h"
#include "ringside/gi_pstate.h"
#include "ringside/gi_syms.h"
#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * A record session: open the perf.data writer, attach a consumer to every
 * ring, take batches until stopped, complete the file.  Between passes it
 * sleeps until a wake descriptor fires (the rings' doorbells) or the
 * interval runs out.  What happens while it runs reaches the caller
 * through hooks; where it failed and what it counted, through
 * cap_recorder_stats.  The next_output hook rotates files: each is
 * complete on its own (its records and their tally, the host facts of its
 * window, the symbols, the clock).
 *
 *	struct cap_recorder_config c;
 *	struct cap_recorder *r;
 *
 *	cap_recorder_config_init(&c);
 *	c.source = "web1";
 *	c.output = "web1.data";
 *	if (!cap_recorder_new(&r, &c)) {
 *		if (cap_recorder_run(r, region))
 *			...cap_recorder_stats(r)->fail...
 *		cap_recorder_free(r);
 *	}
 */
#define CAP_RECORDER_MAX_WAKE (RS_MAX_RINGS + 2)

/* Why the recording ended. */
enum cap_recorder_end {
	CAP_RECORDER_END_SIGNAL = 1,   /* SIGINT or SIGTERM */
	CAP_RECORDER_END_DURATION,     /* its duration ran out */
	CAP_RECORDER_END_FINISHED,     /* the producer is gone for good */
};

/* Where the source is, as the finished and reopen callbacks say. */
enum cap_recorder_src {
	CAP_RECORDER_HERE = 0,  /* it may write (finished) */
	CAP_RECORDER_GONE = 1,  /* no record can come any more */
	CAP_RECORDER_AWAY = 2,  /* stopped for now with its memory, the region
				 * included, saved (a saved domain): it may
				 * run again */
	CAP_RECORDER_BACK = 3,  /* it runs again (reopen) */
};

struct cap_recorder;

/* Each hook may be NULL; @arg is the hooks' own.  The file hooks speak of
 * (cap_recorder_stats: output, tally, file_tally, host) is the one just
 * completed in file_done, else the current one. */
struct cap_recorder_hooks {
	/* every quarter second while recording (@final 0), and once when it
	 * ends (@final 1) */
	void (*progress)(void *arg, const struct cap_recorder *r, int final);
	/* doorbell descriptor @fd hung up: polling every interval_ms */
	void (*doorbell_lost)(void *arg, const struct cap_recorder *r, int fd);
	/* the guest kernel's code is in the build-id cache (@k says how it
	 * went): the domain may go */
	void (*kcode_cached)(void *arg, const struct cap_recorder *r,
			     const struct gi_kcode *k);
	/* after each pass that did not end the recording: the path of the
	 * next file, or NULL to go on with this one.  The string must live
	 * until the next call.  Only when an output is written. */
	const char *(*next_output)(void *arg, const struct cap_recorder *r);
	/* a file was completed because of next_output */
	void (*file_done)(void *arg, const struct cap_recorder *r);
	/* the source went away for now (finished said CAP_RECORDER_AWAY),
	 * after a last pass over its rings */
	void (*gone_away)(void *arg, const struct cap_recorder *r);
	/* when it runs again and a file is written: the path of the file
	 * for the records from then on (its clock synced anew: one offset
	 * per file; the string must live until the next call).  Without
	 * it, or NULL: the recording ends when the source goes away. */
	const char *(*back_output)(void *arg, const struct cap_recorder *r);
	/* it runs again: every ring reattached (@events: the OR of the
	 * rings' enum rs_reattach_event), the records from here on go to
	 * the stats' output */
	void (*came_back)(void *arg, const struct cap_recorder *r, int events);
	/* NULL: a full disk (ENOSPC, EDQUOT) ends the recording as any
	 * write error does.  Else the recording goes on: this is called to
	 * make room (the caller removes old files), the file is cut back to
	 * its last whole record on disk and completed (file_done, with
	 * salvaged set; what it could not hold is counted in disk_lost), and
	 * the recorder pauses (full): no pass drains the rings, so their
	 * producers count what they drop, until next_output gives the path
	 * of a new file and it opens. */
	void (*disk_full)(void *arg, const struct cap_recorder *r);
	/* NULL: every sleep between passes is interval_ms.  Else asked
	 * before each sleep for its length in milliseconds (an idle
	 * source's recorder backs off): @found is 1 when the pass just made
	 * took something (a record or AUX bytes from any ring), else 0 (no
	 * pass is made while the source is away or the disk full).  A
	 * doorbell or a wake descriptor still ends the sleep at once, and
	 * a duration's end cuts it short. */
	uint32_t (*sleep_ms)(void *arg, const struct cap_recorder *r,
			     int found);
	void *arg;
};

/* What a record session is told; cap_recorder_new keeps a copy. */
struct cap_recorder_config {
	size_t size;               /* sizeof(struct cap_recorder_config) as
				    * the caller knows it: what lies past it
				    * is 0 (cap_recorder_config_init) */
	const char *source;        /* the region, for the caller's words */
	const char *output;        /* NULL: count the records, write no file */
	int argc;                  /* the command line, for the file's header */
	char *const *argv;
	double duration;           /* seconds; 0: until stopped */
	uint32_t interval_ms;      /* the longest sleep between passes (10) */
	int aux_opaque;            /* the AUX areas hold bytes that are not PT
				    * whatever the region's trace mask says */
	int no_pstate;             /* file no records of the process state */
	struct cap_recorder_hooks hooks;
	/* NULL, or asked with finished_arg: enum cap_recorder_src,
	 * CAP_RECORDER_GONE once no record can come any more,
	 * CAP_RECORDER_AWAY while it is saved, else CAP_RECORDER_HERE */
	int (*finished)(void *arg);
	/* NULL (then away is gone), or asked with finished_arg while the
	 * source is away: CAP_RECORDER_BACK when it runs again, its region
	 * opened anew in *@region, mapped writable at *@sync_mem (the old
	 * mapping must stay until the next call or the end);
	 * CAP_RECORDER_AWAY while it is still away; CAP_RECORDER_GONE when
	 * it will not come back; < 0, noted in @e, when it cannot be opened
	 * (the recording fails: CAP_FAIL_ATTACH) */
	int (*reopen)(void *arg, const struct rs_region **region,
		      void **sync_mem, struct cap_err *e);
	/* NULL, or called with finished_arg once a signal or the duration
	 * ends the recording, before the last pass: a producer it stops
	 * there writes nothing that pass could miss */
	void (*stopping)(void *arg);
	void *finished_arg;
	struct gi_syms *syms;      /* the guest kernel's symbols, or NULL;
				    * read again while the guest has not
				    * published them; with them its user
				    * binaries' symbols go into the cache */
	struct gi_kcode *kcode;    /* the guest kernel's code for PT, or NULL:
				    * how it went, at the end */
	const struct gi_kcode_src *kcode_src; /* read and cached early, in a
				    * thread; read at the end when that did
				    * not work */
	struct cap_sync *sync;     /* NULL: no time sync; else one at the start
				    * and one at the end, into the file */
	void *sync_mem;            /* the region, mapped writable */
	struct cap_host *host;     /* NULL, or the host's view of the vCPU
				    * threads: filed at every pass into
				    * each file (cap_host_file) */
};

/* @c zeroed, its size set, the defaults in. */
void cap_recorder_config_init(struct cap_recorder_config *c);

/* What a recording did, valid from cap_recorder_run on (its counters go
 * up while it runs); those of a file are the current file's, or the last
 * one's. */
struct cap_recorder_stats {
	const char *output;        /* the file (config's, then next_output's) */
	uint32_t nr_rings;
	struct cap_failure fail;   /* where cap_recorder_run failed */
	struct cap_tally tally;    /* the records as they were drained */
	struct cap_tally file_tally; /* the file read back: claims checked
				    * against host facts and clock */
	int have_file_tally;
	int readback_err;          /* reading it back failed (pdf_error_str) at
				    * offset readback_at: the file is whole,
				    * the summary the poorer */
	uint64_t readback_at;
	struct pdf_host_facts host; /* what the host observed, as filed */
	struct pdf_writer_stats wstats; /* the writer's (symbols) */
	int syms_late;             /* the symbols came after the start */
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
	/* a full disk (hooks.disk_full): times it filled, files cut back to
	 * what was on disk (salvaged: the last file completed is one) and
	 * lost whole, records drained that no file holds (with, of them, the
	 * LOST records and their counts), paused now */
	uint32_t disk_fulls;
	uint32_t salvaged_files;
	uint32_t disk_files_lost;
	int salvaged;
	struct pdf_writer_part disk_lost;
	int full;
	struct cap_guest_facts guest; /* who the guest says it is, as the
				    * file has it; read again while the
				    * guest has not published it */
	int guest_late;            /* ... it came after the file was opened */
	struct cap_pstate_filed pstate_out; /* the process table at the
				    * file's head (cap_recorder_pstate) */
	struct cap_usyms_feed_stats usyms; /* with syms: user binaries' */
};

/* A session of @c (copied; the strings and what it points to must live
 * as long as the session) into *@rp.  0, -EINVAL (no @c, or a size too
 * small to hold what it must), -ENOMEM. */
int cap_recorder_new(struct cap_recorder **rp,
		     const struct cap_recorder_config *c);

/*
 * Wake on @fd: an eventfd or pipe, read when it fires (@ring >= 0: ring
 * @ring's doorbell, counted per ring), or with @hangup_only a descriptor
 * whose hang-up means the producer is gone (a VMM's control socket).
 * Before cap_recorder_run.  -ENOSPC when full.
 */
int cap_recorder_add_wake(struct cap_recorder *r, int fd, int ring,
			  int hangup_only);

/* Record @region until stopped.  0, or the negative code of the step
 * the stats' fail names (no output file is left of the file it was
 * writing). */
int cap_recorder_run(struct cap_recorder *r, const struct rs_region *region);

/* Its config (interval_ms as used), and what it did so far. */
const struct cap_recorder_config *cap_recorder_config(const struct cap_recorder *r);
const struct cap_recorder_stats *cap_recorder_stats(const struct cap_recorder *r);

/* The guest's processes as the file began (its state table, checked). */
const struct gi_pstate *cap_recorder_pstate(const struct cap_recorder *r);

/* Doorbells of ring @ring read while recording. */
uint64_t cap_recorder_doorbells(const struct cap_recorder *r, uint32_t ring);

/* The consumer's statistics of ring @ring (what its reattaches found), or
 * NULL past the last ring. */
const struct rs_cons_stats *cap_recorder_cons_stats(const struct cap_recorder *r,
						    uint32_t ring);

/* What the host observed on every ring since the recording began, all
 * its files together (the stats' host is the file's), into @h: corruption
 * met, AUX bytes taken and stored, records not written. */
void cap_recorder_host_total(const struct cap_recorder *r,
			     struct pdf_host_facts *h);

/* Bytes the current file holds so far: its records and AUX data. */
uint64_t cap_recorder_file_bytes(const struct cap_recorder *r);

/* Accepts NULL. */
void cap_recorder_free(struct cap_recorder *r);

#endif /* RINGSIDE_CAP_RECORDER_H */
