/* SPDX-License-Identifier: MIT */
/*
 * The guest's process state table: two copies, each under its own
 * seqcount, the newest complete one by generation (rs_pstate_begin,
 * rs_pstate_publish); the host's one copy (rs_pstate_read) takes the
 * newest complete copy, also when the guest stopped in the middle of a
 * rewrite, and refuses heads and descriptors no writer produces.
 */
#include <string.h>

#include "fixture.h"

#define SB_PAGES 4u
#define SB_SIZE  ((uint64_t)SB_PAGES * RS_PAGE_SIZE)

static uint8_t host_buf[SB_SIZE];

static void region_sb(struct fx_region *f, uint32_t pages)
{
	struct rs_region_params p;

	ck_assert_int_eq(rs_region_params_init(&p, 1, 4, 2, RS_MODE_OVERWRITE,
					       RS_MODE_OVERWRITE), 0);
	p.sideband_pages = pages;
	fx_region_init(f, &p, FX_GUARD);
}

static struct rs_pstate_desc *desc(struct fx_region *f)
{
	return &((struct rs_region_header *)f->region.base)->pstate;
}

static struct rs_pstate_copy *copy_at(struct fx_region *f, uint32_t i)
{
	struct rs_pstate_desc *d = desc(f);

	return (void *)(f->region.base + f->region.sideband_offset +
			d->table_offset + i * d->copy_size);
}

/* @len bytes of entries that say @fill, in one process entry. */
static void state(uint8_t *buf, uint32_t len, uint8_t fill,
		  struct rs_pstate_copy *h)
{
	struct rs_pstate_proc p = { .length = len, .pid = fill };

	memset(buf, fill, len);
	memcpy(buf, &p, sizeof(p));
	memset(h, 0, sizeof(*h));
	h->length = len;
	h->nr_procs = 1;
	h->time = 1000u + fill;
}

START_TEST(publish_then_read)
{
	struct fx_region f;
	struct rs_pstate_writer w;
	struct rs_pstate_info info;
	struct rs_pstate_copy h;
	uint8_t a[256], b[512];

	region_sb(&f, SB_PAGES);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 0);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 2048, 4096), 0);
	ck_assert_uint_eq(w.copy_size, 2048);
	/* begun, nothing published: no state */
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 0);
	state(a, sizeof(a), 0xaa, &h);
	ck_assert_int_eq(rs_pstate_publish(&w, &h, a), 0);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.copy, 0);
	ck_assert_uint_eq(info.head.generation, 1);
	ck_assert_uint_eq(info.head.length, sizeof(a));
	ck_assert_uint_eq(info.head.time, 1000u + 0xaa);
	ck_assert_mem_eq(host_buf, a, sizeof(a));
	/* rewritten: the other copy, the next generation */
	state(b, sizeof(b), 0xbb, &h);
	h.flags = RS_PSTATE_TRUNCATED;
	h.procs_left_out = 3;
	ck_assert_int_eq(rs_pstate_publish(&w, &h, b), 0);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.copy, 1);
	ck_assert_uint_eq(info.head.generation, 2);
	ck_assert_uint_eq(info.head.procs_left_out, 3);
	ck_assert_mem_eq(host_buf, b, sizeof(b));
	/* a third time: copy 0 again */
	state(a, sizeof(a), 0xcc, &h);
	ck_assert_int_eq(rs_pstate_publish(&w, &h, a), 0);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.copy, 0);
	ck_assert_uint_eq(info.head.generation, 3);
	ck_assert_mem_eq(host_buf, a, sizeof(a));
	/* too long for a copy: refused, nothing changed */
	h.length = 2048;
	ck_assert_int_eq(rs_pstate_publish(&w, &h, host_buf), -rse_too_small);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.head.generation, 3);
	/* a new session's begin: no copy of the last one passes for its own */
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 2048, 4096), 0);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 0);
	fx_region_fini(&f);
}
END_TEST

/* The guest stopped in the middle of a rewrite (a panic): its seq stays
 * odd and its bytes are half old, half new; the other copy is the state. */
