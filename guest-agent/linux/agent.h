/* SPDX-License-Identifier: MIT */
/*
 * The ringside Linux guest agent: one process, one thread.  It maps the
 * trace region from the ivshmem-plain device's BAR2, opens the guest
 * kernel's perf events on every CPU and copies their records, and the
 * markers guest programs send, into the rings.  Ring i is fed by CPU
 * i % nr_rings; markers go to ring 0.  Only this thread writes any ring,
 * so each ring has exactly one writer, as the producer requires.
 *
 * Modules: device (find and map the region), kbuf (one CPU's perf events
 * and the kernel buffer they share), tracepoint (names to ids), agent_ring
 * (a ring and its counts: every write goes through it), forward (kernel
 * records to ring records), comm (names for the pids of samples), mmaps
 * (the mappings of the pids of samples), markers (the marker socket),
 * ksyms (the kernel's symbols into the sideband), usyms (the symbols
 * of the user binaries mmaps meets, into the sideband), pstate (the
 * live processes and their mappings, into the sideband), ginfo (who the
 * guest is, into the header's guest info block), main (options, the
 * status in the header, and the loop).  Calls go one way:
 * main -> forward -> comm -> agent_ring, main -> forward -> mmaps ->
 * agent_ring, mmaps -> usyms, mmaps -> pstate, forward -> pstate,
 * main -> markers -> agent_ring.  Modules never print; main does.  They
 * return -errno, or the ring library's -rse_* where a ring refused
 * (rs_error_str names it), as each declaration says; no function returns
 * both.
 */
#ifndef RINGSIDE_LINUX_AGENT_H
#define RINGSIDE_LINUX_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"

#define AGENT_MAX_CPUS      1024    /* KVM_MAX_VCPUS on x86, RS_MAX_RINGS */
#define AGENT_MAX_TPS       8       /* tracepoints per run */
#define AGENT_COMM_PENDING  64      /* distinct tids named per ring and pass */
#define AGENT_COMM_LEN      16      /* TASK_COMM_LEN */
#define AGENT_REC_MAX       65536   /* a perf record's size is 16 bits */
#define AGENT_MMAP_PIDS     1024    /* pids whose mappings a ring described */
#define AGENT_BUILD_ID_MAX  20u     /* bytes of a GNU build id, at most */

/* ---- device: the region on the ivshmem BAR --------------------------- */

struct agent_dev {
	char bdf[32];             /* 0000:00:03.0 */
	uint64_t ino;             /* its sysfs directory's, to tell it from
				   * another device at the same address */
	void *mem;
	uint64_t size;
	struct rs_region region;
};

/* What a failed search found, for the message. */
struct agent_dev_scan {
	uint32_t ivshmem;         /* 1af4:1110 devices seen */
	uint32_t unmappable;      /* their resource2 would not map */
	char last_bdf[32];        /* the last candidate refused, and why: */
	int last_errno;           /* -errno: its resource2 would not map */
	int last_ring_err;        /* -rse_*: it maps, and rs_region_open
				   * refused what it holds */
};

/*
 * Map the BAR2 of the ivshmem-plain device @bdf (NULL: the first 1af4:1110
 * device whose BAR2 validates as a ringside region) and rs_region_open it.
 * 0; -ENODEV when no device was usable (@scan says what was seen and why
 * the last candidate was refused); -errno when @sysfs cannot be read.
 */
int agent_device_open(struct agent_dev *d, const char *sysfs, const char *bdf,
		   struct agent_dev_scan *scan);
void agent_device_close(struct agent_dev *d);

/*
 * The device can be unplugged while the agent runs; the guest's kernel
 * then revokes the BAR's mapping, and the next access to it would be a
 * SIGBUS.  agent_device_guard() (once, at start) installs a SIGBUS handler
 * that puts anonymous pages in place of the open device's mapping, so
 * the faulting access completes into nothing, and notes it; a SIGBUS
 * anywhere else still kills.  -errno of sigaction.
 *
 * agent_device_gone(): whether the open device went away: 0 present,
 * AGENT_DEV_FAULTED (an access faulted: whatever was written since the
 * last look may not have reached the host), AGENT_DEV_REMOVED (its sysfs
 * entry is gone or is another device's; @sysfs NULL: not looked at, the
 * fault alone, no system call).  Touches no BAR.
 */
