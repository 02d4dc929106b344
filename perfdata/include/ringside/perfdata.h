/* SPDX-License-Identifier: MIT */
/*
 * ringside-perfdata: perf.data files as ringside writes and reads them.
 * docs/perfdata.md describes the library, docs/cli.md ("The perf.data
 * mapping") what a ring record becomes in the file.
 *
 *   pdf_writer_*    a file of ring records (record, snapshot, run)
 *   pdf_reader_*    such a file read back into ring records
 *   pdf_rrec_*      ring records as the host sees them: class, perf body,
 *                   the time a record is filed under
 *   pdf_sample_*    PERF_RECORD_SAMPLE bodies
 *   pdf_intel_pt_*  an Intel PT trace for perf's own intel_pt decoder
 *   pdf_ksyms_*     a guest kernel's symbols, for perf to name its samples
 *   pdf_buf_*       a growable byte buffer
 *
 * Every function returning int returns >= 0 on success (or a count), or
 * a negative code: -errno where a system call failed (-1 .. -4095), or
 * PDF_ERR(e) for an enum pdf_error e.  pdf_error_str() names both.  Nothing
 * here prints or exits.
 */
#ifndef RINGSIDE_PERFDATA_H
#define RINGSIDE_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors --------------------------------------------------------------- */

/* Above every errno value, so that -errno and PDF_ERR() never meet. */
#define PDF_ERR_BASE 8192
#define PDF_ERR(e)   (-(PDF_ERR_BASE + (int)(e)))

enum pdf_error {
	pdfe_ok = 0,
	pdfe_internal,     /* a broken invariant of this library */
	pdfe_invalid,      /* the caller passed nonsense */
	pdfe_magic,        /* not a perf.data file */
	pdfe_format,       /* malformed header, section or record */
	pdfe_attr_size,    /* an attr size this reader does not know */
	pdfe_not_ringside, /* a perf.data file ringside did not write */
	pdfe_truncated,    /* a section or record runs past the file */
	pdfe_too_big,      /* the record does not fit a perf record (u16 size) */
	pdfe_ksyms_format, /* guest kallsyms: a line that is no kallsyms line */
	pdfe_ksyms_range,  /* guest kallsyms: a function outside the kernel half */
	pdfe_ksyms_overlap,/* guest kallsyms: a module's symbols amid another's
			    * (the reason a module is refused; never returned) */
	pdfe_ksyms_empty,  /* guest kallsyms: no function perf could name */
	pdfe_ksyms_size,   /* guest kallsyms: over PDF_KSYMS_MAX_* */
	pdfe_cache_unsafe, /* a build-id cache directory or file ringside will
			    * not write: a link, not this user's, writable by
			    * others, or perf's own cache */
	pdfe_max
};

/* Never NULL; takes any negative return of this library, -errno too. */
const char *pdf_error_str(int err);

/* ---- files written aside and renamed into place (pdf_aside_*) ------------ */
/*
 * Every file ringside writes (perf.data files, pprof profiles, archives,
 * the service's sidecars) is written as PATH.tmp.XXXXXX and renamed over
 * PATH when whole.  The six characters are random, and the file is made
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 (less the umask), in PATH's own
 * directory: in a directory other users may write (/tmp, a sticky
 * shared one) no name they planted, link or file, is ever opened,
 * truncated or left readable to them, and the rename replaces PATH
 * itself (a link there too), never what it points to.
 */
#define PDF_ASIDE_SUFFIX ".tmp.XXXXXX"

/* Create the temporary file of @path, its name into @tmp (at least
 * strlen(@path) + sizeof(PDF_ASIDE_SUFFIX) bytes).  The descriptor
 * (O_RDWR, O_CLOEXEC), -EINVAL, -ENAMETOOLONG, -EEXIST (100 names
 * taken), -errno of open. */
int pdf_aside_open(const char *path, char *tmp, size_t size);

/* fsync and close @fd, rename @tmp to @path.  0, or -errno with @tmp
 * removed; @fd is closed either way. */
int pdf_aside_commit(int fd, const char *tmp, const char *path);

/* Close @fd (if >= 0) and remove @tmp. */
void pdf_aside_discard(int fd, const char *tmp);

/* ---- a growable byte buffer (pdf_buf_*) ----------------------------------- */

/* Caller-owned; file sections are built in it, records stashed in it. */
struct pdf_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err;          /* sticky: -ENOMEM once an append failed */
};

/* An empty buffer.  Both accept NULL; fini frees the bytes and empties @b. */
void pdf_buf_init(struct pdf_buf *b);
void pdf_buf_fini(struct pdf_buf *b);
/* Appends; on failure sets b->err and drops this and later appends. */
void pdf_buf_add(struct pdf_buf *b, const void *src, size_t len);
void pdf_buf_add_u32(struct pdf_buf *b, uint32_t v);
void pdf_buf_add_u64(struct pdf_buf *b, uint64_t v);
/* perf's feature string: u32 length (NUL included, padded to 64), bytes. */
void pdf_buf_add_string(struct pdf_buf *b, const char *s);

/* ---- ring records (pdf_rrec_*) -------------------------------------------- */

/* Record classes in reports, in display order. */
enum pdf_rrec_class {
	PDF_RREC_SEQ = 0,
	PDF_RREC_MARKER,
	PDF_RREC_SAMPLE,
	PDF_RREC_LOST,
	PDF_RREC_AUX,
	PDF_RREC_ITRACE_START,
	PDF_RREC_LOST_SAMPLES,
	PDF_RREC_COMM,         /* a thread's name: pid, tid, NUL-terminated comm */
	PDF_RREC_MMAP2,        /* a mapping of a process: PERF_RECORD_MMAP2 */
	PDF_RREC_OTHER,        /* unknown type, or malformed for its type */
	PDF_RREC_MAX
};

/* The class of @rec: PDF_RREC_OTHER unless its type is known and its size
 * holds what the type needs (for a sample: against @sample_type). */
enum pdf_rrec_class pdf_rrec_classify(const struct rs_perf_header *rec,
				      uint64_t sample_type);

