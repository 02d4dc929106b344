/* SPDX-License-Identifier: MIT */
/*
 * ringside-hostview: the host's view of a VMM's threads (its vCPU
 * threads, its emulator and I/O threads): when each ran and on which
 * host CPU, when it was preempted while runnable (steal), when it blocked
 * or stopped, and where KVM runs it, its exits by reason.  Recorded with
 * per-thread perf events (context-switch records, kvm tracepoints) into
 * per-thread perf buffers, on the host's CLOCK_MONOTONIC.
 *
 * The types every part of the library shares: its errors, the sources it
 * records, a decoded host event, a thread's identity.  The functions are
 * in ringside/hv_parse.h (reading what the kernel hands over), in
 * ringside/hv_rec.h (the recorder) and ringside/hv_track.h (analysis).
 * The library never prints.  docs/hostview.md says what is recorded,
 * its cost and its permissions.
 */
#ifndef RINGSIDE_HV_TYPES_H
#define RINGSIDE_HV_TYPES_H

#include <stdint.h>

/* ---- hv_err (src/hv_err.c) ---- */
/*
 * A function returns 0 or more on success, and on failure either -errno
 * (a system call's, as it failed) or HV_ERR(e) for an enum hv_error e:
 * the states a caller acts on (no permission, no tracepoint) are
 * hostview's own codes, never an errno that a system call could also
 * give.  hv_err_str() names both.  HV_ERR_BASE lies above perfdata's
 * PDF_ERR_BASE range, so the two never meet either.
 */
#define HV_ERR_BASE 12288
#define HV_ERR(e)   (-(HV_ERR_BASE + (int)(e)))

enum hv_error {
	hve_ok = 0,
	hve_invalid,     /* the caller passed nonsense */
	hve_perm,        /* perf_event_open on that thread not permitted:
			  * kernel.perf_event_paranoid and no CAP_PERFMON,
			  * or another user's process without CAP_SYS_PTRACE */
	hve_no_perf,     /* this kernel has no perf_event_open */
	hve_no_tracefs,  /* no tracefs (or debugfs tracing) mounted */
	hve_no_tp,       /* the tracepoint is not on this host (no kvm module) */
	hve_format,      /* a tracepoint's format file lacks what is needed */
	hve_short,       /* a record shorter than its layout */
	hve_corrupt,     /* a record or buffer position no kernel writes */
	hve_too_many,    /* more threads than the recorder holds */
	hve_mlock,       /* perf buffers over kernel.perf_event_mlock_kb
			  * and RLIMIT_MEMLOCK (no CAP_IPC_LOCK) */
	hve_max
};

/* The words for @err: an HV_ERR() code or a -errno. */
const char *hv_err_str(int err);

/* ---- sources: what is recorded per thread ---- */
enum hv_src {
	/* A software dummy event with context_switch=1 and task=1: a
	 * PERF_RECORD_SWITCH at every switch in and out (PREEMPT bit: still
	 * runnable when switched out), EXIT when the thread ends, FORK for
	 * the threads it creates.  Always on: it is the buffer's owner. */
	HV_SRC_SWITCH = 0,
	/* PERF_COUNT_SW_CPU_MIGRATIONS, one sample per migration.  The
	 * switch records' CPUs give every migration already (a thread only
	 * changes CPU while switched out); this one is for cross-checks and
	 * the benchmark. */
	HV_SRC_MIGRATE,
	/* kvm:kvm_exit: each exit from guest mode into KVM, by reason */
	HV_SRC_KVM_EXIT,
	/* kvm:kvm_entry: each entry into guest mode (with KVM_EXIT: the
	 * time KVM spent on each exit) */
	HV_SRC_KVM_ENTRY,
	/* kvm:kvm_userspace_exit: each return of KVM_RUN to the VMM, by
	 * KVM_EXIT_* reason */
	HV_SRC_KVM_UEXIT,
	HV_SRC_MAX
};

