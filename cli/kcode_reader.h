/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's code read and cached in a thread while a recording
 * runs: the domain is alive when `record` starts and may be gone
 * (destroyed after a crash) when it stops, and reading takes seconds the
 * rings must not wait for.  The thread uses only the writer's kernel
 * symbols, build id and cache directory, which do not change once the
 * symbols are in (pdf_writer_code_ranges > 0), and the source's peek.
 */
#ifndef RINGSIDE_CLI_KCODE_READER_H
#define RINGSIDE_CLI_KCODE_READER_H

#include <pthread.h>

#include "guest_kcode.h"

struct kcode_reader {
	const struct gkcode_src *src;
	struct pdf_writer *w;
	struct pdf_code_range *ranges;
	unsigned nranges;
	struct gkcode g;          /* how the read and the cache went */
	int err;                  /* -ENOMEM, or 0 */
	int done;                 /* set by the thread, last */
	int started, joined;
	pthread_t thread;
};

/* Start reading @w's kernel ranges through @src into @w's cache entry
 * (nothing else may use @src until kcode_reader_join).  0: started, or
 * was; 1: not yet, @w has no kernel symbols; -ENOMEM, or pthread_create's
 * error. */
int kcode_reader_start(struct kcode_reader *k, const struct gkcode_src *src,
		       struct pdf_writer *w);

/* 1 once the thread has finished (the result is then in k->g). */
int kcode_reader_done(const struct kcode_reader *k);

/* Wait for the thread.  Its result, or NULL when none was started or it
 * ran out of memory. */
const struct gkcode *kcode_reader_join(struct kcode_reader *k);

void kcode_reader_fini(struct kcode_reader *k);

#endif /* RINGSIDE_CLI_KCODE_READER_H */