/*
 * The body bytes perf reads of @rec, one of perf's non-sample types that
 * ringside knows (LOST, AUX, ITRACE_START, LOST_SAMPLES: their struct; COMM:
 * pid, tid and the name with its NUL, padded to 8 bytes as perf pads it;
 * MMAP2: its 64 fixed bytes and the file name the same way).  Anything
 * after that (a guest's sample_id trailer) is not counted.  0 for another
 * type, or a record too short for its type (a COMM or MMAP2 whose name has
 * no NUL, or whose padding runs past the record), or an MMAP2 perf could
 * not take safely (see struct rs_perf_mmap2_body).
 */
size_t pdf_rrec_perf_body(const struct rs_perf_header *rec);

/* PERF_RECORD_MMAP2's fixed part (the kernel's struct, after the header).
 * With PERF_RECORD_MISC_MMAP_BUILD_ID in misc, the 24 bytes after pgoff are
 * the build id's size (at most 20), 3 reserved bytes and the id; without, the
 * device, inode and generation.  A guest's MMAP2 is refused (classified
 * OTHER, carried whole) when the build id's size is over 20 (perf 6.1
 * copies that many bytes into a 20-byte array) or its name is empty,
 * PDF_MMAP2_NAME_MAX bytes or longer (perf's PATH_MAX) or has a ".."
 * component (which the kernel never writes, and which would lead perf out
 * of its --symfs tree). */
struct rs_perf_mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		} file;
		struct {
			uint8_t size;
			uint8_t res1;
			uint16_t res2;
			uint8_t id[20];
		} build_id;
	} u;
	uint32_t prot, flags;
	/* char filename[]: NUL-terminated, padded to 8 bytes */
};
#define PDF_MMAP2_NAME_MAX 4096u

/* 1 if perf can take the @len bytes at @name (no NUL among them) as an
 * MMAP2's file name: not empty, shorter than PDF_MMAP2_NAME_MAX, no NUL
 * and no ".." component.  The one rule for a guest's MMAP2 in a ring
 * (pdf_rrec_perf_body) and for a name of its process table (introspect's
 * gpstate), so that what one accepts the other encodes. */
int pdf_rrec_mmap2_name_ok(const char *name, size_t len);

/* Short names: "seq", "marker", "sample", "LOST", ... */
const char *pdf_rrec_class_name(enum pdf_rrec_class cls);
/* Names for JSON keys: "seq", "marker", "sample", "lost", ... */
const char *pdf_rrec_class_key(enum pdf_rrec_class cls);

/* Per ring: the time of the last record that carried one, and how the
 * producer's clock converts to ns (time_mult 0: it is taken as ns). */
struct pdf_rrec_clock {
	uint64_t last;
	struct rs_time_conv conv;
};

/* A clock for ring @index of @region, with the conversion its control page
 * publishes (a ringside VMM: guest TSC to host CLOCK_MONOTONIC ns).
 * Returns 1 with a conversion, 0 without. */
int pdf_rrec_clock_init(struct pdf_rrec_clock *clk,
			const struct rs_region *region, uint32_t index);

/*
 * The time @rec is filed under, in ns: its own (SEQ, MARKER, a sample with
 * TIME) converted with the clock's conversion, else the ring's last one.
 * Moves the clock forward.
 */
uint64_t pdf_rrec_stamp(struct pdf_rrec_clock *clk,
			const struct rs_perf_header *rec, uint64_t sample_type);

/* 1 if @rec carries its own time (SEQ, MARKER, a sample with TIME whose
 * layout ringside checks), 0 if it is filed under another record's. */
int pdf_rrec_timed(const struct rs_perf_header *rec, uint64_t sample_type);

/* ---- the clock of a file's times (pdf_clock_*) ----------------------------- */

/* What a file says about its clock (ringside's clock feature). */
enum pdf_clock_state {
	PDF_CLOCK_NONE = 0,       /* nothing said: times as the producer wrote them */
	PDF_CLOCK_SYNCED,         /* guest times converted to host CLOCK_MONOTONIC */
	PDF_CLOCK_NO_ANSWER,      /* a sync was tried; the guest did not answer */
	PDF_CLOCK_REFUSED,        /* it answered; no answer was acceptable */
	PDF_CLOCK_NO_AGENT,       /* no agent attached: no sync tried */
	PDF_CLOCK_HOST,           /* times were host CLOCK_MONOTONIC already
				   * (a ringside VMM's TSC conversion) */
	PDF_CLOCK_STATE_MAX
};

/* One sync: guest time = host time + offset_ns, within +-bound_ns. */
struct pdf_clock_point {
	uint64_t guest_ns;        /* the guest's time at the sync */
	int64_t offset_ns;        /* guest - host */
	uint64_t bound_ns;
	uint32_t rounds;          /* valid rounds of the sync */
	uint32_t refused;         /* answers refused (guest claims that failed) */
};

struct pdf_clock_sync {
	uint32_t state;           /* enum pdf_clock_state */
	uint32_t nr;              /* points: 0, 1 (constant offset) or 2 (start
				   * and end: interpolated for drift) */
	struct pdf_clock_point pt[2];
	uint64_t wall_ns;         /* host CLOCK_REALTIME and CLOCK_MONOTONIC */
	uint64_t mono_ns;         /* read together (HEADER_CLOCK_DATA) */
};

/* Guest time @guest in host CLOCK_MONOTONIC ns: guest - offset, the offset
 * interpolated between two points (a line through them, also outside),
 * saturated at 0 and UINT64_MAX (never wrapped).  @guest itself when @cs
 * does not convert. */
uint64_t pdf_clock_to_host(const struct pdf_clock_sync *cs, uint64_t guest);

/* "synchronized", "no time sync: the guest did not answer", ... */
const char *pdf_clock_state_str(uint32_t state);

/* ---- what the host itself observed (pdf_host_*) -------------------------- */

/*
 * A file's records are what the guest wrote: their contents, LOST counts
 * and times are the guest's claims.  What the host saw while it read the
 * rings is kept apart, in ringside's host feature: when it read them (host
 * CLOCK_MONOTONIC), each ring's geometry from the validated layout, and
 * what it had to discard.  `ringside report` checks the claims against it
 * (docs/cli.md, "Host facts and guest claims").
 */