START_TEST(died_mid_rewrite)
{
	struct fx_region f;
	struct rs_pstate_writer w;
	struct rs_pstate_info info;
	struct rs_pstate_copy h;
	uint8_t a[256], b[512];
	uint32_t round;

	region_sb(&f, SB_PAGES);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 0, 8192), 0);
	/* died during the very first rewrite: nothing to take, said busy */
	copy_at(&f, 0)->seq |= 1u;
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_busy);
	copy_at(&f, 0)->seq++;
	for (round = 0; round < 4; round++) {
		uint32_t next = w.next;
		uint8_t fill = (uint8_t)(0x10 + round);

		state(a, sizeof(a), fill, &h);
		ck_assert_int_eq(rs_pstate_publish(&w, &h, a), 0);
		/* the next rewrite begins, scribbles, and never ends */
		copy_at(&f, w.next)->seq |= 1u;
		memset(copy_at(&f, w.next) + 1, 0xee, 64);
		copy_at(&f, w.next)->length = 40;   /* torn */
		ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE,
						&info), 1);
		ck_assert_uint_eq(info.copy, next);
		ck_assert_uint_eq(info.head.generation, round + 1);
		ck_assert_mem_eq(host_buf, a, sizeof(a));
		/* the guest lives on: its next publish repairs the frame */
		copy_at(&f, w.next)->seq++;
	}
	state(b, sizeof(b), 0x77, &h);
	ck_assert_int_eq(rs_pstate_publish(&w, &h, b), 0);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_mem_eq(host_buf, b, sizeof(b));
	fx_region_fini(&f);
}
END_TEST

START_TEST(caller_nonsense)
{
	struct fx_region f, none;
	struct rs_pstate_writer w;
	struct rs_pstate_info info;
	struct rs_pstate_copy h = { .length = 12 };

	region_sb(&f, SB_PAGES);
	region_sb(&none, 0);
	ck_assert_int_eq(rs_pstate_begin(&none.region, &w, 0, 4096), -rse_absent);
	ck_assert_int_eq(rs_pstate_read(&none.region, host_buf, SB_SIZE, &info),
			 -rse_absent);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 4, 4096), -rse_invalid);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 0, SB_SIZE + 8),
			 -rse_invalid);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 0, 64), -rse_too_small);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 0, 4096), 0);
	ck_assert_int_eq(rs_pstate_publish(&w, &h, host_buf), -rse_invalid);
	ck_assert_int_eq(rs_pstate_publish(NULL, &h, host_buf), -rse_invalid);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE - 1, &info),
			 -rse_too_small);
	fx_region_fini(&none);
	fx_region_fini(&f);
}
END_TEST

/* Entries built in place (rs_pstate_open, rs_pstate_close): while the
 * copy is open a reader takes the other, complete one; closed, it is the
 * newest.  A close that is refused leaves it emptied, never counted bad,
 * and the other copy the state. */
START_TEST(open_build_close)
{
	struct fx_region f;
	struct rs_pstate_writer w;
	struct rs_pstate_info info;
	struct rs_pstate_copy h;
	uint8_t a[256], b[512];
	uint64_t room = 0;
	uint8_t *e;

	region_sb(&f, SB_PAGES);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 0, 4096), 0);
	state(a, sizeof(a), 0x31, &h);
	ck_assert_int_eq(rs_pstate_publish(&w, &h, a), 0);
	e = rs_pstate_open(&w, &room);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(room, 2048 - sizeof(struct rs_pstate_copy));
	ck_assert_ptr_null(rs_pstate_open(&w, &room));      /* one at a time */
	ck_assert_int_eq(rs_pstate_publish(&w, &h, a), -rse_invalid);
	state(b, sizeof(b), 0x32, &h);
	memcpy(e, b, 100);                                  /* half built */
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.head.generation, 1);
	ck_assert_mem_eq(host_buf, a, sizeof(a));
	memcpy(e, b, sizeof(b));
	ck_assert_int_eq(rs_pstate_close(&w, &h), 0);
	ck_assert_int_eq(rs_pstate_close(&w, &h), -rse_invalid);  /* none open */
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.copy, 1);
	ck_assert_uint_eq(info.head.generation, 2);
	ck_assert_uint_eq(info.head.time, 1000u + 0x32);
	ck_assert_mem_eq(host_buf, b, sizeof(b));
	/* a close too long for the copy: refused, copy 1 still the state */
	e = rs_pstate_open(&w, &room);
	ck_assert_ptr_nonnull(e);
	memset(e, 0xee, 64);
	h.length = (uint32_t)room + 8;
	ck_assert_int_eq(rs_pstate_close(&w, &h), -rse_too_small);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.copy, 1);
	ck_assert_uint_eq(info.bad_copies, 0);
	ck_assert_mem_eq(host_buf, b, sizeof(b));
	/* and the writer goes on */
	state(a, sizeof(a), 0x33, &h);
	e = rs_pstate_open(&w, &room);
	ck_assert_ptr_nonnull(e);
	memcpy(e, a, sizeof(a));
	ck_assert_int_eq(rs_pstate_close(&w, &h), 0);
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.copy, 0);
	ck_assert_uint_eq(info.head.generation, 3);
	ck_assert_mem_eq(host_buf, a, sizeof(a));
	ck_assert_ptr_null(rs_pstate_open(NULL, &room));
	ck_assert_int_eq(rs_pstate_close(NULL, &h), -rse_invalid);
	fx_region_fini(&f);
}
END_TEST