#define AGENT_DEV_FAULTED 1
#define AGENT_DEV_REMOVED 2
#define AGENT_DEV_LOOK_BEATS 10u   /* main: sysfs looked at every 10th beat */
int agent_device_guard(void);
int agent_device_gone(const struct agent_dev *d, const char *sysfs);

/* ---- kbuf: one CPU's perf events ----------------------------------------- */

struct agent_events {
	uint64_t sample_type;
	uint64_t freq;            /* cpu-clock samples per second */
	uint32_t nr_tps;
	uint64_t tp_id[AGENT_MAX_TPS];
	uint32_t buf_pages;       /* kernel buffer data pages, a power of two */
	uint32_t watermark;       /* bytes in a buffer that wake the agent
				   * (0: half the buffer) */
};

struct kbuf {
	int cpu;
	int fd;                   /* cpu-clock: the buffer's owner */
	int tp_fd[AGENT_MAX_TPS];
	uint32_t nr_tp;
	void *base;               /* control page + data */
	uint64_t data_size;
	uint64_t tail;            /* our copy; the kernel reads it */
	uint64_t sample_type;     /* the events', for the records' times */
	uint64_t head;            /* a pass's: the kernel's, read once */
	uint64_t end;             /* the pass stops here (its byte bound) */
	uint64_t time;            /* the peeked record's, agent_kbuf_peek */
	uint32_t have;            /* bytes of the record at tail, 0: none
				   * peeked */
	uint32_t time_at;         /* a sample's TIME is at this offset (0:
				   * none), agent_kbuf_begin */
	uint32_t tid_at;          /* and its pid and tid (0: none) */
	const uint8_t *cur;       /* the peeked record: in the buffer (a
				   * sample that does not wrap), or rec */
	uint8_t rec[AGENT_REC_MAX] __attribute__((aligned(8)));
};

/* Where a sample laid out for @type holds its pid and tid (0: it has
 * none). */
uint32_t agent_kbuf_tid_at(uint64_t type);

struct perf_event_attr;

/* The sampling event's attr, as agent_kbuf_open opens it on every CPU (the
 * buffer's watermark aside). */
void agent_kbuf_sample_attr(struct perf_event_attr *a, const struct agent_events *ev);

/* Open @cpu's events (disabled) and map their shared buffer.  -errno. */
int agent_kbuf_open(struct kbuf *k, int cpu, const struct agent_events *ev);
int agent_kbuf_enable(struct kbuf *k, int on);
void agent_kbuf_close(struct kbuf *k);

/*
 * A pass over the records between our tail and the kernel's head (read
 * once, at agent_kbuf_begin), at most @max bytes of them, so that one busy CPU
 * cannot starve the others.  agent_kbuf_peek: the next record and its time (the
 * sample's, or the trailer's; 0 when the events have none); NULL at the
 * pass's end.  A sample is read in place (the kernel does not write there
 * until agent_kbuf_end), anything else from a private copy with its sample_id
 * trailer taken off (the events ask for one, to time every record: the
 * rings get the records as they always were).  Valid until agent_kbuf_next:
 * past it.  agent_kbuf_end: the space read given back to the kernel.  main
 * merges the CPUs' passes by time, so that a process's birth on one CPU is
 * read before its samples on another.
 */
void agent_kbuf_begin(struct kbuf *k, uint64_t max);
const struct rs_perf_header *agent_kbuf_peek(struct kbuf *k, uint64_t *time);
void agent_kbuf_next(struct kbuf *k);
void agent_kbuf_end(struct kbuf *k);

/* Called for each record in the kernel buffer (a private copy). */
typedef void (*kbuf_fn)(const struct rs_perf_header *rec, void *arg);

/* One pass of one buffer, each record to @fn.  Returns the number of
 * records. */
int agent_kbuf_drain(struct kbuf *k, uint64_t max, kbuf_fn fn, void *arg);

/*
 * One pass of each of @n buffers (NULL ones skipped; every head read
 * before any record is).  What is not a sample goes to @record, with the
 * index of its buffer, in time order across the buffers (then by index);
 * the samples between those records go to @samples in runs: @nr whole
 * samples of buffer @cpu one after the other at @recs, @len bytes (in
 * place, at most 16 KiB), with the threads they sampled: @nr_thr of them
 * at @thr, the first sample's, then one each time the thread changes
 * from one sample to the next (none when samples carry no TID), found as
 * the buffer was first walked, so that the sink need not walk the run
 * again.  A record reaches @record after every sample
 * older than it, of any buffer, has reached @samples, and before any
 * newer one: a process's FORK on one CPU comes before its samples on
 * another.  Returns the number of records given to @record.
 */