enum pdf_host_kind {
	PDF_HOST_NONE = 0,        /* the file says nothing (an older ringside) */
	PDF_HOST_DRAIN,           /* record: consumers drained the rings */
	PDF_HOST_SNAPSHOT,        /* snapshot: the rings were copied */
	PDF_HOST_KIND_MAX
};

struct pdf_host_ring {
	uint64_t data_size;       /* data area bytes (the host's layout) */
	uint64_t aux_size;        /* AUX area bytes, 0: none */
	uint64_t corrupt;         /* corruption events: malformed records,
				   * heads or tails that cannot be true */
	uint64_t corrupt_bytes;   /* ring bytes discarded because of them */
	uint64_t bad_heads;       /* of corrupt: impossible data heads/tails */
	uint64_t aux_bad_heads;   /* impossible AUX heads/tails */
	uint64_t aux_bytes;       /* AUX bytes taken from the ring */
	uint64_t aux_stored;      /* of them, in the file (AUXTRACE) */
	uint64_t cut_bytes;       /* snapshot: cut as possibly overwritten */
	uint64_t not_written;     /* records perf.data cannot carry */
	uint64_t frames_trimmed;  /* call chain frames cut (the writer's
				   * count, pdf_writer_stats; 0 in files
				   * written before it was counted) */
	/* A recording (drain): what the ring held when it attached.  Those
	 * records are in the file, first in their ring; the LOST and
	 * LOST_SAMPLES among them (and a LOST the producer wrote first
	 * after the attach: drops of the ring it found full) are not, their
	 * counts are here.  0 in files written before these were kept. */
	uint64_t early_records;   /* in the file, from before the attach */
	uint64_t early_lost_records;   /* LOST left out, counts summed ... */
	uint64_t early_lost;           /* ... here (guest claims, checked) */
	uint64_t early_lost_samples_records; /* LOST_SAMPLES likewise */
	uint64_t early_lost_samples;
	uint64_t early_flagged;   /* LOST left out, counts implausible: not
				   * summed */
	uint64_t early_flagged_samples; /* LOST_SAMPLES likewise */
};
#define PDF_HOST_RING_WORDS 18u   /* u64 words of pdf_host_ring in the file */

struct pdf_host_facts {
	uint32_t kind;            /* enum pdf_host_kind */
	uint32_t nr_rings;        /* entries of ring[] in use */
	uint64_t start_ns;        /* host CLOCK_MONOTONIC before the first
				   * read of a ring (attach, or the copy) */
	uint64_t end_ns;          /* ... after the last one */
	struct pdf_host_ring ring[RS_MAX_RINGS];
};

/*
 * Who the guest is and how it sampled, as its agent claimed (the region's
 * struct rs_guest_info, checked and NUL-terminated by the caller): the
 * file's identity features (HEADER_HOSTNAME, OSRELEASE, ARCH, NRCPUS,
 * CPUDESC, TOTAL_MEM) and its sampling event's attr describe the guest,
 * never the host that read the rings.  Not known: those features say
 * nothing rather than the host's.
 */
struct pdf_guest_facts {
	uint32_t known;           /* 0: the guest said nothing; the rest is 0 */
	uint32_t nr_cpus_online;
	uint32_t nr_cpus_avail;
	uint32_t sample_flags;    /* enum rs_sample_flag */
	uint64_t mem_total_kib;
	uint64_t sample_period;   /* or frequency, with RS_SAMPLE_FREQ */
	uint32_t sample_type_id;  /* perf_event_attr.type of the guest's event */
	uint32_t reserved;
	uint64_t sample_config;   /* perf_event_attr.config of it */
	char hostname[65];        /* NUL-terminated, printable */
	char os_release[65];
	char arch[17];
	char cpu_desc[65];
};

/* ---- sample bodies (pdf_sample_*) ----------------------------------------- */

/* One PERF_RECORD_SAMPLE body.  The fields ringside understands are
 * IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN
 * and RAW; a sample_type with any other bit does not parse. */
struct pdf_sample {
	uint64_t identifier, ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu, cpu_res;
	uint64_t callchain_nr;
	const void *callchain; /* its callchain_nr u64 entries (not aligned) */
	uint32_t raw_size;
	const void *raw;     /* its raw_size bytes */
	size_t raw_offset;   /* of the raw bytes in the body */
	size_t len;          /* body bytes the fields take */
};

/*
 * Parse @len bytes of sample body laid out for @type into @s; callchain
 * and raw point into @body.  PDF_ERR(pdfe_format): unknown bits or fields
 * past @len.
 */
int pdf_sample_parse(uint64_t type, const void *body, size_t len,
		     struct pdf_sample *s);

/*
 * The reverse: append to @out a whole PERF_RECORD_SAMPLE (the header with
 * @misc and its size, then the body laid out for @type) holding @s's
 * fields: callchain_nr entries at s->callchain, raw_size bytes at s->raw
 * (raw_size + 4 a multiple of 8, as perf keeps them); raw_offset and len
 * are not read.  What pdf_sample_parse() gives, built again, is the same
 * record.  Appends nothing on failure.  0; PDF_ERR(pdfe_invalid): NULL, a
 * bit of @type outside those fields, a NULL callchain or raw with entries
 * or bytes, a raw size that breaks the alignment; PDF_ERR(pdfe_too_big):
 * over 65535 bytes (perf's u16 size); -ENOMEM (also when out->err is set).
 */
int pdf_sample_build(uint64_t type, uint16_t misc, const struct pdf_sample *s,
		     struct pdf_buf *out);

/* ---- a guest kernel's symbols (pdf_ksyms_*) ------------------------------- */

