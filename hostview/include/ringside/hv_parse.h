/* SPDX-License-Identifier: MIT */
/*
 * ringside-hostview: reading what the kernel hands over, without opening
 * anything of the kernel's own: thread names and /proc lines, tracepoint
 * format files, perf records and perf buffers.  Every function here works
 * on bytes the caller gives it, so that each is tested on hostile input
 * alone; the recorder (ringside/hv_rec.h) feeds them the real thing.
 * Bytes from /proc and from a perf buffer are read as untrusted: every
 * length is bounded, every record is copied before it is looked at.
 */
#ifndef RINGSIDE_HV_PARSE_H
#define RINGSIDE_HV_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "ringside/hv_types.h"

/* ---- hv_thread (src/hv_thread.c): finding a VMM's threads ---- */
/*
 * What a thread is, from its name (comm) and whether it is its process's
 * main thread: QEMU with debug-threads=on (libvirt sets it) names a vCPU
 * thread "CPU N/KVM" (or /TCG, /HVF, ...) and an iothread "IO NAME";
 * ringside's own VMM names its vCPU threads the same way.  The main
 * thread is the emulator (QEMU's main loop).  Fills @out's kind, vcpu,
 * accel and comm (the rest is left as it was).  Returns the kind;
 * HV_ERR(hve_invalid) on NULL.
 */
int hv_thread_classify(const char *comm, int is_main, struct hv_thread_id *out);

/*
 * The start time (field 22) and state letter (field 3) of a
 * /proc/PID/task/TID/stat line of @len bytes.  The name in parentheses
 * may hold spaces and parentheses: the fields are counted after its last
 * ')'.  0; HV_ERR(hve_short) for a line that ends early or a number that
 * is not one.  @state may be NULL.
 */
int hv_thread_parse_stat(const char *text, size_t len, uint64_t *start,
			 char *state);

/*
 * The threads of process @pid whose kind is in @kinds, as /proc (@proc;
 * NULL: "/proc") lists them now, into @out (at most @max).  *@found is
 * how many matched, which may be more than @max: the caller holds only
 * @max.  A thread that ends during the scan is left out.  0; -ESRCH when
 * the process is gone; -errno otherwise.
 */
int hv_thread_scan(const char *proc, int32_t pid, uint32_t kinds,
		   struct hv_thread_id *out, uint32_t max, uint32_t *found);

/*
 * The scheduler's own totals for a thread (/proc/PID/task/TID/schedstat,
 * CONFIG_SCHED_INFO): time on a CPU, time runnable and waiting for one
 * (preempted or just woken: the whole of its steal), and how many times
 * it ran.  Counters, not records: free to read, no history.
 */
struct hv_schedstat {
	uint64_t run_ns;
	uint64_t wait_ns;
	uint64_t slices;
};

/* Parses a schedstat line of @len bytes.  0; HV_ERR(hve_short). */
int hv_thread_schedstat_parse(const char *text, size_t len,
			      struct hv_schedstat *out);

/* Reads thread @tid's of process @pid.  0; -errno (-ENOENT: no such
 * thread, or a kernel without schedstat). */
int hv_thread_schedstat_read(const char *proc, int32_t pid, int32_t tid,
			      struct hv_schedstat *out);

/* ---- hv_tp (src/hv_tp.c): tracepoint formats ---- */
/*
 * A tracepoint's record is laid out by its format file in tracefs
 * (events/SYSTEM/EVENT/format): "ID: N" and one "field:TYPE NAME;
 * offset:O; size:S; signed:G;" line per field.  Offsets differ between
 * kernels (kvm_exit's isa came in 5.x), so they are read, never assumed.
 */
struct hv_tpfield {
	uint32_t offset;
	uint32_t size;       /* 1, 2, 4 or 8; 0: the format has no such field */
	uint32_t is_signed;
	uint32_t reserved;
};

#define HV_TP_FIELDS 4

struct hv_tp {
	uint32_t id;                          /* perf_event_attr.config */
	uint32_t nfields;
	struct hv_tpfield f[HV_TP_FIELDS];    /* the fields asked for, in order */
};

/*
 * Parses format text of @len bytes: its ID and the fields @names[0..@n)
 * (n <= HV_TP_FIELDS); a field the text lacks gets size 0.  0;
 * HV_ERR(hve_format): no ID line, a field of a size other than 1, 2, 4
 * or 8; HV_ERR(hve_invalid).
 */
int hv_tp_parse(const char *text, size_t len, const char *const *names,
		uint32_t n, struct hv_tp *out);

/*
 * The tracing directory: "/sys/kernel/tracing" or
 * "/sys/kernel/debug/tracing", whichever holds events/, into @buf.  0;
 * HV_ERR(hve_no_tracefs).
 */
