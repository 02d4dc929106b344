/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/introspect.h"

static void *read_main(void *arg)
{
	struct gkcode_reader *k = arg;
	struct gkcode_image im;

	k->err = gkcode_read(&im, k->src, k->ranges, k->nranges);
	if (!k->err) {
		gkcode_store(&k->g, &im, k->w);
		k->g.early = 1;
		gkcode_image_free(&im);
	}
	pthread_mutex_lock(&k->lock);
	k->done = 1;
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

int gkcode_reader_start(struct gkcode_reader *k, const struct gkcode_src *src,
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
	err = pthread_mutex_init(&k->lock, NULL);
	if (!err) {
		err = pthread_create(&k->thread, NULL, read_main, k);
		if (err)
			pthread_mutex_destroy(&k->lock);
	}
	if (err) {
		free(k->ranges);
		k->ranges = NULL;
		return -err;
	}
	k->started = 1;
	return 0;
}

int gkcode_reader_done(struct gkcode_reader *k)
{
	int done;

	if (!k->started)
		return 0;
	pthread_mutex_lock(&k->lock);
	done = k->done;
	pthread_mutex_unlock(&k->lock);
	return done;
}

const struct gkcode *gkcode_reader_join(struct gkcode_reader *k)
{
	if (k->started && !k->joined) {
		pthread_join(k->thread, NULL);
		k->joined = 1;
	}
	return k->joined && !k->err ? &k->g : NULL;
}

void gkcode_reader_fini(struct gkcode_reader *k)
{
	gkcode_reader_join(k);
	if (k->started)
		pthread_mutex_destroy(&k->lock);
	free(k->ranges);
	memset(k, 0, sizeof(*k));
}