/*
 * A guest's /proc/kallsyms ("ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]"
 * lines), checked as untrusted input and put in the form perf 6.1 reads
 * from its build-id cache (docs/perfdata.md, "Guest kernel symbols").
 *
 * Refused, the whole text (a kallsyms that is wrong in one place is not
 * trusted anywhere else):
 *   pdfe_ksyms_size     more than PDF_KSYMS_MAX_BYTES bytes or
 *                       PDF_KSYMS_MAX_LINES lines, or more than
 *                       PDF_KSYMS_MAX_MODULES modules;
 *   pdfe_ksyms_format   a line not of that form: an address that is not 1-16
 *                       hex digits, a type that is not an ASCII letter, a
 *                       name that is empty, longer than PDF_KSYMS_NAME_MAX
 *                       (the kernel's own bound) or has a byte outside
 *                       '!'..'~' or a '[' or ']' (so no NUL, newline, space
 *                       or tab), a module that is not [A-Za-z0-9_-]{1,55}
 *                       in brackets after one tab, or is one of perf's own
 *                       names (vdso, vdso32, vdsox32, vsyscall); an empty
 *                       line;
 *   pdfe_ksyms_range    a function (type T, t, W or w) below
 *                       PDF_KSYMS_MIN_ADDR: no kernel has one there, and
 *                       all-zero addresses are what kptr_restrict prints;
 *   pdfe_ksyms_empty    no function of the kernel proper.
 * Refused, one module (counted in pdf_ksyms_stats.modules_refused, its
 * symbols in .refused; pdfe_ksyms_overlap names the reason): a module
 * whose functions are not one run of addresses of its own (another
 * module's or the kernel's symbol amid them, or at one of their
 * addresses), or that reaches into the span of the kernel's symbols.  A
 * read of /proc/kallsyms racing a module's load gives such a table (the
 * module's .init symbols, listed until its init memory is freed, lie in
 * another allocation); the kernel and the other modules keep their names.
 * Read but not kept (counted in pdf_ksyms_stats): lines of a type perf does
 * not read (it keeps T t W w D d B b), data symbols (D d B b) below
 * PDF_KSYMS_MIN_ADDR (x86-64's per-CPU offsets) and of modules (a module's
 * data need not lie next to its text), the symbols of the pseudo-modules
 * [bpf] and [__builtin__*] (they have no range of their own), and repeats
 * of an identical line.  The rest is sorted by address (the input need not
 * be); symbols at one address are all kept.  The last line may lack its
 * newline.
 */
#define PDF_KSYMS_MAX_BYTES   (64u << 20)
#define PDF_KSYMS_MAX_LINES   (1u << 21)
#define PDF_KSYMS_MAX_MODULES 4096u
#define PDF_KSYMS_NAME_MAX    511u     /* bytes of a name: KSYM_NAME_LEN - 1 */
#define PDF_KSYMS_MODULE_MAX  55u      /* bytes of a module name */
#define PDF_KSYMS_MIN_ADDR    0xffff800000000000ull
#define PDF_BUILD_ID_SIZE     20u

struct pdf_ksyms;

struct pdf_ksyms_stats {
	uint64_t lines;           /* lines read */
	uint64_t symbols;         /* kept: what perf gets */
	uint64_t ignored;         /* of a type perf does not read */
	uint64_t dropped;         /* low or module data, pseudo-modules, repeats */
	uint64_t refused;         /* functions of the refused modules */
	uint32_t modules;         /* modules named by the kept symbols */
	uint32_t modules_refused; /* modules amid another map: left out */
	int have_text;            /* "_text" present (perf's reference symbol) */
	uint64_t text;            /* its address */
	uint64_t kernel_start;    /* the kernel's map (its MMAP record) */
	uint64_t kernel_end;
};

/*
 * Parse and check @len bytes of kallsyms text at @text.  0 and *@kp, or
 * PDF_ERR(pdfe_ksyms_*) as above, PDF_ERR(pdfe_invalid), -ENOMEM.
 */
int pdf_ksyms_parse(struct pdf_ksyms **kp, const void *text, size_t len);

/* Accepts NULL. */
void pdf_ksyms_free(struct pdf_ksyms *k);

const struct pdf_ksyms_stats *pdf_ksyms_stats(const struct pdf_ksyms *k);

/* A kept symbol; @name and @module stay valid while @k lives. */
struct pdf_ksym {
	uint64_t addr;
	char type;
	const char *name;         /* NUL-terminated */
	const char *module;       /* without brackets; NULL for the kernel */
};

/*
 * The symbol for @addr as perf finds it: the last one at or below it in the
 * same map (the kernel's or one module's).  Of aliases (several symbols at
 * one address) this gives the last by name; perf picks one by rules of its
 * own (symbols__fixup_duplicate()).  1 found, 0 none (outside every map).
 */
int pdf_ksyms_find(const struct pdf_ksyms *k, uint64_t addr,
		   struct pdf_ksym *sym);

/* The kept symbols as kallsyms text, sorted: what the cache entry holds. */
int pdf_ksyms_text(const struct pdf_ksyms *k, struct pdf_buf *out);

/* The build id perf is given when the guest's own is not used: the first
 * 20 bytes of SHA-256 over pdf_ksyms_text(). */
int pdf_ksyms_content_id(const struct pdf_ksyms *k,
			 uint8_t id[PDF_BUILD_ID_SIZE]);

/*
 * The build-id cache a plain perf 6.1 reads: "dir" of section [buildid] in
 * the perfconfig perf reads ($PERF_CONFIG alone if set, else
 * /etc/perfconfig then $HOME/.perfconfig), else $HOME/.debug.  perf does
 * not read PERF_BUILDID_DIR (it sets it for the programs it runs), so
 * neither does this.  -ENAMETOOLONG, -ENOENT (no HOME).  ringside never
 * writes there: what names the host's own programs for the host's perf
 * is no place for a guest's claims (docs/perfdata.md, "Where guest names
 * go").
 */
int pdf_cache_perf_dir(char *dst, size_t size);

/*
 * ringside's own build-id cache of a perf.data file it wrote: the
 * directory PDF_CACHE_NAME beside it (the file's directory/.ringside-debug),
 * where the writer puts the guest's kernel symbols and code and its user
 * binaries' symbols, and where `ringside report --pprof`, `archive` and
 * `decode` read them; perf reads it with `perf --buildid-dir DIR`.  The
 * files of one directory share it: the service and the libvirt hook keep
 * one directory per domain.  0, -ENAMETOOLONG, PDF_ERR(pdfe_invalid).
 */
#define PDF_CACHE_NAME ".ringside-debug"
int pdf_cache_dir_of(const char *file, char *dst, size_t size);

