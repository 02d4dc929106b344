/* SPDX-License-Identifier: MIT */
/*
 * Writing a ringside perf.data file.
 *
 * The file is built as PATH.tmp and renamed to PATH by pdf_writer_finish()
 * once it is complete, so a file at PATH is always whole; any failure, or
 * pdf_writer_discard(), removes PATH.tmp.
 */
#ifndef RINGSIDE_CLI_PDF_WRITER_H
#define RINGSIDE_CLI_PDF_WRITER_H

#include <stdint.h>

#include "ringside/abi.h"

struct pdf_writer;

struct pdf_writer_params {
	uint32_t size;            /* sizeof(struct pdf_writer_params) */
	uint32_t nr_rings;        /* written as the number of CPUs */
	uint64_t sample_type;     /* the region's sample_type (guest samples) */
	int argc;                 /* the command line, for HEADER_CMDLINE */
	char *const *argv;
};

struct pdf_writer_stats {
	uint64_t records;         /* ring records written */
	uint64_t bytes;           /* data section bytes */
};

/*
 * Create PATH.tmp and write the header and attrs.  -errno (the open or
 * write failed; nothing is left behind), -(ERR_PDF + pdfe_invalid).
 */
int pdf_writer_open(struct pdf_writer **wp, const char *path,
		    const struct pdf_writer_params *params);

/*
 * Append ring record @rec of ring @ring, filed at @time.  -(ERR_PDF +
 * pdfe_too_big): the record cannot be carried and was not written (the
 * file stays usable); -errno: a write failed, the file is lost (discard).
 */
int pdf_writer_add(struct pdf_writer *w, uint32_t ring, uint64_t time,
		   const struct rs_perf_header *rec);

const struct pdf_writer_stats *pdf_writer_stats(const struct pdf_writer *w);

/* The temporary path being written (for messages). */
const char *pdf_writer_tmp_path(const struct pdf_writer *w);

/*
 * Write the features and the final header, sync, rename PATH.tmp to PATH.
 * Frees @w in all cases; on failure PATH.tmp is removed.  -errno.
 */
int pdf_writer_finish(struct pdf_writer *w);

/* Remove PATH.tmp and free @w.  Accepts NULL. */
void pdf_writer_discard(struct pdf_writer *w);

#endif /* RINGSIDE_CLI_PDF_WRITER_H */
