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

static void mark(uint8_t *used, uint64_t off, uint64_t len)
{
	for (uint64_t pg = off / RS_PAGE_SIZE; pg < (off + len) / RS_PAGE_SIZE; pg++)
		used[pg] = 1;
}

/* The pages of the region no area uses become guards too, so that an
 * overrun of one area faults instead of reading padding. */
static void guard_padding(struct fx_region *f)
{
	const struct rs_region_header *h = (const void *)f->mem;
	uint64_t pages = f->size / RS_PAGE_SIZE;
	uint8_t *used = calloc(pages, 1);

	ck_assert_ptr_nonnull(used);
	mark(used, 0, RS_PAGE_SIZE + rs_ring_table_size(fx_nr_rings(f)));
	mark(used, h->sideband_offset, h->sideband_size);
	for (uint32_t i = 0; i < fx_nr_rings(f); i++) {
		const struct rs_ring_desc *d = fx_desc(f, i);

		mark(used, d->ctrl_offset, RS_PAGE_SIZE);
		mark(used, d->data_offset, d->data_size);
		mark(used, d->aux_offset, d->aux_size);
	}
	for (uint64_t pg = 0; pg < pages; pg++)
		if (!used[pg])
			ck_assert_int_eq(mprotect(f->mem + pg * RS_PAGE_SIZE,
						  RS_PAGE_SIZE, PROT_NONE), 0);
	free(used);
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
	if (guard)
		guard_padding(f);
	if (flags & FX_NO_OPEN)
		return;
	ck_assert_int_eq(rs_region_enable(f->mem), 0);
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

uint32_t fx_nr_rings(const struct fx_region *f)
{
	const struct rs_region_header *h = fx_header(f);

	return (h->config.features & RS_FEATURE_RING_TABLE) ?
	       h->nr_rings_total : h->nr_rings;
}

struct rs_ring_desc *fx_desc(const struct fx_region *f, uint32_t index)
{
	if (index < RS_HDR_RINGS)
		return &fx_header(f)->rings[index];
	return (struct rs_ring_desc *)(f->mem + RS_RING_TABLE_OFFSET) +
	       (index - RS_HDR_RINGS);
}

struct rs_ctrl_page *fx_ctrl(const struct fx_region *f, uint32_t index)
{
	return (struct rs_ctrl_page *)(f->mem + fx_desc(f, index)->ctrl_offset);
}

uint8_t *fx_data(const struct fx_region *f, uint32_t index)
{
	return f->mem + fx_desc(f, index)->data_offset;
}

uint8_t *fx_aux(const struct fx_region *f, uint32_t index)
{
	return f->mem + fx_desc(f, index)->aux_offset;
}

uint64_t fx_data_size(const struct fx_region *f, uint32_t index)
{
	return fx_desc(f, index)->data_size;
}

uint64_t fx_aux_size(const struct fx_region *f, uint32_t index)
{
	return fx_desc(f, index)->aux_size;
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
	FX_CHECK(rec->type == RS_RECORD_SEQ, "record type %u, not SEQ", rec->type);
	FX_CHECK(rs_seq_check(rec) == 1, "torn SEQ record (seq field %llu)",
		 (unsigned long long)((const struct rs_rec_seq *)rec)->seq);
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
	FX_CHECK(rec->size >= sizeof(*rec) && rec->size <= RS_RECORD_MAX,
		 "record size %u", rec->size);
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

void fx_ring_init(struct fx_ring *t, const struct rs_region_params *p,
		  unsigned flags)
{
	memset(t, 0, sizeof(*t));
	fx_region_init(&t->f, p, flags);
	t->ctrl = fx_ctrl(&t->f, 0);
	t->data = fx_data(&t->f, 0);
	t->data_size = fx_data_size(&t->f, 0);
	t->aux = fx_aux(&t->f, 0);
	t->aux_size = fx_aux_size(&t->f, 0);
	fx_log_init(&t->log);
	ck_assert_int_eq(rs_producer_init(&t->p, &t->f.region, 0), 0);
	if (p->data_mode == RS_MODE_NORMAL) {
		t->c = rs_consumer_alloc(&t->f.region, 0);
		ck_assert_ptr_nonnull(t->c);
	}
}

void fx_ring_fini(struct fx_ring *t)
{
	rs_consumer_free(t->c);
	fx_log_fini(&t->log);
	fx_region_fini(&t->f);
}

const struct rs_perf_header *fx_ring_record(const struct fx_ring *t,
					    uint64_t pos)
{
	static _Alignas(8) uint8_t rec[RS_RECORD_MAX + 8];
	struct rs_perf_header h;

	fx_ring_read(t->data, t->data_size, pos, &h, sizeof(h));
	ck_assert_uint_ge(h.size, sizeof(h));
	ck_assert_uint_le(h.size, t->data_size);
	fx_ring_read(t->data, t->data_size, pos, rec, h.size);
	return (const struct rs_perf_header *)rec;
}

void fx_flush_lost_written(struct fx_ring *t)
{
	uint64_t wm = fx_header(&t->f)->config.data_watermark;
	uint64_t old = t->ctrl->data_head;
	int ret = rs_producer_flush_lost(&t->p);

	ck_assert_uint_eq(t->ctrl->data_head, old + sizeof(struct rs_perf_lost));
	ck_assert_int_eq(ret, 1 + (t->ctrl->data_head / wm > old / wm));
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

uint64_t fx_newest_seq(const struct rs_region *region, uint32_t r)
{
	static uint8_t buf[RS_PAGE_SIZE];
	const struct rs_perf_header *rec;
	struct rs_snapshot *s = rs_snapshot_alloc();
	uint64_t seq;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(rs_snapshot_take(s, region, r, buf, sizeof(buf)), 0);
	ck_assert_int_eq(rs_snapshot_next(s, &rec), 1);
	seq = fx_seq_of(rec);
	rs_snapshot_free(s);
	return seq;
}
