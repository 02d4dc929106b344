/* SPDX-License-Identifier: MIT */
/*
 * ringside trace region, ABI version 1.
 *
 * One contiguous region, power-of-two sized, shared by a guest (producer)
 * and the host (consumer).  Everything in it is addressed by offsets from the
 * region start; nothing holds a pointer.  docs/abi.md is the prose version of
 * this file; the two must agree.
 *
 *   page 0                 struct rs_region_header
 *   ctrl pages             struct rs_ctrl_page, one per ring
 *   data / AUX areas       each naturally aligned to its own size
 *   sideband area          optional, whole pages (sideband_size 0: none)
 *
 * Who writes what:
 *   host   region header layout fields (sideband_offset/size included),
 *          boot_gen, rs_config, data_tail, aux_tail, the time conversion
 *          fields of each control page, rs_ctrl_host
 *   guest  rs_guest_status, rs_usyms_desc, rs_pstate_desc, rs_guest_info,
 *          data_head, aux_head, rs_ctrl_ext, records,
 *          AUX bytes, rs_sideband_desc and the sideband area
 * Each side keeps a private copy of what it owns and treats the other side's
 * values as hints to validate.
 */
#ifndef RINGSIDE_ABI_H
#define RINGSIDE_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perf_format.h"

#define RS_REGION_MAGIC   0x45444953474e4952ull /* "RINGSIDE" little-endian */
#define RS_ABI_VERSION    1u
#define RS_PAGE_SIZE      4096u
#define RS_MAX_RINGS      48u
#define RS_RECORD_MAX     65528u   /* largest 8-byte aligned u16 size */
#define RS_RECORD_ALIGN   8u
#define RS_AREA_MAX       (1ull << 32)  /* largest data or AUX area */
#define RS_REGION_MAX     (1ull << 40)

/* Ring modes (rs_config.data_mode / aux_mode). */
enum rs_mode {
	RS_MODE_NORMAL    = 0, /* forward, consumer-owned tail, drop when full */
	RS_MODE_OVERWRITE = 1, /* data: written backward; AUX: snapshot mode */
};

/* What the guest is asked to trace (rs_config.trace_mask). */
enum rs_trace_bit {
	RS_TRACE_SAMPLES = 1u << 0, /* perf samples of the guest (SAMPLE) */
	RS_TRACE_MARKERS = 1u << 1, /* application markers */
	RS_TRACE_AUX     = 1u << 2, /* AUX data (PT) */
	RS_TRACE_TEST    = 1u << 3, /* sequence-numbered test records */
};

/* ringside's own record types; perf's end below 64. */
enum rs_record_type {
	RS_RECORD_SEQ    = 64, /* struct rs_rec_seq: test/heartbeat stream */
	RS_RECORD_MARKER = 65, /* struct rs_rec_marker + text */
	RS_RECORD_PAD    = 66, /* a reservation its writer abandoned: skip */
};

/* RS_RECORD_SEQ body: proves delivery.  checksum = rs_seq_checksum(). */
struct rs_rec_seq {
	struct rs_perf_header header;
	uint64_t seq;       /* per producer, from 0, +1 per record attempted */
	uint64_t time;      /* producer clock (guest TSC in a VM) */
	uint32_t producer;  /* ring / vCPU index */
	uint32_t fill;      /* bytes of pattern after this struct */
	uint64_t checksum;  /* over seq, time, producer, fill and pattern */
	/* uint8_t pattern[fill], then zero padding to 8 bytes */
};
_Static_assert(sizeof(struct rs_rec_seq) == 40, "rs_rec_seq layout");

/* RS_RECORD_MARKER body: an application marker. */
struct rs_rec_marker {
	struct rs_perf_header header;
	uint64_t time;
	uint32_t pid;
	uint32_t tid;
	uint32_t id;        /* application-chosen marker id */
	uint32_t len;       /* text bytes after this struct, no NUL */
};
_Static_assert(sizeof(struct rs_rec_marker) == 32, "rs_rec_marker layout");

/*
 * Compatible extensions of ABI v1 the host offers (rs_config.features, 0 in
 * a region of a host that knows none).  A producer uses one only when its
 * bit is set; one that does not know a bit ignores it.
 */
