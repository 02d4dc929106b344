/* SPDX-License-Identifier: MIT */
/*
 * ringside-hostview: analysis.  A track follows one thread's events in
 * time order and cuts its time into intervals: running (on which host
 * CPU), runnable and not running (preempted: steal), blocked (sleeping,
 * stopped or ending), and unknown (before its first switch record, and
 * after a loss until the next one).  It counts switches, preemptions,
 * migrations and exits by reason, and keeps the longest preemptions.
 *
 * Only what the records prove is counted: time before the first switch
 * record, or between a LOST record and the next switch record, is
 * unknown, never running or blocked.
 */
#ifndef RINGSIDE_HV_TRACK_H
#define RINGSIDE_HV_TRACK_H

#include <stdint.h>

#include "ringside/hv_types.h"

enum hv_state {
	HV_ST_UNKNOWN = 0,
	HV_ST_RUNNING,       /* on @cpu */
	HV_ST_RUNNABLE,      /* preempted on @cpu, waiting for a CPU */
	HV_ST_BLOCKED,       /* switched out not runnable: sleeping, stopped */
	HV_ST_GONE,          /* ended */
	HV_ST_MAX
};

/* A state's name ("running", "runnable", ...). */
const char *hv_track_state_name(uint32_t state);

struct hv_interval {
	uint64_t start;      /* ns, CLOCK_MONOTONIC */
	uint64_t end;
	uint32_t state;      /* enum hv_state */
	uint32_t cpu;        /* RUNNING: where; RUNNABLE: where it was
			      * preempted; else the last CPU it ran on
			      * (UINT32_MAX: none yet) */
	uint32_t open;       /* 1: still so when the track ended */
	uint32_t reserved;
};

/* Each interval as the track closes it; returns 0 (any other value is
 * handed back by hv_track_feed and hv_track_finish). */
typedef int (*hv_interval_fn)(void *arg, const struct hv_interval *iv);

struct hv_preempt {
	uint64_t start;      /* switched out, runnable */
	uint64_t ns;         /* until switched in (or the track's end) */
	uint32_t cpu_out;    /* preempted on */
	uint32_t cpu_in;     /* ran again on (UINT32_MAX: open) */
};

#define HV_TOP 8             /* longest preemptions kept */
#define HV_REASONS 48        /* distinct exit reasons counted by name */

struct hv_reason_count {
	uint32_t type;       /* HV_EV_KVM_EXIT or HV_EV_KVM_UEXIT */
	uint32_t isa;
	uint32_t reason;
	uint32_t reserved;
	uint64_t count;
	uint64_t ns;         /* KVM_EXIT with KVM_ENTRY recorded: time from
			      * each exit to the next entry */
};

struct hv_track {
	/* totals, ns: closed intervals, and the open one at finish */
	uint64_t state_ns[HV_ST_MAX];
	uint64_t first, last;        /* times of the first and last event */
	uint64_t switches_in;
	uint64_t preempts;           /* switched out runnable */
	uint64_t blocks;             /* switched out not runnable */
	uint64_t migrations;         /* ran on another CPU than last time */
	uint64_t migrate_events;     /* HV_EV_MIGRATE samples */
	uint64_t exits;              /* into KVM */
	uint64_t uexits;             /* to the VMM */
	uint64_t lost;               /* records the kernel dropped */
	uint64_t out_of_order;       /* events older than one before: skipped */
	uint64_t unmatched;          /* a switch that its state cannot follow
				      * (in while running, out while out) */
	uint64_t reasons_other;      /* exits past HV_REASONS distinct ones */
	struct hv_preempt top[HV_TOP];   /* longest first */
	uint32_t ntop;
	uint32_t nreasons;
	struct hv_reason_count reasons[HV_REASONS];
	/* private */
	uint32_t state, cpu, last_cpu, exit_slot;
	uint64_t since, exit_time;
	uint32_t in_exit, ended, started, reserved;
	hv_interval_fn fn;
	void *arg;
};

/* Starts a track; @fn (may be NULL) gets each interval. */
void hv_track_init(struct hv_track *t, hv_interval_fn fn, void *arg);

/*
 * One event of the thread, in time order.  An event older than the last
 * one is counted (out_of_order) and skipped.  0, @fn's nonzero value, or
 * HV_ERR(hve_invalid).
 */
int hv_track_feed(struct hv_track *t, const struct hv_ev *ev);

/*
 * Ends the track at @end (ns; 0: its last event): the open interval is
 * closed there and counted (open = 1), an open preemption enters the
 * longest ones.  Feeding after finish is HV_ERR(hve_invalid).  0, @fn's
 * value.
 */
int hv_track_finish(struct hv_track *t, uint64_t end);

/* Steal: the time it was runnable and not running, in ns. */
static inline uint64_t hv_track_steal(const struct hv_track *t)
{
	return t->state_ns[HV_ST_RUNNABLE];
}

/*
 * The name of an exit reason: kvm_exit's by @isa (VMX basic exit
 * reasons, SVM exit codes), kvm_userspace_exit's KVM_EXIT_* names
 * (@type HV_EV_KVM_UEXIT).  NULL when the table has none: the caller
 * prints the number.
 */
const char *hv_name_exit(uint32_t type, uint32_t isa, uint32_t reason);

#endif
