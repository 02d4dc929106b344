/* SPDX-License-Identifier: MIT */
/*
 * The host's view of a VMM's vCPU threads in a capture (docs/hostview.md,
 * "Phase 2"): a hostview recorder (ringside/hv_rec.h) following the VMM
 * process, whose context switches are filed in the same perf.data as the
 * guest's records, on host CLOCK_MONOTONIC, on the lane of the vCPU they
 * concern (vCPU N: CPU N, thread PDF_HOST_TID(N)); and, read back, one
 * track per vCPU (running, runnable and not running, blocked, the longest
 * preemptions).
 *
 *	struct cap_host_config c = { .pid = pid, .nr_lanes = nr_rings };
 *	struct cap_host *h;
 *	int err = cap_host_open(&h, &c);
 *
 *	if (err)
 *		...say "host view: not recorded: " hv_err_str(err)...
 *	...each pass: cap_host_file(h, writer)...
 *	cap_host_free(h);
 */
#ifndef RINGSIDE_CAP_HOST_H
#define RINGSIDE_CAP_HOST_H

#include <stdint.h>

#include "ringside/hv_rec.h"
#include "ringside/hv_track.h"
#include "ringside/perfdata.h"

struct cap_host_config {
	int32_t pid;            /* the VMM's process */
	uint32_t nr_lanes;      /* the rings: vCPU N goes to lane N < this */
	uint32_t mode;          /* enum hv_mode (HV_MODE_FORWARD: record) */
	uint32_t data_pages;    /* per thread; 0: the recorder's default */
	uint32_t sources;       /* HV_SRC_BIT()s asked for beside the
				 * switches (kvm_exit, kvm_userspace_exit):
				 * those this host refuses are left out
				 * (the stats' probe says why) */
	uint32_t reserved;
	const char *proc;       /* NULL: "/proc" */
};

struct cap_host_stats {
	struct hv_probe probe;  /* what this host allows */
	uint32_t sources;       /* HV_SRC_BIT()s recorded */
	uint32_t vcpus;         /* vCPU threads followed */
	uint32_t off_lane;      /* vCPU events whose index is no ring: not
				 * filed (counted per event) */
	uint64_t filed;         /* switch records filed */
	uint64_t exits;         /* exits filed (samples of ringside:host) */
	uint64_t lost_records;  /* LOST records filed ... */
	uint64_t lost;          /* ... and the host records they count */
	uint64_t other;         /* events of other kinds, not filed */
	uint64_t refreshes;
	int write_err;          /* the writer's first failure, or 0 */
	int refresh_err;        /* the last refresh's failure, or 0 */
	uint32_t process_gone;  /* the VMM has ended */
	uint32_t reserved;
};

struct cap_host;

/*
 * Probe the host (hv_probe) and follow @c->pid's vCPU threads.  0; the
 * probe's refusal (HV_ERR(hve_perm), HV_ERR(hve_no_perf): the caller
 * records the guest side alone and says why, hv_err_str), hv_rec_new's
 * and hv_rec_follow's errors, -ESRCH (no such process), -ENOENT (it has
 * no vCPU thread), -EINVAL, -ENOMEM.  Nothing is kept on failure.
 */
int cap_host_open(struct cap_host **hp, const struct cap_host_config *c);

/*
 * What the recorder holds since the last call, into @w (opened with
 * host_view): each vCPU thread's switches and losses, its name (a COMM
 * record under ringside:state) once per writer.  Refreshes the threads
 * when a record asks for it, and once a second.  Returns the records
 * filed, or the writer's error (-errno: the file is lost; the first is
 * kept in the stats).
 */
int cap_host_file(struct cap_host *h, struct pdf_writer *w);

/*
 * A capture of a flight recorder (@c->mode HV_MODE_OVERWRITE): all its
 * buffers hold now (the host's last seconds of each vCPU thread) into
 * @w, as cap_host_file files them.  Returns the records filed, or the
 * writer's error.
 */
int cap_host_capture(struct cap_host *h, struct pdf_writer *w);

const struct cap_host_stats *cap_host_stats(const struct cap_host *h);

/* vCPU @lane's track of what was recorded so far (switches, steal,
 * exits by reason), or NULL when it has no event yet. */
const struct hv_track *cap_host_track(const struct cap_host *h,
				      uint32_t lane);
void cap_host_totals(const struct cap_host *h, struct hv_rec_totals *out);

/* Accepts NULL. */
void cap_host_free(struct cap_host *h);

/*
 * The QEMU of libvirt domain @name: its pid from @run_dir/NAME.pid
 * (NULL: /run/libvirt/qemu), checked to be a live process with a vCPU
 * thread.  0; -ENOENT (no pid file: the domain does not run here),
 * -ESRCH, -EINVAL.
 */
int cap_host_domain_pid(const char *name, const char *run_dir, int32_t *pid);

/* The process at the other end of unix socket @fd (SO_PEERCRED). */
int cap_host_socket_pid(int fd, int32_t *pid);

/* The host event a record of the file read back stands for (@ev->host):
 * 0, or -EINVAL for one that is not the host's. */
int cap_host_ev(const struct pdf_event *ev, struct hv_ev *out);

/*
 * A file read back: one track per lane with host records.  Feed every
 * event of pdf_reader_next (a reader with pdf_reader_want_host; others
 * are ignored), then finish at the file's end.
 */
struct cap_host_view {
	struct hv_track *track[RS_MAX_RINGS];  /* NULL: no host record */
	uint64_t first, last;   /* host times seen */
	uint64_t records;       /* host records fed: */
	uint64_t switches;      /* PERF_RECORD_SWITCH */
	uint64_t exits;         /* exit samples */
	uint64_t lost_records;  /* PERF_RECORD_LOST, and their counts */
	uint64_t lost;
	/* per lane and longest preemption (track->top[k], after finish):
	 * the time of the guest's last record on that lane before it and of
	 * its first after it (cap_host_view_guest; 0: none) */
	uint64_t guest_before[RS_MAX_RINGS][HV_TOP];
	uint64_t guest_after[RS_MAX_RINGS][HV_TOP];
};

void cap_host_view_init(struct cap_host_view *v);
/* 0, -ENOMEM. */
int cap_host_view_feed(struct cap_host_view *v, const struct pdf_event *ev);
void cap_host_view_finish(struct cap_host_view *v);
/* After finish, the guest's records again (a second walk: the file holds
 * the host's records after the guest's of the same moments): each one
 * not the host's narrows guest_before and guest_after of its lane. */
void cap_host_view_guest(struct cap_host_view *v, const struct pdf_event *ev);
void cap_host_view_fini(struct cap_host_view *v);

#endif /* RINGSIDE_CAP_HOST_H */
