/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: the perf.data file format, and the events of a
 * ringside file.
 *
 * The on-disk format is perf's own (tools/perf/Documentation/
 * perf.data-file-format.txt): a file header, one attribute per event with its
 * ids, the data section of records, then the feature sections.  The mapping
 * of ring records onto it (docs/cli.md, "perf.data mapping"):
 *
 *   ring record            perf.data record                 event (attr)
 *   SAMPLE (9)             SAMPLE, the sample-id fields added ringside:sample
 *   RS_RECORD_SEQ (64)     SAMPLE, whole record in RAW       ringside:seq
 *   RS_RECORD_MARKER (65)  SAMPLE, text in RAW, the rest in  ringside:marker
 *                          TID, ADDR, CPU and PERIOD
 *   anything else          SAMPLE, whole record in RAW       ringside:ring
 *   LOST, AUX, ITRACE_START, LOST_SAMPLES, COMM, MMAP2
 *                          the same perf record, sample_id   ringside:ring
 *
 * Every event has sample_id_all and the same sample-id fields
 * (PDF_SAMPLE_BASE); CPU is the ring index.  ringside's own types never appear as record types in the file:
 * perf reserves types >= 64 for its synthesized records.
 */
#ifndef RINGSIDE_PDF_FORMAT_H
#define RINGSIDE_PDF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "ringside/perfdata.h"

#define PDF_MAGIC        0x32454c4946524550ull /* "PERFILE2" */
#define PDF_ATTR_SIZE    PERF_ATTR_SIZE_VER5   /* read by perf >= 4.1 */
#define PDF_NAME_ALIGN   64u                   /* feature strings */
#define PDF_REC_MAX      65535u                /* perf_event_header.size is u16 */
#define PDF_FEAT_BITS    256u

/* perf's feature bits (HEADER_*) that ringside writes or reads. */
enum pdf_feature {
	PDF_FEAT_HOSTNAME    = 3,
	PDF_FEAT_OSRELEASE   = 4,
	PDF_FEAT_VERSION     = 5,
	PDF_FEAT_ARCH        = 6,
	PDF_FEAT_NRCPUS      = 7,
	PDF_FEAT_CPUDESC     = 8,
	PDF_FEAT_TOTAL_MEM   = 10,
	PDF_FEAT_CMDLINE     = 11,
	PDF_FEAT_EVENT_DESC  = 12,
	PDF_FEAT_SAMPLE_TIME = 21,
	PDF_FEAT_CLOCKID     = 23,
	PDF_FEAT_CLOCK_DATA  = 29,
	/* ringside's own, far above perf's (perf 6.1 ends at 31 and skips
	 * bits it does not know): the guest clock's sync (pdf_clock.c) */
	PDF_FEAT_RS_CLOCK    = 250,
	/* what the host observed reading the rings (pdf_host.c) */
	PDF_FEAT_RS_HOST     = 251,
	/* the host that read the rings (its uname) and the ring count: the
	 * identity features describe the guest (pdf_feature.c) */
	PDF_FEAT_RS_READER   = 252,
};

/* perf's synthesized record types (user types start at 64). */
enum pdf_user_type {
	PDF_USER_TYPE_START       = 64,
	PDF_RECORD_FINISHED_ROUND = 68,
	PDF_RECORD_AUXTRACE_INFO  = 70,
	PDF_RECORD_AUXTRACE       = 71,
};

struct pdf_section {
	uint64_t offset;
	uint64_t size;
};

struct pdf_file_header {
	uint64_t magic;
	uint64_t size;              /* sizeof(struct pdf_file_header) */
	uint64_t attr_size;         /* attr.size + sizeof(struct pdf_section) */
	struct pdf_section attrs;
	struct pdf_section data;
	struct pdf_section event_types; /* unused, zero */
	uint64_t features[PDF_FEAT_BITS / 64];
};
_Static_assert(sizeof(struct pdf_file_header) == 104, "perf_file_header");
_Static_assert(offsetof(struct pdf_file_header, data) == 40, "perf_file_header");
_Static_assert(offsetof(struct pdf_file_header, features) == 72,
	       "perf_file_header");

