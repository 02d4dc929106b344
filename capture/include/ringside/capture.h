/* SPDX-License-Identifier: MIT */
/*
 * ringside-capture: taking a guest's rings off its region, the machinery
 * `ringside record`, `snapshot` and `stat` share with any other program
 * that links it (a host service).  A source is opened by the layout its
 * host laid out (a libvirt DOMAIN, a ringside VMM's control socket, a
 * region file); a record session drains its rings into perf.data files; a
 * snapshot session copies a flight recorder's rings and files them; the
 * guest clock is synced through the region; every record and every loss
 * is tallied, the guest's claims apart from what the host observed.
 *
 * The library never prints: it reports through return values and the
 * structs below, and the caller says it in its own words.  One section
 * per module; the prefix of each section is its file in src/.
 */
#ifndef RINGSIDE_CAPTURE_H
#define RINGSIDE_CAPTURE_H

#include <pthread.h>
#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/domain_hook.h"
#include "ringside/introspect.h"
#include "ringside/perfdata.h"
#include "ringside/ring.h"
#include "ringside/vmm_client.h"
#include "ringside/vmm_control.h"

/* ---- cap_err (src/cap_err.c) ---- */
/*
 * Errors as this library hands them up.  Its modules (cap_source, drain,
 * snapper, recorder, ...) call several libraries, and each library
 * keeps its own negative codes and its own *_errstr(): the ring library's
 * -rse_*, the perf.data library's (-errno or PDF_ERR(e)), the libvirt
 * library's (-errno or -dome_*), a system call's -errno.  Those codes
 * overlap, so a module whose failures come from more than one of them
 * returns the code as the library gave it, and notes in a struct cap_err
 * which errstr names it.  Nothing is renumbered: the caller prints
 * cap_err_str(), and tests cap_err_is() or cap_err_from() to say more.  A
 * module whose errors all come from one library returns them plainly and
 * says which beside its declaration.
 *
 *	struct cap_err e = { 0 };
 *
 *	if (cap_source_open(&m, spec, 0, &e))
 *		cli_err(CMD, "cannot map %s: %s", spec, cap_err_str(&e));
 */

typedef const char *(*cap_err_fn)(int code);

struct cap_err {
	int code;                 /* < 0, as the library returned it */
	cap_err_fn str;            /* rs_error_str, pdf_error_str, dom_error_str, cap_err_sys */
};

/* strerror() of a system call's -errno. */
const char *cap_err_sys(int code);

/* @ret, a return of the library that @str names; a failure (< 0) is noted
 * in @e.  Returns @ret. */
static inline int cap_err_note(struct cap_err *e, int ret, cap_err_fn str)
{
	if (ret < 0) {
		e->code = ret;
		e->str = str;
	}
	return ret;
}

/* The words for @e; one that nothing was noted in (declared = { 0 })
 * says so. */
static inline const char *cap_err_str(const struct cap_err *e)
{
	return e->str ? e->str(e->code) : "unknown error";
}

/* 1 if @e came from the library @str names. */
static inline int cap_err_from(const struct cap_err *e, cap_err_fn str)
{
	return e->str == str;
}

/* 1 if @e is @code of the library @str names. */
static inline int cap_err_is(const struct cap_err *e, cap_err_fn str, int code)
{
	return e->str == str && e->code == code;
}

/* Which step of a record or snapshot session failed: the caller words it
 * (its source, its output, the ring) with @e's code. */
enum cap_fail {
	CAP_FAIL_NONE = 0,
	CAP_FAIL_OPEN,      /* creating the output's temporary file
			     * (PATH.tmp.XXXXXX, pdf_error_str) */
	CAP_FAIL_ATTACH,    /* a consumer on every ring (rs_error_str; -rse_mode:
			     * overwrite-mode rings, which have no tail) */
	CAP_FAIL_DRAIN,     /* a pass over the rings (rs_error_str), or any pass
			     * when no file is written */
	CAP_FAIL_WRITE,     /* a pass into the file (pdf_error_str); path is the
			     * temporary file that was discarded */
	CAP_FAIL_FINISH,    /* completing the file (pdf_error_str) */
	CAP_FAIL_COPY,      /* copying ring @ring (rs_error_str, cap_err_sys) */
	CAP_FAIL_RING,      /* filing ring @ring's records (pdf_error_str) */
	CAP_FAIL_KCODE,     /* the guest kernel's code: out of memory */
	CAP_FAIL_VCPUS,     /* filing the vCPUs' samples (pdf_error_str) */
};

struct cap_failure {
	enum cap_fail what;
	struct cap_err e;
	uint32_t ring;
	char path[4096];
};

/* ---- cap_time (src/cap_time.c) ---- */
/* The host's CLOCK_MONOTONIC, what every host fact is in: seconds, and
 * ns. */
double cap_time_now(void);
uint64_t cap_time_now_ns(void);

/* ---- stop (src/stop.c) ---- */
/* SIGINT/SIGTERM as a request to finish, and waiting for work. */

/* Make SIGINT and SIGTERM set the stop flag instead of killing.  -errno. */
int cap_stop_install(void);

/* The signal that asked to stop, 0 if none. */
int cap_stop_requested(void);

/* A descriptor to wake on while waiting. */
struct cap_stop_fd {
	int fd;                /* < 0: not watched */
	int hangup_only;       /* wake only when it hangs up (a peer's socket) */
	int hung_up;           /* it hung up or failed: no longer watched */
	uint64_t count;        /* eventfd counts read from it so far */
	uint64_t wakeups;      /* waits it ended */
};

