/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the ring suite: a region on a memfd (optionally between
 * PROT_NONE guard pages), record helpers, a record log for drain callbacks,
 * and the Check runner.
 *
 * Tests reach shared memory only through the ABI (region header, control
 * pages); the private fields of the library's structs are never read.
 */
#ifndef RS_TEST_FIXTURE_H
#define RS_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "ringside/ring.h"

/*
 * A passing ck_assert costs Check a write to its pipe (it records the last
 * location); in per-record and per-byte loops use this, which costs
 * nothing until it fails.
 */
#define FX_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

/* 1 in a sanitized build (meson passes it), so long tests can scale down. */
#ifndef RS_TEST_SANITIZED
#define RS_TEST_SANITIZED 0
#endif

enum fx_flag {
	FX_GUARD    = 1u << 0, /* PROT_NONE on both sides and in the padding */
	FX_NO_OPEN  = 1u << 1, /* lay out only; leave enabled = 0, no open */
};

struct fx_region {
	int fd;
	uint8_t *mem;          /* region start */
	uint64_t size;
	uint8_t *map;          /* the whole mapping, guard pages included */
	size_t map_len;
	struct rs_region region;
};

/* Normal mode, one ring, default watermarks. */
void fx_params(struct rs_region_params *p, uint32_t data_pages,
	       uint32_t aux_pages);

/* Size from rs_region_size, memfd, map, rs_region_layout, enable, open. */
void fx_region_init(struct fx_region *f, const struct rs_region_params *p,
		    unsigned flags);
void fx_region_fini(struct fx_region *f);
/* rs_region_open again, e.g. after changing the configuration. */
void fx_region_reopen(struct fx_region *f);

struct rs_region_header *fx_header(const struct fx_region *f);
/* Rings of the region as its header says (the ring table's count when it
 * has one), and ring @index's descriptor, in the header or the table. */
uint32_t fx_nr_rings(const struct fx_region *f);
struct rs_ring_desc *fx_desc(const struct fx_region *f, uint32_t index);
struct rs_ctrl_page *fx_ctrl(const struct fx_region *f, uint32_t index);
uint8_t *fx_data(const struct fx_region *f, uint32_t index);
uint8_t *fx_aux(const struct fx_region *f, uint32_t index);
uint64_t fx_data_size(const struct fx_region *f, uint32_t index);
uint64_t fx_aux_size(const struct fx_region *f, uint32_t index);

/* Copy @len bytes at ring position @pos out of a circular area. */
void fx_ring_read(const uint8_t *area, uint64_t area_size, uint64_t pos,
		  void *dst, uint64_t len);

/* Build an RS_RECORD_SEQ record and reserve/write/commit it.  Returns
 * commit's value or the first error. */
int fx_seq_output(struct rs_producer *p, uint64_t seq, uint32_t fill);

/* Seq of an intact RS_RECORD_SEQ record; fails the test otherwise. */
uint64_t fx_seq_of(const struct rs_perf_header *rec);

/* Seq of the newest record of overwrite ring @r, through a snapshot of
 * @region (an overwrite ring gives its newest record first). */
uint64_t fx_newest_seq(const struct rs_region *region, uint32_t r);

/* Copies of the records a drain delivered. */
struct fx_log {
	struct rs_perf_header **recs;
	size_t n;
	size_t cap;
	size_t stop_at;     /* refuse the record with this index ... */
	int stop_ret;       /* ... by returning this (< 0), when non-zero */
};

void fx_log_init(struct fx_log *l);
void fx_log_fini(struct fx_log *l);
int fx_log_record(const struct rs_perf_header *rec, void *arg);
/* Drain @c into @l until nothing is pending; returns records delivered. */
uint64_t fx_drain_all(struct rs_consumer *c, struct fx_log *l);

/* One ring of a fresh region with its producer and (normal data mode) its
 * consumer: the setup most cases share. */
struct fx_ring {
	struct fx_region f;
	struct rs_producer p;
	struct rs_consumer *c;
	struct fx_log log;
	struct rs_ctrl_page *ctrl;
	uint8_t *data;
	uint64_t data_size;
	uint8_t *aux;
	uint64_t aux_size;
};

void fx_ring_init(struct fx_ring *t, const struct rs_region_params *p,
		  unsigned flags);
void fx_ring_fini(struct fx_ring *t);
/* The record whose first byte is at ring position @pos, copied out. */
const struct rs_perf_header *fx_ring_record(const struct fx_ring *t,
					    uint64_t pos);

/* rs_producer_flush_lost on @t, expecting a LOST record to go in: checks
 * the return is 1, or 2 when that record took head across the watermark. */
void fx_flush_lost_written(struct fx_ring *t);

/* Deterministic PRNG (xorshift64*). */
uint64_t fx_rand(uint64_t *state);

/* A test case with a timeout that only a hang can reach. */
TCase *fx_tcase(Suite *s, const char *name);
/* Run @s; returns main()'s exit status. */
int fx_run(Suite *s);

#endif /* RS_TEST_FIXTURE_H */
