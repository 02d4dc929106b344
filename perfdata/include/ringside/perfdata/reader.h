/* SPDX-License-Identifier: MIT */
/*
 * Reading a file of ring records back (perfdata/src/pdf_reader.c).
 */
#ifndef RINGSIDE_PERFDATA_READER_H
#define RINGSIDE_PERFDATA_READER_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/ring.h"
#include "ringside/perfdata/cache.h"
#include "ringside/perfdata/clock.h"
#include "ringside/perfdata/host.h"

#ifdef __cplusplus
extern "C" {
#endif

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
	/* 1: the host's view of vCPU ring (pdf_writer_add_host; only after
	 * pdf_reader_want_host): rec is a PERF_RECORD_SWITCH (misc as the
	 * kernel wrote it) or LOST, time host CLOCK_MONOTONIC */
	int host;
	uint32_t host_cpu;        /* host: the CPU the thread was on */
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

/* Give the host's records too (ev->host), which pdf_reader_next skips
 * (counted as skipped) unless asked; and whether the file has the
 * host's view (its ringside:host event). */
void pdf_reader_want_host(struct pdf_reader *r, int want);
int pdf_reader_has_host(const struct pdf_reader *r);

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

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_READER_H */
