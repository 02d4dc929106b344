/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kcode_reader.h"

static void *read_main(void *arg)
{
	struct kcode_reader *k = arg;
	struct gkcode_image im;

	k->err = gkcode_read(&im, k->src, k->ranges, k->nranges);
	if (!k->err) {
		gkcode_store(&k->g, &im, k->w);
		k->g.early = 1;
		gkcode_image_free(&im);
	}
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int kcode_reader_start(struct kcode_reader *k, const struct gkcode_src *src,
		       struct pdf_writer *w)
{
	int n, err;

	if (k->started)
		return 0;
	n = gkcode_ranges(w, &k->ranges);
	if (n <= 0)
		return n < 0 ? n : 1;
	k->nranges = (unsigned)n;
	k->src = src;
	k->w = w;
	err = pthread_create(&k->thread, NULL, read_main, k);
	if (err) {
		free(k->ranges);
		k->ranges = NULL;
		return -err;
	}
	k->started = 1;
	return 0;
}

int kcode_reader_done(const struct kcode_reader *k)
{
	return k->started && __atomic_load_n(&k->done, __ATOMIC_ACQUIRE);
}

const struct gkcode *kcode_reader_join(struct kcode_reader *k)
{
	if (k->started && !k->joined) {
		pthread_join(k->thread, NULL);
		k->joined = 1;
	}
	return k->joined && !k->err ? &k->g : NULL;
}

void kcode_reader_fini(struct kcode_reader *k)
{
	kcode_reader_join(k);
	free(k->ranges);
	memset(k, 0, sizeof(*k));
}