/* What a hostile guest may write in place of a head or the descriptor. */
enum lie {
	LIE_MAGIC, LIE_LENGTH, LIE_ALIGN, LIE_FLAGS, LIE_TRUNC, LIE_NOT_TRUNC,
	LIE_PROCS, LIE_MAPS, LIE_GEN0, LIE_D_MAGIC, LIE_D_OFFSET, LIE_D_SIZE,
	LIE_D_ALIGN, NR_LIES
};

START_TEST(hostile_refused)
{
	struct fx_region f;
	struct rs_pstate_writer w;
	struct rs_pstate_info info;
	struct rs_pstate_copy h, *c;
	struct rs_pstate_desc *d;
	uint8_t a[256];

	region_sb(&f, SB_PAGES);
	ck_assert_int_eq(rs_pstate_begin(&f.region, &w, 1024, 4096), 0);
	state(a, sizeof(a), 0x42, &h);
	ck_assert_int_eq(rs_pstate_publish(&w, &h, a), 0);
	d = desc(&f);
	c = copy_at(&f, 0);
	switch (_i) {
	case LIE_MAGIC: c->magic ^= 1; break;
	case LIE_LENGTH: c->length = 2048; break;
	case LIE_ALIGN: c->length = 100; break;
	case LIE_FLAGS: c->flags = 2; break;
	case LIE_TRUNC: c->flags = RS_PSTATE_TRUNCATED; break;
	case LIE_NOT_TRUNC: c->maps_left_out = 1; break;
	case LIE_PROCS: c->nr_procs = 9; break;
	case LIE_MAPS: c->nr_maps = 4; break;
	case LIE_GEN0: c->generation = 0; c->magic = RS_PSTATE_COPY_MAGIC; c->length = 8; break;
	case LIE_D_MAGIC: d->magic ^= 1; break;
	case LIE_D_OFFSET: d->table_offset = SB_SIZE + 4096; break;
	case LIE_D_SIZE: d->copy_size = SB_SIZE; break;
	case LIE_D_ALIGN: d->table_offset = 1028; break;
	}
	memset(host_buf, 0x5a, sizeof(host_buf));
	ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_corrupt);
	ck_assert_uint_eq(host_buf[0], 0x5a);
	if (_i < LIE_D_MAGIC) {
		/* a good copy beside the bad one is taken, the bad counted */
		state(a, sizeof(a), 0x43, &h);
		ck_assert_int_eq(rs_pstate_publish(&w, &h, a), 0);
		ck_assert_int_eq(rs_pstate_read(&f.region, host_buf, SB_SIZE,
						&info), 1);
		ck_assert_uint_eq(info.copy, 1);
		ck_assert_uint_eq(info.bad_copies, 1);
		ck_assert_mem_eq(host_buf, a, sizeof(a));
	}
	fx_region_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pstate");
	TCase *tc = fx_tcase(s, "pstate");

	tcase_add_test(tc, publish_then_read);
	tcase_add_test(tc, died_mid_rewrite);
	tcase_add_test(tc, caller_nonsense);
	tcase_add_test(tc, open_build_close);
	tcase_add_loop_test(tc, hostile_refused, 0, NR_LIES);
	return fx_run(s);
}
