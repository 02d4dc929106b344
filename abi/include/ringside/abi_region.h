/* SPDX-License-Identifier: MIT */
/*
 * The trace region's header page (ringside/abi.h has the map of the whole
 * region): the constants of the layout, ringside's own record types, the
 * host's configuration, the guest's status and who the guest is, where each
 * ring lives, and the header itself with the offset of every block in it.
 * The blocks the guest fills in the sideband area are abi_tables.h's, the
 * time synchronization cells abi_tsync.h's, the control pages abi_ctrl.h's.
 */
#ifndef RINGSIDE_ABI_REGION_H
#define RINGSIDE_ABI_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perf_format.h"
#include "ringside/abi_tables.h"
#include "ringside/abi_tsync.h"

#define RS_REGION_MAGIC   0x45444953474e4952ull /* "RINGSIDE" little-endian */
#define RS_ABI_VERSION    1u
#define RS_PAGE_SIZE      4096u
/* Rings whose descriptors live in the header page: all a reader that does
 * not know RS_FEATURE_RING_TABLE sees. */
#define RS_HDR_RINGS      48u
/* Rings of a region: RS_HDR_RINGS in the header, the rest in the ring
 * table (RS_FEATURE_RING_TABLE); 1024 is KVM's KVM_MAX_VCPUS on x86. */
#define RS_MAX_RINGS      1024u
/* Where the ring table starts: the page after the header. */
#define RS_RING_TABLE_OFFSET 4096u
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
	/* The ring table: the region has more rings than the header holds
	 * descriptors for (nr_rings_total of them, RS_HDR_RINGS < it <=
	 * RS_MAX_RINGS); the header's nr_rings says RS_HDR_RINGS and
	 * rings[], then the table at RS_RING_TABLE_OFFSET, say where the
	 * first RS_HDR_RINGS are; the table holds the descriptors of the
	 * others, 64 bytes each, in whole pages (docs/abi.md, "More rings
	 * than the header holds").  Set by the layout exactly when there
	 * are more than RS_HDR_RINGS rings. */
	RS_FEATURE_RING_TABLE = 1u << 1,
};
#define RS_FEATURES_KNOWN ((uint32_t)(RS_FEATURE_EVENT_SUPPRESS | \
				      RS_FEATURE_RING_TABLE))

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
	uint32_t nr_rings_total;  /* RS_FEATURE_RING_TABLE: every ring of the
				   * region; 0 without it */
	uint32_t reserved0;
	struct rs_config config;            /* offset 64, host */
	struct rs_guest_status status;      /* offset 192, guest */
	struct rs_sideband_desc sideband;   /* offset 256, guest */
	struct rs_kbuf_desc kbuf;           /* offset 384, guest */
	struct rs_usyms_desc usyms;         /* offset 448, guest */
	struct rs_pstate_desc pstate;       /* offset 512, guest */
	uint8_t reserved1[RS_TSYNC_OFFSET - 576];
	struct rs_time_sync time_sync;      /* offset 640, host and guest */
	struct rs_guest_info info;          /* offset 768, guest */
	struct rs_ring_desc rings[RS_HDR_RINGS]; /* offset 1024 */
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
_Static_assert(offsetof(struct rs_region_header, nr_rings_total) == 56,
	       "nr_rings_total offset");
_Static_assert(offsetof(struct rs_region_header, rings) == 1024, "rings offset");
_Static_assert(RS_RING_TABLE_OFFSET == RS_PAGE_SIZE, "table after the header");

/* Bytes of the ring table of a region of @nr_rings rings: whole pages,
 * 0 when the header holds them all. */
static inline uint64_t rs_ring_table_size(uint32_t nr_rings)
{
	uint64_t b;

	if (nr_rings <= RS_HDR_RINGS)
		return 0;
	b = (uint64_t)(nr_rings - RS_HDR_RINGS) * sizeof(struct rs_ring_desc);
	return (b + RS_PAGE_SIZE - 1) & ~(uint64_t)(RS_PAGE_SIZE - 1);
}
_Static_assert(sizeof(struct rs_region_header) == RS_PAGE_SIZE, "header is one page");

#endif /* RINGSIDE_ABI_REGION_H */
