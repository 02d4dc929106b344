/* SPDX-License-Identifier: MIT */
/*
 * ringside-introspect: what the host reads of a guest without the guest's
 * help.  The guest kernel's symbols and code, the records left in its own
 * perf buffers, each vCPU's registers and kernel stack, the guest's user
 * code by function.  Every byte read here is the guest's (or a guest
 * file's) claim: bounded, checked, counted when refused, used only to name
 * addresses (docs/threat-model.md).  Guest memory reaches the library
 * through peek callbacks (libvirt's virDomainMemoryPeek for a domain,
 * anything in tests).
 *
 * The library never prints: each module's state is a struct whose fields
 * the caller formats.  One section per module, in the order the modules
 * build on each other; the prefix of each section is its file in src/.
 */
#ifndef RINGSIDE_INTROSPECT_H
#define RINGSIDE_INTROSPECT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

/* ---- gi_syms (src/gi_syms.c) ---- */
/*
 * The guest kernel's symbols, from the region's sideband (docs/abi.md,
 * "Sideband"): read once, checked, handed to the perf.data writer, and
 * described by the caller.  Everything in them is the guest's
 * claim, used only to name addresses (docs/threat-model.md).
 */

enum gi_syms_state {
	GI_SYMS_ABSENT = 0,  /* the region has no sideband area */
	GI_SYMS_NONE,        /* the guest has not written it (yet) */
	GI_SYMS_BUSY,        /* the guest was still writing it */
	GI_SYMS_CORRUPT,     /* a descriptor no agent writes */
	GI_SYMS_OTHER,       /* another kind of content */
	GI_SYMS_REFUSED,     /* kallsyms text perf must not get (parse_err) */
	GI_SYMS_OK,
};

struct gi_syms {
	enum gi_syms_state state;
	int parse_err;            /* GI_SYMS_REFUSED: pdf_ksyms_parse's */
	struct rs_sideband_info info;
	uint8_t *text;            /* info.length bytes, private copy */
	uint64_t functions;       /* what perf gets (GI_SYMS_OK) */
	uint32_t modules;
	uint32_t modules_refused; /* left out, amid another module or the
				   * kernel (pdf_ksyms_stats) */
	uint64_t refused;         /* their functions */
};

/* Read @region's sideband once (with @wait, a write in progress is waited
 * for, up to about a second) and check the text.  Never fails: the state
 * says what there is.  @g zeroed (or read before: its buffer is reused).
 * -ENOMEM only. */
int gi_syms_read(struct gi_syms *g, const struct rs_region *region, int wait);

/* 1 when a later read may find more: nothing written yet, or being
 * written. */
int gi_syms_pending(const struct gi_syms *g);

/* Give the writer the text and build id, when they are usable. */
void gi_syms_writer_params(const struct gi_syms *g, struct pdf_writer_params *wp);

void gi_syms_fini(struct gi_syms *g);

/* ---- gkcode (src/gkcode.c) ---- */
/*
 * The guest kernel's code, for perf's PT decoder: the ranges the writer's
 * kernel symbols name (clusters of the kernel's functions: its text, init
 * and exit text; each module's map),
 * read from the guest at their virtual addresses through a peek function
 * (libvirt's virDomainMemoryPeek for a DOMAIN; anything in tests) and put
 * in the build-id cache beside the kallsyms (pdf_writer_add_kcore).
 * Read-only; the bytes are the guest's, used only as the code a decoder
 * follows (docs/threat-model.md).  Never a reason to lose the file.
 */

/* Read @len bytes at guest-virtual @gva into @buf.  0, or a negative code
 * @errstr names. */