enum rs_feature {
	/* Event suppression: each ring's rs_ctrl_host.consumer says whether
	 * its consumer polls; a producer whose doorbell is due rings only when
	 * it does not (docs/abi.md, "Event suppression"). */
	RS_FEATURE_EVENT_SUPPRESS = 1u << 0,
};
#define RS_FEATURES_KNOWN ((uint32_t)RS_FEATURE_EVENT_SUPPRESS)

/* Host-written configuration.  Read by the guest at attach. */
struct rs_config {
	uint32_t enabled;
	uint32_t data_mode;       /* enum rs_mode */
	uint32_t aux_mode;        /* enum rs_mode */
	uint32_t data_watermark;  /* bytes between doorbells, normal mode */
	uint32_t aux_watermark;   /* bytes between AUX wakeups, normal mode */
	uint32_t features;        /* enum rs_feature: extensions the host speaks */
	uint64_t trace_mask;      /* enum rs_trace_bit */
	uint64_t sample_type;     /* perf sample_type of SAMPLE records */
	uint64_t sample_freq;     /* samples per second and CPU */
	uint64_t doorbell_addr;   /* guest-physical doorbell, 0 = none */
	uint64_t reserved[9];
};
_Static_assert(sizeof(struct rs_config) == 128, "rs_config layout");

/* Who attached (rs_guest_status.agent_kind). */
enum rs_agent_kind {
	RS_AGENT_FREESTANDING = 1, /* the payload the ringside VMM boots */
	RS_AGENT_LINUX        = 2, /* the Linux agent */
	RS_AGENT_HOST_TEST    = 3, /* a host test program */
};

/* Guest-written status. */
struct rs_guest_status {
	uint32_t attached;        /* 1 while an agent writes the rings */
	uint32_t abi_version;     /* version the agent speaks */
	uint64_t heartbeat;       /* incremented by the agent while it runs */
	uint32_t rings_used;
	uint32_t agent_kind;      /* 1 freestanding, 2 Linux, 3 host test */
	uint64_t boot_gen;        /* the header's boot_gen as the agent last
				   * read it (at attach and at each heartbeat);
				   * 0: an agent that does not say */
	uint64_t reserved[4];
};
_Static_assert(sizeof(struct rs_guest_status) == 64, "rs_guest_status layout");

/*
 * The sideband: what the host needs to read the records, written once by
 * the guest after attach and read once by the host (a flight recorder
 * reads it long after, from a guest that may have panicked), so it lives
 * outside the rings, in an area of its own that nothing overwrites.  The
 * host lays the area out (rs_region_header.sideband_offset/size); the
 * guest fills it and describes it here, under a seqcount: seq is odd while
 * the guest writes, even when the content is complete, 0 before the first
 * write.  Every field is a guest claim: the host bounds length by its own
 * layout and copies once (rs_sideband_read).
 */
#define RS_SIDEBAND_MAGIC        0x42534452u /* "RDSB" little-endian */
#define RS_SIDEBAND_MAX          (64ull << 20) /* largest area, bytes */
#define RS_SIDEBAND_BUILD_ID_MAX 64u

/* What the area holds (rs_sideband_desc.kind). */
enum rs_sideband_kind {
	/* The guest kernel's /proc/kallsyms lines ("ADDR TYPE NAME" or
	 * "ADDR TYPE NAME\t[MODULE]", '\n' after each), build_id the
	 * kernel's NT_GNU_BUILD_ID. */
	RS_SIDEBAND_KALLSYMS = 1,
};

/* rs_sideband_desc.flags */
enum rs_sideband_flag {
	RS_SIDEBAND_TRUNCATED = 1u << 0, /* wanted > length: the rest did not fit */
};