struct kbuf_thread {
	uint32_t pid, tid;
};
struct kbuf_sink {
	void (*record)(const struct rs_perf_header *rec, uint32_t cpu,
		       void *arg);
	void (*samples)(const uint8_t *recs, uint32_t len, uint32_t nr,
			const struct kbuf_thread *thr, uint32_t nr_thr,
			uint32_t cpu, void *arg);
};
int agent_kbuf_drain_runs(struct kbuf *const *k, uint32_t n,
		    const struct kbuf_sink *s, void *arg);

/*
 * The guest-physical address of the buffer's control page and of each
 * data page, into @row[0 .. 1 + data_pages) (abi.h, struct rs_kbuf_desc),
 * through @pagemap_fd (/proc/self/pagemap, root).  Every page is touched
 * first; the kernel's perf pages are pinned, so they stay where they are.
 * 0; -ENOENT (a page not present), -EPERM (no PFNs: not root), -errno.
 */
int agent_kbuf_gpas(const struct kbuf *k, int pagemap_fd, uint64_t *row);

/* ---- ginfo: who the guest is, into the region header ------------------------ */

struct agent_ginfo_paths {
	const char *meminfo;      /* /proc/meminfo */
	const char *cpuinfo;      /* /proc/cpuinfo */
};

/*
 * Who this guest is and how it samples (abi.h, struct rs_guest_info),
 * into @gi (zeroed first): uname's nodename, release and machine, the
 * CPUs online and configured, MemTotal of @p->meminfo, the first "model
 * name" of @p->cpuinfo, and the sampling event of agent_kbuf_sample_attr(@ev).
 * What cannot be read stays 0.  0; else -errno of the first thing that
 * could not be read (the rest is filled all the same).
 */
int agent_ginfo_fill(struct rs_guest_info *gi, const struct agent_events *ev,
		     const struct agent_ginfo_paths *p);

/* ---- tracepoint ---------------------------------------------------------- */

/* "sched:sched_switch" -> its id from tracefs (mounted if needed).
 * -ENOENT (no such tracepoint), -EINVAL (not SYSTEM:NAME), -errno. */
int agent_tracepoint_id(const char *name, uint64_t *id);

/* ---- agent_ring: one ring, every record the agent writes ------------------ */

/* What mmaps wrote of the processes' mappings, and what it could not. */
struct agent_mmap_stats {
	uint64_t pids;            /* processes whose maps were read */
	uint64_t records;         /* MMAP2 records synthesized */
	uint64_t bytes;           /* their bytes */
	uint64_t no_build_id;     /* of them, files without a build id */
	uint64_t skipped;         /* executable mappings not described: over
				   * the bound per process, or the ring
				   * refused the record */
	uint64_t truncated;       /* maps files longer than the agent reads */
	uint64_t unreadable;      /* processes whose maps could not be read */
	uint64_t refreshes;       /* overwrite mode: the ring's processes
				   * described anew, half a ring later */
	uint64_t from_model;      /* processes described from what the agent
				   * knew (their birth, their exec), no /proc
				   * read: even after they ended */
};

struct agent_ring {
	struct rs_producer prod;
	uint32_t index;
	uint64_t written;         /* records committed */
	uint64_t written_bytes;   /* their bytes */
	uint64_t dropped;         /* records the ring refused */
	uint32_t nr_pending;      /* tids sampled this pass, to be named */
	uint32_t noted_pid;       /* the last tid noted (agent_comm_note) */
	uint32_t noted_tid;
	uint32_t described_pid;   /* the last pid agent_mmaps_note found in
				   * the set (0: none) ... */
	uint64_t described_births; /* ... when agent_pstate_births() was this */
	uint32_t pending_pid[AGENT_COMM_PENDING];
	uint32_t pending_tid[AGENT_COMM_PENDING];
	char pending_comm[AGENT_COMM_PENDING][AGENT_COMM_LEN];
	uint32_t nr_mmap_pids;    /* pids whose mappings this ring holds */
	uint32_t mmap_pid[AGENT_MMAP_PIDS];
	uint64_t mmap_gen[AGENT_MMAP_PIDS]; /* agent_pstate_gen of each */
	uint64_t mmap_epoch;      /* written_bytes - mmap_stats.bytes when the
				   * set was emptied */
	uint64_t table_mark;      /* written_bytes when the process table was
				   * last written (agent_pstate_publish) */
	struct agent_mmap_stats mmap_stats;
	/* a normal ring's consumer: whether it drains (agent_ring_publish
	 * looks), and the waits for room it was given (agent_ring_put) */
	uint64_t tail_seen;       /* data_tail at the last look */
	uint64_t looks;           /* looks so far */
	uint64_t tail_look;       /* the look that saw the tail move */
	uint32_t wait_max_ms;     /* the longest wait for room; 0: none */
	uint64_t waits;           /* records that waited for room */
	uint64_t waited_ms;       /* ... how long in all */
	uint64_t wait_fails;      /* waits that ended without room */
};