/*
 * Sleep @timeout_ms (< 0: until woken), less if a signal arrives or one of
 * the @n descriptors in @fds becomes readable or hangs up.  A readable one
 * is read: an eventfd (such as a KVM_IOEVENTFD doorbell) resets and its
 * count is added to ->count; a pipe just gets drained.  One that hung up or
 * failed gets ->hung_up and is not watched again.  Returns the number of
 * descriptors that fired, 0 on timeout or signal.
 */
int cap_stop_wait_fds(struct cap_stop_fd *fds, unsigned n, int timeout_ms);

/* Read what the descriptors hold right now, without waiting (the last
 * doorbell counts at the end, a stop request or not). */
void cap_stop_collect_fds(struct cap_stop_fd *fds, unsigned n);

/* ---- cap_rinfo (src/cap_rinfo.c) ---- */
/*
 * A ring's geometry, mode and shared counters right now, gathered from the
 * ring library's read-once accessors into one struct for display
 * (`ringside stat`, `snapshot` buffer sizing).
 */

struct cap_rinfo {
	uint32_t index;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint64_t data_size;
	uint64_t aux_size;
	/* guest-written hints, each read once, for display only */
	uint64_t data_head;
	uint64_t data_tail;
	uint64_t aux_head;
	uint64_t aux_tail;
	uint64_t produced;
	uint64_t lost;
	uint64_t aux_truncated;
	uint64_t doorbells;       /* rung (ext.doorbells) */
	uint64_t suppressed;      /* due but skipped: the consumer polled */
	uint32_t consumer;        /* the consumer's word: RS_CONSUMER_* (in
				   * guest-writable memory: any value) */
};

/* The region's shared configuration and guest status, read once. */
struct cap_rinfo_region {
	uint32_t enabled;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint64_t trace_mask;
	uint32_t attached;
	uint32_t agent_abi;
	uint32_t agent_kind;
	uint32_t rings_used;
	uint64_t heartbeat;
	/* the boot the status is of: the host's count of the guest's boots
	 * (the header's boot_gen) and the one the agent last said it read
	 * (its status's; 0: an agent that does not say) */
	uint64_t boot_gen;
	uint64_t agent_boot_gen;
};

/* 1 when the agent's status is a claim from before the guest's last reset
 * that the host counted (cap_rinfo_region.agent_boot_gen behind boot_gen), 0
 * when it is of the current boot, -1 when it cannot be told (no agent
 * attached, an agent or a layout that does not count boots). */
int cap_rinfo_claim_stale(const struct cap_rinfo_region *rr);

void cap_rinfo_region_get(const struct rs_region *region, struct cap_rinfo_region *rr);

/* What the region's AUX areas hold, for the perf.data writer: PDF_AUX_NONE
 * without AUX areas, PDF_AUX_INTEL_PT where the region traces PT
 * (RS_TRACE_AUX), else PDF_AUX_OPAQUE. */
uint32_t cap_rinfo_aux_format(const struct rs_region *region);
/* The same, but PDF_AUX_OPAQUE for AUX areas that @opaque says hold no PT. */
uint32_t cap_rinfo_aux_format_of(const struct rs_region *region, int opaque);

/* Rings in the validated region. */
uint32_t cap_rinfo_count(const struct rs_region *region);

/* The sample_type of the region's SAMPLE records, as validated at open. */
uint64_t cap_rinfo_sample_type(const struct rs_region *region);

/* Geometry and current counters of ring @index.  0, or the ring
 * library's -rse_* (rs_error_str names it). */
int cap_rinfo_get(const struct rs_region *region, uint32_t index,
	      struct cap_rinfo *ri);

/* Bytes of ring data not yet consumed (normal) or held (overwrite). */
uint64_t cap_rinfo_fill(const struct cap_rinfo *ri);

/* ---- tally (src/tally.c) ---- */
/*
 * Per-ring accounting of ring records: what `ringside report` shows, and
 * what record and snapshot say at the end.  The same code counts records
 * live from the rings and read back from a file, so the two must agree.
 *
 * Every record is the guest's: its LOST counts, AUX sizes and times are
 * claims.  With the host's own facts about the reading (struct
 * cap_tally_bounds: when it read the rings, their geometry) a claim no honest
 * producer could make is flagged and left out of the sums and the time
 * span instead of being added up.  Every sum saturates at UINT64_MAX.
 */

/*
 * A producer drops a record only when it tries to write one into a full
 * ring, and each try costs it far more than a nanosecond (the kernel's
 * perf output path, ringside's producer: hundreds).  So a ring cannot
 * lose more than one record per nanosecond of the time it ran, and LOST
 * (and LOST_SAMPLES) counts beyond that are flagged; docs/cli.md, "Host
 * facts and guest claims", has the windows this is applied to.
 */
#define CAP_TALLY_LOST_PER_NS 1u

