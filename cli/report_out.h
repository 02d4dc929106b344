/* SPDX-License-Identifier: MIT */
/* Printing tallies: the text and JSON of `ringside report`, and the short
 * per-ring lines record and snapshot end with.  Part of the cmd layer. */
#ifndef RINGSIDE_CLI_REPORT_OUT_H
#define RINGSIDE_CLI_REPORT_OUT_H

#include <stdio.h>

#include "ringside/perfdata.h"

#include "tally.h"
#include "usyms.h"

void report_text(FILE *f, const char *path, const struct pdf_info *info,
		 const struct tally *t);
void report_json(FILE *f, const char *path, const struct pdf_info *info,
		 const struct tally *t);

/* The guest's user samples by function (usyms_top()'s @n @rows), after
 * report_text's tallies; @symfs as given (NULL: none). */
void report_usyms_text(FILE *f, const struct usyms_summary *sum,
		       const struct usyms_row *rows, int n, const char *symfs);

/* "ring 0: 123 records (4.0 KiB), lost 5, AUX 2 records" */
void report_ring_line(FILE *f, const char *label, const struct tally_ring *r);

/* Bytes in B, KiB, MiB or GiB, into @buf. */
const char *report_size(char *buf, size_t len, uint64_t bytes);

#endif /* RINGSIDE_CLI_REPORT_OUT_H */