/* Guest-written, at offset 256 of the region header. */
struct rs_sideband_desc {
	uint32_t magic;           /* RS_SIDEBAND_MAGIC once written */
	uint32_t seq;             /* odd: being written; even: complete */
	uint32_t kind;            /* enum rs_sideband_kind */
	uint32_t flags;           /* enum rs_sideband_flag */
	uint64_t length;          /* content bytes from the area's start */
	uint64_t wanted;          /* content bytes the guest had (>= length) */
	uint32_t build_id_len;    /* 0 .. RS_SIDEBAND_BUILD_ID_MAX */
	uint32_t reserved0;
	uint8_t build_id[RS_SIDEBAND_BUILD_ID_MAX];
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct rs_sideband_desc) == 128, "rs_sideband_desc layout");

/*
 * The guest kernel's own perf buffers, where they are in guest-physical
 * memory (a Linux agent that reads the kernel's per-CPU perf buffers
 * publishes it): samples the kernel wrote there but the agent had not
 * copied into a ring when the guest stopped (a panic stops the agent's
 * vCPU first) can be read by the host from guest memory.  The table lives
 * in the sideband area, at table_offset from the area's start (the
 * kallsyms content ends before it); one row per CPU of
 * RS_KBUF_ROW_WORDS(data_pages) u64: the CPU number, the guest-physical
 * address of the buffer's control page (a struct perf_event_mmap_page:
 * data_tail there is the agent's consumed position), then of each data
 * page in buffer order.  Same seqcount protocol as the sideband; every
 * field, every address a guest claim (the host reads only page-aligned
 * addresses within guest RAM, read-only, at most the bounds below).
 */
#define RS_KBUF_MAGIC      0x424b4452u /* "RDKB" little-endian */
#define RS_KBUF_MAX_CPUS   256u
#define RS_KBUF_MAX_PAGES  1024u      /* data pages per CPU buffer */
#define RS_KBUF_ROW_WORDS(pages) (2ull + (pages))

/* Guest-written, at offset 384 of the region header. */
struct rs_kbuf_desc {
	uint32_t magic;           /* RS_KBUF_MAGIC once written */
	uint32_t seq;             /* odd: being written; even: complete */
	uint32_t nr_cpus;         /* rows, 1 .. RS_KBUF_MAX_CPUS */
	uint32_t data_pages;      /* per buffer, a power of two <= RS_KBUF_MAX_PAGES */
	uint64_t table_offset;    /* from the sideband area's start, 8-aligned */
	uint64_t table_len;       /* nr_cpus * RS_KBUF_ROW_WORDS(data_pages) * 8 */
	uint64_t sample_type;     /* the buffers' records' (config.sample_type) */
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct rs_kbuf_desc) == 64, "rs_kbuf_desc layout");

/*
 * The symbol tables of the guest's user binaries (a Linux agent publishes
 * those of the binaries it has sampled), so that the host names guest user
 * code without a copy of the guest's files.  The table lives in the
 * sideband area, at table_offset from the area's start, after the kallsyms
 * content and before the kernel perf buffers' table; the guest appends
 * whole entries (docs/abi.md, "User symbols") and never rewrites one.
 * Same seqcount protocol as the sideband; every field a guest claim that
 * the host bounds by its own layout and checks like kallsyms.
 */
#define RS_USYMS_MAGIC     0x53554452u /* "RDUS" little-endian */

/* rs_usyms_desc.flags */
enum rs_usyms_flag {
	RS_USYMS_TRUNCATED = 1u << 0, /* an entry did not fit: wanted > length */
};

/* Guest-written, at offset 448 of the region header. */
struct rs_usyms_desc {
	uint32_t magic;           /* RS_USYMS_MAGIC once written */
	uint32_t seq;             /* odd: being written; even: complete */
	uint64_t table_offset;    /* from the sideband area's start, 8-aligned */
	uint64_t table_size;      /* bytes the guest set aside for the table */
	uint64_t length;          /* bytes of whole entries from table_offset */
	uint64_t wanted;          /* bytes the guest had to publish (>= length) */
	uint32_t entries;         /* entries in [0, length) */
	uint32_t flags;           /* enum rs_usyms_flag */
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct rs_usyms_desc) == 64, "rs_usyms_desc layout");