struct cap_tally_ring {
	uint64_t records;
	uint64_t bytes;
	uint64_t by_class[PDF_RREC_MAX];
	uint64_t lost;            /* sum of the LOST records' counts (claims
				   * not flagged) */
	uint64_t lost_samples;    /* sum of the LOST_SAMPLES records' counts */
	uint64_t aux_bytes;       /* sum of the AUX records' sizes */
	uint64_t aux_truncated;   /* AUX records flagged TRUNCATED */
	uint64_t aux_partial;
	uint64_t aux_collision;
	uint64_t seq_bad;         /* RS_RECORD_SEQ failing its checksum */
	uint64_t seq_gaps;        /* sequence numbers skipped */
	uint64_t seq_back;        /* sequence numbers repeated or going back */
	uint64_t seq_first;
	uint64_t seq_last;
	int have_seq;
	int have_time;
	uint64_t first_time;      /* of the times not flagged, of the
				   * records with a time of their own
				   * (pdf_rrec_timed) */
	uint64_t last_time;
	/* claims flagged as implausible: records, not summed */
	uint64_t flag_lost;       /* LOST records, count over the bound */
	uint64_t flag_lost_samples; /* LOST_SAMPLES records, likewise */
	uint64_t flag_aux;        /* AUX records larger than the AUX area */
	uint64_t flag_time;       /* records filed outside the window */
	/* private: the bounds' bookkeeping */
	uint64_t lost_late;       /* LOST counts of drops after the attach */
	uint64_t lost_samples_late;
	uint64_t prev_size;       /* the ring's previous record */
};

/* What the host knows about the reading, to bound the claims against. */
struct cap_tally_bounds {
	uint32_t kind;            /* PDF_HOST_DRAIN, _SNAPSHOT; NONE: nothing
				   * known, nothing flagged */
	uint64_t start_ns;        /* host CLOCK_MONOTONIC: the attach or copy */
	uint64_t end_ns;          /* ... the last read; 0: now (live) */
	int times_host;           /* record times are host CLOCK_MONOTONIC:
				   * check them against the window */
	uint64_t slack_ns;        /* the times' error allowed around it */
	uint64_t data_size[RS_MAX_RINGS];
	uint64_t aux_size[RS_MAX_RINGS]; /* 0: not known */
};

struct tally {
	uint64_t sample_type;     /* of the region's SAMPLE records */
	uint32_t nr_rings;        /* highest ring seen + 1, or as set */
	struct cap_tally_bounds bounds;
	struct cap_tally_ring ring[RS_MAX_RINGS];
	/* records the host wrote, no ring: COMM and MMAP2 of the guest's
	 * process table at the file's head (cap_tally_state) */
	uint64_t state_comms;
	uint64_t state_mmaps;
};

void cap_tally_init(struct tally *t, uint32_t nr_rings, uint64_t sample_type);

/* Count @rec, a record the host wrote of the process table. */
void cap_tally_state(struct tally *t, const struct rs_perf_header *rec);

/* Count @ev of a file: the host's records apart from the rings'. */
void cap_tally_event(struct tally *t, const struct pdf_event *ev);

/* Check the claims counted from now on against @b. */
void cap_tally_set_bounds(struct tally *t, const struct cap_tally_bounds *b);

/* The bounds a file's host feature and clock give (kind NONE: none). */
void cap_tally_bounds_from_info(struct cap_tally_bounds *b, const struct pdf_info *info);

/* Count @rec of ring @ring (< RS_MAX_RINGS, else ignored), filed at @time. */
void cap_tally_add(struct tally *t, uint32_t ring, uint64_t time,
	       const struct rs_perf_header *rec);

/* Sum of all rings into @sum (times: the earliest and latest). */
void cap_tally_total(const struct tally *t, struct cap_tally_ring *sum);

/* Claims flagged on @r, all kinds. */
uint64_t cap_tally_flagged(const struct cap_tally_ring *r);

/* Records per second over the ring's time span (ns); 0 when no span. */
double cap_tally_rate(const struct cap_tally_ring *r);

/* @a + @b, UINT64_MAX where that would wrap. */
static inline uint64_t cap_tally_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Tally the file at @path (cap_tally_init with its rings, bounds from its host
 * feature and clock) into @t; its info into *@info when not NULL.  0, or
 * the perf.data library's code (pdf_error_str), with the offset of a bad
 * record in *@bad_offset.
 */
int cap_tally_file(const char *path, struct tally *t, struct pdf_info *info,
	       uint64_t *bad_offset);

/* ---- drain (src/drain.c) ---- */
/*
 * Draining every ring of a region into a perf.data writer: one consumer per
 * ring; a pass takes one batch from each ring's data area and AUX area.
 */

struct drain;