/*
 * Make DIR/[kernel.kallsyms]/HEX(@id)/kallsyms hold pdf_ksyms_text(@k)
 * (DIR: @dir, a cache of ringside's own: made 0700 if absent, never a
 * link, this user's and writable by nobody else, never perf's own), as
 * perf's cache lays it out: directories 0755, the file written aside
 * (O_EXCL|O_NOFOLLOW) and linked into place, and DIR/.build-id/XX/REST
 * linked to it (perf reads its cache through that link alone under
 * --symfs).  An entry already there is never replaced: 0 when it holds
 * the same bytes, 1 when it holds others.  -errno, PDF_ERR(pdfe_invalid)
 * (NULL @dir among others), PDF_ERR(pdfe_cache_unsafe).
 */
int pdf_ksyms_cache_put(const struct pdf_ksyms *k,
			const uint8_t *id, size_t id_len, const char *dir);

/* Guest code perf reads to decode Intel PT of the kernel: [start, end). */
struct pdf_code_range {
	uint64_t start, end;
};

/*
 * Where perf looks for the instructions of a kernel PT trace, by address:
 * the kernel's functions in clusters (from a function's page to two pages
 * on, joined while less than 1 MiB apart: its text, init text and exit
 * text each one range, the data between them none; within its map), then
 * each module's map.  perf drops the symbols outside these, so they hold
 * every function.  Fills up to @max of @r (sorted only when all fit);
 * returns how many there are.  PDF_ERR(pdfe_invalid).
 */
int pdf_kernel_code_ranges(const struct pdf_ksyms *k,
			  struct pdf_code_range *r, unsigned max);

/* ---- the guest kernel's code, for perf's PT decoder (pdf_kcore.c) ---------
 * perf 6.1 reads kernel instructions from a "kcore" file beside the
 * kallsyms of the kernel's build-id cache entry (dso__load_kcore(),
 * symbol.c): an ELF core file whose executable PT_LOAD segments sit at
 * their kernel addresses, checked against a "modules" file there
 * (docs/perfdata.md, "Guest kernel code").
 */
#define PDF_KCORE_MAX_SEGS  (PDF_KSYMS_MAX_MODULES + 1u)
#define PDF_KCORE_MAX_BYTES (512ull << 20)

struct pdf_kcore_seg {
	uint64_t addr;            /* kernel virtual address, >= PDF_KSYMS_MIN_ADDR */
	uint64_t len;
	const void *data;
};

/*
 * The ELF image of @nr segments (sorted, none overlapping, in the kernel
 * half, @len > 0, PDF_KCORE_MAX_BYTES at most in all) into @out; the
 * program header of the segment holding address @last (the kernel's
 * _stext: perf 6.1 must meet it first, and takes them in reverse) comes
 * last.  PDF_ERR(pdfe_invalid), -ENOMEM.
 */
int pdf_kcore_image(const struct pdf_kcore_seg *segs, uint32_t nr,
		    uint64_t last, struct pdf_buf *out);

/*
 * The PT_LOAD segments of a kcore image (@len bytes at @image, which the
 * segments' data then point into): 64-bit little-endian ELF, each segment
 * inside the image and in the kernel half; when all fit in @max, sorted by
 * address and refused if any overlap (what pdf_kcore_image writes, and
 * /proc/kcore's form).  Returns how many there are.  PDF_ERR(pdfe_format).
 */
int pdf_kcore_parse(const uint8_t *image, uint64_t len,
		    struct pdf_kcore_seg *segs, uint32_t max);


/* ---- writing a file of ring records (pdf_writer_*) ------------------------ */

/*
 * The file is built aside as PATH.tmp.XXXXXX (pdf_aside_open: a random
 * name, O_EXCL|O_NOFOLLOW, mode 0600) and renamed to PATH by
 * pdf_writer_finish() once it is complete, so a file at PATH is always
 * whole; any failure, or pdf_writer_discard(), removes it.
 */
struct pdf_writer;

struct pdf_writer_params {
	uint32_t size;            /* sizeof(struct pdf_writer_params) */
	uint32_t nr_rings;        /* written as the number of CPUs */
	uint64_t sample_type;     /* the region's sample_type (guest samples) */
	int argc;                 /* the command line, for HEADER_CMDLINE */
	char *const *argv;
	/* Optional: the guest kernel's symbols, so that plain `perf report`
	 * and `perf script` name its kernel samples (docs/perfdata.md, "Guest
	 * kernel symbols").  The text of its /proc/kallsyms, its build id if
	 * known. */
	const void *guest_kallsyms;
	size_t guest_kallsyms_len;
	const uint8_t *guest_build_id;
	uint32_t guest_build_id_len;  /* 0: unknown */
	/* The build-id cache the guest's kernel symbols and code and its
	 * user binaries' symbols go to (NULL: the file's own,
	 * pdf_cache_dir_of(path)); never perf's own cache, which the
	 * writer refuses (ksyms_err, ubins_err: pdfe_cache_unsafe). */
	const char *buildid_dir;
	/* What the rings' AUX areas hold (enum pdf_aux_format): with one,
	 * the file starts with an AUXTRACE_INFO saying so, and
	 * pdf_writer_add_aux() stores AUX bytes as AUXTRACE records. */
	uint32_t aux_format;
	/* Who the guest is and how it sampled, as its agent claimed (NULL or
	 * known 0: unknown; copied).  The file's identity features and the
	 * guest sample event's attr describe it (pdf_writer_set_guest). */
	const struct pdf_guest_facts *guest;
};

/* What AUX bytes are, for perf (docs/perfdata.md, "AUX data"). */
enum pdf_aux_format {
	PDF_AUX_NONE = 0,         /* no AUX data in the file */
	PDF_AUX_INTEL_PT,         /* Intel PT packets: perf's intel_pt decoder */
	PDF_AUX_OPAQUE,           /* bytes ringside cannot name: stored for
				   * the file's reader, never decoded */
	PDF_AUX_FORMAT_MAX
};