/*
 * One entry of the table: one binary, keyed by its build id, with what a
 * host needs to build a symbol file perf accepts for it (docs/abi.md,
 * "User symbols").  Entries follow each other from table_offset, each
 * 8-aligned and `length` bytes long, so a reader skips what it does not
 * take.  After the header, in this order:
 *   nr_loads x struct rs_usyms_load  the binary's PT_LOAD program headers
 *   nr_syms  x struct rs_usyms_sym   its FUNC symbols, names in the strings
 *   path_len bytes                    the binary's path, no NUL
 *   str_size bytes                    names, each ending in a NUL
 *   zeros up to the next multiple of 8
 */
#define RS_USYMS_BUILD_ID_MAX 20u
#define RS_USYMS_MAX_LOADS    16u
#define RS_USYMS_MAX_SYMS     (1u << 20)
#define RS_USYMS_PATH_MAX     4095u     /* perf's PATH_MAX, its NUL aside */
#define RS_USYMS_NAME_MAX     1024u     /* bytes of one name, its NUL aside */
#define RS_USYMS_ENTRY_MAX    (64u << 20)

/* rs_usyms_entry.flags */
enum rs_usyms_entry_flag {
	RS_USYMS_E_CUT    = 1u << 0, /* the binary has more symbols than these */
	RS_USYMS_E_DYNSYM = 1u << 1, /* from .dynsym: the binary has no .symtab */
};

struct rs_usyms_entry {
	uint32_t length;          /* of the whole entry, a multiple of 8 */
	uint16_t e_type;          /* the binary's ELF e_type: ET_EXEC, ET_DYN */
	uint16_t e_machine;       /* and e_machine */
	uint8_t build_id_len;     /* 1 .. RS_USYMS_BUILD_ID_MAX */
	uint8_t flags;            /* enum rs_usyms_entry_flag */
	uint16_t nr_loads;        /* 1 .. RS_USYMS_MAX_LOADS */
	uint16_t path_len;        /* 1 .. RS_USYMS_PATH_MAX */
	uint16_t reserved0;
	uint8_t build_id[RS_USYMS_BUILD_ID_MAX];
	uint32_t nr_syms;         /* 0 .. RS_USYMS_MAX_SYMS */
	uint32_t str_size;        /* bytes of names */
	uint32_t reserved1;
	uint64_t text_addr;       /* .text's sh_addr, sh_offset, sh_size */
	uint64_t text_offset;
	uint64_t text_size;
};
_Static_assert(sizeof(struct rs_usyms_entry) == 72, "rs_usyms_entry layout");

struct rs_usyms_load {
	uint64_t vaddr;           /* p_vaddr, p_offset, p_filesz, p_memsz */
	uint64_t offset;
	uint64_t filesz;
	uint64_t memsz;
	uint32_t flags;           /* p_flags: PF_X, PF_W, PF_R */
	uint32_t reserved;
};
_Static_assert(sizeof(struct rs_usyms_load) == 40, "rs_usyms_load layout");

struct rs_usyms_sym {
	uint64_t value;           /* st_value */
	uint32_t size;            /* st_size */
	uint32_t name;            /* offset of its name in the strings */
};
_Static_assert(sizeof(struct rs_usyms_sym) == 16, "rs_usyms_sym layout");

/*
 * The guest's processes as they are now (a Linux agent keeps it): per live
 * process its pid, comm and executable file mappings, so that a snapshot
 * of an overwrite ring, which has long overwritten the records that
 * described a process that runs on, gives every sample its process.  The
 * table is rewritten as processes come and go, and must stay readable when
 * the guest died at any instant: it lives in the sideband area, at
 * table_offset from the area's start (after the user symbols table,
 * before the kernel perf buffers' table), as two copies of copy_size
 * bytes each.  The descriptor is written once, under the sideband's
 * seqcount protocol; each copy begins with a struct rs_pstate_copy under
 * a seqcount of its own.  The guest rewrites the copy that does not hold
 * the newest state, then gives it the next generation; a host takes the
 * complete copy (even seq, magic) with the highest generation, so a guest
 * that stopped in the middle of a rewrite leaves the other copy whole
 * (docs/abi.md, "Process state").  Every field a guest claim.
 */