/* PERF_RECORD_AUXTRACE_INFO's body starts with the decoder's type, then
 * its private words (tools/perf/util/auxtrace.h); pdf_intel_pt.c has
 * intel_pt's. */
enum pdf_auxtrace_type {
	PDF_AUXTRACE_INTEL_PT = 1,
};

/* PERF_RECORD_AUXTRACE's body; @size bytes of trace follow the record. */
struct pdf_auxtrace {
	uint64_t size;
	uint64_t offset;
	uint64_t reference;
	uint32_t idx;
	uint32_t tid;
	uint32_t cpu;
	uint32_t reserved;
};
_Static_assert(sizeof(struct pdf_auxtrace) == 40, "perf_record_auxtrace");
_Static_assert(offsetof(struct pdf_auxtrace, tid) == 28, "perf_record_auxtrace");

/* The events ringside declares, one attr each. */
enum pdf_kind {
	PDF_KIND_SAMPLE = 0,  /* the guest's own samples */
	PDF_KIND_SEQ,         /* RS_RECORD_SEQ, carried in RAW */
	PDF_KIND_MARKER,      /* RS_RECORD_MARKER, carried in RAW */
	PDF_KIND_RING,        /* everything else; owns the non-sample records */
	PDF_KIND_STATE,       /* records the host wrote, not a ring's: COMM and
			       * MMAP2 of the guest's process table at a file's
			       * head.  Files written before it lack the attr. */
	PDF_KIND_MAX
};

/*
 * The sample-id fields every event of a file shares, in perf's order (a
 * sample starts with IDENTIFIER; a non-sample record ends with the
 * sample_id_all trailer TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER of the
 * ones present), as every event of one `perf record` shares them: readers
 * (hotspot's perfparser) read every trailer by the first event's layout.
 * PDF_SAMPLE_BASE is IDENTIFIER|TID|TIME|CPU, plus ID and STREAM_ID where
 * the guest's samples have them.  Files written before this layout had
 * IDENTIFIER|TIME|CPU (PDF_SAMPLE_BASE_V1, no TID) and a guest sample's
 * own fields beside; the reader takes either (pdf_layout_init_v1).
 */
#define PDF_SAMPLE_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define PDF_SAMPLE_BASE_V1 (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | \
			    PERF_SAMPLE_CPU)
/* The fields a sample_id_all trailer can hold. */
#define PDF_SAMPLE_ID_ALL (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			   PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
			   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* Guest sample_type bits ringside can lay out and check. */
#define PDF_SAMPLE_KNOWN (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			  PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
			  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
			  PERF_SAMPLE_RAW)
/* The longest sample_id trailer: all six fields. */
#define PDF_TRAILER_MAX 48u
/* A TID field ringside does not know: perf's "no thread". */
#define PDF_NO_PID ((uint32_t)-1)

/* How a file's events are laid out; the same for writer and reader. */
struct pdf_layout {
	uint64_t guest_sample_type;          /* as the region configured it */
	uint64_t id_fields;                  /* the shared sample-id fields */
	uint64_t sample_type[PDF_KIND_MAX];
	uint64_t id[PDF_KIND_MAX];
	int native_samples;                  /* guest samples as perf samples */
	int marker_text;                     /* markers: text alone in RAW, the
					      * other fields in TID, ADDR, CPU
					      * and PERIOD (pdf_codec.c) */
	int use_clockid;                     /* times are CLOCK_MONOTONIC */
	int pt;                              /* the file has Intel PT: one more
					      * attr, intel_pt's (PDF_PT_ID) */
	uint64_t host_id;                    /* 0, or the file has the host's
					      * view: one more attr,
					      * ringside:host's (PDF_HOST_ID
					      * where ringside wrote it) */
	/* The guest's sampling event as it claimed it (pdf_layout_set_guest):
	 * ringside:sample's attr says it.  known 0: cpu-clock, period 1. */
	int guest_known;
	int kernel_seen;                     /* a guest sample of kernel mode
					      * (the writer's; attrs at finish) */
	uint32_t guest_flags;                /* enum rs_sample_flag */
	uint32_t guest_type_id;
	uint64_t guest_config;
	uint64_t guest_period;
};

