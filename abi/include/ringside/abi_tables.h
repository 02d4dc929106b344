/* SPDX-License-Identifier: MIT */
/*
 * What the guest publishes in the region's sideband area, each described
 * by a block of the region header (abi_region.h) under a seqcount: the
 * sideband itself (the kernel's symbols), the guest kernel's perf buffers,
 * the user binaries' symbols and the processes.  docs/abi.md has them in
 * prose.
 */
#ifndef RINGSIDE_ABI_TABLES_H
#define RINGSIDE_ABI_TABLES_H

#include <stdint.h>

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

#endif /* RINGSIDE_ABI_TABLES_H */
