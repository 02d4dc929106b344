/* SPDX-License-Identifier: MIT */
/*
 * Words that threads or processes share outside the ring protocol: a
 * guest's boot report, a VMM's counters and thread state, a test's
 * handshake.  Out of line, so that the ring library's barrier header stays
 * the only place in ringside with atomics.  Each call is one atomic access
 * of a naturally aligned word; none of them blocks, prints or fails.
 */
#ifndef RINGSIDE_SHARED_H
#define RINGSIDE_SHARED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Load-acquire: what was stored before the matching store-release is
 * visible after it. */
uint32_t rs_shared_load32(const uint32_t *p);
uint64_t rs_shared_load(const uint64_t *p);

/* Store-release: everything stored before is visible to a load-acquire
 * that sees @v. */
void rs_shared_store32(uint32_t *p, uint32_t v);
void rs_shared_store(uint64_t *p, uint64_t v);

/* *@p += @n, atomically against other writers, with no ordering (counters). */
void rs_shared_add(uint64_t *p, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_SHARED_H */