#define RS_PSTATE_MAGIC      0x53504452u /* "RDPS" little-endian */
#define RS_PSTATE_COPY_MAGIC 0x43504452u /* "RDPC" little-endian */
#define RS_PSTATE_OFFSET     512u
#define RS_PSTATE_MAX_PROCS  65536u      /* processes in one copy */
#define RS_PSTATE_MAX_MAPS   64u         /* mappings of one process */
#define RS_PSTATE_NAME_MAX   4095u       /* perf's PATH_MAX, its NUL aside */
#define RS_PSTATE_BUILD_ID_MAX 20u
#define RS_PSTATE_COMM_LEN   16u         /* TASK_COMM_LEN, NUL-padded */

/* Guest-written, at offset 512 of the region header. */
struct rs_pstate_desc {
	uint32_t magic;           /* RS_PSTATE_MAGIC once written */
	uint32_t seq;             /* odd: being written; even: complete */
	uint64_t table_offset;    /* copy 0, from the sideband area's start,
				   * 8-aligned; copy 1 follows it */
	uint64_t copy_size;       /* bytes of each copy, a multiple of 8 */
	uint64_t reserved[5];
};
_Static_assert(sizeof(struct rs_pstate_desc) == 64, "rs_pstate_desc layout");

/* rs_pstate_copy.flags */
enum rs_pstate_flag {
	RS_PSTATE_TRUNCATED = 1u << 0, /* processes or mappings left out */
};

/* The head of each copy; length bytes of process entries follow it. */
struct rs_pstate_copy {
	uint32_t magic;           /* RS_PSTATE_COPY_MAGIC once written */
	uint32_t seq;             /* odd: being written; even: complete */
	uint64_t generation;      /* 1, 2, ...: the highest complete is current */
	uint64_t time;            /* guest CLOCK_MONOTONIC, ns, when written */
	uint32_t length;          /* bytes of whole process entries */
	uint32_t nr_procs;        /* entries in them */
	uint32_t nr_maps;         /* mappings in them */
	uint32_t flags;           /* enum rs_pstate_flag */
	uint32_t procs_left_out;  /* processes the copy had no room for */
	uint32_t maps_left_out;   /* mappings left out (room, bound per process) */
	uint64_t reserved[2];
};
_Static_assert(sizeof(struct rs_pstate_copy) == 64, "rs_pstate_copy layout");

/* rs_pstate_proc.flags (the word was reserved and zero: a compatible
 * extension; a host ignores a bit it does not know) */
enum rs_pstate_proc_flag {
	RS_PSTATE_PROC_ENDED = 1u << 0, /* it had ended when the copy was
					 * written: kept while the rings may
					 * still hold its samples */
};

/* One process: nr_maps struct rs_pstate_map follow, each with its name. */
struct rs_pstate_proc {
	uint32_t length;          /* of the whole entry, maps included, 8-aligned */
	uint32_t pid;
	uint16_t nr_maps;         /* 0 .. RS_PSTATE_MAX_MAPS */
	uint16_t flags;           /* enum rs_pstate_proc_flag (was reserved) */
	uint32_t ppid;            /* its parent's pid, 0: not known (was
				   * reserved) */
	char comm[RS_PSTATE_COMM_LEN];
};
_Static_assert(sizeof(struct rs_pstate_proc) == 32, "rs_pstate_proc layout");

/* One executable file mapping, as PERF_RECORD_MMAP2 describes it; name_len
 * bytes of its file name (no NUL) follow, then zeros to 8 bytes. */
struct rs_pstate_map {
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	uint32_t prot;            /* PROT_* */
	uint32_t flags;           /* MAP_SHARED or MAP_PRIVATE */
	uint32_t maj, min;        /* the file's device, without a build id */
	uint64_t ino;
	uint16_t name_len;        /* 1 .. RS_PSTATE_NAME_MAX */
	uint8_t build_id_len;     /* 0 (none) .. RS_PSTATE_BUILD_ID_MAX */
	uint8_t reserved0;
	uint8_t build_id[RS_PSTATE_BUILD_ID_MAX];
	uint64_t reserved1;
};
_Static_assert(sizeof(struct rs_pstate_map) == 80, "rs_pstate_map layout");