struct drain_ring {
	struct drain *drain;
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

struct drain {
	struct pdf_writer *writer;
	struct tally *tally;      /* of what went into the file */
	uint64_t sample_type;
	uint32_t nr_rings;
	int write_err;            /* the writer's (pdf_error_str): ends the drain */
	struct drain_ring ring[RS_MAX_RINGS];
};

/*
 * Attach a consumer to every ring of @region; records go to @w, or are only
 * counted in @t when @w is NULL.  Times are converted to ns where the
 * region publishes how (pdf_rrec_clock_init).  0, or the ring library's
 * -rse_* (rs_error_str): -rse_mode when a data ring is in overwrite mode
 * (snapshot it instead).
 */
int cap_drain_init(struct drain *d, const struct rs_region *region,
	       uint64_t sample_type, struct pdf_writer *w, struct tally *t);

/* One pass over all rings.  Returns records written, or a negative code
 * noted in @e (cap_err.h): the writer's (pdf_error_str) or the ring
 * library's (rs_error_str). */
int cap_drain_pass(struct drain *d, struct cap_err *e);

/* Consumer statistics of ring @i (corruption counts, reattaches). */
const struct rs_cons_stats *cap_drain_cons_stats(const struct drain *d, uint32_t i);

/* Event suppression (docs/abi.md): before a sleep on the doorbells, every
 * ring's consumer says it is about to sleep and looks at its heads once
 * more.  1 when a doorbell may have been skipped on some ring while the
 * pass drained (drain again instead of sleeping), 0: sleep. */
int cap_drain_sleep_prepare(struct drain *d);

/* Awake again: every ring's consumer says it polls (its doorbells are
 * skipped until the next cap_drain_sleep_prepare). */
void cap_drain_awake(struct drain *d);

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
int cap_drain_reattach(struct drain *d, const struct rs_region *region);

/* The records kept for want of a time (no timed record after them yet)
 * into the file under their ring's last time: before the file is
 * completed.  0, or the writer's error noted in @e. */
int cap_drain_flush(struct drain *d, struct cap_err *e);

/* What the host observed on every ring so far, into @h (kind, times and
 * the AUX bytes stored are the caller's). */
void cap_drain_host_facts(const struct drain *d, struct pdf_host_facts *h);

/* The bounds the live tally checks claims against: those of a drain
 * that attached at @start_ns (host CLOCK_MONOTONIC). */
void cap_drain_bounds(const struct drain *d, uint64_t start_ns,
		  struct cap_tally_bounds *b);

void cap_drain_fini(struct drain *d);

/* ---- cap_vm (src/cap_vm.c) ---- */
/*
 * A ringside VMM's control socket as a source of a region (`--vm SOCKET`):
 * HELLO hands over the region memfd and one doorbell eventfd per ring,
 * PAUSE/RESUME bracket a stable snapshot, STATUS says whether any vCPU
 * still runs.  The protocol is abi/include/ringside/vmm_control.h.
 */

struct cap_vm {
	int sock;
	int region_fd;            /* an open file description of our own */
	uint32_t nr_rings;
	uint32_t nr_vcpus;
	uint32_t nr_doorbells;    /* doorbell[i] is ring i's eventfd */
	int doorbell[RS_MAX_RINGS];
	uint64_t tsc_khz;
	uint32_t pauses;          /* outstanding PAUSEs */
};

/*
 * Connect to @path and say HELLO.  -errno: -ENOENT (no such path),
 * -ECONNREFUSED (nobody listens there, or it is not a socket), -EPROTOTYPE
 * (a socket of another kind), -ETIMEDOUT (no answer), -EPROTO (the peer
 * does not speak the ringside VMM protocol), -ECONNRESET (it hung up).
 */
int cap_vm_open(struct cap_vm *v, const char *path);

/* PAUSE: returns once no vCPU runs guest code.  RESUME undoes one.  -errno. */
int cap_vm_pause(struct cap_vm *v);
int cap_vm_resume(struct cap_vm *v);

/* REGION: how the VMM laid the region out, and its header page guard.
 * -errno; -EOPNOTSUPP from a VMM that predates it. */
int cap_vm_region(struct cap_vm *v, struct rs_ctl_region *r);

/* vCPU @id's state, exits and the guest's report.  -errno. */
int cap_vm_status(struct cap_vm *v, uint32_t id,
		   struct rs_vmm_vcpu_info *info);

/* 1 when every vCPU has stopped for good (halted, crashed, failed, stopped),
 * 0 while one still runs or has not started, -errno. */
int cap_vm_stopped(struct cap_vm *v);

/* Undo outstanding pauses, close everything.  Accepts NULL. */
void cap_vm_close(struct cap_vm *v);

/* ---- cap_source (src/cap_source.c) ---- */
/*
 * A trace region, from the operator's name for it to a validated
 * struct rs_region: a path (/dev/shm/NAME) or "fd:N" (a memfd or shm file
 * another process handed over, already open as descriptor N).
 */

enum cap_source_flag {
	CAP_SOURCE_WRITE = 1u << 0,  /* map writable: a consumer publishes tails */
	CAP_SOURCE_EXCL  = 1u << 1,  /* the only consumer: flock(LOCK_EX) the file */
};

struct dom_virt;

/* Host CLOCK_MONOTONIC around a pause of the writers: before the pause
 * request, at its answer (the writers stand still), before the resume
 * request, at its answer.  All 0 when nothing was paused here. */
struct cap_source_pause_times {
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
	struct cap_vm *vm;      /* --vm: the VMM's control connection */
	char *domain;            /* REGION named a libvirt domain (ringside/domain_virt.h) */
	int domain_paused;       /* cap_source_pause suspended it */
	struct dom_virt *dom_conn; /* the domain's connection, made before
				    * the pause and kept until cap_source_close */
	struct cap_source_pause_times pause; /* the last cap_source_pause .. cap_source_resume */
	/* A domain's or a VM's region is opened by the layout its host laid
	 * it out with, not by its guest-writable header (region_check.c). */
	int have_layout;
	struct rs_region_params layout;
	int damaged;             /* the header or a control page differs */
	struct rs_region_damage damage;
	int have_guard;          /* --vm: vm_guard is the VMM's REGION answer */
	struct rs_ctl_region vm_guard;
};

/*
 * Open, map and validate @spec (a libvirt domain's region when @spec is a
 * bare name with no file of that name, see dom_region_is_domain).  0, or a
 * negative code noted in @e (cap_err.h) as one of:
 *   cap_err_sys: -errno of open, fstat, mmap; -EBADF for a bad "fd:N",
 *     -EACCES for an fd without the access @flags need, -ENODEV (-EISDIR)
 *     for something that is not a regular file, -EWOULDBLOCK when
 *     CAP_SOURCE_EXCL finds another consumer holding the lock;
 *   rs_error_str: -rse_magic, -rse_version, -rse_too_small, -rse_geometry
 *     (m->abi_version says which version a -rse_version region claims);
 *   dom_error_str: dom_region_path()'s, for a domain.
 */
int cap_source_open(struct cap_source *m, const char *spec, unsigned flags,
	      struct cap_err *e);

/*
 * The region of the ringside VMM serving control socket @sock_path, with
 * its doorbells (m->vm, cap_vm.h).  Errors as cap_source_open, and
 * cap_vm_open's -errno (cap_err_sys).
 */
int cap_source_open_vm(struct cap_source *m, const char *sock_path, unsigned flags,
		 struct cap_err *e);

/* Stop / restart the region's writers around a stable snapshot.  0, or in
 * @e: -EOPNOTSUPP (cap_err_sys) when the source cannot pause them (a plain
 * file), cap_vm's -errno (cap_err_sys), dom_region_pause's (dom_error_str). */
int cap_source_pause(struct cap_source *m, struct cap_err *e);
int cap_source_resume(struct cap_source *m, struct cap_err *e);

/* How long the writers were stopped by the last cap_source_pause .. cap_source_resume,
 * ns: at most (from the pause request to the resume's answer, the
 * default) or at least (@inner: from the pause's answer to the resume
 * request).  0 when nothing was paused here (a domain stopped already). */
uint64_t cap_source_paused_ns(const struct cap_source *m, int inner);

/* A read-write open file description of our own of the file behind @fd
 * (through /proc/self/fd): a flock or a writable map another process's
 * description would not give.  The new descriptor, or -errno. */
int cap_source_reopen(int fd);

/* 1 if @path names the region's own file (an output must never replace it). */
int cap_source_is_file(const struct cap_source *m, const char *path);

/* "magic (guest says 0x0, host laid out 0x...)": one damaged field of
 * @d as text in @buf (snprintf's return). */
int cap_source_diff_text(char *buf, size_t len, const struct rs_region_diff *d);

/* Unmap; closes the descriptor if cap_source_open opened it.  Accepts NULL. */
void cap_source_close(struct cap_source *m);

/* ---- cap_sync (src/cap_sync.c) ---- */
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
	 * beat to look (csync_join collects it) */
	int running;                    /* a thread was started: joined yet? */
	int ran;                        /* it is done (atomic) */
	pthread_t thread;
	void *run_mem;                  /* its region header, writable */
	struct rs_tsync_result run_res;
	int run_ret;
};

