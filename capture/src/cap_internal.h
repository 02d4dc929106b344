/* SPDX-License-Identifier: MIT */
/*
 * What only the capture library uses: the drain under a recorder, the
 * user symbols fed to a writer, a record session's state and its files,
 * the VMM connection's fields, a region file's own open file
 * description.  Not installed, not for callers; the
 * unit tests of these modules include it.
 */
#ifndef RINGSIDE_CAP_INTERNAL_H
#define RINGSIDE_CAP_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ringside/capture.h"

/* A session's config @src into @dst (@size bytes, the library's struct):
 * as much as the caller's struct holds (its size field, the first
 * member), the rest 0, the size set to the library's.  0, or -EINVAL
 * when the caller's holds less than @min bytes. */
static inline int cap_config_copy(void *dst, size_t size, const void *src,
				  size_t min)
{
	size_t given;

	if (!src)
		return -EINVAL;
	memcpy(&given, src, sizeof(given));
	if (given < min)
		return -EINVAL;
	memset(dst, 0, size);
	memcpy(dst, src, given < size ? given : size);
	memcpy(dst, &size, sizeof(size));
	return 0;
}

/* ---- cap_drain (cap_drain.c) ---- */
/*
 * Draining every ring of a region into a perf.data writer: one consumer per
 * ring; a pass takes one batch from each ring's data area and AUX area.
 */

struct cap_drain;

struct cap_drain_ring {
	struct cap_drain *drain;
	struct rs_consumer *cons;
	struct pdf_rrec_clock clock;
	uint32_t index;
	int has_aux;              /* an AUX area in normal mode */
	uint64_t data_size;       /* the host's layout */
	uint64_t aux_size;
	uint64_t aux_bytes;       /* AUX bytes drained */
	uint64_t aux_stored;      /* of them, in the file */
	uint64_t too_big;         /* records perf.data cannot carry */
	/* The first part of a read that wraps, written with the second. */
	const void *held;
	uint64_t held_len, held_pos;
	/* What the ring held at the attach (cap_drain_init): bytes of it still
	 * to come; the first record after it is yet to come */
	uint64_t early_left;
	int early_next;
	struct pdf_host_ring early;  /* its early_* words only */
	/* Records without a time of their own before the ring's first timed
	 * one (since the attach): kept here, filed under its time. */
	uint8_t *untimed;
	uint64_t untimed_len;
	int timed;                /* the ring had a timed record */
};

struct cap_drain {
	struct pdf_writer *writer;
	struct cap_tally *tally;      /* of what went into the file */
	uint64_t sample_type;
	uint32_t nr_rings;
	int write_err;            /* the writer's (pdf_error_str): ends the drain */
	int pass_aux;             /* the last pass took AUX bytes */
	/* one per ring of the region (nr_rings of them in use), allocated
	 * for its count, not for RS_MAX_RINGS: a recorder's memory follows
	 * its rings */
	struct cap_drain_ring *ring;
};

/*
 * Attach a consumer to every ring of @region; records go to @w, or are only
 * counted in @t when @w is NULL.  Times are converted to ns where the
 * region publishes how (pdf_rrec_clock_init).  0, or the ring library's
 * -rse_* (rs_error_str): -rse_mode when a data ring is in overwrite mode
 * (snapshot it instead).
 */
int cap_drain_init(struct cap_drain *d, const struct rs_region *region,
		   uint64_t sample_type, struct pdf_writer *w, struct cap_tally *t);

/* One pass over all rings.  Returns records written, or a negative code
 * noted in @e (cap_err.h): the writer's (pdf_error_str) or the ring
 * library's (rs_error_str). */
int cap_drain_pass(struct cap_drain *d, struct cap_err *e);

/* Consumer statistics of ring @i (corruption counts, reattaches). */
const struct rs_cons_stats *cap_drain_cons_stats(const struct cap_drain *d, uint32_t i);

/* Event suppression (docs/abi.md): before a sleep on the doorbells, every
 * ring's consumer says it is about to sleep and looks at its heads once
 * more.  1 when a doorbell may have been skipped on some ring while the
 * pass drained (drain again instead of sleeping), 0: sleep. */
int cap_drain_sleep_prepare(struct cap_drain *d);

/* Awake again: every ring's consumer says it polls (its doorbells are
 * skipped until the next cap_drain_sleep_prepare). */
void cap_drain_awake(struct cap_drain *d);

/*
 * Go on draining every ring from @region, a new mapping of the region
 * restored under the drain (a saved domain restored: QEMU wrote its saved
 * bytes into a new region file): rs_consumer_reattach on each ring, the
 * positions kept, nothing delivered twice, what cannot be known counted
 * in each ring's consumer statistics.  The old mapping may go once this
 * returns.  The OR of the rings' enum rs_reattach_event, or the ring
 * library's -rse_* (rs_error_str): -rse_geometry when @region's rings are
 * not those drained (nothing changed then).
 */