/*
 * Who the guest is and how it samples, as its agent reports it, so that a
 * file describes the machine that ran the code (hostname, kernel release,
 * CPUs, memory) and its sampling event, not the host that read it.
 * Strings are NUL-padded and need not end in a NUL.  Same seqcount
 * protocol as the sideband; every field a guest claim.
 */
#define RS_GUEST_INFO_MAGIC 0x49474452u /* "RDGI" little-endian */
#define RS_GUEST_INFO_OFFSET 768u

/* rs_guest_info.sample_flags: the guest's sampling event. */
enum rs_sample_flag {
	RS_SAMPLE_FREQ           = 1u << 0, /* sample_period is a frequency, Hz */
	RS_SAMPLE_EXCLUDE_USER   = 1u << 1,
	RS_SAMPLE_EXCLUDE_KERNEL = 1u << 2,
};

/* Guest-written, at offset 768 of the region header. */
struct rs_guest_info {
	uint32_t magic;           /* RS_GUEST_INFO_MAGIC once written */
	uint32_t seq;             /* odd: being written; even: complete */
	uint32_t nr_cpus_online;
	uint32_t nr_cpus_avail;
	uint64_t mem_total_kib;   /* MemTotal of /proc/meminfo */
	uint64_t sample_period;   /* or frequency, with RS_SAMPLE_FREQ */
	uint32_t sample_flags;    /* enum rs_sample_flag */
	uint32_t sample_type_id;  /* perf_event_attr.type of the event */
	uint64_t sample_config;   /* perf_event_attr.config of the event */
	char hostname[64];        /* uname's nodename */
	char os_release[64];      /* uname's release */
	char arch[16];            /* uname's machine */
	char cpu_desc[64];        /* /proc/cpuinfo's model name */
};
_Static_assert(sizeof(struct rs_guest_info) == 256, "rs_guest_info layout");

/* Where one ring lives, as offsets from the region start. */
struct rs_ring_desc {
	uint64_t ctrl_offset;
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t aux_offset;      /* 0 when aux_size is 0 */
	uint64_t aux_size;
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct rs_ring_desc) == 64, "rs_ring_desc layout");

/*
 * Time synchronization cells (issue 12), at offset 640 of the region header:
 * the host's cells and the guest's on separate 64-byte lines.  The host
 * opens a window (request = a nonzero window id), then pings: host_time,
 * then seq with release semantics.  The guest, while the window is open,
 * answers each new seq: guest_time, then echo = seq with release
 * semantics.  The host reads echo with acquire semantics, guest_time, then
 * echo again; it closes the window with request = 0.  docs/abi.md
 * ("Time synchronization") has the whole exchange.  Every guest cell is a
 * claim the host bounds and checks.
 */
#define RS_TSYNC_OFFSET   640u
#define RS_TSYNC_CLOCK_MONOTONIC 1u  /* Linux's CLOCK_MONOTONIC */

struct rs_time_sync {
	/* host line */
	uint32_t request;         /* host: window id while open, 0 closed */
	uint32_t host_clock;      /* host: its clock (RS_TSYNC_CLOCK_*) */
	uint64_t seq;             /* host: the ping, store-release last */
	uint64_t host_time;       /* host: its clock when it pinged (a hint) */
	uint64_t reserved_host[5];
	/* guest line, offset 64 */
	uint64_t echo;            /* guest: the seq answered, store-release last */
	uint64_t guest_time;      /* guest: its clock when it saw seq, ns */
	uint32_t window;          /* guest: the window it answers */
	uint32_t guest_clock;     /* guest: the clock of guest_time */
	uint64_t answers;         /* guest: answers given, total (a hint) */
	uint64_t reserved_guest[4];
};
_Static_assert(sizeof(struct rs_time_sync) == 128, "rs_time_sync layout");
_Static_assert(offsetof(struct rs_time_sync, echo) == 64, "guest line");

