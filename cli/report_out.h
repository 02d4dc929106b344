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

/*
 * The lines every summary gives a ring (or the total), @indent before each
 * but the first: what the host observed (@h, NULL when the file says
 * nothing), the guest's claims (@r), and the claims flagged as implausible:
 *
 *   ring 0: 123 records (4.0 KiB)
 *     host: corrupt 0 (0 impossible heads), 0 bytes discarded; AUX 512 bytes taken, 512 stored
 *     guest claims: lost 5 in 1 LOST records; AUX 2 records (512 bytes, 0 truncated)
 *     flagged, not summed: 1 LOST count above 1/ns of host uptime
 */
void report_ring_lines(FILE *f, const char *label, const char *indent,
		       const struct tally_ring *r, const struct pdf_host_ring *h,
		       const struct tally_bounds *b);

/* The sum of @n rings' host facts (saturating) into @sum. */
void report_host_total(const struct pdf_host_facts *hf, struct pdf_host_ring *sum);

/*
 * On stderr, whatever --quiet hides: corruption the host met (@h: every
 * ring of it; NULL: none known) and claims flagged in @t.  Returns 1 when
 * it printed anything (the command then exits CLI_EXIT_CORRUPT), else 0.
 */
int report_warn(const char *cmd, const struct pdf_host_facts *h,
		const struct tally *t);

/* Bytes in B, KiB, MiB or GiB, into @buf. */
const char *report_size(char *buf, size_t len, uint64_t bytes);

#endif /* RINGSIDE_CLI_REPORT_OUT_H */