struct pdf_writer_stats {
	uint64_t records;         /* ring records written */
	uint64_t aux_bytes;       /* AUX bytes stored (AUXTRACE payloads) */
	uint64_t bytes;           /* data section bytes */
	/* Guest samples' call chains cut of their trailing frames the
	 * guest's unwinder could not stand behind (0, non-canonical, a user
	 * address under none of its process's maps, a kernel one outside the
	 * kernel half): frames cut, chains cut (docs/perfdata.md). */
	uint64_t frames_trimmed;
	uint64_t chains_trimmed;
	/* Guest kernel symbols: 0 when none were given or all went well;
	 * else why perf will not name the guest's kernel samples (the
	 * pdf_ksyms_parse() or pdf_ksyms_cache_put() error).  The file is
	 * written either way. */
	int ksyms_err;
	uint8_t build_id[PDF_BUILD_ID_SIZE]; /* the kernel's, in the file */
	uint32_t build_id_len;    /* 0: none */
	/* Guest user binaries (pdf_writer_add_ubins): in the cache and the
	 * file; not put in the cache (an error); kept out because the
	 * cache held other bytes under their build id. */
	uint32_t ubins;
	uint32_t ubins_failed;
	uint32_t ubins_other;
	int ubins_err;            /* the last error of ubins_failed */
};

/*
 * Create PATH.tmp.XXXXXX and write the header and attrs.  -errno (the
 * open or write failed; nothing is left behind), PDF_ERR(pdfe_invalid).
 */
int pdf_writer_open(struct pdf_writer **wp, const char *path,
		    const struct pdf_writer_params *params);

/*
 * The guest kernel's symbols for a writer opened without them (a recording
 * that began before the guest published them): @params' guest_kallsyms,
 * guest_kallsyms_len, guest_build_id and guest_build_id_len, taken as
 * pdf_writer_open takes them, the other fields ignored (the cache is the
 * one chosen at open).  Their
 * maps go into the data section here (perf still has them before any
 * sample: they carry time 0, which perf does not queue), the build id into
 * the header at pdf_writer_finish; what went wrong with them is in the
 * stats, as at open.  Once per writer.  0; -EALREADY (given already, at
 * open or here), PDF_ERR(pdfe_invalid), or a write error (as
 * pdf_writer_add's).
 */
int pdf_writer_add_ksyms(struct pdf_writer *w,
			 const struct pdf_writer_params *params);

/*
 * Append ring record @rec of ring @ring, filed at @time.
 * PDF_ERR(pdfe_too_big): the record cannot be carried and was not written
 * (the file stays usable); -errno: a write failed, the file is lost
 * (discard).  PDF_ERR(pdfe_invalid).
 */
int pdf_writer_add(struct pdf_writer *w, uint32_t ring, uint64_t time,
		   const struct rs_perf_header *rec);

/*
 * Append a COMM or MMAP2 record that the host wrote from the guest's
 * process table, filed at @time on ring @ring's CPU: perf takes it as
 * any other, ringside's readers tell it from the rings' records
 * (pdf_event.state).  Not among stats.records.  Errors as pdf_writer_add's,
 * and PDF_ERR(pdfe_format) for a record perf could not take
 * (pdf_rrec_perf_body() 0: a name pdf_rrec_mmap2_name_ok() refuses, say):
 * nothing written, the file stays usable; the caller counts it.
 */
int pdf_writer_add_state(struct pdf_writer *w, uint32_t ring, uint64_t time,
			 const struct rs_perf_header *rec);

/*
 * Store @len bytes of ring @ring's AUX area, which began at position
 * @offset of its AUX stream, as one PERF_RECORD_AUXTRACE (the bytes
 * follow the record, padded to 8).  @data may be memory another party
 * writes meanwhile: it is copied once, never interpreted.
 * PDF_ERR(pdfe_invalid) (no aux_format at open, a ring of RS_MAX_RINGS or
 * more, NULL data), -errno: a write failed, the file is lost.
 */
int pdf_writer_add_aux(struct pdf_writer *w, uint32_t ring, uint64_t offset,
		       const void *data, uint64_t len);

/*
 * The same for a read that wrapped: @len bytes at @data then @len2 at
 * @data2, one PERF_RECORD_AUXTRACE.  perf (64-bit) decodes each AUXTRACE
 * on its own and does not join a packet split across two of them: one
 * read, one record, as perf record writes them.
 */
int pdf_writer_add_aux2(struct pdf_writer *w, uint32_t ring, uint64_t offset,
			const void *data, uint64_t len, const void *data2,
			uint64_t len2);

/* 1 when the build-id cache entry of the writer's kernel symbols already
 * holds a kcore (an earlier read of the same kernel, same boot), else 0. */
int pdf_writer_has_kcore(const struct pdf_writer *w);

/*
 * The guest code ranges of the writer's kernel symbols
 * (pdf_kernel_code_ranges()), for the caller to read from the guest and
 * give to pdf_writer_add_kcore().  Returns how many (0: no symbols, or
 * they were refused).
 */
int pdf_writer_code_ranges(const struct pdf_writer *w,
			   struct pdf_code_range *r, unsigned max);

/*
 * The guest kernel's code bytes (@nr segments, as pdf_kcore_image takes
 * them, normally within pdf_writer_code_ranges()), put beside the
 * kallsyms of the file's build-id cache entry as "kcore" and "modules",
 * so that `perf script --itrace` decodes the kernel's PT.  Like the
 * symbols, never replaces what the entry holds.  0 (there now, or there
 * already with the same bytes); 1 (the entry had other code: kept);
 * -ENOENT (the writer put no symbols in the cache), -errno,
 * PDF_ERR(pdfe_invalid).  The file itself does not depend on it.
 */
int pdf_writer_add_kcore(struct pdf_writer *w, const struct pdf_kcore_seg *segs,
			 uint32_t nr);

const struct pdf_writer_stats *pdf_writer_stats(const struct pdf_writer *w);

/* The temporary path being written (for messages). */
const char *pdf_writer_tmp_path(const struct pdf_writer *w);

/*
 * Write the features and the final header, sync, rename the temporary
 * file to PATH.  Frees @w in all cases; on failure the temporary file is
 * removed.  -errno,
 * PDF_ERR(pdfe_invalid).
 */
int pdf_writer_finish(struct pdf_writer *w);

/*
 * Say which clock the file's times are in (before pdf_writer_finish).
 * With state PDF_CLOCK_SYNCED, finish converts every record's time from
 * the guest's clock to host CLOCK_MONOTONIC (pdf_clock_to_host), marks the
 * events use_clockid/CLOCK_MONOTONIC and writes HEADER_CLOCKID and
 * HEADER_CLOCK_DATA; any state other than NONE is kept in ringside's
 * clock feature.  PDF_ERR(pdfe_invalid): NULL, or a state or point count
 * out of range.
 */
