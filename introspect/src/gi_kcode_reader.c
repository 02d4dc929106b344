/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gi_kcode.h"

static void *read_main(void *arg)
{
	struct gi_kcode_reader *k = arg;
	struct gi_kcode_image im;

	k->err = gi_kcode_read(&im, k->src, k->ranges, k->nranges);
	if (!k->err) {
		gi_kcode_store(&k->g, &im, k->w);
		k->g.early = 1;
		gi_kcode_image_free(&im);
	}
	pthread_mutex_lock(&k->lock);
	k->done = 1;
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

int gi_kcode_reader_start(struct gi_kcode_reader *k, const struct gi_kcode_src *src,
		       struct pdf_writer *w)
{
	int n, err;

	if (k->started)
		return 0;
	n = gi_kcode_ranges(w, &k->ranges);
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

int gi_kcode_reader_done(struct gi_kcode_reader *k)
{
	int done;

	if (!k->started)
		return 0;
	pthread_mutex_lock(&k->lock);
	done = k->done;
	pthread_mutex_unlock(&k->lock);
	return done;
}

const struct gi_kcode *gi_kcode_reader_join(struct gi_kcode_reader *k)
{
	if (k->started && !k->joined) {
		pthread_join(k->thread, NULL);
		k->joined = 1;
	}
	return k->joined && !k->err ? &k->g : NULL;
}

void gi_kcode_reader_fini(struct gi_kcode_reader *k)
{
	gi_kcode_reader_join(k);
	if (k->started)
		pthread_mutex_destroy(&k->lock);
	free(k->ranges);
	memset(k, 0, sizeof(*k));
}
