/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: a ringside file being written.  pdf_writer.c
 * opens, sets and completes it; pdf_writer_add.c adds to its data section
 * (records, AUX data, the guest's symbols and code).
 */
#ifndef RINGSIDE_PDF_WRITER_H
#define RINGSIDE_PDF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata.h"

#include "pdf_codec.h"
#include "pdf_trim.h"

#define PDF_WRITER_OUT_BUF (1u << 20)   /* bytes of data held before a write */

struct pdf_writer {
	int fd;
	char *path;
	char *tmp;
	struct pdf_layout lay;
	uint32_t nr_rings;
	int argc;
	char *const *argv;
	uint64_t data_offset;
	int have_time;
	uint64_t first_time;
	uint64_t last_time;
	struct pdf_clock_sync clock;  /* state NONE until set */
	struct pdf_host_facts host;   /* kind NONE until set */
	struct pdf_guest_facts guest; /* known 0 until set */
	int attrs_stale;              /* the guest spoke after the attrs */
	int have_sample_time;         /* of the guest's samples alone */
	uint64_t first_sample, last_sample;
	uint64_t trimmed[RS_MAX_RINGS]; /* call chain frames cut, per ring */
	struct pdf_trim trim;
	struct pdf_writer_stats stats;
	int have_ksyms;             /* guest kernel symbols given */
	struct pdf_ksyms *ksyms;    /* kept for pdf_writer_add_kcore */
	int ksyms_cached;           /* in the cache under stats.build_id */
	char *buildid_dir;          /* the cache: given at open, else the
				     * file's own (pdf_cache_dir_of) */
	struct pdf_buf ubids;       /* HEADER_BUILD_ID of user binaries */
	int maps_vdso;              /* an MMAP2 of "[vdso]" was written */
	uint32_t aux_format;        /* enum pdf_aux_format */
	/* what the data section holds up to the end of the last whole
	 * addition (mark), and of it what is on disk (good): the point a
	 * full disk's file is cut back to (pdf_writer_salvage) */
	struct pdf_writer_part mark, good;
	uint64_t lost_records, lost;  /* LOST records added, their counts */
	int clock_applied;          /* the data section's times are the host's */
	size_t used;
	uint8_t *out;               /* PDF_WRITER_OUT_BUF bytes of pending data */
	uint8_t enc[PDF_CODEC_BUF];
	_Alignas(8) uint8_t trim_buf[PDF_CODEC_BUF];
};

/* @size bytes at @rec into the data section (held, written when the
 * buffer is full).  0 or -errno. */
int pdf_writer_append(struct pdf_writer *w, const void *rec, size_t size);

/* The end of a whole addition (record, AUX record, maps): a point the
 * file can be cut back to. */
void pdf_writer_mark(struct pdf_writer *w);

/* The guest kernel's symbols of @p: its maps first in the data section,
 * its build id, its table in the cache.  Only a failed write of the file
 * is returned; the rest is in stats.ksyms_err. */
int pdf_writer_ksyms(struct pdf_writer *w, const struct pdf_writer_params *p);

#endif /* RINGSIDE_PDF_WRITER_H */
