/* SPDX-License-Identifier: MIT */
/*
 * ringside-hostview: the recorder.  It opens per-thread perf events
 * (pid = the thread, cpu = -1) on a VMM's threads: a dummy software event
 * with context-switch records, and, where asked, kvm tracepoints, each
 * thread's events writing into that thread's own buffer.  Two modes:
 *
 * - overwrite (the flight recorder): write_backward buffers mapped read
 *   only; the kernel overwrites the oldest records and never stops; a
 *   read pauses the buffer, copies it, resumes it, then decodes the copy;
 * - forward (continuous): the reader drains from its tail; a full buffer
 *   drops new records, which the kernel counts in a LOST record.
 *
 * Threads come and go (vCPU hot-unplug, the VMM's exit): one that ends
 * is counted and its last records kept for the next read, never an error
 * that stops the others.  Every loss is counted: the kernel's LOST
 * records, bytes overwritten before a read, walks stopped at an
 * impossible record.  Bounded: threads, fds, bytes mapped, loop counts.
 *
 * One thread calls a recorder's functions at a time.
 */
#ifndef RINGSIDE_HV_REC_H
#define RINGSIDE_HV_REC_H

#include <stdint.h>

#include "ringside/hv_types.h"

enum hv_mode {
	HV_MODE_OVERWRITE = 0,  /* flight recorder: write_backward, read only */
	HV_MODE_FORWARD = 1,    /* continuous: drained from the tail */
};

#define HV_PAGES_DEFAULT     16u     /* 64 KiB of records per thread */
#define HV_THREADS_DEFAULT   2048u
#define HV_THREADS_MAX       65536u
#define HV_PAGES_MAX         4096u   /* 16 MiB per buffer */

struct hv_rec_opts {
	uint32_t mode;          /* enum hv_mode */
	uint32_t data_pages;    /* per thread, a power of two; 0: default */
	uint32_t exit_pages;    /* 0: kvm events share the thread's buffer;
				 * else their own buffer of this many pages
				 * (a power of two), so that an exit storm
				 * does not push the switches out of a
				 * flight recorder */
	uint32_t sources;       /* HV_SRC_BIT()s; 0: HV_SRC_DEFAULT.
				 * HV_SRC_SWITCH is always on */
	uint32_t kinds;         /* which threads hv_rec_follow takes;
				 * 0: HV_KIND_DEFAULT */
	uint32_t max_threads;   /* 0: HV_THREADS_DEFAULT */
	const char *tracefs;    /* NULL: found (hv_tp_tracefs_find) */
	const char *proc;       /* NULL: "/proc" */
};

/* ---- hv_probe (src/hv_probe.c): what this host allows ---- */
struct hv_probe {
	int perf;               /* 0: switch records on @pid can be had;
				 * else why not: HV_ERR(hve_perm),
				 * HV_ERR(hve_no_perf), -errno */
	int src[HV_SRC_MAX];    /* per source: 0 usable, else why not
				 * (HV_ERR(hve_no_tracefs), HV_ERR(hve_no_tp),
				 * HV_ERR(hve_perm), ...) */
	uint32_t usable;        /* HV_SRC_BIT()s of the usable sources */
	uint32_t paranoid;      /* kernel.perf_event_paranoid + 10 (it may
				 * be -1); 0: unreadable */
	char kvm[16];           /* the module that runs guests: "kvm_intel",
				 * "kvm_amd", "kvm_pvm"; "" none loaded */
	uint32_t exits_seen;    /* 0: that module's guest exits bypass the
				 * kvm_exit tracepoint (kvm_pvm's switcher):
				 * only exits to the VMM can be recorded */
	uint32_t reserved;
};

/*
 * Tries each of @o's sources (all of them when @o is NULL or its sources
 * is 0) on thread @pid (0: the caller) without recording anything.
 * Returns 0 when switch records can be had, else probe->perf: the caller
 * then records the guest side alone and says why (hv_err_str).  A source
 * that cannot be had is in @out, never a failure.
 */
int hv_probe(const struct hv_rec_opts *o, int32_t pid, struct hv_probe *out);

/* ---- hv_rec (src/hv_rec.c) ---- */
struct hv_rec;

/*
 * A recorder with @o (NULL: every default), holding no thread yet.  The
 * tracepoints its sources need are looked up now.  0;
 * HV_ERR(hve_invalid) for pages that are no power of two or too many;
 * HV_ERR(hve_no_tracefs), HV_ERR(hve_no_tp), HV_ERR(hve_format) for a
 * kvm source this host lacks (hv_probe says which, ahead); -ENOMEM.
 */
int hv_rec_new(const struct hv_rec_opts *o, struct hv_rec **out);

/* Closes every event and unmaps every buffer.  NULL is fine. */
void hv_rec_free(struct hv_rec *r);