int pdf_writer_set_clock(struct pdf_writer *w, const struct pdf_clock_sync *cs);

/*
 * What the host observed while reading the rings, kept in ringside's host
 * feature (before pdf_writer_finish; NULL or kind NONE: nothing said).
 * PDF_ERR(pdfe_invalid): a kind or ring count out of range.
 */
int pdf_writer_set_host(struct pdf_writer *w, const struct pdf_host_facts *h);

/*
 * Who the guest is, for a writer opened without it (an agent that spoke
 * after the file was opened), or to replace what was given: @g is
 * copied (NULL or known 0: unknown).  The identity features are written
 * at pdf_writer_finish, the attrs rewritten in place then.
 * PDF_ERR(pdfe_invalid): NULL @w.
 */
int pdf_writer_set_guest(struct pdf_writer *w, const struct pdf_guest_facts *g);

/*
 * pdf_writer_finish, but a failure to write the tail leaves @w as it was
 * (nothing renamed, the temporary file there): the caller discards it,
 * or salvages it and tries again.  A failure of the last close or
 * rename removes the temporary file (salvage then refuses: discard).
 * 0 frees @w.
 */
int pdf_writer_try_finish(struct pdf_writer *w);

/* A part of the data section: its bytes, its ring records, of them the
 * LOST records and the sum of their counts. */
struct pdf_writer_part {
	uint64_t bytes;
	uint64_t records;
	uint64_t lost_records;
	uint64_t lost;
};

/*
 * After a write failed (a full disk): cut the data section back to the
 * end of the last whole addition (record, AUX record, symbols' maps)
 * that is on disk, and drop what was after it, written in part or
 * waiting in the writer's buffer.  What stays (*@kept) and what went
 * (*@dropped: consumed from the rings, lost) may be NULL.  Then
 * pdf_writer_try_finish completes a file perf reads up to that point,
 * with less room than the part dropped needed (the features, a few KiB).
 * 0, -errno (ftruncate), PDF_ERR(pdfe_invalid).
 */
int pdf_writer_salvage(struct pdf_writer *w, struct pdf_writer_part *kept,
		       struct pdf_writer_part *dropped);

/* Remove the temporary file and free @w.  Accepts NULL. */
void pdf_writer_discard(struct pdf_writer *w);

/* ---- a file's build-id cache entries in one tar (pdf_archive_*) ----------- */

/* What became of one HEADER_BUILD_ID entry of the file. */
enum pdf_archive_what {
	PDF_ARCHIVE_FOUND,     /* its cache entry is in the archive */
	PDF_ARCHIVE_MISSING,   /* the cache has no entry for it */
	PDF_ARCHIVE_REFUSED,   /* a name that is no path under the cache */
};

struct pdf_archive_stats {
	uint32_t ids;          /* HEADER_BUILD_ID entries of the file */
	uint32_t found;        /* of them with a cache entry, archived */
	uint32_t refused;      /* of them with a name not archived */
	uint32_t files;        /* regular files in the archive */
	uint32_t links;        /* .build-id links in the archive */
	uint64_t bytes;        /* the files' bytes */
};

/* Told of each entry: its name in the file, its id in hex. */
typedef void (*pdf_archive_fn)(void *arg, const char *name, const char *hex,
			       enum pdf_archive_what what);

/*
 * Write @tar_path (a ustar archive, written aside and renamed into place)
 * holding, for every HEADER_BUILD_ID entry of perf.data file @perf_data,
 * what the build-id cache (@buildid_dir; NULL: a ringside file's own,
 * pdf_cache_dir_of(), any other perf.data file's perf's,
 * pdf_cache_perf_dir()) has of it: every regular file of DIR/NAME/HEX
 * and the link DIR/.build-id/XX/REST to it, named relative to DIR (what
 * `perf archive` bundles: unpacked into the cache beside the file on
 * another machine, perf and hotspot name the file's samples there).  Any perf.data file, ringside's or not.  -errno,
 * PDF_ERR(pdfe_invalid | pdfe_magic | pdfe_format | pdfe_truncated),
 * -ENAMETOOLONG, -EFBIG (a file over ustar's 8 GiB).
 */
int pdf_archive_write(const char *perf_data, const char *tar_path,
		      const char *buildid_dir, struct pdf_archive_stats *st,
		      pdf_archive_fn fn, void *arg);

/* ---- a guest user binary's symbols (pdf_uelf.c) ---------------------------
 * perf names a user binary's samples from a file in its build-id cache,
 * DIR/PATH/ID/elf, found through DIR/.build-id/XX/REST.  For a guest
 * binary ringside writes there a small ELF file of its own making from the
 * symbols the guest's agent published (docs/perfdata.md, "Guest user
 * symbols"): the binary's e_type, e_machine and PT_LOADs, its build id
 * note, .text as NOBITS with the binary's address and offset, and its
 * FUNC symbols, so that perf computes the same addresses as from the
 * binary itself.
 */
#define PDF_UBIN_MAX_LOADS 16u

struct pdf_uload {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags;
};

struct pdf_usym {
	uint64_t value;
	uint32_t size;
	uint32_t name;            /* offset in pdf_ubin.names */
};

/* One binary, checked by its producer (introspect's gusyms): loads
 * 1..PDF_UBIN_MAX_LOADS, each symbol inside one, every name
 * NUL-terminated inside names, path absolute and clean. */
struct pdf_ubin {
	uint16_t e_type, e_machine;
	uint32_t build_id_len;    /* 1..PDF_BUILD_ID_SIZE */
	uint8_t build_id[PDF_BUILD_ID_SIZE];
	uint32_t nr_loads;
	struct pdf_uload loads[PDF_UBIN_MAX_LOADS];
	uint64_t text_addr, text_offset, text_size;
	uint32_t nr_syms;
	const struct pdf_usym *syms;
	uint32_t names_len;
	const char *names;
	const char *path;         /* NUL-terminated, "/..." */
};

/* The ELF symbol file of @b into @out.  0, PDF_ERR(pdfe_invalid),
 * -ENOMEM. */
int pdf_uelf_image(const struct pdf_ubin *b, struct pdf_buf *out);

