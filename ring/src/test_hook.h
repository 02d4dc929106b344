/* SPDX-License-Identifier: MIT */
/*
 * Test hooks at the producer's nesting points: the places where a writer
 * interrupted on its own CPU by another writer on the same ring (a guest
 * interrupt handler, a signal handler) takes a different path.  A timer
 * lands in these windows only by luck; a hook reaches each one on demand.
 *
 * Compiled in only where RS_RING_TEST_HOOKS is defined: the library's test
 * build that tests/ring links (ring/meson.build).  Everywhere else
 * RS_TEST_HOOK() is empty, so the product's fast path has no load, no
 * branch and no call.  In the test build each point costs one load and
 * one predictable branch while no hook is set.
 */
#ifndef RINGSIDE_TEST_HOOK_H
#define RINGSIDE_TEST_HOOK_H

#include "ringside/ring_producer.h"

enum rs_hook_point {
	/* reserve: head (and the pending LOST count) read, space not yet
	 * taken: a nested writer makes the cmpxchg fail and retry */
	RS_HOOK_RESERVE_READ,
	/* reserve: space taken, pending LOST count not yet taken: a nested
	 * writer takes it first, this writer's LOST record reports 0 */
	RS_HOOK_RESERVE_TAKEN,
	/* commit (outermost): head published, nest count not yet dropped: a
	 * nested writer does not publish, this one publishes again */
	RS_HOOK_PUBLISHED,
	/* commit (outermost): nest count dropped, private head not yet
	 * re-checked: a nested writer publishes, this one re-publishes */
	RS_HOOK_UNNESTED,
	RS_HOOK_MAX
};

#ifdef RS_RING_TEST_HOOKS
typedef void (*rs_test_hook_fn)(struct rs_producer *p, enum rs_hook_point at);
/* Called at every point of every producer while set; NULL by default. */
extern rs_test_hook_fn rs_test_hook;
#define RS_TEST_HOOK(p, at) \
	do { \
		if (rs_test_hook) \
			rs_test_hook((p), (at)); \
	} while (0)
#else
#define RS_TEST_HOOK(p, at) do { } while (0)
#endif

#endif /* RINGSIDE_TEST_HOOK_H */