struct rs_region_header {
	uint64_t magic;
	uint32_t abi_version;
	uint32_t header_size;     /* RS_PAGE_SIZE */
	uint64_t region_size;
	uint32_t page_size;
	uint32_t nr_rings;
	uint64_t sideband_offset; /* 0 when sideband_size is 0 */
	uint64_t sideband_size;   /* bytes, whole pages; 0: no sideband */
	uint64_t boot_gen;        /* host: 1 at layout, + 1 at each reset of
				   * the guest the host saw (0: a host that
				   * counts none) */
	uint64_t reserved0;
	struct rs_config config;            /* offset 64, host */
	struct rs_guest_status status;      /* offset 192, guest */
	struct rs_sideband_desc sideband;   /* offset 256, guest */
	struct rs_kbuf_desc kbuf;           /* offset 384, guest */
	struct rs_usyms_desc usyms;         /* offset 448, guest */
	struct rs_pstate_desc pstate;       /* offset 512, guest */
	uint8_t reserved1[RS_TSYNC_OFFSET - 576];
	struct rs_time_sync time_sync;      /* offset 640, host and guest */
	struct rs_guest_info info;          /* offset 768, guest */
	struct rs_ring_desc rings[RS_MAX_RINGS]; /* offset 1024 */
};
_Static_assert(offsetof(struct rs_region_header, config) == 64, "config offset");
_Static_assert(offsetof(struct rs_region_header, status) == 192, "status offset");
_Static_assert(offsetof(struct rs_region_header, sideband_offset) == 32, "sideband_offset");
_Static_assert(offsetof(struct rs_region_header, boot_gen) == 48, "boot_gen offset");
_Static_assert(offsetof(struct rs_guest_status, boot_gen) == 24, "status boot_gen");
_Static_assert(offsetof(struct rs_region_header, sideband) == 256, "sideband offset");
_Static_assert(offsetof(struct rs_region_header, kbuf) == 384, "kbuf offset");
_Static_assert(offsetof(struct rs_region_header, usyms) == 448, "usyms offset");
_Static_assert(offsetof(struct rs_region_header, pstate) == RS_PSTATE_OFFSET,
	       "pstate offset");
_Static_assert(offsetof(struct rs_region_header, info) == RS_GUEST_INFO_OFFSET,
	       "info offset");
_Static_assert(offsetof(struct rs_region_header, time_sync) == RS_TSYNC_OFFSET,
	       "time_sync offset");
_Static_assert(offsetof(struct rs_region_header, rings) == 1024, "rings offset");
_Static_assert(sizeof(struct rs_region_header) == RS_PAGE_SIZE, "header is one page");

/*
 * ringside's guest-written extension of the control page, stored in the
 * reserved part of perf's layout.  All values are hints for the host.
 */
struct rs_ctrl_ext {
	uint64_t write_head;      /* overwrite mode: lowest reserved position */
	uint64_t aux_write_limit; /* AUX snapshot mode: bytes below may be written */
	uint64_t produced;        /* records committed */
	uint64_t lost;            /* records dropped, total */
	uint64_t aux_truncated;   /* AUX records flagged TRUNCATED */
	uint64_t doorbells;       /* doorbells the producer asked for */
	uint64_t flags;           /* RS_EXT_* */
	uint64_t suppressed;      /* doorbells due but not rung: the consumer
				   * polled (RS_FEATURE_EVENT_SUPPRESS) */
};

/* rs_ctrl_ext.flags (guest claims, like every field of the page). */
enum rs_ext_flag {
	/* Normal mode: records are sealed by their header, stored last, and
	 * the header slot after the last record is zero, so committed
	 * records past data_head can be found (docs/abi.md, "Publication"). */
	RS_EXT_SEALED = 1u << 0,
};
_Static_assert(sizeof(struct rs_ctrl_ext) == 64, "rs_ctrl_ext layout");

/* rs_ctrl_page.capabilities bits, perf's (cap_user_time, cap_user_time_zero):
 * the host published time_shift/time_mult/time_zero. */
enum rs_ctrl_cap {
	RS_CAP_USER_TIME      = 1u << 3,
	RS_CAP_USER_TIME_ZERO = 1u << 4,
};