/* A normal ring's consumer drains it while its tail moved within this
 * many of the agent's passes; then, a ring without room for a record
 * waits for it, at most AGENT_RING_WAIT_MS a record, before the record is
 * dropped (counted).  The host's recorders sleep at most a second
 * between passes while they back off (ringside/service_idle.h). */
#define AGENT_RING_LIVE_LOOKS 3u
#define AGENT_RING_WAIT_MS    1200u

/* Write @r with @type/@misc/@body, counting what the ring refused.  0 or
 * the ring's -rse_*.  A normal ring full of records its consumer has
 * not taken yet, while it drains (its tail moved lately), is waited for:
 * what the agent wrote so far is published, and the agent sleeps until
 * the consumer made room or wait_max_ms went by.  The kernel's buffers
 * hold the samples taken meanwhile: the host's recorders may sleep
 * between passes while a batch of records arrives at once. */
int agent_ring_put(struct agent_ring *r, uint32_t type, uint16_t misc,
		   const void *body, uint32_t len);
/* @nr whole records at @recs, @len bytes, into @r at once: records the
 * caller has walked and checked (kbuf.c's first walk), so a normal ring
 * does not walk them again (rs_producer_output_walked).  A ring without
 * room for all of them takes them one by one, counting each it refused.
 * 0, or the ring's -rse_* of the last refusal. */
int agent_ring_put_run(struct agent_ring *r, const uint8_t *recs,
		       uint32_t len, uint32_t nr);
/* Publish data_head per batch (set once, after rs_producer_init), and
 * publish it now (after each pass: the host then sees every record). */
void agent_ring_batch(struct agent_ring *r, const struct rs_region *region);
void agent_ring_publish(struct agent_ring *r);
/*
 * The process model's epochs (agent_pstate_epoch) by what a snapshot of
 * @r can still read.  agent_ring_mark: where @r stands now.
 * agent_ring_passed: whether what @r held at @mark is gone from where a
 * snapshot reads it: written over (an overwrite ring: a whole data area
 * written since), or consumed (a normal ring: its consumer's data_tail at
 * or past @mark; a snapshot of a normal ring takes only what is not
 * consumed, and the consumer has the rest, descriptions included).  The
 * tail is the host's word: a host that claims more than it consumed
 * costs only its own snapshots names.
 */
uint64_t agent_ring_mark(const struct agent_ring *r);
int agent_ring_passed(const struct agent_ring *r, uint64_t mark);

/* ---- forward: kernel records into a ring ---------------------------------- */

/* One kernel record (from the CPU feeding @r) into @r. */
void agent_forward(struct agent_ring *r, uint64_t sample_type,
		   const struct rs_perf_header *rec);
/* @nr of the kernel's samples one after the other at @recs, @len bytes
 * (from the CPU feeding @r), into @r as one run: each of the run's
 * threads, @nr_thr at @thr in the order they were sampled (struct
 * kbuf_sink), has its process described before the run
 * (agent_mmaps_note) and its name noted. */
void agent_forward_samples(struct agent_ring *r, const struct kbuf_thread *thr,
			   uint32_t nr_thr, const uint8_t *recs, uint32_t len,
			   uint32_t nr);

/* ---- comm ------------------------------------------------------------------ */

/* Remember that @tid (of @pid) was sampled on @r in this pass. */
void agent_comm_note(struct agent_ring *r, uint32_t pid, uint32_t tid);

/* After the pass's samples: one PERF_RECORD_COMM per noted tid, newer than
 * its samples, so a ring that still holds a sample holds its name. */
void agent_comm_flush(struct agent_ring *r);

/* PERF_RECORD_COMM for @pid/@tid named @comm, misc @misc.  0 or the
 * ring's -rse_*. */
