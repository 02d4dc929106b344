/* SPDX-License-Identifier: MIT */
/*
 * Reading a ringside perf.data file back into ring records.  The file is
 * untrusted input: every offset, size and count is bounded before use.
 */
#ifndef RINGSIDE_CLI_PDF_READER_H
#define RINGSIDE_CLI_PDF_READER_H

#include <stdint.h>

#include "ringside/abi.h"

struct pdf_reader;

struct pdf_info {
	uint32_t nr_rings;        /* HEADER_NRCPUS, 0 when absent */
	uint64_t sample_type;     /* the region's sample_type (guest samples) */
	uint64_t data_size;
	int have_time;            /* HEADER_SAMPLE_TIME present */
	uint64_t first_time;
	uint64_t last_time;
	char hostname[72];
	char version[72];
	char cmdline[1024];
};

/* One ring record of the file; @rec is valid until the next call. */
struct pdf_event {
	uint32_t ring;
	uint64_t time;
	uint64_t offset;          /* of the perf record in the file */
	const struct rs_perf_header *rec;
};

/*
 * Open @path and read its header, attrs and features.  -errno,
 * -(ERR_PDF + e) for pdfe_magic, pdfe_format, pdfe_attr_size,
 * pdfe_not_ringside, pdfe_truncated.
 */
int pdf_reader_open(struct pdf_reader **rp, const char *path);

const struct pdf_info *pdf_reader_info(const struct pdf_reader *r);

/*
 * The next ring record.  1 a record, 0 the end of the data section.
 * -errno, -(ERR_PDF + pdfe_format | pdfe_truncated): @ev->offset says where.
 */
int pdf_reader_next(struct pdf_reader *r, struct pdf_event *ev);

/* perf's own records met so far (skipped, not ring records). */
uint64_t pdf_reader_skipped(const struct pdf_reader *r);

/* Accepts NULL. */
void pdf_reader_close(struct pdf_reader *r);

#endif /* RINGSIDE_CLI_PDF_READER_H */