#define HV_SRC_BIT(s)    (1u << (s))
#define HV_SRC_ALL       ((1u << HV_SRC_MAX) - 1)
/* The default set, cheap enough to run always (docs/hostview.md,
 * "Cost"): switches, and the exits to the VMM.  Exits into KVM
 * (HV_SRC_KVM_EXIT) cost a sample each, as much as a real host's exit
 * itself: asked for, not on by default. */
#define HV_SRC_DEFAULT   (HV_SRC_BIT(HV_SRC_SWITCH) | \
			  HV_SRC_BIT(HV_SRC_KVM_UEXIT))

/* A source's name ("switch", "migrate", "kvm_exit", ...); NULL past the
 * end. */
const char *hv_name_src(uint32_t src);

/* ---- a decoded host event ---- */
enum hv_ev_type {
	HV_EV_NONE = 0,
	HV_EV_SWITCH_IN,     /* began running on @cpu */
	HV_EV_SWITCH_OUT,    /* stopped running: blocked, stopped or exiting */
	HV_EV_PREEMPT,       /* stopped running while runnable (preempted) */
	HV_EV_MIGRATE,       /* a migration sample; now on @cpu */
	HV_EV_KVM_EXIT,      /* exit into KVM: @reason, @isa */
	HV_EV_KVM_ENTRY,     /* entry into guest mode */
	HV_EV_KVM_UEXIT,     /* KVM_RUN returned to the VMM: @reason */
	HV_EV_LOST,          /* the kernel dropped @count records here */
	HV_EV_EXIT,          /* the thread ended */
	HV_EV_FORK,          /* it created thread @count */
	HV_EV_OTHER,         /* a record this library does not decode */
	HV_EV_MAX
};

/* kvm_exit's isa field (arch/x86/kvm/trace.h) */
#define HV_ISA_UNKNOWN 0u
#define HV_ISA_VMX     1u
#define HV_ISA_SVM     2u
/* kvm_userspace_exit with a negative errno: @reason is this flag with
 * the errno's magnitude (EINTR: a restart). */
#define HV_UEXIT_ERRNO 0x80000000u

struct hv_ev {
	uint64_t time;       /* ns, the host's CLOCK_MONOTONIC */
	uint32_t type;       /* enum hv_ev_type */
	uint32_t cpu;        /* the host CPU it happened on */
	uint32_t pid;
	uint32_t tid;
	uint32_t reason;     /* KVM_EXIT, KVM_UEXIT */
	uint32_t isa;        /* KVM_EXIT: HV_ISA_* */
	uint64_t count;      /* LOST: records lost; FORK: the new tid */
	uint64_t id;         /* the perf event's id */
};

/* An event type's name ("switch-in", "preempt", ...). */
const char *hv_name_ev(uint32_t type);

/* ---- a thread's identity ---- */
enum hv_kind {
	HV_KIND_VCPU     = 1u << 0,  /* "CPU N/KVM", "CPU N/TCG", ... */
	HV_KIND_EMULATOR = 1u << 1,  /* the process's main thread: QEMU's
				      * main loop */
	HV_KIND_IO       = 1u << 2,  /* "IO NAME": QEMU's iothreads */
	HV_KIND_OTHER    = 1u << 3,  /* workers, call_rcu, ... */
};
#define HV_KIND_DEFAULT (HV_KIND_VCPU | HV_KIND_EMULATOR | HV_KIND_IO)
#define HV_KIND_ALL     (HV_KIND_DEFAULT | HV_KIND_OTHER)

#define HV_COMM_LEN 16       /* the kernel's TASK_COMM_LEN */

struct hv_thread_id {
	int32_t pid;
	int32_t tid;
	uint32_t kind;           /* one enum hv_kind */
	int32_t vcpu;            /* the vCPU index; -1 when not a vCPU */
	uint64_t start;          /* start time (clock ticks after boot):
				  * a reused tid is another thread */
	char comm[HV_COMM_LEN];  /* as the kernel had it, NUL-terminated */
	char accel[8];           /* a vCPU's "KVM", "TCG", ...; else "" */
};

#endif