int agent_comm_put(struct agent_ring *r, uint32_t pid, uint32_t tid,
		   const char *comm, uint16_t misc);

/* The kernel's COMM (a name changed), FORK (a new thread: its tid's name
 * read again when sampled) or LOST (every name forgotten) record @rec,
 * from any CPU, for the names comm keeps instead of reading /proc each
 * tick. */
void agent_comm_kernel(const struct rs_perf_header *rec);
/* Forget every name: a session starts knowing none. */
void agent_comm_reset(void);

struct agent_comm_stats {
	uint64_t reads;           /* names read from /proc (first sampled) */
	uint64_t hits;            /* names the cache gave */
	uint64_t renamed;         /* the kernel's COMM records taken */
	uint64_t inherited;       /* FORKs: the creator's name, not a read */
	uint64_t forgotten;       /* the kernel's LOST: every name dropped */
};
const struct agent_comm_stats *agent_comm_stats(void);

/* ---- mmaps ----------------------------------------------------------------- */

/* One mapping, as PERF_RECORD_MMAP2 describes it. */
struct agent_mmap {
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;     /* PROT_*, MAP_SHARED or MAP_PRIVATE */
	uint8_t build_id_size;    /* 1..20, or 0: none (maj, min, ino instead) */
	uint8_t build_id[AGENT_BUILD_ID_MAX];
	const char *path;         /* at most 4095 bytes of it are written */
};

/* Before the first sample of @pid's process in @r: one MMAP2 per
 * executable mapping, from pstate's model when it knows the process (born
 * or exec'd under the agent's eyes), else from /proc/PID/maps (which the
 * model takes); once per process and ring (a new process under the same
 * pid is described again); in an overwrite ring again once half the ring
 * has been written since with other records (the older ones are about to
 * be overwritten).  Counted in r->mmap_stats. */
void agent_mmaps_note(struct agent_ring *r, uint32_t pid);

/* The kernel's PERF_RECORD_MMAP2 @rec (an exec, a dlopen): the mapped
 * file's symbols to usyms when its build id is still wanted there.  A
 * process described before its exec (a forked shell) is not described
 * again: this is how the binary it runs now is met. */
void agent_mmaps_kernel(const struct rs_perf_header *rec);

/* The kernel's PERF_RECORD_FORK @rec, before pstate takes it: the parent
 * of a new process, when the model knows neither, read from /proc (its
 * child inherits its mappings). */
void agent_mmaps_fork(const struct rs_perf_header *rec);

/*
 * Every process with code under @proc ("/proc") into pstate's model, its
 * mappings and name as its maps and comm say, as perf record describes
 * the processes it finds at its start: a process that began before the
 * agent and ends before the agent reaches its samples (its /proc entry
 * gone by then) still has them, in the model and the table.  After the
 * events are on, so that what the census misses their records tell.
 * Returns the processes taken; their reads counted in @st.
 */
uint32_t agent_mmaps_census(const char *proc, struct agent_mmap_stats *st);

/* PERF_RECORD_MMAP2 of @m for @pid/@tid, misc USER (and MMAP_BUILD_ID
 * with a build id).  0 or the ring's -rse_*. */
int agent_mmaps_put(struct agent_ring *r, uint32_t pid, uint32_t tid,
		   const struct agent_mmap *m);

/* mmaps' parts, for its tests. */

/* PERF_RECORD_MMAP2's body, with room for the longest name. */
struct agent_mmap2_body {
	struct rs_perf_mmap2_body m;
	char name[4095 + 1 + 7];   /* perf's PATH_MAX, NUL, padding */
};
_Static_assert(offsetof(struct agent_mmap2_body, name) == 64,
	       "perf_record_mmap2");
_Static_assert(AGENT_BUILD_ID_MAX == RS_PERF_BUILD_ID_MAX, "MMAP2 build id");

/* One line of /proc/PID/maps. */
struct agent_maps_line {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	const char *path;
};

/* "START-END PERMS OFFSET MAJ:MIN INODE   PATH": 0 for an executable
 * mapping of a file or the vdso, the line's NUL-terminated path in it;
 * -1 for any other line. */
int agent_mmaps_parse_line(char *line, struct agent_maps_line *m);

/* The GNU build id in @len bytes of ELF notes aligned to @align, into
 * @id: its size, 0 when there is none. */
uint8_t agent_mmaps_note_build_id(const uint8_t *p, size_t len, size_t align,
				  uint8_t *id);