int hv_tp_tracefs_find(char *buf, size_t len);

/*
 * Reads and parses SYSTEM/EVENT's format under @tracefs (NULL: found
 * with hv_tp_tracefs_find).  0; HV_ERR(hve_no_tracefs); HV_ERR(hve_no_tp)
 * when the event is not there; HV_ERR(hve_perm) when it may not be read;
 * HV_ERR(hve_format).
 */
int hv_tp_load(const char *tracefs, const char *system, const char *event,
	       const char *const *names, uint32_t n, struct hv_tp *out);

/* Field @f of a tracepoint's raw record (@raw, @len bytes), zero- or
 * sign-extended.  0; HV_ERR(hve_short) when it lies past @len or the
 * format had no such field. */
int hv_tp_get(const struct hv_tpfield *f, const uint8_t *raw, uint32_t len,
	      uint64_t *v);

/* ---- hv_decode (src/hv_decode.c): one perf record ---- */
/*
 * Every event the recorder opens has sample_type IDENTIFIER | TID |
 * TIME | CPU (tracepoints add RAW) and sample_id_all, so a record carries
 * its event's id: first in a SAMPLE, last in the others.  A layout tells
 * one buffer's ids apart and where the tracepoints keep their fields.
 */
struct hv_layout {
	uint64_t id[HV_SRC_MAX];      /* each source's event id; 0: not open */
	struct hv_tpfield exit_reason;   /* kvm_exit */
	struct hv_tpfield exit_isa;      /* kvm_exit; size 0 on old kernels */
	struct hv_tpfield uexit_reason;  /* kvm_userspace_exit */
	struct hv_tpfield uexit_errno;
	uint32_t isa;                 /* when kvm_exit has no isa field */
	uint32_t reserved;
};

/* The sample_type of every event the recorder opens (and of the records
 * hv_decode reads); tracepoints add PERF_SAMPLE_RAW. */
#define HV_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
/* sample_id_all's trailer: pid, tid, time, cpu, res, identifier */
#define HV_SAMPLE_ID_SIZE 32u

/*
 * Decodes the record @rec of @len bytes (a copy, header included) into
 * @out.  A record of a type it does not know, or a sample of an id the
 * layout lacks, is HV_EV_OTHER with what its trailer says.  0;
 * HV_ERR(hve_short) when @len is less than its type needs or no multiple
 * of 8, or the header's size is not @len; HV_ERR(hve_corrupt) for a raw
 * size past the record; HV_ERR(hve_invalid).
 */
int hv_decode(const struct hv_layout *l, const void *rec, size_t len,
	      struct hv_ev *out);

/* ---- hv_ring (src/hv_ring.c): walking a perf buffer's data area ---- */
/*
 * @data is a perf buffer's data area of @size bytes (a power of two) or
 * a copy of it; positions are the kernel's free-running head and tail.
 * Each record is copied out (wrapping at the end of the area) into an
 * aligned buffer and handed to @fn, which returns 0 to go on, anything
 * else to stop the walk (returned as is).
 */
typedef int (*hv_record_fn)(void *arg, const void *rec, uint32_t len);

struct hv_walk {
	uint64_t records;     /* handed to fn */
	uint64_t bytes;       /* of those records */
	uint64_t end;         /* where the walk stopped */
	uint32_t corrupt;     /* 1: stopped at a header no kernel writes */
	uint32_t reserved;
};

/*
 * Forward (normal) mode: the records between @tail and @head, oldest
 * first.  At most @size bytes are walked however far apart the two are;
 * a header of size < 8, not a multiple of 8, or running past @head stops
 * the walk (@w->corrupt).  @w->end is the new tail.  0, fn's value, or
 * HV_ERR(hve_invalid).
 */
int hv_ring_walk_forward(const uint8_t *data, uint64_t size, uint64_t tail,
			 uint64_t head, hv_record_fn fn, void *arg,
			 struct hv_walk *w);

/*
 * Backward (overwrite, write_backward) mode: the kernel writes downward,
 * so @head is the newest record and the records after it are older.  The
 * walk goes from @head over at most @limit bytes (<= @size: the bytes
 * written since the last walk, or since the start), newest first.  It
 * stops, not corrupt, at a zero header (never written) and at a record
 * that would cross @head + @limit (overwritten in part); a header of size
 * < 8 or not a multiple of 8 is corrupt.  0, fn's value, or
 * HV_ERR(hve_invalid).
 */
int hv_ring_walk_backward(const uint8_t *data, uint64_t size, uint64_t head,
			  uint64_t limit, hv_record_fn fn, void *arg,
			  struct hv_walk *w);

#endif