/* Before a first use; never while a sync runs (csync_join first). */
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
 * running one is collected first, csync_join) and counts once collected
 * (cap_sync_poll, csync_join).  @wmem must stay mapped until then.
 */
void cap_sync_take(struct cap_sync *c, const struct rs_region *region, void *wmem,
		int final);

/* The sync running in its thread, if any, waited for and counted. */
void csync_join(struct cap_sync *c);

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

/* ---- guest_facts (src/guest_facts.c) ---- */
/*
 * Who the guest says it is (the region's struct rs_guest_info, written by
 * its agent) made fit for a file's header: struct pdf_guest_facts with
 * every string NUL-terminated and every byte outside printable ASCII
 * replaced by '?', every number outside what a real guest could report
 * left out (0: not said), each such correction counted.  Guest claims
 * all: a file or `stat` shows them as the guest's word.
 */
#define CAP_GUEST_FACTS_MAX_CPUS  8192u            /* Linux's largest NR_CPUS */
#define CAP_GUEST_FACTS_MAX_KIB   (1ull << 42)     /* 4 PiB: 52 physical bits */
#define CAP_GUEST_FACTS_MAX_FREQ  1000000u         /* samples per second */
#define CAP_GUEST_FACTS_MAX_TYPE  5u               /* PERF_TYPE_BREAKPOINT: the
						* last type not a PMU's own */

enum cap_guest_facts_state {
	CAP_GUEST_FACTS_NONE = 0,     /* the guest has published none (yet) */
	CAP_GUEST_FACTS_OK,           /* facts.known 1 */
	CAP_GUEST_FACTS_BUSY,         /* the guest was writing it every try */
	CAP_GUEST_FACTS_CORRUPT,      /* a settled block without its magic */
};

struct guest_facts {
	enum cap_guest_facts_state state;
	uint32_t left_out;        /* numbers implausible, not passed on */
	uint32_t replaced;        /* string bytes replaced by '?' */
	struct pdf_guest_facts facts; /* known 0 unless CAP_GUEST_FACTS_OK */
};

/* Read @region's guest info block once into @g (zeroed first).  Returns
 * g->state, or -rse_invalid (NULL arguments). */
int cap_guest_facts_read(struct guest_facts *g, const struct rs_region *region);

/* The conversion alone, from a block the ring library copied (magic
 * checked): @g->state CAP_GUEST_FACTS_OK. */
void cap_guest_facts_from(struct guest_facts *g, const struct rs_guest_info *in);

/* ---- cap_usyms_feed (src/cap_usyms_feed.c) ---- */
/*
 * The guest's user symbols into a file: the table its agent appends to
 * is read again now and then (gusyms: every entry checked as a claim) and
 * the entries the current writer has not had go to pdf_writer_add_ubins
 * (perf's build-id cache, the file's build ids), before it is finished.
 */
struct cap_usyms_feed {
	struct gusyms g;          /* the last read, private */
	uint32_t given;           /* of its bins, given to the current writer */
	uint32_t reads;
	/* for the summary: the last table that read whole, as checked */
	enum gi_usyms_state state;
	struct rs_usyms_info info; /* TRUNCATED, wanted (guest claims) */
	struct gi_usyms_stats st;   /* refused, cut */
	uint32_t kept;            /* entries that passed the checks */
	/* the writer's: in the cache (and the file), failed, kept out */
	uint32_t cached, failed, other;
	int err;                  /* the last failure's */
};