/* The build id of the 64-bit ELF file open at @fd, from its PT_NOTE
 * segments (of its first AGENT_PHDRS_MAX program headers, AGENT_NOTE_MAX
 * bytes of each at most); 0 when it has none, or is no such file. */
#define AGENT_PHDRS_MAX 64u     /* program headers looked at */
#define AGENT_NOTE_MAX  4096u   /* bytes of one PT_NOTE read */
uint8_t agent_mmaps_elf_build_id(int fd, uint8_t *id);

/* 1 when @pid's process @gen is in @r's set of pids described; else 0,
 * and it is now. */
int agent_mmaps_seen(struct agent_ring *r, uint32_t pid, uint64_t gen);

/* Forget the build ids of the files met so far. */
void agent_mmaps_forget(void);

/* ---- markers -------------------------------------------------------------- */

struct agent_markers {
	int fd;
	int wake_fd;              /* the wake socket: a sender wants its
				   * markers taken now */
	char path[108];
	char wake_path[108];
	uint64_t received;
	uint64_t refused;         /* malformed or agent ids */
};

/* Bind the marker socket at @path and its wake socket at @path with
 * RS_MARK_WAKE_SUFFIX (mode 0666, the directory made).  -errno. */
int agent_markers_open(struct agent_markers *mk, const char *path);
void agent_markers_close(struct agent_markers *mk);

/* The wake socket's datagrams read and dropped (at most as many as a
 * drain takes markers): they only wake the agent. */
void agent_markers_woken(struct agent_markers *mk);

/* Take every waiting marker into @r (or drop them when !@accept).
 * Returns the number written. */
int agent_markers_drain(struct agent_markers *mk, struct agent_ring *r,
			int accept);

/* An agent marker (id >= RS_MARK_ID_AGENT) into @r.  0 or the ring's
 * -rse_*. */
int agent_markers_put(struct agent_ring *r, uint32_t id, uint32_t pid,
		     uint32_t tid, uint64_t time, const char *text, uint32_t len);

/* CLOCK_MONOTONIC in ns: the clock of samples and markers. */
uint64_t agent_markers_now(void);

/* ---- ksyms: the kernel's symbols into the sideband ------------------------- */

struct agent_ksyms_paths {
	const char *kallsyms;       /* /proc/kallsyms */
	const char *notes;          /* /sys/kernel/notes */
	const char *kptr_restrict;  /* /proc/sys/kernel/kptr_restrict */
	const char *modules;        /* /proc/modules (NULL: not held against) */
	const char *sys_module;     /* /sys/module: each one's coresize and
				     * initsize (NULL: not read) */
	uint32_t retry_ms;          /* the pause before the second read;
				     * twice as long before each next */
};

/* Reads of kallsyms at most (the first and the reads again). */
#define AGENT_KSYMS_TRIES 5u

/* What the last read published, and how many there were. */
struct agent_ksyms {
	uint64_t lines;           /* read from kallsyms */
	uint64_t kept;            /* lines perf reads, offered to the sideband */
	uint64_t cut;             /* of those, not written: the area was full */
	uint64_t zero_addrs;      /* kept-type lines with a zero address: hidden */
	uint64_t skipped;         /* lines too long to be kallsyms lines */
	uint64_t mod_dropped;     /* module lines left out: no module of that
				   * name listed before the read, Unloading,
				   * or outside the module's core (.init
				   * symbols) */
	uint64_t length;          /* bytes written */
	uint64_t wanted;          /* bytes offered */
	uint32_t tries;           /* reads made, 1..AGENT_KSYMS_TRIES */
	uint32_t modules;         /* listed in /proc/modules before the read */
	uint32_t unsettled;       /* of those, Loading, Unloading, or with
				   * init memory not yet freed */
	int modules_err;          /* /proc/modules not read (-errno): module
				   * lines published as they were */
	int kptr_restrict;        /* its value, or -errno */
	int kptr_lowered;         /* set to 0 for the opens, then restored */
	int open_err;             /* kallsyms did not open (-errno) */
	int read_err;             /* -EIO: reading kallsyms failed midway */
	int build_id_err;         /* 0, -ENOENT (no GNU build id note), -errno */
	uint32_t build_id_len;
	uint8_t build_id[RS_SIDEBAND_BUILD_ID_MAX];
};

