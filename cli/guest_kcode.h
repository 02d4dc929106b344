/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's code, for perf's PT decoder: the ranges the writer's
 * kernel symbols name (clusters of the kernel's functions: its text, init
 * and exit text; each module's map),
 * read from the guest at their virtual addresses through a peek function
 * (libvirt's virDomainMemoryPeek for a DOMAIN; anything in tests) and put
 * in the build-id cache beside the kallsyms (pdf_writer_add_kcore).
 * Read-only; the bytes are the guest's, used only as the code a decoder
 * follows (docs/threat-model.md).  Never a reason to lose the file.
 */
#ifndef RINGSIDE_CLI_GUEST_KCODE_H
#define RINGSIDE_CLI_GUEST_KCODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ringside/perfdata.h"

/* Read @len bytes at guest-virtual @gva into @buf.  0, or a negative code
 * @errstr names. */
typedef int (*gkcode_peek_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

struct gkcode_src {
	gkcode_peek_fn peek;
	void *ctx;
	const char *(*errstr)(int err);
	size_t chunk;             /* bytes a peek may read (>= 4096) */
};

enum gkcode_state {
	GKCODE_ABSENT = 0,  /* not asked: no PT, or no source */
	GKCODE_NO_SYMBOLS,  /* the file has no guest kernel symbols in the cache */
	GKCODE_UNREADABLE,  /* not one byte could be read */
	GKCODE_UNREADABLE_CACHED, /* ... but the cache has it from before */
	GKCODE_FAILED,      /* the cache entry could not be written (err) */
	GKCODE_KEPT,        /* the entry had other code already: kept */
	GKCODE_OK,
};

struct gkcode {
	enum gkcode_state state;
	int err;                  /* the last failure (peek or cache) */
	const char *(*errstr)(int err);
	uint64_t wanted;          /* bytes of the ranges */
	uint64_t bytes;           /* read */
	uint32_t segments;
	uint32_t pages_unread;    /* pages a peek refused: INT3s in the image */
	int early;                /* the bytes are the read made at the start */
};

/* The code of @w's kernel ranges from @src into the cache.  Only -ENOMEM
 * is returned; everything else is in @g. */
int gkcode_put(struct gkcode *g, const struct gkcode_src *src,
	       struct pdf_writer *w);

/* gkcode_put in its parts, for a read made apart from the writer (a
 * recording reads the code while its domain still runs, in a thread, and
 * files it at its end if the domain is gone by then). */
struct gkcode_image {
	struct gkcode read;        /* wanted, bytes, segments, pages_unread */
	struct pdf_kcore_seg *segs;
	uint8_t **bufs;            /* the segments' data, malloc'ed */
	uint32_t nsegs;
};

/* @w's kernel ranges, as many as a kcore holds, into *@r (malloc'ed).
 * Returns how many (0: no symbols), or -ENOMEM. */
int gkcode_ranges(struct pdf_writer *w, struct pdf_code_range **r);

/* Read @n ranges through @src.  Touches nothing but @im and what @src's
 * peek touches.  0, or -ENOMEM (@im is then empty). */
int gkcode_read(struct gkcode_image *im, const struct gkcode_src *src,
		const struct pdf_code_range *r, unsigned n);

/* Into @w's cache entry; @g says how it went (as gkcode_put). */
void gkcode_store(struct gkcode *g, const struct gkcode_image *im,
		  struct pdf_writer *w);

void gkcode_image_free(struct gkcode_image *im);

/* "guest kernel code: ..." on @out, when it was asked for. */
void gkcode_summary(FILE *out, const struct gkcode *g);

#endif /* RINGSIDE_CLI_GUEST_KCODE_H */