/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS): what the ring's consumer
 * is doing, host-written, at offset 1152 of the control page (past perf's
 * layout, on a 128-byte pair of lines of its own, away from data_head's).
 * The zero a layout leaves means "ring": a consumer that never publishes
 * its state gets every doorbell, as without the feature.
 *
 *   consumer (host)                         producer (guest)
 *   store(consumer, RS_CONSUMER_WAKE)       store-release(data_head, h)
 *   full fence                              full fence
 *   re-read data_head (and aux_head):       c = load(consumer)
 *     moved: drain instead of sleeping      doorbell due and c != POLLING:
 *     else: sleep on the doorbell             ring it; else count it
 *   woken: store(consumer, RS_CONSUMER_POLLING), drain
 *
 * One of the two fences comes first: either the producer sees WAKE and
 * rings, or the consumer sees the new head and does not sleep.  The word
 * only saves doorbells; a guest that writes it harms its own tracing only.
 */
enum rs_consumer_state {
	RS_CONSUMER_WAKE    = 0, /* asleep or about to sleep (or silent): ring */
	RS_CONSUMER_POLLING = 1, /* awake and reading: the doorbell may wait */
};

struct rs_ctrl_host {
	uint32_t consumer;        /* enum rs_consumer_state */
	uint32_t reserved0;
	uint64_t reserved[7];
};
_Static_assert(sizeof(struct rs_ctrl_host) == 64, "rs_ctrl_host layout");

#define RS_CTRL_HOST_OFFSET 1152u

/*
 * One per ring.  Byte for byte struct perf_event_mmap_page for the fields
 * perf defines; data_offset and aux_offset count from this page.
 */
struct rs_ctrl_page {
	uint32_t version;
	uint32_t compat_version;
	uint32_t lock;            /* seqcount over the time fields */
	uint32_t index;
	int64_t offset;
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t capabilities;
	uint16_t pmc_width;
	uint16_t time_shift;      /* host: guest TSC -> ns, perf's scheme */
	uint32_t time_mult;
	uint64_t time_offset;
	uint64_t time_zero;
	uint32_t size;
	uint32_t reserved_1;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t reserved_perf[512 - 96];
	struct rs_ctrl_ext ext;   /* offset 512, guest */
	uint8_t reserved_2[1024 - 576];
	uint64_t data_head;       /* guest */
	uint64_t data_tail;       /* host */
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t aux_head;        /* guest */
	uint64_t aux_tail;        /* host */
	uint64_t aux_offset;
	uint64_t aux_size;
	uint8_t reserved_3[RS_CTRL_HOST_OFFSET - 1088];
	struct rs_ctrl_host host; /* offset 1152, host */
	uint8_t reserved_4[RS_PAGE_SIZE - RS_CTRL_HOST_OFFSET - 64];
};
_Static_assert(offsetof(struct rs_ctrl_page, time_shift) == 50, "time_shift");
_Static_assert(offsetof(struct rs_ctrl_page, time_mult) == 52, "time_mult");
_Static_assert(offsetof(struct rs_ctrl_page, time_zero) == 64, "time_zero");
_Static_assert(offsetof(struct rs_ctrl_page, ext) == 512, "ext");
_Static_assert(offsetof(struct rs_ctrl_page, data_head) == 1024, "data_head");
_Static_assert(offsetof(struct rs_ctrl_page, data_tail) == 1032, "data_tail");
_Static_assert(offsetof(struct rs_ctrl_page, data_offset) == 1040, "data_offset");
_Static_assert(offsetof(struct rs_ctrl_page, data_size) == 1048, "data_size");
_Static_assert(offsetof(struct rs_ctrl_page, aux_head) == 1056, "aux_head");
_Static_assert(offsetof(struct rs_ctrl_page, aux_tail) == 1064, "aux_tail");
_Static_assert(offsetof(struct rs_ctrl_page, aux_offset) == 1072, "aux_offset");
_Static_assert(offsetof(struct rs_ctrl_page, aux_size) == 1080, "aux_size");
_Static_assert(offsetof(struct rs_ctrl_page, host) == RS_CTRL_HOST_OFFSET, "host");
_Static_assert(sizeof(struct rs_ctrl_page) == RS_PAGE_SIZE, "ctrl is one page");

#endif /* RINGSIDE_ABI_H */