/*
 * Publish the running kernel's symbols (the kallsyms lines perf reads for
 * function names) and its build id in @region's sideband: what does not
 * fit is counted (TRUNCATED, with the length wanted), never silently
 * dropped; @room (0: all) bounds the bytes it may use from the area's
 * start (the perf buffer table follows).  Lines whose address reads as
 * zero (kptr_restrict in force despite root) are not published.  The
 * table is consistent (ksyms.c): module lines are held against the module
 * list read before (in the module's core, the module not going away), and
 * kallsyms is read and published again, up to AGENT_KSYMS_TRIES reads in
 * all, while modules load or unload under it or an address read as zero;
 * each read is published whole, the last stays.  0; -ENXIO (the region
 * has no sideband area), -errno (kallsyms unreadable).
 */
int agent_ksyms_publish(const struct rs_region *region,
			const struct agent_ksyms_paths *paths, uint64_t room,
			struct agent_ksyms *res);

/* The GNU build id in an ELF note list (/sys/kernel/notes).  0; -ENOENT,
 * -EINVAL (a malformed list or an id over @max bytes), -errno. */
int agent_ksyms_build_id(const char *notes_path, uint8_t *id, uint32_t max,
			 uint32_t *len);

/* ---- usyms: the user binaries' symbols into the sideband ------------------ */

struct agent_usyms_stats {
	uint64_t table_size;      /* bytes the table may take */
	uint64_t published;       /* entries (binaries) published */
	uint64_t bytes;           /* their bytes */
	uint64_t symbols;         /* their symbols */
	uint64_t largest;         /* bytes of the largest entry */
	uint64_t cut;             /* of them, with symbols left out */
	uint64_t no_room;         /* entries that did not fit: not published */
	uint64_t no_room_bytes;   /* their bytes */
	uint64_t no_symbols;      /* binaries with no symbols this reads */
	uint64_t failed_reads;    /* reads of a file (or memory) that failed:
				   * its build id tried again when met again */
	uint64_t unreadable;      /* binaries given up after those failures */
	uint64_t ids_full;        /* build ids met after the set was full */
};

/*
 * Publish an empty table of @size bytes at @offset (rounded up to 8) of
 * @region's sideband area: between the kallsyms text and the kernel perf
 * buffers' table.  0 or the ring's -rse_*.
 */
int agent_usyms_begin(const struct rs_region *region, uint64_t offset,
		      uint64_t size);
/* No more appends (the region goes away). */
void agent_usyms_end(void);

/* The ELF file open at @fd, mapped from @path, has build id @id: publish
 * its FUNC symbols once per build id (after begin; else nothing).  A
 * read or an allocation that failed leaves the id wanted, up to a few
 * tries (failed_reads, then unreadable); a file with no symbols this
 * reads is final (no_symbols). */
void agent_usyms_note(int fd, const char *path, const uint8_t *id,
		      uint8_t id_len);

/* Whether @id is still to be published (begun, not looked at yet or its
 * tries left, room in the set of build ids). */
int agent_usyms_wants(const uint8_t *id, uint8_t len);

const struct agent_usyms_stats *agent_usyms_stats(void);

/* The vdso's symbols, published once as the binary "[vdso]" (vdso.c). */
void agent_vdso_usyms(void);

/* ---- pstate: the processes as the agent knows them, into the sideband ----- */

struct agent_pstate_stats {
	uint64_t table_size;      /* bytes of the table, both copies */
	uint64_t publishes;       /* copies written */
	uint64_t forks;           /* processes whose birth the kernel told */
	uint64_t inherited;       /* of them, given their parent's mappings */
	uint64_t ended;           /* processes whose end was seen (EXIT, or a
				   * look after records were lost) */
	uint64_t expired;         /* ended ones dropped once every ring had
				   * been written over since */
	uint64_t evicted;         /* ended ones dropped early: no room */
	uint64_t full;            /* processes the model had no room for */
	uint64_t lost;            /* the kernel's LOST records met */
	uint32_t procs, maps;     /* in the last copy written */
	uint32_t ended_kept;      /* of its processes, ended */
	uint32_t procs_left_out;  /* of the last copy: no room */
	uint32_t maps_left_out;
};

/*
 * A process state table of @size bytes (two copies) at @offset (rounded
 * up to 8) of @region's sideband area: after the user symbols, before the
 * kernel perf buffers' table; the model emptied.  0 or the ring's -rse_*.
 * The model works without a table as well.
 */
int agent_pstate_begin(const struct rs_region *region, uint64_t offset,
		       uint64_t size);
/* No more writes (the region goes away); the model emptied, the stats
 * kept until the next begin. */