/*
 * Records one thread.  0; -ESRCH when it ended before its events were
 * open (counted as gone); HV_ERR(hve_perm) or HV_ERR(hve_mlock) when this
 * host refuses; HV_ERR(hve_too_many); -EEXIST when it is recorded
 * already; -errno (-EMFILE: RLIMIT_NOFILE).  Nothing of a failed thread
 * is kept open.
 */
int hv_rec_add(struct hv_rec *r, const struct hv_thread_id *t);

/*
 * Follows process @pid: records its threads of @o->kinds now, and those
 * that hv_rec_refresh finds later.  Returns how many were added, or the
 * first failure that stopped every thread (HV_ERR(hve_perm), -ESRCH);
 * threads that failed alone are counted (hv_rec_totals).
 */
int hv_rec_follow(struct hv_rec *r, int32_t pid);

struct hv_refresh {
	uint32_t added;         /* threads new since the last look */
	uint32_t gone;          /* threads that ended since */
	uint32_t failed;        /* new threads that could not be opened */
	uint32_t process_gone;  /* 1: the followed process has ended */
	int error;              /* the first failure of a new thread */
	int reserved;
};

/*
 * Looks at the followed process's threads again: opens the new ones,
 * marks those that ended (or whose tid now names another thread) as
 * gone.  A recorder also learns of both from its records (EXIT, FORK):
 * hv_rec_read says when a refresh is due.  0 (a process that ended is
 * @out->process_gone, not a failure); HV_ERR(hve_invalid) when nothing
 * is followed.
 */
int hv_rec_refresh(struct hv_rec *r, struct hv_refresh *out);

/* Each event in time order per thread, with the thread it concerns;
 * returns 0 to go on, anything else to stop the read (returned as is). */
typedef int (*hv_ev_fn)(void *arg, const struct hv_thread_id *t,
			const struct hv_ev *ev);

#define HV_READ_NEW  0u  /* what was written since the last read */
#define HV_READ_ALL  1u  /* overwrite mode: all the buffers hold (a
			  * capture); forward mode: as HV_READ_NEW */

/*
 * Reads every thread's buffers once, each thread's events oldest first.
 * A thread that has gone is read one last time, then its buffers are
 * released (its tallies stay).  Returns how many events were handed to
 * @fn, HV_REFRESH_DUE set in the return when a FORK or EXIT record asks
 * for hv_rec_refresh; @fn's nonzero value; -errno.  @fn may be NULL
 * (tallies only).
 */
#define HV_REFRESH_DUE (1 << 30)
int hv_rec_read(struct hv_rec *r, uint32_t how, hv_ev_fn fn, void *arg);

/* What was recorded of one thread; tallies are host facts. */
struct hv_thread_stats {
	struct hv_thread_id id;
	uint32_t sources;       /* HV_SRC_BIT()s open on it */
	uint32_t gone;          /* 1: it ended */
	uint64_t gone_time;     /* CLOCK_MONOTONIC ns: its EXIT record's
				 * time, else when it was found gone */
	uint64_t events;        /* decoded and handed on */
	uint64_t bytes;         /* of the records read */
	uint64_t lost;          /* the kernel's LOST counts: forward, a full
				 * buffer; overwrite, written while a read
				 * had it paused */
	uint64_t overwritten;   /* overwrite mode: bytes written since the
				 * last HV_READ_NEW that it could not take
				 * (written over first); with every read an
				 * HV_READ_NEW, bytes read + overwritten ==
				 * written */
	uint64_t written;       /* bytes the kernel wrote into its buffers */
	uint64_t corrupt;       /* walks stopped at an impossible record, and
				 * records that did not decode */
	uint64_t other;         /* records of a type not decoded */
	uint64_t mem;           /* bytes mapped for it now */
};

/* Threads the recorder knows (live, and gone ones whose tallies it
 * keeps). */
uint32_t hv_rec_count(const struct hv_rec *r);

/* Thread @i's (0 <= i < hv_rec_count).  0; HV_ERR(hve_invalid). */
int hv_rec_stats(const struct hv_rec *r, uint32_t i, struct hv_thread_stats *out);

struct hv_rec_totals {
	uint32_t threads;       /* known now */
	uint32_t live;          /* recorded now */
	uint64_t added;         /* ever */
	uint64_t gone;          /* ever: ended (counted, never an error) */
	uint64_t failed;        /* threads that could not be opened */
	uint64_t forgotten;     /* gone threads whose entries were reused
				 * (their tallies are in the sums below) */
	uint64_t events, lost, overwritten, corrupt;
	uint64_t mem;           /* bytes mapped now */
	uint32_t fds;           /* descriptors open now */
	uint32_t reserved;
};
void hv_rec_totals(const struct hv_rec *r, struct hv_rec_totals *out);

/*
 * For a caller that sleeps until a forward buffer passes half full, or a
 * thread ends (POLLHUP): one pollfd per buffer into @fds (events POLLIN),
 * at most @max.  Returns how many.
 */
struct pollfd;
uint32_t hv_rec_pollfds(const struct hv_rec *r, struct pollfd *fds, uint32_t max);

#endif