/* A new writer: every entry is given again. */
void cap_usyms_feed_restart(struct cap_usyms_feed *f);
/* Read @region's table and give @w the new entries.  0, -ENOMEM,
 * -EINVAL. */
int cap_usyms_feed_pass(struct cap_usyms_feed *f, const struct rs_region *region,
		    struct pdf_writer *w);
/* Give @w every entry of @g, read before (a snapshot's copy). */
void cap_usyms_feed_give(struct cap_usyms_feed *f, const struct gusyms *g,
		     struct pdf_writer *w);
void cap_usyms_feed_fini(struct cap_usyms_feed *f);

/* ---- recorder (src/recorder.c) ---- */
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

struct recorder;

/* Each hook may be NULL; @arg is the hooks' own. */
struct cap_recorder_hooks {
	/* every quarter second while recording (@final 0), and once when it
	 * ends (@final 1) */
	void (*progress)(void *arg, const struct recorder *r, int final);
	/* doorbell descriptor @fd hung up: polling every interval_ms */
	void (*doorbell_lost)(void *arg, const struct recorder *r, int fd);
	/* the guest kernel's code is in the build-id cache (r->kread.g):
	 * the domain may go */
	void (*kcode_cached)(void *arg, const struct recorder *r);
	/* after each pass that did not end the recording: the path of the
	 * next file, or NULL to go on with this one.  The string must live
	 * until the next call.  Only when an output is written. */
	const char *(*next_output)(void *arg, const struct recorder *r);
	/* a file was completed because of next_output: r->output, r->tally,
	 * r->file_tally, r->host are that file's */
	void (*file_done)(void *arg, const struct recorder *r);
	/* the source went away for now (finished said CAP_RECORDER_AWAY), after
	 * a last pass over its rings */
	void (*gone_away)(void *arg, const struct recorder *r);
	/* when it runs again and a file is written: the path of the file
	 * for the records from then on (its clock synced anew: one offset
	 * per file; the string must live until the next call).  Without
	 * it, or NULL: the recording ends when the source goes away. */
	const char *(*back_output)(void *arg, const struct recorder *r);
	/* it runs again: every ring reattached (@events: the OR of the
	 * rings' enum rs_reattach_event), the records from here on go to
	 * r->output */
	void (*came_back)(void *arg, const struct recorder *r, int events);
	/* NULL: a full disk (ENOSPC, EDQUOT) ends the recording as any
	 * write error does.  Else the recording goes on: this is called to
	 * make room (the caller removes old files), the file is cut back to
	 * its last whole record on disk and completed (file_done, with
	 * r->salvaged set; what it could not hold is counted in
	 * r->disk_lost), and the recorder pauses (r->full): no pass drains
	 * the rings, so their producers count what they drop, until
	 * next_output gives the path of a new file and it opens. */
	void (*disk_full)(void *arg, const struct recorder *r);
	void *arg;
};

/* ---- the process table at a file's head (src/pstate_file.c) ---- */

/* What was filed of the guest's process table. */
struct cap_pstate_filed {
	uint64_t comms;           /* COMM records, one per process */
	uint64_t mmaps;           /* MMAP2 records, one per mapping */
	uint64_t refused;         /* records the writer refused */
	uint64_t born;            /* processes born after the agent's last
				   * read, filed as their parents were */
};

/*
 * @g's processes, a COMM and their MMAP2 records, to @w (if any) at
 * @time, as the host's own records (pdf_writer_add_state), counted into
 * @c.  0, -ENOMEM, or the writer's -errno (the file, not a record).
 */
int pstate_file(const struct gpstate *g, struct pdf_writer *w, uint64_t time,
		struct cap_pstate_filed *c);

/*
 * Process @child, born of @parent at @time (a FORK the guest kernel's
 * buffer held, gi_kbuf_fork: the agent never met the child), filed as the
 * kernel made it: @parent's name and mappings in @g as the child's, a
 * COMM and MMAP2 records of @child to @w (if any), counted into @c
 * (born, comms, mmaps).  1 filed; 0 when @g has @child (the agent knew
 * it) or not @parent; -ENOMEM, or the writer's -errno.
 */
int cap_pstate_file_child(const struct gpstate *g, struct pdf_writer *w,
		      uint32_t parent, uint32_t child, uint64_t time,
		      struct cap_pstate_filed *c);

/* Where the source is, as the finished and reopen callbacks say. */
enum cap_recorder_src {
	CAP_RECORDER_HERE = 0,        /* it may write (finished) */
	CAP_RECORDER_GONE = 1,        /* no record can come any more */
	CAP_RECORDER_AWAY = 2,        /* stopped for now with its memory, the
				   * region included, saved (a saved
				   * domain): it may run again */
	CAP_RECORDER_BACK = 3,        /* it runs again (reopen) */
};

struct recorder {
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
	struct gkcode *kcode;      /* the guest kernel's code for PT, or NULL */
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
	struct tally tally;
	struct drain drain;
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
	struct tally file_tally;      /* the file read back: claims checked
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
	struct guest_facts guest;  /* who the guest says it is, as the last
				    * file has it; read again while the
				    * guest has not published it */
	int guest_late;            /* ... it came after that file was opened */
	int no_pstate;             /* file no records of the process state */
	struct gpstate pstate;     /* the guest's processes as each file
				    * began, filed before its first timed
				    * record (pstate_file) */
	struct cap_pstate_filed cap_pstate_filed; /* ... of the last file */
	int pstate_due;            /* the current file's are not filed yet */
	/* private */
	struct pdf_writer *w;      /* the current file's */
	uint64_t file_start_ns;
	struct pdf_host_facts base;   /* the counters when it was opened */
};