void agent_pstate_end(void);

/* The number of @pid's process in the model, new at each birth the
 * agent learns of (0: not in the model): a ring describes it anew when
 * it changes. */
uint64_t agent_pstate_gen(uint32_t pid);
/* How many numbers were given so far: while it stands still, no pid's
 * number changed (every process taken into the model gets a new one). */
uint64_t agent_pstate_births(void);
/* Whether the model knows @pid's mappings as well as /proc would: all of
 * them since its birth or exec, or /proc was read for it already. */
int agent_pstate_known(uint32_t pid);
/* mmaps read /proc/PID/maps: @has_maps, its mappings emptied and its comm
 * read, then given one by one (agent_pstate_map); without, what the model
 * has is kept (a process gone, a kernel thread).  0; -1: no room. */
int agent_pstate_proc(uint32_t pid, int has_maps);
void agent_pstate_map(uint32_t pid, const struct agent_mmap *m);
/* A ring holds samples of @pid: in the model (created if need be) and in
 * the table from the next tick, and after its end while the rings may
 * hold them.  0; -1: no room. */
int agent_pstate_sampled(uint32_t pid);
/* /proc has no @pid any more: ended, if the model has it and did not
 * know (its EXIT may have been read before its samples). */
void agent_pstate_gone(uint32_t pid);
/* @pid's @i-th mapping in the model into @m (its path the model's, valid
 * until the model changes).  0; -1: past the last, or not in the model. */
int agent_pstate_map_at(uint32_t pid, uint32_t i, struct agent_mmap *m);
/* A kernel FORK (a new process: its parent's mappings), EXIT (its end),
 * COMM (a rename; an exec empties the mappings) or MMAP2 (code mapped),
 * in each CPU's order. */
void agent_pstate_kernel(const struct rs_perf_header *rec);
/* The kernel lost records (or sampling was off): the live processes are
 * read from /proc again when next sampled, and looked at (kill 0) for an
 * end no EXIT told, PRUNE_PER_ROUND a second until all were. */
void agent_pstate_lost(void);
/* Every ring has been written over or consumed once more since the last
 * call (agent_ring_passed): the processes that ended before the one
 * before are dropped (no snapshot can read their samples).
 * agent_pstate_has_ended: whether any ended one is kept. */
void agent_pstate_epoch(void);
int agent_pstate_has_ended(void);
/* Once per tick, @now its agent_markers_now(): a look for processes gone (when
 * due), ended ones never sampled dropped, and the model into the table's
 * idle copy, stamped @now, if it changed (agent_pstate_publish, the @n
 * @rings marked). */
void agent_pstate_tick(struct agent_ring *rings, uint32_t n, uint64_t now);
/*
 * The table keeps up with the model, not the beat.  The kernel's records
 * not yet read (which a host reads from guest memory at a crash) speak of
 * processes whose birth the agent read already, and a ring overwrites the
 * records that told the model of a process (its exec, its mappings) one
 * ring's size after them, sooner than a beat.  So the table is written
 * at the end of each pass that changed the model, and within a pass
 * before any ring took half its size since the last copy.
 *
 * agent_pstate_publish: the model into the table's idle copy now, stamped
 * @now, if it changed, and each of the @n rings marked as of it.
 * agent_pstate_due: whether @r took half its size since the table was
 * last written, and the model changed.
 */
void agent_pstate_publish(struct agent_ring *rings, uint32_t n, uint64_t now);
int agent_pstate_due(const struct agent_ring *r);
/* Whether the model changed since the table was last written: a caller
 * reads the clock for its stamp only then. */
int agent_pstate_changed(void);

const struct agent_pstate_stats *agent_pstate_stats(void);

/* ---- tsync: answering the host's time synchronization ----------------------- */

#define AGENT_TSYNC_BURST_NS  50000000ull  /* longest answering burst */
#define AGENT_TSYNC_POLL_MS   50           /* longest sleep between looks */

struct agent_tsync {
	struct rs_tsync_guest guest;
	uint64_t bursts;
};

void agent_tsync_init(struct agent_tsync *t);

/* If the host has a window open, answer its pings for a bounded burst.
 * Returns the answers given (0: no window). */
int agent_tsync_poll(struct agent_tsync *t, const struct rs_region *region);

/* ---- status ----------------------------------------------------------------- */

/* The host's switches, each read once. */
#endif /* RINGSIDE_LINUX_AGENT_H */
