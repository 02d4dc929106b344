/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "guest_kcode.h"

#define PAGE 4096ull
#define MAX_RANGES PDF_KCORE_MAX_SEGS

/* Read [start, end) into @buf by chunks; a chunk the peek refuses is read
 * page by page, and a page that cannot be read is INT3s (0xcc), counted.
 * Such a page is not mapped in the guest (QEMU translates through its page
 * tables): the guest could not run it either, and its symbols (freed init
 * text, say) stay named in perf, which drops those outside every segment. */
static void read_range(struct gkcode *g, const struct gkcode_src *src,
		       uint64_t start, uint64_t end, uint8_t *buf)
{
	uint64_t at = start;

	while (at < end) {
		uint64_t n = end - at < src->chunk ? end - at : src->chunk;
		uint64_t p;

		if (!src->peek(src->ctx, at, buf + (at - start), (size_t)n)) {
			g->bytes += n;
			at += n;
			continue;
		}
		for (p = at; p < at + n; ) {
			uint64_t pn = (p & ~(PAGE - 1)) + PAGE - p;
			int err;

			if (pn > at + n - p)
				pn = at + n - p;
			err = src->peek(src->ctx, p, buf + (p - start), (size_t)pn);
			if (err) {
				memset(buf + (p - start), 0xcc, (size_t)pn);
				g->err = err;
				g->pages_unread++;
			} else {
				g->bytes += pn;
			}
			p += pn;
		}
		at += n;
	}
}

int gkcode_put(struct gkcode *g, const struct gkcode_src *src,
	       struct pdf_writer *w)
{
	struct pdf_code_range *r = NULL;
	struct pdf_kcore_seg *segs = NULL;
	uint8_t **bufs = NULL;
	uint32_t nsegs = 0;
	int n, i, err = 0;
	int read_err;

	memset(g, 0, sizeof(*g));
	g->errstr = src->errstr;
	n = pdf_writer_code_ranges(w, NULL, 0);
	if (n <= 0) {
		g->state = GKCODE_NO_SYMBOLS;
		return 0;
	}
	if (n > (int)MAX_RANGES)
		n = (int)MAX_RANGES;
	r = calloc((size_t)n, sizeof(*r));
	segs = calloc(MAX_RANGES, sizeof(*segs));
	bufs = calloc((size_t)n, sizeof(*bufs));
	if (!r || !segs || !bufs) {
		err = -ENOMEM;
		goto out;
	}
	pdf_writer_code_ranges(w, r, (unsigned)n);
	for (i = 0; i < n; i++) {
		uint64_t len = r[i].end - r[i].start;

		/* the guest's symbols say how much: bounded as the cache is */
		if (g->wanted + len > PDF_KCORE_MAX_BYTES)
			break;
		g->wanted += len;
		bufs[i] = malloc(len);
		if (!bufs[i]) {
			err = -ENOMEM;
			goto out;
		}
		read_range(g, src, r[i].start, r[i].end, bufs[i]);
		segs[nsegs].addr = r[i].start;
		segs[nsegs].len = len;
		segs[nsegs].data = bufs[i];
		nsegs++;
	}
	g->segments = nsegs;
	if (!g->bytes) {
		g->state = pdf_writer_has_kcore(w) ? GKCODE_UNREADABLE_CACHED :
						     GKCODE_UNREADABLE;
		goto out;
	}
	read_err = g->err;
	g->err = pdf_writer_add_kcore(w, segs, nsegs);
	g->errstr = pdf_errstr;
	g->state = g->err < 0 ? GKCODE_FAILED : g->err ? GKCODE_KEPT : GKCODE_OK;
	if (g->state != GKCODE_FAILED) {
		g->err = read_err;   /* the last unread page's, for the summary */
		g->errstr = src->errstr;
	}
out:
	for (i = 0; bufs && i < n; i++)
		free(bufs[i]);
	free(bufs);
	free(segs);
	free(r);
	return err;
}

void gkcode_summary(FILE *out, const struct gkcode *g)
{
	switch (g->state) {
	case GKCODE_ABSENT:
		break;
	case GKCODE_NO_SYMBOLS:
		fprintf(out, "  guest kernel code: not read (no guest kernel symbols "
			"in the build-id cache: perf cannot decode the PT)\n");
		break;
	case GKCODE_UNREADABLE:
		fprintf(out, "  guest kernel code: unreadable (%s): perf cannot "
			"decode the PT\n", g->errstr ? g->errstr(g->err) : "?");
		break;
	case GKCODE_UNREADABLE_CACHED:
		fprintf(out, "  guest kernel code: unreadable (%s); the build-id "
			"cache holds this kernel's from an earlier read: perf "
			"decodes with it\n", g->errstr ? g->errstr(g->err) : "?");
		break;
	case GKCODE_FAILED:
		fprintf(out, "  guest kernel code: read, not cached (%s)\n",
			pdf_errstr(g->err));
		break;
	case GKCODE_KEPT:
	case GKCODE_OK:
		fprintf(out, "  guest kernel code: %" PRIu64 " of %" PRIu64
			" bytes in %u segments%s, kcore in the build-id cache%s\n",
			g->bytes, g->wanted, g->segments,
			g->pages_unread ? " (unreadable pages as INT3s)" : "",
			g->state == GKCODE_KEPT ? " (the one there was kept)" : "");
		break;
	}
}
