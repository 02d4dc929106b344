/* SPDX-License-Identifier: MIT */
#include "fixture.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Wide enough that a stray record copy (<= 64 KiB) lands in a guard. */
#define FX_GUARD_SIZE (1u << 20)

void fx_params(struct rs_region_params *p, uint32_t data_pages,
	       uint32_t aux_pages)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->nr_rings = 1;
	p->data_pages = data_pages;
	p->aux_pages = aux_pages;
	p->data_mode = RS_MODE_NORMAL;
	p->aux_mode = RS_MODE_NORMAL;
	p->trace_mask = RS_TRACE_TEST;
}

void fx_region_init(struct fx_region *f, const struct rs_region_params *p,
		    unsigned flags)
{
	uint64_t size = 0;
	size_t guard = (flags & FX_GUARD) ? FX_GUARD_SIZE : 0;

	memset(f, 0, sizeof(*f));
	ck_assert_int_eq(rs_region_size(p, &size), 0);
	f->size = size;
	f->fd = memfd_create("ringside-test", MFD_CLOEXEC);
	ck_assert_int_ge(f->fd, 0);
	ck_assert_int_eq(ftruncate(f->fd, (off_t)size), 0);

	f->map_len = size + 2 * guard;
	f->map = mmap(NULL, f->map_len, guard ? PROT_NONE : PROT_READ | PROT_WRITE,
		      guard ? MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE : MAP_SHARED,
		      guard ? -1 : f->fd, 0);
	ck_assert_ptr_ne(f->map, MAP_FAILED);
	f->mem = f->map;
	if (guard) {
		f->mem = mmap(f->map + guard, size, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_FIXED, f->fd, 0);
		ck_assert_ptr_eq(f->mem, f->map + guard);
	}

	ck_assert_int_eq(rs_region_layout(f->mem, size, p), 0);
	if (flags & FX_NO_OPEN)
		return;
	fx_header(f)->config.enabled = 1;
	fx_region_reopen(f);
}

void fx_region_reopen(struct fx_region *f)
{
	ck_assert_int_eq(rs_region_open(&f->region, f->mem, f->size), 0);
}

void fx_region_fini(struct fx_region *f)
{
	if (f->map)
		munmap(f->map, f->map_len);
	if (f->fd > 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
}

struct rs_region_header *fx_header(const struct fx_region *f)
{
	return (struct rs_region_header *)f->mem;
}

struct rs_ctrl_page *fx_ctrl(const struct fx_region *f, uint32_t index)
{
	return (struct rs_ctrl_page *)(f->mem +
				       fx_header(f)->rings[index].ctrl_offset);
}

uint8_t *fx_data(const struct fx_region *f, uint32_t index)
{
	return f->mem + fx_header(f)->rings[index].data_offset;
}

uint8_t *fx_aux(const struct fx_region *f, uint32_t index)
{
	return f->mem + fx_header(f)->rings[index].aux_offset;
}

uint64_t fx_data_size(const struct fx_region *f, uint32_t index)
{
	return fx_header(f)->rings[index].data_size;
}

uint64_t fx_aux_size(const struct fx_region *f, uint32_t index)
{
	return fx_header(f)->rings[index].aux_size;
}

void fx_ring_read(const uint8_t *area, uint64_t area_size, uint64_t pos,
		  void *dst, uint64_t len)
{
	uint64_t off = pos & (area_size - 1);
	uint64_t first = len < area_size - off ? len : area_size - off;

	memcpy(dst, area + off, first);
	memcpy((uint8_t *)dst + first, area, len - first);
}

int fx_seq_output(struct rs_producer *p, uint64_t seq, uint32_t fill)
{
	static _Alignas(8) uint8_t buf[RS_RECORD_MAX];
	struct rs_handle h;
	int size, err;

	size = rs_seq_build(buf, seq, seq * 7 + 1, 0, fill);
	ck_assert_int_gt(size, 0);
	err = rs_producer_reserve(p, &h, (uint32_t)size);
	if (err < 0)
		return err;
	err = rs_producer_write(p, &h, buf, (uint32_t)size);
	ck_assert_int_eq(err, 0);
	return rs_producer_commit(p, &h);
}

uint64_t fx_seq_of(const struct rs_perf_header *rec)
{
	ck_assert_uint_eq(rec->type, RS_RECORD_SEQ);
	ck_assert_int_eq(rs_seq_check(rec), 1);
	return ((const struct rs_rec_seq *)rec)->seq;
}

void fx_log_init(struct fx_log *l)
{
	memset(l, 0, sizeof(*l));
}

void fx_log_fini(struct fx_log *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->recs[i]);
	free(l->recs);
	memset(l, 0, sizeof(*l));
}

int fx_log_record(const struct rs_perf_header *rec, void *arg)
{
	struct fx_log *l = arg;
	struct rs_perf_header *copy;

	if (l->stop_ret && l->n == l->stop_at)
		return l->stop_ret;
	ck_assert_uint_ge(rec->size, sizeof(*rec));
	ck_assert_uint_le(rec->size, RS_RECORD_MAX);
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->recs = realloc(l->recs, l->cap * sizeof(*l->recs));
		ck_assert_ptr_nonnull(l->recs);
	}
	copy = malloc(rec->size);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, rec, rec->size);
	l->recs[l->n++] = copy;
	return 0;
}

uint64_t fx_drain_all(struct rs_consumer *c, struct fx_log *l)
{
	uint64_t total = 0;

	/* One batch takes everything published; the bound is for a broken
	 * drain that never reaches the head. */
	for (int i = 0; i < 64; i++) {
		int n = rs_consumer_drain(c, fx_log_record, l);

		ck_assert_int_ge(n, 0);
		if (n == 0)
			return total;
		total += (uint64_t)n;
	}
	ck_abort_msg("drain never reached the head");
	return total;
}

uint64_t fx_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

TCase *fx_tcase(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	/* meson's per-test timeout is the real bound; Check's default of a
	 * few seconds would fail slow runs (valgrind) for no reason. */
	tcase_set_timeout(tc, 3600);
	suite_add_tcase(s, tc);
	return tc;
}

int fx_run(Suite *s)
{
	SRunner *r = srunner_create(s);
	int failed;

	srunner_run_all(r, CK_ENV);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