int cap_drain_reattach(struct cap_drain *d, const struct rs_region *region);

/* The records kept for want of a time (no timed record after them yet)
 * into the file under their ring's last time: before the file is
 * completed.  0, or the writer's error noted in @e. */
int cap_drain_flush(struct cap_drain *d, struct cap_err *e);

/* What the host observed on every ring so far, into @h (kind, times and
 * the AUX bytes stored are the caller's). */
void cap_drain_host_facts(const struct cap_drain *d, struct pdf_host_facts *h);

/* The bounds the live tally checks claims against: those of a drain
 * that attached at @start_ns (host CLOCK_MONOTONIC). */
void cap_drain_bounds(const struct cap_drain *d, uint64_t start_ns,
		      struct cap_tally_bounds *b);

void cap_drain_fini(struct cap_drain *d);

/* Zero @h's header and its first @n ring entries: the memory a
 * recorder touches follows its rings, not RS_MAX_RINGS.  The entries
 * past @n must be zero already (a calloc'd recorder's, whose drain
 * never has more rings than @n) or never read (past h->nr_rings). */
static inline void cap_host_facts_clear(struct pdf_host_facts *h, uint32_t n)
{
	if (n > RS_MAX_RINGS)
		n = RS_MAX_RINGS;
	memset(h, 0, offsetof(struct pdf_host_facts, ring) +
		     (size_t)n * sizeof(h->ring[0]));
}

/* cap_tally_init for a tally whose entries past @nr_rings are zero
 * already (a calloc'd recorder's, started again for each file): only
 * what it uses is touched. */
void cap_tally_init_used(struct cap_tally *t, uint32_t nr_rings,
			 uint64_t sample_type);

/* ---- cap_usyms_feed (cap_usyms_feed.c) ---- */
struct cap_usyms_feed {
	struct gi_usyms g;        /* the last read */
	uint32_t given;           /* of its bins, given to the current writer */
};

/* A new writer: every entry is given again. */
void cap_usyms_feed_restart(struct cap_usyms_feed *f);
/* Read @region's table and give @w the new entries; what came of it into
 * @st.  0, -ENOMEM, -EINVAL. */
int cap_usyms_feed_pass(struct cap_usyms_feed *f, struct cap_usyms_feed_stats *st,
			const struct rs_region *region, struct pdf_writer *w);
/* Give @w every entry of @g, read before (a snapshot's copy). */
void cap_usyms_feed_give(struct cap_usyms_feed_stats *st,
			 const struct gi_usyms *g, struct pdf_writer *w);
void cap_usyms_feed_fini(struct cap_usyms_feed *f);

/* ---- cap_recorder (cap_recorder.c, cap_recorder_file.c) ---- */
/*
 * A record session: the session and its loop over the rings
 * (cap_recorder.c), the files it writes (cap_recorder_file.c).
 */
struct cap_recorder {
	struct cap_recorder_config c;
	struct cap_recorder_stats st;
	/* what it wakes on (cap_recorder_add_wake) */
	struct cap_stop_fd wake[CAP_RECORDER_MAX_WAKE];
	int wake_ring[CAP_RECORDER_MAX_WAKE];
	unsigned nr_wake;
	unsigned nr_bells;         /* of them, rings' doorbells (ring >= 0) */
	const struct rs_region *region; /* the source's, as it is now */
	void *sync_mem;            /* its mapping, writable */
	struct cap_drain drain;
	struct cap_usyms_feed usyms;
	struct gi_kcode_reader kread;
	int kread_failed, kread_said;
	struct gi_pstate pstate;   /* the guest's processes as each file
				    * began, filed before its first timed
				    * record (cap_pstate_file) */
	int pstate_due;            /* the current file's are not filed yet */
	struct pdf_writer *w;      /* the current file's */
	uint64_t file_start_ns;
	struct pdf_host_facts base; /* the counters when it was opened */
	/* when the loop last looked for what the guest published late
	 * (cap_recorder_file_feed) */
	double last_syms, last_guest, last_usyms;
};

/* A failure the caller will word: what failed, the code and whose. */
static inline int cap_recorder_fail(struct cap_recorder *r, enum cap_fail what,
				    int err, cap_err_fn str)
{
	r->st.fail.what = what;
	cap_err_note(&r->st.fail.e, err, str);
	return err;
}

