/* SPDX-License-Identifier: MIT */
/*
 * A recording session, shared by `record` and `run`: open the perf.data
 * writer, attach a consumer to every ring (drain.h), take batches until
 * stopped, complete the file.  Between passes it sleeps until a wake
 * descriptor fires (the rings' doorbells) or the interval runs out.  Part
 * of the command layer: it prints the progress line and its errors.
 */
#ifndef RINGSIDE_CLI_RECORDER_H
#define RINGSIDE_CLI_RECORDER_H

#include <stdint.h>

#include "clock_sync.h"
#include "drain.h"
#include "guest_kcode.h"
#include "guest_syms.h"
#include "kcode_reader.h"
#include "stop.h"
#include "tally.h"

#define RECORDER_MAX_WAKE (RS_MAX_RINGS + 2)

/* Why the recording ended. */
enum recorder_end {
	RECORDER_END_SIGNAL = 1,   /* SIGINT or SIGTERM */
	RECORDER_END_DURATION,     /* --duration ran out */
	RECORDER_END_FINISHED,     /* the producer is gone for good */
};

struct recorder {
	/* set by the caller (recorder_init gives the defaults) */
	const char *cmd;           /* for messages */
	const char *source;        /* the region, for messages */
	const char *output;        /* NULL: count the records, write no file */
	double duration;           /* 0: until stopped */
	uint32_t interval_ms;      /* the longest sleep between passes */
	int quiet;                 /* no progress line */
	int aux_opaque;            /* the AUX areas hold bytes that are not PT
				    * whatever the region's trace mask says */
	int (*finished)(void *arg);/* 1 once no record can come any more */
	void *finished_arg;
	/* NULL, or called with finished_arg once a signal or --duration
	 * ends the recording, before the last pass: a producer it stops
	 * there writes nothing that pass could miss */
	void (*stopping)(void *arg);
	struct gsyms *syms;        /* the guest kernel's symbols, or NULL;
				    * read again while the guest has not
				    * published them */
	struct gkcode *kcode;      /* the guest kernel's code for PT, or NULL */
	const struct gkcode_src *kcode_src; /* read and cached early, in a
				    * thread (kcode_reader.h); read at the
				    * end when that did not work */
	struct kcode_reader kread;
	int kread_failed, kread_said;
	struct csync *sync;        /* NULL: no time sync; else one at the start
				    * and one at the end, into the file */
	void *sync_mem;            /* the region, mapped writable */
	const struct rs_region *region; /* set by recorder_run */
	/* what it wakes on; see recorder_add_wake */
	struct stop_fd wake[RECORDER_MAX_WAKE];
	int wake_ring[RECORDER_MAX_WAKE];
	unsigned nr_wake;
	/* results, valid after recorder_run until recorder_fini */
	struct tally tally;
	struct drain drain;
	double seconds;
	uint64_t passes;
	uint64_t woken;            /* passes that a wake descriptor started */
	enum recorder_end end;
	struct pdf_host_facts host;   /* what the host observed, as filed */
	struct tally file_tally;      /* the file read back: claims checked
				       * against host facts and clock */
	int have_file_tally;
	struct pdf_writer_stats wstats; /* the writer's (symbols) */
	int syms_late;             /* the symbols came after the start */
};

void recorder_init(struct recorder *r, const char *cmd, const char *source);

/*
 * Wake on @fd: an eventfd or pipe, read when it fires (@ring >= 0: ring
 * @ring's doorbell, counted per ring), or with @hangup_only a descriptor
 * whose hang-up means the producer is gone (a VMM's control socket).
 * -ENOSPC when full.
 */
int recorder_add_wake(struct recorder *r, int fd, int ring, int hangup_only);

/* Record @region until stopped.  Returns an enum cli_exit value; on
 * failure the message is printed and no output file is left. */
int recorder_run(struct recorder *r, const struct rs_region *region);

/* Corruption the host met and claims flagged, on stderr (report_warn),
 * whatever r->quiet says; the file's tally when it was read back.  1 when
 * there were any: the command exits CLI_EXIT_CORRUPT. */
int recorder_warn(const struct recorder *r);

/* Doorbells of ring @ring read while recording. */
uint64_t recorder_doorbells(const struct recorder *r, uint32_t ring);

void recorder_fini(struct recorder *r);

#endif /* RINGSIDE_CLI_RECORDER_H */