void cap_recorder_init(struct recorder *r, const char *source);

/*
 * Wake on @fd: an eventfd or pipe, read when it fires (@ring >= 0: ring
 * @ring's doorbell, counted per ring), or with @hangup_only a descriptor
 * whose hang-up means the producer is gone (a VMM's control socket).
 * -ENOSPC when full.
 */
int cap_recorder_add_wake(struct recorder *r, int fd, int ring, int hangup_only);

/* Record @region until stopped.  0, or the negative code of the step
 * r->fail names (no output file is left of the file it was writing). */
int cap_recorder_run(struct recorder *r, const struct rs_region *region);

/* Doorbells of ring @ring read while recording. */
uint64_t cap_recorder_doorbells(const struct recorder *r, uint32_t ring);

void cap_recorder_fini(struct recorder *r);

/* ---- snapper (src/snapper.c) ---- */
/*
 * A flight-recorder snapshot of every ring, shared by `snapshot` and `run`.
 * Two steps: cap_snapper_copy copies every ring's records (and measures its AUX
 * area) into memory; cap_snapper_write files them oldest first.  A stable
 * snapshot pauses the writers around the copy only.  Where it failed,
 * s->fail says; what it copied, cut and lost, the struct.
 */

struct snap_ring {
	struct rs_snap_stats data;
	int has_aux;
	struct rs_aux_snapshot aux;
	uint32_t data_mode;
	uint64_t produced;        /* the producer's own count at the copy (hint) */
	uint64_t too_big;         /* records perf.data cannot carry */
	uint64_t data_size;       /* the host's layout */
	uint64_t aux_size;
	uint64_t aux_bad_heads;   /* a normal AUX ring's head and tail cannot
				   * be true: nothing copied from it */
	struct pdf_rrec_clock clock;
	struct pdf_buf stash;     /* the records, in the order the copy gave them */
	struct pdf_buf offs;      /* u64 offset of each record in stash */
	struct pdf_buf aux_data;  /* the AUX area's valid bytes, oldest first */
	uint64_t aux_stored;      /* of them, in the file */
	/* between cap_snapper_take and cap_snapper_parse: the ring's bytes as
	 * copied, not yet walked */
	struct rs_snapshot *snap;
	void *copy;               /* data_size bytes */
	void *aux_copy;           /* aux_size bytes */
	int taken;                /* snap holds a copy to walk */
};

struct snapper {
	const char *source;       /* the region, for the caller's words */
	const char *output;       /* NULL: count the records, write no file */
	int argc;                 /* the command line, for the file's header */
	char *const *argv;
	int stable;               /* the writers were stopped during the copy */
	int no_pstate;            /* file no records of the process state */
	int aux_opaque;           /* as struct recorder's */
	const struct pdf_clock_sync *clock; /* NULL: the file says nothing */
	uint32_t nr_rings;
	uint64_t sample_type;
	uint32_t aux_format;      /* enum pdf_aux_format of the region */
	const struct gi_syms *syms; /* the guest kernel's symbols, or NULL */
	const struct gusyms *usyms; /* its user binaries' symbols, or NULL */
	struct cap_usyms_feed ufeed;  /* what of them went into the file */
	const char *buildid_dir;  /* the cache their table goes to (NULL:
				   * perf's own, pdf_cache_perf_dir) */
	struct gkbuf *kbuf;       /* records recovered from the guest
				   * kernel's perf buffers, or NULL */
	uint64_t kbuf_refused;    /* of them, refused by the writer */
	struct gi_vcpu *vcpu;       /* where each vCPU was, or NULL */
	struct gkcode *kcode;     /* the guest kernel's code for PT, or NULL */
	const struct gi_kcode_src *kcode_src;
	struct pdf_writer_stats wstats; /* the writer's (symbols) */
	struct pdf_host_facts host; /* what the host observed, as filed */
	struct guest_facts guest; /* who the guest says it is (the copy's) */
	struct gpstate pstate;    /* its processes now, as its table says */
	struct cap_pstate_filed cap_pstate_filed; /* records filed of them at the
				   * head */
	struct tally tally;
	struct tally file_tally;  /* the file read back: claims checked */
	int have_file_tally;
	int readback_err;         /* reading it back failed (pdf_error_str) at
				   * readback_at: the summary is unchecked */
	uint64_t readback_at;
	struct cap_failure fail;  /* where cap_snapper_copy or _write failed */
	/* a stable copy: how long the writers stood still (cap_source_paused_ns),
	 * and of it the copy itself (cap_snapper_take); 0: not paused here */
	uint64_t pause_ns;
	uint64_t pause_inner_ns;
	uint64_t take_ns;
	struct snap_ring ring[RS_MAX_RINGS];
};

void cap_snapper_init(struct snapper *s, const char *source);

/* Copy every ring of @region.  0, or the negative code s->fail names.
 * The same as cap_snapper_prepare, cap_snapper_take, cap_snapper_parse. */
int cap_snapper_copy(struct snapper *s, const struct rs_region *region);

/*
 * cap_snapper_copy in three steps, for a copy under a pause of the writers
 * that should stop them as briefly as it can: _prepare allocates (and
 * touches) a buffer per ring before the pause; _take, between the pause
 * and the resume, only copies each ring's bytes (and its AUX area, the
 * guest's facts and its process table) into them, and sets s->take_ns;
 * _parse, after the resume, walks the copied records.  What the file
 * holds is what the rings held during _take.  0, or the negative code
 * s->fail names; on failure cap_snapper_fini frees what they allocated.
 */