/* The first file, r->st.output (if any), for the records from now on: 0,
 * or the writer's error (CAP_FAIL_OPEN).  A full disk the caller lives
 * through (hooks.disk_full) pauses the recording instead (r->st.full). */
int cap_recorder_file_open(struct cap_recorder *r, const struct rs_region *region);

/* After a drain pass (at @now, cap_time_now): what the current file gets
 * besides the rings' records, each when due: the process table, the
 * kernel's symbols and the guest's facts published late, the user
 * symbols.  0, or the writer's error noted in @e. */
int cap_recorder_file_feed(struct cap_recorder *r, const struct rs_region *region,
			   double now, struct cap_err *e);

/* The kernel's code read into the cache in a thread, as soon as the
 * current file has the kernel's symbols (a PT region of a domain). */
void cap_recorder_file_kcode(struct cap_recorder *r, const struct rs_region *region);

/* 1 when @err is a full disk the caller asked to live through. */
int cap_recorder_file_full(const struct cap_recorder *r, int err);

/* A write of the current file failed on a full disk: the file cut back
 * and completed, the recording paused (r->st.full). */
void cap_recorder_file_pause(struct cap_recorder *r, const struct rs_region *region);

/* The caller's next file @path: the current one completed, or a paused
 * recording resumed.  0, or the failure that ends the recording. */
int cap_recorder_file_next(struct cap_recorder *r, const struct rs_region *region,
			   const char *path);

/* The recording's loop ended with @err: the last file completed (0), or
 * discarded with the error.  The code's reader is joined first. */
int cap_recorder_file_end(struct cap_recorder *r, int err);

/* ---- cap_source (cap_source.c, cap_source_open.c, cap_source_domain.c) ---- */
struct dom_virt;
struct cap_source;

/* What a source opened by a libvirt domain's name does through libvirt:
 * set by cap_source_open alone, so that a program that never opens a
 * domain by name (the hook) links no libvirt.  0 or libvirt's code. */
struct cap_source_domain_ops {
	int (*pause)(struct cap_source *m);   /* suspended here: domain_paused */
	int (*resume)(struct cap_source *m);
	void (*close)(struct cap_source *m);  /* its connections */
};
extern const struct cap_source_domain_ops cap_source_domain_ops;

/* Host CLOCK_MONOTONIC around a pause of the writers: before the pause
 * request, at its answer (the writers stand still), before the resume
 * request, at its answer.  All 0 when nothing was paused here. */
struct pause_times {
	uint64_t request_ns;
	uint64_t paused_ns;
	uint64_t resume_ns;
	uint64_t resumed_ns;
};

struct cap_source {
	struct rs_region region;
	void *base;
	uint64_t size;
	int fd;
	int own_fd;              /* opened here (closed by cap_source_close) */
	int locked;              /* CAP_SOURCE_EXCL taken */
	uint32_t abi_version;    /* what the header claims, for messages */
	struct cap_vm *vm;       /* --vm: the VMM's control connection */
	char *domain;            /* REGION named a libvirt domain */
	int domain_paused;       /* cap_source_pause suspended it */
	/* a DOMAIN's libvirt calls (cap_source_domain.c), set by the open
	 * by name alone: a program that opens nothing by name (the hook)
	 * links no libvirt */
	const struct cap_source_domain_ops *dom;
	struct dom_virt *dom_conn; /* the domain's connection, made before
				    * the pause and kept until the close */
	struct dom_virt *code_conn; /* the code reader's */
	struct pause_times pause; /* the last pause .. resume */
	/* A domain's or a VM's region is opened by the layout its host laid
	 * it out with, not by its guest-writable header (region_check.c). */
	int have_layout;
	struct rs_region_params layout;
	int damaged;             /* the header or a control page differs */
	struct rs_region_damage damage;
	int have_guard;          /* --vm: vm_guard is the VMM's REGION answer */
	struct rs_ctl_region vm_guard;
};

/* 0 if @fd is open for reading (and writing, with CAP_SOURCE_WRITE in
 * @flags), else -EACCES or -errno. */
int cap_source_access(int fd, unsigned flags);

/* @m closed, ready for an open of @what.  0, or -EINVAL noted in @e. */
int cap_source_start(struct cap_source *m, const char *what,
		     struct cap_err *e);

/* Map and validate m->fd: the part every open shares.  0, or the error
 * noted in @e with @m closed. */
int cap_source_map_fd(struct cap_source *m, unsigned flags,
		      struct cap_err *e);

/* A read-write open file description of our own of the file behind @fd
 * (through /proc/self/fd): a flock or a writable map another process's
 * description would not give.  The new descriptor, or -errno. */
int cap_source_reopen(int fd);

#endif /* RINGSIDE_CAP_INTERNAL_H */
