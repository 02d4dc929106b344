/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: ringside's host feature (PDF_FEAT_RS_HOST), what
 * the host observed while it read the rings (struct pdf_host_facts).
 */
#ifndef RINGSIDE_PDF_HOST_H
#define RINGSIDE_PDF_HOST_H

#include <stdint.h>

#include "pdf_format.h"

/* 1 when @h says something (a known kind, a ring count in range). */
int pdf_host_valid(const struct pdf_host_facts *h);

/* The feature section of @h into @b. */
void pdf_host_add_feature(struct pdf_buf *b, const struct pdf_host_facts *h);

/* The section back into @h (zeroed first; kind NONE when malformed).
 * PDF_ERR(pdfe_format). */
int pdf_host_parse(const uint8_t *sec, uint64_t len, struct pdf_host_facts *h);

#endif /* RINGSIDE_PDF_HOST_H */