int cap_snapper_prepare(struct snapper *s, const struct rs_region *region);
int cap_snapper_take(struct snapper *s, const struct rs_region *region);
int cap_snapper_parse(struct snapper *s);

/* The host has just read the guest once more after the copy (its kernel's
 * perf buffers, its vCPUs): a live guest may have written what it read
 * there after the copy ended, so the window ends now. */
void cap_snapper_read_more(struct snapper *s);

/* Mark the recovered records (s->kbuf) that the copied rings hold already:
 * the agent forwarded them but had not published its tail. */
void cap_snapper_kbuf_dedup(struct snapper *s);

/* File the copied records in s->output (or only count them).  0, or the
 * negative code s->fail names; on failure no output file is left. */
int cap_snapper_write(struct snapper *s);

void cap_snapper_fini(struct snapper *s);

/* ---- flight (src/flight.c) ---- */
/*
 * A stopped domain's flight recorder, kept: its region file, read by the
 * host's layout, filed as a perf.data capture (every ring, the guest
 * kernel's symbols) in DIR/DOMAIN/, the domain's oldest captures pruned
 * to the bounds.  Reads the file alone: it runs in libvirt's hook, which
 * must never call libvirt.  docs/operator-guide.md, "The flight recorder
 * after the domain stops".
 */
#define CAP_FLIGHT_DIR    "/var/lib/ringside/captures"
#define CAP_FLIGHT_SUFFIX ".data"
#define CAP_FLIGHT_KEEP        8u             /* captures per domain */
#define CAP_FLIGHT_KEEP_BYTES  (1ull << 30)   /* bytes of them per domain */

struct cap_flight_req {
	const char *domain;
	const char *region_path;
	const struct rs_region_params *layout; /* the host's; NULL: the
					 * header's (a damaged one fails) */
	const char *dir;              /* captures go in DIR/DOMAIN/ */
	uint32_t keep;                /* at most this many per domain (0: any) */
	uint64_t keep_bytes;          /* and this many bytes (0: any) */
	const char *buildid_dir;      /* where the symbols' table goes (NULL:
				       * perf's own cache) */
	int argc;                     /* the command line, for the header */
	char *const *argv;
	const char *reason;           /* why, in the capture's name
				       * (TIME-NNN-REASON.data): [a-z-], at
				       * most CAP_FLIGHT_REASON_MAX; NULL: none */
};
#define CAP_FLIGHT_REASON_MAX 32u

struct cap_flight_result {
	char path[4096];              /* the capture ("" when empty) */
	int empty;                    /* the region was never written to: no
				       * capture was made */
	uint64_t bytes;               /* its size */
	uint32_t rings;
	uint64_t records;             /* records in it */
	uint64_t lost;                /* the guest's LOST claims in it */
	uint64_t overwritten;         /* overwrite rings: records the producer
				       * wrote that the ring no longer held */
	uint64_t cut_bytes;           /* bytes cut as possibly overwritten */
	uint64_t corrupt;             /* corruption events met */
	int damaged;                  /* the header differed from the layout */
	int syms_state;               /* enum gi_syms_state */
	uint32_t pruned;              /* older captures removed */
	uint64_t pruned_bytes;
	int prune_err;                /* -errno: the bound may not hold */
	struct cap_failure fail;      /* where cap_flight_capture failed */
};

/*
 * Capture @q->region_path, opened without following a link (a regular
 * file only).  0, or the negative code res->fail names:
 * CAP_FAIL_OPEN (the directory or name: -errno), CAP_FAIL_COPY (the
 * region file: -errno, -ELOOP for a link, -ENODEV for no regular file,
 * or the ring library's -rse_*), or snapper's.  No
 * partial capture is left; the region file is never changed.  A region
 * the guest never wrote to (no record, AUX byte or kernel symbol) gives
 * 0 with res->empty set and no file.
 */
int cap_flight_capture(const struct cap_flight_req *q, struct cap_flight_result *res);

/* The same of the region file open in @fd (read at least; the caller's,
 * left open), which the caller checked is the one to capture (the libvirt
 * hook's dom_shm_open_region); q->region_path only names it. */
int cap_flight_capture_fd(const struct cap_flight_req *q, int fd,
		      struct cap_flight_result *res);

/* What the libvirt hook's capture is told (its arg). */
struct cap_flight_opts {
	const char *dir;              /* NULL: CAP_FLIGHT_DIR */
	uint32_t keep;
	uint64_t keep_bytes;
	const char *buildid_dir;
	int argc;
	char *const *argv;
};

/* cap_flight_capture as a dom_capture_fn (ringside/domain_hook.h), @arg a
 * struct cap_flight_opts: the outcome in one line to @log, as a hook says
 * it.  0 or cap_flight_capture's code. */
int cap_flight_hook(void *arg, const char *domain, const char *region_path,
		int region_fd, const struct dom_cfg *c, rs_log_fn log,
		void *log_arg);

/*
 * Remove the oldest captures (*.data, by name) of directory @ddir until
 * at most @keep remain and they hold at most @keep_bytes (0: no bound),
 * never @keep_path.  0 or -errno, -ENOMEM; counts in *@removed, *@freed.
 */
int cap_flight_prune(const char *ddir, const char *keep_path, uint32_t keep,
		 uint64_t keep_bytes, uint32_t *removed, uint64_t *freed);

#endif /* RINGSIDE_CAPTURE_H */
