/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gi_kcode.h"

#define MAX_RANGES PDF_KCORE_MAX_SEGS

/* Read [start, end) into @buf by chunks; a chunk the peek refuses is read
 * page by page, and a page that cannot be read is INT3s (0xcc), counted.
 * Such a page is not mapped in the guest (QEMU translates through its page
 * tables): the guest could not run it either, and its symbols (freed init
 * text, say) stay named in perf, which drops those outside every segment. */
static void read_range(struct gi_kcode *g, const struct gi_kcode_src *src,
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
			uint64_t pn = (p & ~(uint64_t)(RS_PAGE_SIZE - 1)) + RS_PAGE_SIZE - p;
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

void gi_kcode_image_free(struct gi_kcode_image *im)
{
	for (uint32_t i = 0; im->bufs && i < im->nsegs; i++)
		free(im->bufs[i]);
	free(im->bufs);
	free(im->segs);
	memset(im, 0, sizeof(*im));
}

int gi_kcode_read(struct gi_kcode_image *im, const struct gi_kcode_src *src,
		  const struct pdf_code_range *r, unsigned n)
{
	struct gi_kcode *g = &im->read;

	memset(im, 0, sizeof(*im));
	g->errstr = src->errstr;
	if (n > MAX_RANGES)
		n = MAX_RANGES;
	im->segs = calloc(n ? n : 1, sizeof(*im->segs));
	im->bufs = calloc(n ? n : 1, sizeof(*im->bufs));
	if (!im->segs || !im->bufs) {
		gi_kcode_image_free(im);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t len = r[i].end - r[i].start;
		uint8_t *buf;

		/* the guest's symbols say how much: bounded as the cache is */
		if (g->wanted + len > PDF_KCORE_MAX_BYTES)
			break;
		buf = malloc(len);
		if (!buf) {
			gi_kcode_image_free(im);
			return -ENOMEM;
		}
		g->wanted += len;
		read_range(g, src, r[i].start, r[i].end, buf);
		im->segs[im->nsegs].addr = r[i].start;
		im->segs[im->nsegs].len = len;
		im->segs[im->nsegs].data = buf;
		im->bufs[im->nsegs++] = buf;
	}
	g->segments = im->nsegs;
	return 0;
}

void gi_kcode_store(struct gi_kcode *g, const struct gi_kcode_image *im,
		    struct pdf_writer *w)
{
	*g = im->read;
	if (!g->bytes) {
		g->state = pdf_writer_has_kcore(w) ? GI_KCODE_UNREADABLE_CACHED :
						     GI_KCODE_UNREADABLE;
		return;
	}
	g->err = pdf_writer_add_kcore(w, im->segs, im->nsegs);
	g->errstr = pdf_error_str;
	g->state = g->err < 0 ? GI_KCODE_FAILED : g->err ? GI_KCODE_KEPT : GI_KCODE_OK;
	if (g->state != GI_KCODE_FAILED) {
		g->err = im->read.err;   /* the last unread page's, for the summary */
		g->errstr = im->read.errstr;
	}
}

int gi_kcode_ranges(struct pdf_writer *w, struct pdf_code_range **r)
{
	int n = pdf_writer_code_ranges(w, NULL, 0);

	*r = NULL;
	if (n <= 0)
		return 0;
	if (n > (int)MAX_RANGES)
		n = (int)MAX_RANGES;
	*r = calloc((size_t)n, sizeof(**r));
	if (!*r)
		return -ENOMEM;
	pdf_writer_code_ranges(w, *r, (unsigned)n);
	return n;
}

int gi_kcode_put(struct gi_kcode *g, const struct gi_kcode_src *src,
		 struct pdf_writer *w)
{
	struct pdf_code_range *r;
	struct gi_kcode_image im;
	int n, err;

	memset(g, 0, sizeof(*g));
	g->errstr = src->errstr;
	n = gi_kcode_ranges(w, &r);
	if (n < 0)
		return n;
	if (!n) {
		g->state = GI_KCODE_NO_SYMBOLS;
		return 0;
	}
	err = gi_kcode_read(&im, src, r, (unsigned)n);
	free(r);
	if (err)
		return err;
	gi_kcode_store(g, &im, w);
	gi_kcode_image_free(&im);
	return 0;
}

