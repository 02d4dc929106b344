/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the pt suite: a fake guest-physical memory made of a few
 * windows (tables low, an AUX area high), and the Check runner.
 */
#ifndef PT_FIXTURE_H
#define PT_FIXTURE_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/pt_core.h"

#define FX_TABLE_GPA 0x10000ull
#define FX_AUX_GPA   0x80040000ull

struct fx_window {
	uint64_t gpa;
	uint64_t size;
	uint8_t *mem;
};

struct fx_mem {
	struct fx_window w[4];
	int n;
};

static inline void *fx_mem_ptr(void *arg, uint64_t gpa, uint64_t len)
{
	struct fx_mem *m = arg;

	for (int i = 0; i < m->n; i++) {
		struct fx_window *w = &m->w[i];

		if (gpa >= w->gpa && gpa - w->gpa <= w->size &&
		    len <= w->size - (gpa - w->gpa))
			return w->mem + (gpa - w->gpa);
	}
	return NULL;
}

static inline uint8_t *fx_mem_add(struct fx_mem *m, uint64_t gpa,
				  uint64_t size)
{
	struct fx_window *w = &m->w[m->n++];

	w->gpa = gpa;
	w->size = size;
	w->mem = calloc(1, size);
	ck_assert_ptr_nonnull(w->mem);
	return w->mem;
}

static inline void fx_mem_free(struct fx_mem *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->w[i].mem);
	m->n = 0;
}

static inline struct pv_mem fx_pv_mem(struct fx_mem *m)
{
	struct pv_mem pm = { fx_mem_ptr, m };

	return pm;
}

static inline int fx_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* PT_FIXTURE_H */