/*
 * Make DIR/PATH/HEX(id)/elf hold pdf_uelf_image(@b) and link
 * DIR/.build-id/XX/REST to it (DIR: @dir, a cache of ringside's own, as
 * pdf_ksyms_cache_put takes it), as pdf_ksyms_cache_put does: never
 * replacing an entry.  The build id is the guest's claim: perf's own
 * cache would give the guest's names to the host's binary of that id.
 * 0 (written, or there with the same bytes), 1 (there with other bytes:
 * kept), -errno, PDF_ERR(pdfe_invalid) (NULL @dir among others),
 * PDF_ERR(pdfe_cache_unsafe).
 */
int pdf_uelf_cache_put(const struct pdf_ubin *b, const char *dir);

/*
 * Put each of @nr binaries in the writer's build-id cache (its
 * buildid_dir) and name them in the file's HEADER_BUILD_ID (misc USER,
 * the binary's path), once per build id, before pdf_writer_finish; may
 * be called again with more.  Returns how many went into the cache now
 * (those there already with the same bytes count); the others are
 * counted in the stats (ubins_failed, ubins_other).  PDF_ERR(pdfe_invalid).
 */
int pdf_writer_add_ubins(struct pdf_writer *w, const struct pdf_ubin *b,
			 uint32_t nr);

/* ---- reading it back (pdf_reader_*) --------------------------------------- */

/* The file is untrusted input: every offset, size and count is bounded
 * before use. */
struct pdf_reader;

struct pdf_info {
	uint32_t nr_rings;        /* ringside's reader feature (older files:
				   * HEADER_NRCPUS), 0 when absent */
	uint64_t sample_type;     /* the region's sample_type (guest samples) */
	uint64_t data_size;
	int have_time;            /* HEADER_SAMPLE_TIME present */
	uint64_t first_time;
	uint64_t last_time;
	char hostname[72];
	char version[72];
	char cmdline[1024];
	struct pdf_clock_sync clock;  /* ringside's clock feature (state NONE
				       * when absent or malformed) */
	int have_clock_data;          /* HEADER_CLOCK_DATA present */
	uint32_t clockid;             /* its clockid */
	struct pdf_host_facts host;   /* ringside's host feature (kind NONE
				       * when absent or malformed) */
	uint8_t build_id[PDF_BUILD_ID_SIZE]; /* HEADER_BUILD_ID's kernel entry */
	uint32_t build_id_len;        /* 0: none */
	/* The host that read the rings (ringside's reader feature; empty in
	 * files written before it): its uname nodename and release.
	 * hostname above is the guest's (HEADER_HOSTNAME) where the guest
	 * said it; in older files, the host's. */
	char reader_host[72];
	char reader_release[72];
	char os_release[72];          /* HEADER_OSRELEASE, "" when absent */
};

/* One ring record of the file; @rec is valid until the next call. */
struct pdf_event {
	uint32_t ring;
	int state;                /* 1: the host wrote it, no ring did (a COMM
				   * or MMAP2 of the guest's process table,
				   * pdf_writer_add_state); ring is 0 */
	uint64_t time;
	uint64_t offset;          /* of the perf record in the file */
	const struct rs_perf_header *rec;
};

/*
 * Open @path and read its header, attrs and features.  -errno,
 * PDF_ERR(e) for pdfe_invalid, pdfe_magic, pdfe_format, pdfe_attr_size,
 * pdfe_not_ringside, pdfe_truncated.
 */
int pdf_reader_open(struct pdf_reader **rp, const char *path);

const struct pdf_info *pdf_reader_info(const struct pdf_reader *r);

/*
 * The next ring record.  1 a record, 0 the end of the data section.
 * -errno, PDF_ERR(pdfe_format | pdfe_truncated): @ev->offset says where.
 */
int pdf_reader_next(struct pdf_reader *r, struct pdf_event *ev);

/* perf's own records met so far (skipped, not ring records). */
uint64_t pdf_reader_skipped(const struct pdf_reader *r);

/* AUX bytes met so far: the payloads of the AUXTRACE records, which the
 * reader steps over (padding included). */
uint64_t pdf_reader_aux_bytes(const struct pdf_reader *r);

/* One AUXTRACE record's bytes: ring @ring's AUX stream from @offset,
 * @len bytes (padded to 8 with zeros, PT's PAD packets).  Non-zero stops
 * the walk with that value. */
typedef int (*pdf_aux_fn)(void *arg, uint32_t ring, uint64_t offset,
			  const uint8_t *data, uint64_t len);

/*
 * Every AUXTRACE record of the data section, in file order, to @fn; a
 * walk of its own (pdf_reader_next's position stays).  Returns the
 * records given, or @fn's value, -ENOMEM, PDF_ERR(pdfe_format |
 * pdfe_truncated).  A payload is read whole: PDF_KCORE_MAX_BYTES at most.
 */
int pdf_reader_aux(struct pdf_reader *r, pdf_aux_fn fn, void *arg);

/* Accepts NULL. */
void pdf_reader_close(struct pdf_reader *r);

/* ---- Intel PT for perf's intel_pt decoder (pdf_intel_pt_*) ---------------- */

struct pdf_intel_pt_params {
	uint32_t size;            /* sizeof(struct pdf_intel_pt_params) */
	const void *trace;        /* the PT packet bytes */
	uint64_t trace_len;
	/* Where the traced code comes from: an ELF whose bytes at
	 * @code_offset (@code_len of them) are the code at @code_vaddr. */
	const char *elf;
	uint64_t code_vaddr;
	uint64_t code_len;
	uint64_t code_offset;
};

/*
 * Write @p's trace to @path as a perf.data that `perf script --itrace`
 * decodes with perf's own intel_pt decoder: AUXTRACE_INFO of type
 * intel_pt, one AUXTRACE record, an MMAP of the code for a made-up thread
 * (docs/pt-virt.md).  @path is opened as fopen(path, "wb") would open it.
 * PDF_ERR(pdfe_invalid) (a NULL, a short @p->size, an ELF path of 4096
 * bytes or more), -ENOMEM, -errno (nothing is written before the open).
 */
int pdf_intel_pt_write(const char *path, const struct pdf_intel_pt_params *p);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_H */