/* The intel_pt event of a file with PT: perf's decoder works for an event
 * whose attr has the AUXTRACE_INFO's PMU type and an id. */
#define PDF_PT_ID        (PDF_KIND_MAX + 1u)
#define PDF_PT_NAME      "intel_pt//"
#define PDF_PT_PMU_TYPE  8u   /* any type not one of perf's built-in ones */

/* The host's records (docs/hostview.md): a software dummy event whose
 * records are PERF_RECORD_SWITCH and LOST with the shared trailer. */
#define PDF_HOST_ID      (PDF_KIND_MAX + 2u)
#define PDF_HOST_NAME    "ringside:host"

/* The attrs in a file of @lay: one per kind, intel_pt's, the host's. */
static inline unsigned pdf_layout_nr_attrs(const struct pdf_layout *lay)
{
	return PDF_KIND_MAX + (lay->pt ? 1u : 0u) + (lay->host_id ? 1u : 0u);
}

/* ringside:host's attr of @lay. */
void pdf_layout_host_attr(const struct pdf_layout *lay,
			  struct perf_event_attr *attr);

/* intel_pt's attr of @lay (the sample fields and clock of the others). */
void pdf_layout_pt_attr(const struct pdf_layout *lay,
			struct perf_event_attr *attr);

/* The event name of @kind ("ringside:seq", ...). */
const char *pdf_layout_kind_name(enum pdf_kind kind);

/* Fill @lay for a region whose guest samples use @guest_sample_type. */
void pdf_layout_init(struct pdf_layout *lay, uint64_t guest_sample_type);

/* The same as ringside wrote files before the shared sample-id layout
 * (IDENTIFIER|TIME|CPU, markers whole in RAW): for reading them. */
void pdf_layout_init_v1(struct pdf_layout *lay, uint64_t guest_sample_type);

/* Tests of the reader: make @w, opened with no record written yet, write
 * the layout of files before the shared sample-id fields.  0,
 * PDF_ERR(pdfe_invalid), -errno. */
int pdf_writer_layout_v1(struct pdf_writer *w);

/* The guest's sampling event, for ringside:sample's attr (NULL: unknown). */
void pdf_layout_set_guest(struct pdf_layout *lay,
			  const struct pdf_guest_facts *g);

/* Bytes of @lay's sample_id_all trailer. */
size_t pdf_layout_trailer_size(const struct pdf_layout *lay);

/* Offset of TIME in the trailer. */
size_t pdf_layout_trailer_time(const struct pdf_layout *lay);

/* Write @lay's trailer at @out (pdf_layout_trailer_size() bytes): ID and
 * STREAM_ID, where present, hold @id like IDENTIFIER.  Returns its size. */
size_t pdf_layout_trailer(const struct pdf_layout *lay, uint32_t pid,
			  uint32_t tid, uint64_t time, uint32_t cpu,
			  uint64_t id, void *out);

/* The trailer at @tr back: its time, cpu and IDENTIFIER. */
void pdf_layout_trailer_read(const struct pdf_layout *lay, const void *tr,
			     uint64_t *time, uint32_t *cpu, uint64_t *id);

/* The attr ringside writes for @kind of @lay. */
void pdf_layout_attr(const struct pdf_layout *lay, enum pdf_kind kind,
		     struct perf_event_attr *attr);

/* The start of a file of @lay: the file header's place (zeros: it is
 * written last), one attr per event and their ids, into @buf
 * (PDF_LAYOUT_ATTRS_MAX bytes).  Returns the length: where the data
 * section starts. */
#define PDF_LAYOUT_ATTRS_MAX (sizeof(struct pdf_file_header) + \
			      (PDF_KIND_MAX + 2) * (PDF_ATTR_SIZE + \
						    sizeof(struct pdf_section) + \
						    sizeof(uint64_t)))
size_t pdf_layout_attrs(const struct pdf_layout *lay, uint8_t *buf);

#endif /* RINGSIDE_PDF_FORMAT_H */