typedef int (*gi_kcode_peek_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

struct gi_kcode_src {
	gi_kcode_peek_fn peek;
	void *ctx;
	const char *(*errstr)(int err);
	size_t chunk;             /* bytes a peek may read (>= 4096) */
};

enum gi_kcode_state {
	GI_KCODE_ABSENT = 0,  /* not asked: no PT, or no source */
	GI_KCODE_NO_SYMBOLS,  /* the file has no guest kernel symbols in the cache */
	GI_KCODE_UNREADABLE,  /* not one byte could be read */
	GI_KCODE_UNREADABLE_CACHED, /* ... but the cache has it from before */
	GI_KCODE_FAILED,      /* the cache entry could not be written (err) */
	GI_KCODE_KEPT,        /* the entry had other code already: kept */
	GI_KCODE_OK,
};

struct gkcode {
	enum gi_kcode_state state;
	int err;                  /* the last failure (peek or cache) */
	const char *(*errstr)(int err);
	uint64_t wanted;          /* bytes of the ranges */
	uint64_t bytes;           /* read */
	uint32_t segments;
	uint32_t pages_unread;    /* pages a peek refused: INT3s in the image */
	int early;                /* the bytes are the read made at the start */
};

/* The code of @w's kernel ranges from @src into the cache.  Only -ENOMEM
 * is returned; everything else is in @g. */
int gi_kcode_put(struct gkcode *g, const struct gi_kcode_src *src,
	       struct pdf_writer *w);

/* gi_kcode_put in its parts, for a read made apart from the writer (a
 * recording reads the code while its domain still runs, in a thread, and
 * files it at its end if the domain is gone by then). */
struct gi_kcode_image {
	struct gkcode read;        /* wanted, bytes, segments, pages_unread */
	struct pdf_kcore_seg *segs;
	uint8_t **bufs;            /* the segments' data, malloc'ed */
	uint32_t nsegs;
};

/* @w's kernel ranges, as many as a kcore holds, into *@r (malloc'ed).
 * Returns how many (0: no symbols), or -ENOMEM. */
int gi_kcode_ranges(struct pdf_writer *w, struct pdf_code_range **r);

/* Read @n ranges through @src.  Touches nothing but @im and what @src's
 * peek touches.  0, or -ENOMEM (@im is then empty). */
int gi_kcode_read(struct gi_kcode_image *im, const struct gi_kcode_src *src,
		const struct pdf_code_range *r, unsigned n);

/* Into @w's cache entry; @g says how it went (as gi_kcode_put). */
void gi_kcode_store(struct gkcode *g, const struct gi_kcode_image *im,
		  struct pdf_writer *w);

void gi_kcode_image_free(struct gi_kcode_image *im);

/* ---- gi_kcode_reader (src/gi_kcode_reader.c) ---- */
/*
 * The guest kernel's code read and cached in a thread while a recording
 * runs: the domain is alive when `record` starts and may be gone
 * (destroyed after a crash) when it stops, and reading takes seconds the
 * rings must not wait for.  The thread uses only the writer's kernel
 * symbols, build id and cache directory, which do not change once the
 * symbols are in (pdf_writer_code_ranges > 0), and the source's peek.
 */

struct gi_kcode_reader {
	const struct gi_kcode_src *src;
	struct pdf_writer *w;
	struct pdf_code_range *ranges;
	unsigned nranges;
	struct gkcode g;          /* how the read and the cache went */
	int err;                  /* -ENOMEM, or 0 */
	pthread_mutex_t lock;     /* guards done (once started) */
	int done;                 /* set by the thread, last */
	int started, joined;
	pthread_t thread;
};

/* Start reading @w's kernel ranges through @src into @w's cache entry
 * (nothing else may use @src until gi_kcode_reader_join).  0: started, or
 * was; 1: not yet, @w has no kernel symbols; -ENOMEM, or pthread_create's
 * error. */
int gi_kcode_reader_start(struct gi_kcode_reader *k, const struct gi_kcode_src *src,
		       struct pdf_writer *w);

/* 1 once the thread has finished (the result is then in k->g). */
int gi_kcode_reader_done(struct gi_kcode_reader *k);

/* Wait for the thread.  Its result, or NULL when none was started or it
 * ran out of memory. */
const struct gkcode *gi_kcode_reader_join(struct gi_kcode_reader *k);

void gi_kcode_reader_fini(struct gi_kcode_reader *k);

/* ---- gkbuf (src/gkbuf.c) ---- */
/*
 * Samples the guest kernel wrote into its own perf buffers that the agent
 * had not copied into a ring when the guest stopped (a panic stops the
 * agent's vCPU before its last drain): the agent published where the
 * buffers are (docs/abi.md, "The guest kernel's perf buffers"); the host
 * reads those guest-physical pages, read-only, through a peek function
 * (libvirt's virDomainMemoryPeek for a DOMAIN; anything in tests), and
 * takes the records between the agent's data_tail and the kernel's
 * data_head.  Every address, position and record is a guest claim
 * (docs/threat-model.md): checked before use, counted when refused.
 */

/* The RAM ranges of an x86 QEMU guest of @bytes: below 2 GiB (every
 * machine type has RAM there), and from 4 GiB what is certainly above its
 * low part (q35 splits at 2 GiB, pc at 3 GiB). */
void gi_kbuf_x86_ram(uint64_t ram[2][2], uint64_t bytes);

/* Read @len (<= 4096) bytes of guest-physical memory at @gpa into @buf.
 * 0, or a negative code @errstr names. */
typedef int (*gi_kbuf_peek_fn)(void *ctx, uint64_t gpa, void *buf, size_t len);

struct gi_kbuf_src {
	gi_kbuf_peek_fn peek;
	void *ctx;
	const char *(*errstr)(int err);
	/* guest RAM the host reads, [start, end) pairs: only pages wholly
	 * inside one (never MMIO: a device read may have side effects) */
	uint64_t ram[2][2];
};

enum gi_kbuf_state {
	GI_KBUF_ABSENT = 0,  /* no sideband area, or no source to read from */
	GI_KBUF_NONE,        /* the agent published no table */
	GI_KBUF_BUSY,        /* it was being written */
	GI_KBUF_CORRUPT,     /* a descriptor no agent writes */
	GI_KBUF_MISMATCH,    /* the buffers' sample_type is not the region's */
	GI_KBUF_OK,          /* read: see the counts */
};

struct gkbuf {
	enum gi_kbuf_state state;
	struct rs_kbuf_info info;
	uint32_t cpus;            /* rows looked at */
	uint32_t cpus_recovered;  /* rows that gave records */
	uint32_t bad_rows;        /* refused: CPU number, an address outside
				   * guest RAM or not page-aligned */
	uint32_t bad_pages;       /* control pages refused: data_size not the
				   * table's, tail beyond head, more than
				   * a buffer between them */
	uint32_t peek_failed;     /* rows whose pages could not be read */
	int peek_err;             /* the last failure, src->errstr's */
	const char *(*errstr)(int err);
	uint64_t records;         /* recovered */
	uint64_t page_reads;      /* peeks made: at most (1 + data_pages)
				   * per row, whatever the guest wrote */
	uint64_t bytes;
	uint64_t corrupt;         /* records refused: size 0, unaligned, past
				   * head; the rest of that buffer with it */
	uint64_t other;           /* records of types not carried (THROTTLE..) */
	uint64_t duplicates;      /* the agent had forwarded them already
				   * (gkbuf_dedup) */
	struct pdf_buf stash;     /* records, per CPU oldest first */
	struct pdf_buf offs;      /* per record: u64 offset in stash, u64 CPU */
	uint64_t forks;           /* new processes' FORK records (gi_kbuf_fork) */
	struct pdf_buf fork_buf;  /* a struct gi_kbuf_fork each */
};

/* A new process the guest kernel's buffer told of after the agent's last
 * read (its FORK: the agent never met it, so no ring and no table
 * describes it): the host describes it as its parent was.  Guest claims
 * (the pid and parent are a process's: neither 0 nor -1, not the same). */
struct gi_kbuf_fork {
	uint32_t cpu;             /* the buffer's */
	uint32_t pid, ppid;
	uint32_t reserved;
	uint64_t time;            /* the guest's clock, ns */
};

void gi_kbuf_init(struct gkbuf *g);
void gi_kbuf_fini(struct gkbuf *g);

/*
 * Read the table in @region's sideband and, through @src, every published
 * buffer's unread records.  Never fails on what the guest wrote: the
 * state and counts say.  -ENOMEM only.
 */
int gi_kbuf_recover(struct gkbuf *g, const struct rs_region *region,
		  const struct gi_kbuf_src *src, uint64_t sample_type);

/* Record @i (< gi_kbuf_count): its CPU and bytes. */
size_t gi_kbuf_count(const struct gkbuf *g);
const struct rs_perf_header *gi_kbuf_record(const struct gkbuf *g, size_t i,
					  uint32_t *cpu);

/* The new processes' FORK records, per CPU oldest first: how many, and
 * the @i-th into @f (0; -EINVAL past the last). */
size_t gi_kbuf_fork_count(const struct gkbuf *g);
int gi_kbuf_fork_get(const struct gkbuf *g, size_t i, struct gi_kbuf_fork *f);

/* Mark record @i as one the agent forwarded (a copy is in its ring). */
void gi_kbuf_drop(struct gkbuf *g, size_t i);
int gi_kbuf_dropped(const struct gkbuf *g, size_t i);

/* ---- gi_stack (src/gi_stack.c) ---- */
/*
 * The call chain of a stopped guest vCPU, from its registers and its
 * kernel stack, read by the host (no help from the guest: it may have
 * panicked or hung).  The guest kernel is built without frame pointers
 * (Debian's uses ORC, whose tables the host does not have), so the stack is
 * scanned: a word is a candidate only if it points into a kernel function
 * (by the guest's own symbols) just after a call instruction.  Of the
 * candidates, the chain kept is the one that scores best: each frame
 * counts, a direct call to the function of the frame below it counts
 * most, an indirect call (not checkable) a little, a direct call to
 * another function (a tail call in between, or a stale word) against.
 * Stale return addresses left in locals can still pass, mostly among the
 * outer frames; frames reached by a tail call are missed.
 *
 * A vCPU on an interrupt stack: the word at the top of that stack (where
 * x86-64 Linux saves the interrupted stack pointer) leads to the next one,
 * up to GI_STACK_MAX_STACKS stacks.  Everything read is guest memory: bounded,
 * never trusted beyond naming.
 */

#define GI_STACK_MAX_FRAMES 64u
#define GI_STACK_MAX_STACKS 3u
#define GI_STACK_STACK_MAX  (32u << 10)  /* bytes read of one stack, at most */

/* Read @len (<= 4096) bytes at guest-virtual @gva.  0 or a negative code. */
typedef int (*gi_stack_peek_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

struct gi_stack_src {
	gi_stack_peek_fn peek;
	void *ctx;
	const struct pdf_ksyms *ksyms;   /* the guest kernel's symbols */
};

struct gi_stack {
	/* [0] the vCPU's RIP; then each caller's call site, as the
	 * kernel's own backtraces name it: the byte before the return
	 * address (a call to a function that does not return, panic(), can
	 * be the last instruction of its caller) */
	uint64_t ip[GI_STACK_MAX_FRAMES];
	uint32_t nr;
	uint32_t stacks;          /* stacks scanned */
	uint64_t bytes;           /* of stack read */
	uint32_t candidates;      /* words after a call into kernel text */
	uint32_t refused;         /* of them, not fitting the chain */
	int peek_err;             /* the stack could not be read at RSP */
};

/*
 * Walk the kernel stack of a vCPU at @rip, @rsp into @st.  @rip outside
 * the guest kernel's text gives a chain of that address alone.  0;
 * -ENOMEM.
 */
int gi_stack_walk(const struct gi_stack_src *src, uint64_t rip, uint64_t rsp,
		struct gi_stack *st);

/* 1 when @addr is in a kernel or module function (types T t W w). */
int gi_stack_is_text(const struct pdf_ksyms *k, uint64_t addr,
		   struct pdf_ksym *sym);

/* ---- gi_vcpu_regs (src/gi_vcpu_regs.c) ---- */
/*
 * A guest's vCPU registers as QEMU's monitor prints them ("info registers
 * -a" of an x86-64 guest: a "CPU#N" line, then "RAX=... RSP=...",
 * "RIP=... CPL=n ... HLT=n" lines), taken apart.  The text comes from
 * QEMU, not the guest, but is parsed as untrusted all the same: bounded,
 * and a CPU without RIP or RSP is not reported.
 */

#define GI_VCPU_REGS_MAX 256u

struct gi_vcpu_regs {
	uint32_t cpu;             /* QEMU's CPU index */
	uint32_t cpl;             /* privilege level: 0 kernel, 3 user */
	int halted;               /* HLT=1: waiting for an interrupt */
	uint64_t rip, rsp, rbp;
};

/*
 * Parse @text into at most @max entries of @out; *@n gets how many.
 * 0; -EINVAL: no CPU with both RIP and RSP in @text (not that command's
 * output: another target, an error message).
 */
int gi_vcpu_regs_parse(const char *text, struct gi_vcpu_regs *out, uint32_t max,
		    uint32_t *n);

/* ---- gi_vcpu (src/gi_vcpu.c) ---- */
/*
 * Where each vCPU of a guest was when the snapshot was taken: its
 * registers, read by the host (QEMU's monitor for a libvirt domain), and
 * its kernel stack, read from guest memory and walked (guest_stack.h).
 * This needs nothing from the guest, so it holds for a guest that
 * panicked or hung with its last samples still in flight: the panicked
 * vCPU sits in panic() with the crash path on its stack.  Each vCPU
 * becomes one sample, filed after the newest record of the snapshot, at
 * the end of the host's reading (gi_vcpu_time; docs/cli.md, `snapshot`).
 */

struct gi_vcpu_src {
	/* Every vCPU's registers, as "info registers -a" prints them,
	 * malloc'ed.  0 or a negative code @errstr names. */
	int (*registers)(void *ctx, char **text);
	gi_stack_peek_fn peek;      /* guest-virtual memory */
	void *ctx;
	const char *(*errstr)(int err);
};

enum gi_vcpu_state {
	GI_VCPU_ABSENT = 0,         /* not asked for */
	GI_VCPU_NO_SYMBOLS,         /* no usable guest kernel symbols */
	GI_VCPU_NO_REGISTERS,       /* the registers could not be read: err */
	GI_VCPU_BAD_REGISTERS,      /* text that is not an x86-64 guest's */
	GI_VCPU_OK,
};

struct gi_vcpu_one {
	struct gi_vcpu_regs regs;
	struct gi_stack stack;
};

struct gi_vcpu {
	enum gi_vcpu_state state;
	int err;
	const char *(*errstr)(int err);
	const struct pdf_ksyms *ksyms;
	uint32_t nr;
	struct gi_vcpu_one *cpu;    /* nr of them */
	uint64_t refused;         /* samples the writer refused */
};

void gi_vcpu_init(struct gi_vcpu *g);
void gi_vcpu_fini(struct gi_vcpu *g);

/* Read every vCPU's registers and walk its stack, naming with @ksyms
 * (NULL: GI_VCPU_NO_SYMBOLS).  Never fails on what it reads: the state
 * says.  -ENOMEM only. */
int gi_vcpu_take(struct gi_vcpu *g, const struct gi_vcpu_src *src,
	       const struct pdf_ksyms *ksyms);

/*
 * vCPU @i's state as a PERF_RECORD_SAMPLE of @sample_type (the region's)
 * at @time, into @out (replaced): IP the vCPU's RIP, the stack as its
 * call chain, pid/tid -1 (which task ran is not known to the host),
 * period 1.  0; -EOPNOTSUPP: @sample_type has fields this cannot fill;
 * -E2BIG.
 */
int gi_vcpu_sample(const struct gi_vcpu *g, uint32_t i, uint64_t sample_type,
		 uint64_t time, struct pdf_buf *out);

/*
 * The time of the first vCPU sample (the others follow it by 1 ns each),
 * in the guest's clock as the records are: the moment @host_ns (host
 * CLOCK_MONOTONIC) the host had read everything, by @cs's time sync; the
 * vCPUs were where they are then, and every record the host read was
 * written before.  Without a usable sync, just after @newest, the newest
 * record's time.  Never a time a guest claimed when the sync can say it
 * (a record stamped in the far future stays that record's lie alone).
 */
uint64_t gi_vcpu_time(const struct pdf_clock_sync *cs, uint64_t host_ns,
		    uint64_t newest);

/* ---- gusyms (src/gusyms.c) ---- */
/*
 * The symbol tables of the guest's user binaries, as its agent published
 * them in the sideband (docs/abi.md, "User symbols"): copied once,
 * every entry checked as a guest claim (bounds, counts, names, symbols
 * inside their PT_LOADs), the good ones handed to the perf.data writer
 * (pdf_writer_add_ubins), the others refused and counted.
 */
#define GI_USYMS_MAX_BINS 4096u

enum gi_usyms_state {
	GI_USYMS_ABSENT = 0, /* the region has no sideband area */
	GI_USYMS_NONE,       /* the guest has published no table (yet) */
	GI_USYMS_BUSY,       /* the guest was writing it */
	GI_USYMS_CORRUPT,    /* a descriptor no agent writes */
	GI_USYMS_OK,
};

/* Why the last refused entry was refused. */
enum gi_usyms_why {
	GI_USYMS_WHY_NONE = 0,
	GI_USYMS_WHY_LENGTH,
	GI_USYMS_WHY_BUILD_ID,
	GI_USYMS_WHY_HEADER,
	GI_USYMS_WHY_COUNTS,
	GI_USYMS_WHY_LOADS,
	GI_USYMS_WHY_TEXT,
	GI_USYMS_WHY_PATH,
	GI_USYMS_WHY_NAMES,
	GI_USYMS_WHY_SYMBOLS,
	GI_USYMS_WHY_DUPLICATE,
	GI_USYMS_WHY_MEMORY,
};

struct gi_usyms_bin {
	struct pdf_ubin ub;       /* names point into gusyms.table */
	struct pdf_usym *syms;
	uint32_t flags;           /* enum rs_usyms_entry_flag (claim) */
	char path[RS_USYMS_PATH_MAX + 1];
};

struct gi_usyms_stats {
	uint32_t claimed;         /* entries the descriptor says */
	uint32_t refused;         /* entries refused (checks failed) */
	uint32_t over;            /* good or not, past GI_USYMS_MAX_BINS */
	uint32_t cut;             /* kept, flagged: symbols left out */
	uint64_t symbols;         /* of the kept ones */
	enum gi_usyms_why why;      /* of the last refused */
};

struct gusyms {
	enum gi_usyms_state state;
	struct rs_usyms_info info; /* TRUNCATED and wanted: not all fit */
	uint8_t *table;           /* info.length bytes, private copy */
	uint32_t nr;              /* good binaries in bins */
	struct gi_usyms_bin *bins;
	struct gi_usyms_stats st;
};

/* Copy @region's table once and check it (@g zeroed first, or read
 * before).  Never fails on what the guest wrote: the state and stats say.
 * -ENOMEM, -EINVAL. */
int gi_usyms_read(struct gusyms *g, const struct rs_region *region);

/* Check @len bytes of entries (@entries claimed) into @g's bins; the
 * names stay in @table, which must outlive @g's use.  -ENOMEM, -EINVAL. */
int gi_usyms_parse(struct gusyms *g, const uint8_t *table, uint64_t len,
		 uint32_t entries);

const char *gi_usyms_why_str(enum gi_usyms_why why);

void gi_usyms_fini(struct gusyms *g);

/* ---- gpstate (src/gpstate.c) ---- */
/*
 * The guest's live processes and their executable mappings, as its agent
 * keeps them in the sideband (docs/abi.md, "Process state"): the newest
 * complete copy, copied once, every process entry checked as a guest
 * claim, the good ones turned into the COMM and MMAP2 records a snapshot
 * writes at its head, the others refused and counted.
 */
enum gi_pstate_state {
	GI_PSTATE_ABSENT = 0, /* the region has no sideband area */
	GI_PSTATE_NONE,       /* no table, or no copy complete yet */
	GI_PSTATE_BUSY,       /* its first copy being written (or the guest
			     * died writing it) */
	GI_PSTATE_CORRUPT,    /* a descriptor or copy head no agent writes */
	GI_PSTATE_OK,
};

/* Why the last refused process entry was refused. */
enum gi_pstate_why {
	GI_PSTATE_WHY_NONE = 0,
	GI_PSTATE_WHY_LENGTH,
	GI_PSTATE_WHY_PID,
	GI_PSTATE_WHY_DUPLICATE,
	GI_PSTATE_WHY_COUNTS,
	GI_PSTATE_WHY_BUILD_ID,
	GI_PSTATE_WHY_RANGE,
	GI_PSTATE_WHY_NAME,
};

struct gi_pstate_map {
	uint64_t start, len, pgoff;
	uint32_t prot, flags, maj, min;
	uint64_t ino;
	uint8_t build_id_len;     /* 0: none (maj, min, ino instead) */
	uint8_t build_id[RS_PSTATE_BUILD_ID_MAX];
	uint16_t name_len;        /* 1 .. RS_PSTATE_NAME_MAX */
	const char *name;         /* into gpstate.table, no NUL */
};

struct gi_pstate_proc {
	uint32_t pid;
	uint32_t ppid;            /* its parent's, 0: not known (or none a
				   * process has) */
	uint32_t flags;           /* RS_PSTATE_PROC_*, the bits known */
	uint32_t nr_maps;
	uint32_t first_map;       /* its maps: maps[first_map ..] */
	char comm[RS_PSTATE_COMM_LEN + 1]; /* printable, NUL-terminated */
};

struct gi_pstate_stats {
	uint32_t claimed;         /* processes the copy's head says */
	uint32_t ended;           /* of the kept, ended (RS_PSTATE_PROC_ENDED) */
	uint32_t refused;         /* process entries refused (checks failed) */
	enum gi_pstate_why why;     /* of the last refused */
	uint32_t names_refused;   /* mappings of kept processes left out for
				   * their name alone (GI_PSTATE_WHY_NAME) */
};

struct gpstate {
	enum gi_pstate_state state;
	struct rs_pstate_info info; /* the copy's head: left-out counts */
	uint8_t *table;           /* info.head.length bytes, private copy */
	uint32_t nr_procs, nr_maps;
	struct gi_pstate_proc *procs;
	struct gi_pstate_map *maps;
	struct gi_pstate_stats st;
};

/* Copy @region's newest complete copy once and check it (@g zeroed first,
 * or read before).  0 (g->state says what was found); -ENOMEM, -EINVAL. */
int gi_pstate_read(struct gpstate *g, const struct rs_region *region);

/* Check @len bytes of process entries (@procs claimed) into @g; the names
 * stay in @table, which must outlive @g's use.  -ENOMEM, -EINVAL. */
int gi_pstate_parse(struct gpstate *g, const uint8_t *table, uint64_t len,
		  uint32_t procs);

/* Process @proc's PERF_RECORD_COMM (pid = tid), and its mapping @map's
 * PERF_RECORD_MMAP2 (misc USER, MMAP_BUILD_ID with a build id), bare
 * (no sample id), into @out (emptied first).  0, -EINVAL, -ENOMEM. */
int gi_pstate_comm(const struct gpstate *g, uint32_t proc, struct pdf_buf *out);
int gi_pstate_mmap2(const struct gpstate *g, uint32_t proc, uint32_t map,
		  struct pdf_buf *out);

const char *gi_pstate_why_str(enum gi_pstate_why why);

void gi_pstate_fini(struct gpstate *g);

/* ---- usyms (src/usyms.c) ---- */
/*
 * The guest's user samples by function, for `ringside report`: the
 * MMAP2 records of a file say which guest file and offset each user-mode
 * sample hit; the functions are named from that file's ELF symbol table
 * under a --symfs directory (a copy of the guest's files), as perf does.
 * Everything in the file is the guest's claim and the symfs files are
 * read as untrusted input: every count, size and offset is bounded.
 * Returns codes, never prints (print.c does).
 */

#define GI_SYMFS_MAX_MAPS   8192u    /* mappings kept, all processes */
#define GI_SYMFS_MAX_FILES  1024u    /* distinct mapped files */
#define GI_SYMFS_MAX_HITS   65536u   /* distinct (file, offset) pairs */

struct usyms;

struct usyms_summary {
	uint64_t samples;         /* user-mode samples seen */
	uint64_t unmapped;        /* of them, in no mapping of their process */
	uint64_t dropped;         /* of them, past GI_SYMFS_MAX_HITS */
	uint64_t maps_dropped;    /* MMAP2 records past GI_SYMFS_MAX_MAPS/_FILES */
	uint32_t files;           /* files the samples are in */
	uint32_t unnamed_files;   /* of them, not found or not usable under
				   * --symfs (or no --symfs) */
	uint32_t mismatched;      /* of them, found with another build id */
};

/* One row of the table: samples in one function of one file, or at one
 * offset of it when no symbol covers it. */
struct gi_symfs_row {
	const char *file;         /* the guest's path, as its MMAP2 said */
	const char *function;     /* NULL: not named (see @offset) */
	uint64_t offset;          /* in the file, when @function is NULL */
	uint64_t samples;
};

/* @symfs: the directory the guest's files are under (NULL: name none).
 * 0, -ENOMEM. */
int gi_symfs_new(struct usyms **up, const char *symfs);
void gi_symfs_free(struct usyms *u);

/* One ring record in file order: MMAP2 records map, user-mode samples
 * (laid out for @sample_type, with IP and TID) count. */
void gi_symfs_add(struct usyms *u, const struct rs_perf_header *rec,
	       uint64_t sample_type);

/* Name what was counted and fill up to @max rows, most samples first.
 * Returns the number of rows, or -ENOMEM.  Rows stay valid while @u
 * lives. */
int gi_symfs_top(struct usyms *u, struct gi_symfs_row *rows, unsigned max,
	      struct usyms_summary *sum);

#endif /* RINGSIDE_INTROSPECT_H */
