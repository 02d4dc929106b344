/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_KCODE_H
#define RINGSIDE_GI_KCODE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata.h"

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

/* Read @len bytes at guest-virtual @gva into @buf.  0, or a negative code
 * @errstr names. */
typedef int (*gi_kcode_peek_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

struct gi_kcode_src {
	gi_kcode_peek_fn peek;
	void *ctx;
	const char *(*errstr)(int err);
	size_t chunk;             /* bytes a peek may read (>= 4096) */
};

enum gi_kcode_state {
	GI_KCODE_ABSENT = 0,  /* not asked: no PT, or no source */
	GI_KCODE_NO_SYMBOLS,  /* the file has no guest kernel symbols in the cache */
	GI_KCODE_UNREADABLE,  /* not one byte could be read */
	GI_KCODE_UNREADABLE_CACHED, /* ... but the cache has it from before */
	GI_KCODE_FAILED,      /* the cache entry could not be written (err) */
	GI_KCODE_KEPT,        /* the entry had other code already: kept */
	GI_KCODE_OK,
};

struct gi_kcode {
	enum gi_kcode_state state;
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
int gi_kcode_put(struct gi_kcode *g, const struct gi_kcode_src *src,
		 struct pdf_writer *w);

/* gi_kcode_put in its parts, for a read made apart from the writer (a
 * recording reads the code while its domain still runs, in a thread, and
 * files it at its end if the domain is gone by then). */
struct gi_kcode_image {
	struct gi_kcode read;        /* wanted, bytes, segments, pages_unread */
	struct pdf_kcore_seg *segs;
	uint8_t **bufs;            /* the segments' data, malloc'ed */
	uint32_t nsegs;
};

/* @w's kernel ranges, as many as a kcore holds, into *@r (malloc'ed).
 * Returns how many (0: no symbols), or -ENOMEM. */
int gi_kcode_ranges(struct pdf_writer *w, struct pdf_code_range **r);

/* Read @n ranges through @src.  Touches nothing but @im and what @src's
 * peek touches.  0, or -ENOMEM (@im is then empty). */
int gi_kcode_read(struct gi_kcode_image *im, const struct gi_kcode_src *src,
		  const struct pdf_code_range *r, unsigned n);

/* Into @w's cache entry; @g says how it went (as gi_kcode_put). */
void gi_kcode_store(struct gi_kcode *g, const struct gi_kcode_image *im,
		    struct pdf_writer *w);

void gi_kcode_image_free(struct gi_kcode_image *im);

/* ---- gi_kcode_reader (src/gi_kcode_reader.c): in a thread ---- */
/*
 * The guest kernel's code read and cached in a thread while a recording
 * runs: the domain is alive when `record` starts and may be gone
 * (destroyed after a crash) when it stops, and reading takes seconds the
 * rings must not wait for.  The thread uses only the writer's kernel
 * symbols, build id and cache directory, which do not change once the
 * symbols are in (pdf_writer_code_ranges > 0), and the source's peek.
 */

struct gi_kcode_reader {
	const struct gi_kcode_src *src;
	struct pdf_writer *w;
	struct pdf_code_range *ranges;
	unsigned nranges;
	struct gi_kcode g;          /* how the read and the cache went */
	int err;                  /* -ENOMEM, or 0 */
	pthread_mutex_t lock;     /* guards done (once started) */
	int done;                 /* set by the thread, last */
	int started, joined;
	pthread_t thread;
};

/* Start reading @w's kernel ranges through @src into @w's cache entry
 * (nothing else may use @src until gi_kcode_reader_join).  0: started, or
 * was; 1: not yet, @w has no kernel symbols; -ENOMEM, or pthread_create's
 * error. */
int gi_kcode_reader_start(struct gi_kcode_reader *k, const struct gi_kcode_src *src,
		       struct pdf_writer *w);

/* 1 once the thread has finished (the result is then in k->g). */
int gi_kcode_reader_done(struct gi_kcode_reader *k);

/* Wait for the thread.  Its result, or NULL when none was started or it
 * ran out of memory. */
const struct gi_kcode *gi_kcode_reader_join(struct gi_kcode_reader *k);

void gi_kcode_reader_fini(struct gi_kcode_reader *k);

#endif /* RINGSIDE_GI_KCODE_H */
