/* SPDX-License-Identifier: MIT */
/*
 * The parts of the perf record format that travel through a ringside ring.
 *
 * These are written from the documented perf ABI (perf_event_open(2),
 * include/uapi/linux/perf_event.h) so that the ring library does not need
 * kernel headers and builds freestanding.  tests/ring/test_abi.c checks every
 * value and offset here against the host's <linux/perf_event.h>.
 */
#ifndef RINGSIDE_PERF_FORMAT_H
#define RINGSIDE_PERF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Every record starts with this header; size covers header and body. */
struct rs_perf_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};
_Static_assert(sizeof(struct rs_perf_header) == 8, "perf_event_header is 8 bytes");

/* perf's record types that travel through a ringside ring. */
enum rs_perf_type {
	RS_PERF_RECORD_MMAP         = 1,
	RS_PERF_RECORD_LOST         = 2,
	RS_PERF_RECORD_COMM         = 3,
	RS_PERF_RECORD_EXIT         = 4,
	RS_PERF_RECORD_FORK         = 7,
	RS_PERF_RECORD_SAMPLE       = 9,
	RS_PERF_RECORD_MMAP2        = 10,
	RS_PERF_RECORD_AUX          = 11,
	RS_PERF_RECORD_ITRACE_START = 12,
	RS_PERF_RECORD_LOST_SAMPLES = 13,
};

/* PERF_RECORD_AUX flags. */
enum rs_perf_aux_flag {
	RS_PERF_AUX_FLAG_TRUNCATED = 0x01,
	RS_PERF_AUX_FLAG_OVERWRITE = 0x02,
	RS_PERF_AUX_FLAG_PARTIAL   = 0x04,
	RS_PERF_AUX_FLAG_COLLISION = 0x08,
};

/* PERF_RECORD_LOST: lost records since the previous LOST record. */
struct rs_perf_lost {
	struct rs_perf_header header;
	uint64_t id;
	uint64_t lost;
};
_Static_assert(sizeof(struct rs_perf_lost) == 24, "LOST record layout");

/* PERF_RECORD_AUX: [aux_offset, aux_offset + aux_size) of the AUX area. */
struct rs_perf_aux {
	struct rs_perf_header header;
	uint64_t aux_offset;
	uint64_t aux_size;
	uint64_t flags;
};
_Static_assert(sizeof(struct rs_perf_aux) == 32, "AUX record layout");

/* PERF_RECORD_ITRACE_START: AUX tracing started for pid/tid. */
struct rs_perf_itrace_start {
	struct rs_perf_header header;
	uint32_t pid;
	uint32_t tid;
};
_Static_assert(sizeof(struct rs_perf_itrace_start) == 16, "ITRACE_START layout");

/* PERF_RECORD_LOST_SAMPLES: samples the PMU itself dropped. */
struct rs_perf_lost_samples {
	struct rs_perf_header header;
	uint64_t lost;
};
_Static_assert(sizeof(struct rs_perf_lost_samples) == 16, "LOST_SAMPLES layout");

/* perf_event_attr.sample_type bits used in the region configuration. */
enum rs_perf_sample_bit {
	RS_PERF_SAMPLE_IP        = 1u << 0,
	RS_PERF_SAMPLE_TID       = 1u << 1,
	RS_PERF_SAMPLE_TIME      = 1u << 2,
	RS_PERF_SAMPLE_ADDR      = 1u << 3,
	RS_PERF_SAMPLE_ID        = 1u << 6,
	RS_PERF_SAMPLE_CPU       = 1u << 7,
	RS_PERF_SAMPLE_PERIOD    = 1u << 8,
	RS_PERF_SAMPLE_CALLCHAIN = 1u << 5,
	RS_PERF_SAMPLE_RAW       = 1u << 10,
};

/* header.misc CPU mode values. */
enum rs_perf_misc {
	RS_PERF_MISC_KERNEL       = 1,
	RS_PERF_MISC_USER         = 2,
	RS_PERF_MISC_GUEST_KERNEL = 4,
	RS_PERF_MISC_GUEST_USER   = 5,
};

/* header.misc flags of the records below. */
enum rs_perf_misc_flag {
	RS_PERF_MISC_COMM_EXEC     = 1u << 13, /* COMM: the name of an exec */
	RS_PERF_MISC_MMAP_BUILD_ID = 1u << 14, /* MMAP2: u.build_id, not u.file */
};

/*
 * The bodies of perf's records about processes: what follows the header,
 * as the kernel lays it out (a guest's event may add a sample_id trailer
 * after it).  The one declaration of each for every part that writes or
 * reads them: the Linux agent, the host's readers of a guest's kernel
 * buffers and process table, the perf.data library.
 */

/* PERF_RECORD_COMM: the name follows, NUL-terminated, padded to 8 bytes. */
struct rs_perf_comm_body {
	uint32_t pid, tid;
	/* char comm[] */
};
_Static_assert(sizeof(struct rs_perf_comm_body) == 8, "COMM body");

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct rs_perf_task_body {
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time;
};
_Static_assert(sizeof(struct rs_perf_task_body) == 24, "FORK/EXIT body");
_Static_assert(offsetof(struct rs_perf_task_body, tid) == 8, "FORK tid");
_Static_assert(offsetof(struct rs_perf_task_body, time) == 16, "FORK time");

/* PERF_RECORD_MMAP: the file name follows, NUL-terminated, padded to 8
 * bytes (the kernel's own maps in a perf.data file, a PT trace's code). */
struct rs_perf_mmap_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* char filename[] */
};
_Static_assert(sizeof(struct rs_perf_mmap_body) == 32, "MMAP fixed part");
_Static_assert(offsetof(struct rs_perf_mmap_body, addr) == 8, "MMAP addr");
_Static_assert(offsetof(struct rs_perf_mmap_body, pgoff) == 24, "MMAP pgoff");

/* The most bytes of build id an MMAP2 carries. */
#define RS_PERF_BUILD_ID_MAX 20u

/*
 * PERF_RECORD_MMAP2's fixed part.  With RS_PERF_MISC_MMAP_BUILD_ID in the
 * header's misc, u.build_id says the file's build id (size at most
 * RS_PERF_BUILD_ID_MAX); without, u.file its device, inode and
 * generation.  The file name follows, NUL-terminated, padded to 8 bytes.
 */
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
			uint8_t id[RS_PERF_BUILD_ID_MAX];
		} build_id;
	} u;
	uint32_t prot, flags;
	/* char filename[] */
};
_Static_assert(sizeof(struct rs_perf_mmap2_body) == 64, "MMAP2 fixed part");
_Static_assert(offsetof(struct rs_perf_mmap2_body, addr) == 8, "MMAP2 addr");
_Static_assert(offsetof(struct rs_perf_mmap2_body, pgoff) == 24, "MMAP2 pgoff");
_Static_assert(offsetof(struct rs_perf_mmap2_body, u.file.ino) == 40,
	       "MMAP2 ino");
_Static_assert(offsetof(struct rs_perf_mmap2_body, u.file.ino_generation) == 48,
	       "MMAP2 ino_generation");
_Static_assert(offsetof(struct rs_perf_mmap2_body, u.build_id.id) == 36,
	       "MMAP2 build id");
_Static_assert(offsetof(struct rs_perf_mmap2_body, prot) == 56, "MMAP2 prot");
_Static_assert(offsetof(struct rs_perf_mmap2_body, flags) == 60, "MMAP2 flags");

#endif /* RINGSIDE_PERF_FORMAT_H */
