/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: the clock of a file's times (pdf_clock.c): the
 * conversion of guest times to host CLOCK_MONOTONIC after a time sync, the
 * in-place rewrite of the data section's TIME words, and the features
 * that say which clock the file is in.
 */
#ifndef RINGSIDE_PDF_CLOCK_H
#define RINGSIDE_PDF_CLOCK_H

#include <stdint.h>

#include "pdf_format.h"

#define PDF_CLOCKID_MONOTONIC 1u   /* Linux's CLOCK_MONOTONIC */

/* 1 when @cs holds a sync that converts times (state SYNCED, 1 or 2
 * points). */
int pdf_clock_usable(const struct pdf_clock_sync *cs);

/*
 * Rewrite the TIME word of every record in the data section of @fd
 * (@data_size bytes at @data_offset, records as @lay encodes them) from
 * guest time to host time by @cs.  @buf: scratch of 1 MiB.  0 (also when
 * @cs does not convert), -errno, PDF_ERR(pdfe_internal).
 */
int pdf_clock_rewrite(int fd, uint64_t data_offset, uint64_t data_size,
		      const struct pdf_layout *lay,
		      const struct pdf_clock_sync *cs, uint8_t *buf);

/* The section of feature @bit (CLOCKID, CLOCK_DATA, RS_CLOCK) into @b. */
void pdf_clock_add_features(struct pdf_buf *b, unsigned bit,
			    const struct pdf_clock_sync *cs);

/* ringside's clock feature back into @cs (zeroed first).
 * PDF_ERR(pdfe_format). */
int pdf_clock_parse(const uint8_t *sec, uint64_t len, struct pdf_clock_sync *cs);

#endif /* RINGSIDE_PDF_CLOCK_H */
