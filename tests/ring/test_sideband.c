/* SPDX-License-Identifier: MIT */
/*
 * The sideband: its place in the layout (rs_region_params.sideband_pages,
 * rs_region_layout, rs_region_open), the guest's writer (rs_sideband_begin,
 * _append, _set_build_id, _commit) and the host's one copy
 * (rs_sideband_read), including a guest that writes the descriptor
 * halfway, lies in it, or rewrites it while the host copies.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"

#define SB_PAGES 4u
#define SB_SIZE  ((uint64_t)SB_PAGES * RS_PAGE_SIZE)

static void params_sb(struct rs_region_params *p, uint32_t rings,
		      uint32_t sb_pages)
{
	ck_assert_int_eq(rs_region_params_init(p, rings, 4, 2, RS_MODE_OVERWRITE,
					       RS_MODE_OVERWRITE), 0);
	p->sideband_pages = sb_pages;
}

static const uint8_t build_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16,
};

static uint8_t host_buf[SB_SIZE];

START_TEST(layout_places_sideband)
{
	struct rs_region_params p;
	struct fx_region f;
	const struct rs_region_header *h;
	uint64_t size0, size1, end = 0;

	params_sb(&p, 3, 0);
	ck_assert_int_eq(rs_region_size(&p, &size0), 0);
	p.sideband_pages = 300;    /* more than the padding: the size grows */
	ck_assert_int_eq(rs_region_size(&p, &size1), 0);
	ck_assert_uint_gt(size1, size0);
	fx_region_init(&f, &p, FX_GUARD);
	h = fx_header(&f);
	for (uint32_t i = 0; i < h->nr_rings; i++) {
		const struct rs_ring_desc *d = &h->rings[i];

		if (d->data_offset + d->data_size > end)
			end = d->data_offset + d->data_size;
		if (d->aux_offset + d->aux_size > end)
			end = d->aux_offset + d->aux_size;
	}
	ck_assert_uint_eq(h->sideband_offset, end);
	ck_assert_uint_eq(h->sideband_size, 300ull * RS_PAGE_SIZE);
	ck_assert_uint_le(h->sideband_offset + h->sideband_size, f.size);
	ck_assert_uint_eq(rs_sideband_size(&f.region), 300ull * RS_PAGE_SIZE);
	fx_region_fini(&f);

	/* none asked: none laid out, and the header says 0 / 0 */
	params_sb(&p, 1, 0);
	fx_region_init(&f, &p, 0);
	ck_assert_uint_eq(fx_header(&f)->sideband_offset, 0);
	ck_assert_uint_eq(fx_header(&f)->sideband_size, 0);
	ck_assert_uint_eq(rs_sideband_size(&f.region), 0);
	fx_region_fini(&f);
}
END_TEST

START_TEST(params_v1_and_limits)
{
	struct rs_region_params p;
	uint64_t a, b;

	/* a caller that predates sideband_pages: size 64, the field unread */
	params_sb(&p, 1, 0);
	ck_assert_int_eq(rs_region_size(&p, &a), 0);
	p.size = RS_REGION_PARAMS_SIZE_V1;
	p.sideband_pages = 1000;   /* garbage beyond its struct */
	ck_assert_int_eq(rs_region_size(&p, &b), 0);
	ck_assert_uint_eq(a, b);
	p.size = RS_REGION_PARAMS_SIZE_V1 - 8;
	ck_assert_int_eq(rs_region_size(&p, &b), -rse_invalid);

	params_sb(&p, 1, (uint32_t)(RS_SIDEBAND_MAX / RS_PAGE_SIZE));
	ck_assert_int_eq(rs_region_size(&p, &a), 0);
	p.sideband_pages++;
	ck_assert_int_eq(rs_region_size(&p, &a), -rse_geometry);
	p.sideband_pages = UINT32_MAX;
	ck_assert_int_eq(rs_region_size(&p, &a), -rse_geometry);
}
END_TEST

/* The host's own layout refuses a header whose sideband geometry no host
 * writes. */
enum { BAD_UNALIGNED, BAD_SIZE_UNALIGNED, BAD_OUTSIDE, BAD_WRAP, BAD_OVER_RING,
       BAD_OVER_HEADER, BAD_OFFSET_NO_SIZE, BAD_HUGE, NR_BAD };

START_TEST(open_refuses_bad_geometry)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_region r;
	struct rs_region_header *h;

	params_sb(&p, 2, SB_PAGES);
	fx_region_init(&f, &p, 0);
	h = fx_header(&f);
	switch (_i) {
	case BAD_UNALIGNED: h->sideband_offset += 8; break;
	case BAD_SIZE_UNALIGNED: h->sideband_size -= 8; break;
	case BAD_OUTSIDE: h->sideband_offset = f.size; break;
	case BAD_WRAP: h->sideband_offset = UINT64_MAX & ~4095ull; break;
	case BAD_OVER_RING: h->sideband_offset = h->rings[1].data_offset; break;
	case BAD_OVER_HEADER: h->sideband_offset = 0; break;
	case BAD_OFFSET_NO_SIZE: h->sideband_size = 0; break;
	case BAD_HUGE: h->sideband_size = RS_SIDEBAND_MAX + RS_PAGE_SIZE; break;
	}
	ck_assert_int_eq(rs_region_open(&r, f.mem, f.size), -rse_geometry);
	fx_region_fini(&f);
}
END_TEST

START_TEST(write_then_read)
{
	struct rs_region_params p;
	struct rs_sideband_writer w;
	struct rs_sideband_info info;
	struct fx_region f;
	const char a[] = "ffffffff81000000 T _text\n";
	const char b[] = "ffffffffc0000000 t foo\t[mod]\n";

	params_sb(&p, 1, SB_PAGES);
	fx_region_init(&f, &p, FX_GUARD);
	/* nothing written yet */
	memset(&info, 0xa5, sizeof(info));
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), 0);
	ck_assert_uint_eq(info.length, 0);

	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), 0);
	ck_assert_int_eq(rs_sideband_append(&w, a, strlen(a)), 1);
	ck_assert_int_eq(rs_sideband_append(&w, b, strlen(b)), 1);
	ck_assert_int_eq(rs_sideband_set_build_id(&w, build_id, sizeof(build_id)), 0);
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), 0);
	/* one commit per begin */
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), -rse_invalid);
	ck_assert_uint_eq(fx_header(&f)->sideband.seq % 2, 0);

	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.kind, RS_SIDEBAND_KALLSYMS);
	ck_assert_uint_eq(info.flags, 0);
	ck_assert_uint_eq(info.length, strlen(a) + strlen(b));
	ck_assert_uint_eq(info.wanted, info.length);
	ck_assert_int_eq(memcmp(host_buf, a, strlen(a)), 0);
	ck_assert_int_eq(memcmp(host_buf + strlen(a), b, strlen(b)), 0);
	ck_assert_uint_eq(info.build_id_len, sizeof(build_id));
	ck_assert_int_eq(memcmp(info.build_id, build_id, sizeof(build_id)), 0);

	/* a private copy: the guest scribbling afterwards changes nothing */
	memset(f.mem + fx_header(&f)->sideband_offset, 'X', 8);
	ck_assert_int_eq(memcmp(host_buf, a, 8), 0);

	/* written again (an agent restarted): the newer content */
	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), 0);
	ck_assert_int_eq(rs_sideband_append(&w, b, strlen(b)), 1);
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), 0);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.length, strlen(b));
	ck_assert_uint_eq(info.build_id_len, 0);
	ck_assert_uint_eq(info.seq, 4);
	fx_region_fini(&f);
}
END_TEST

START_TEST(torn_write_refused)
{
	struct rs_region_params p;
	struct rs_sideband_writer w;
	struct rs_sideband_info info;
	struct fx_region f;

	params_sb(&p, 1, SB_PAGES);
	fx_region_init(&f, &p, 0);
	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), 0);
	ck_assert_int_eq(rs_sideband_append(&w, "abc\n", 4), 1);
	/* the guest stopped here (panicked, killed): seq stays odd */
	ck_assert_uint_eq(fx_header(&f)->sideband.seq % 2, 1);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_busy);
	ck_assert_uint_eq(info.length, 0);
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), 0);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.length, 4);
	fx_region_fini(&f);
}
END_TEST

START_TEST(truncated_reported)
{
	struct rs_region_params p;
	struct rs_sideband_writer w;
	struct rs_sideband_info info;
	struct fx_region f;
	static char line[1000];
	uint64_t offered = 0;
	int n = 0;

	params_sb(&p, 1, 1);
	fx_region_init(&f, &p, FX_GUARD);
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), 0);
	for (int i = 0; i < 10; i++) {
		n += rs_sideband_append(&w, line, sizeof(line));
		offered += sizeof(line);
	}
	/* a small piece after the cut is counted, not written: a prefix */
	ck_assert_int_eq(rs_sideband_append(&w, "x\n", 2), 0);
	offered += 2;
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), 0);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.flags, RS_SIDEBAND_TRUNCATED);
	ck_assert_uint_eq(info.length, 4 * sizeof(line));
	ck_assert_uint_eq(info.wanted, offered);
	fx_region_fini(&f);
}
END_TEST

/* The perf buffer table at the area's end, the symbols kept below it
 * (rs_kbuf_publish, rs_sideband_limit, rs_kbuf_read). */
START_TEST(kbuf_table_below_symbols)
{
	struct rs_region_params p;
	struct rs_sideband_writer w;
	struct rs_sideband_info info;
	struct rs_kbuf_info kb = { .nr_cpus = 2, .data_pages = 4,
				   .sample_type = 7 }, got;
	uint64_t rows[2][6] = { { 0, 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 },
				{ 1, 0x6000, 0x7000, 0x8000, 0x9000, 0xa000 } };
	struct fx_region f;
	static char line[1000];
	int n = 0;

	params_sb(&p, 1, 2);
	fx_region_init(&f, &p, FX_GUARD);
	ck_assert_int_eq(rs_kbuf_read(&f.region, host_buf, SB_SIZE, &got), 0);
	ck_assert_int_eq(rs_kbuf_publish(&f.region, &kb, &rows[0][0]), 0);
	ck_assert_uint_eq(kb.table_len, 2 * 6 * 8);
	ck_assert_uint_eq(kb.table_offset, RS_PAGE_SIZE);   /* the last page */
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), 0);
	ck_assert_int_eq(rs_sideband_limit(&w, 3 * RS_PAGE_SIZE), -rse_invalid);
	ck_assert_int_eq(rs_sideband_limit(&w, kb.table_offset), 0);
	for (int i = 0; i < 10; i++)
		n += rs_sideband_append(&w, line, sizeof(line));
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(rs_sideband_limit(&w, 1), -rse_invalid); /* too late */
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), 0);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.flags, RS_SIDEBAND_TRUNCATED);
	ck_assert_int_eq(rs_kbuf_read(&f.region, host_buf, SB_SIZE, &got), 1);
	ck_assert_uint_eq(got.nr_cpus, 2);
	ck_assert_uint_eq(got.data_pages, 4);
	ck_assert_uint_eq(got.sample_type, 7);
	ck_assert_int_eq(memcmp(host_buf, rows, sizeof(rows)), 0);
	ck_assert_int_eq(rs_kbuf_read(&f.region, host_buf,
				      2 * RS_PAGE_SIZE - 1, &got), -rse_too_small);
	ck_assert_int_eq(rs_kbuf_withdraw(&f.region), 0);
	ck_assert_int_eq(rs_kbuf_read(&f.region, host_buf, SB_SIZE, &got), 0);
	/* a table bigger than the area, shapes no agent writes */
	kb.nr_cpus = 256;
	kb.data_pages = 1024;
	ck_assert_int_eq(rs_kbuf_publish(&f.region, &kb, &rows[0][0]),
			 -rse_too_small);
	kb.nr_cpus = 1;
	kb.data_pages = 3;
	ck_assert_int_eq(rs_kbuf_publish(&f.region, &kb, &rows[0][0]),
			 -rse_invalid);
	kb.nr_cpus = 0;
	kb.data_pages = 4;
	ck_assert_int_eq(rs_kbuf_publish(&f.region, &kb, &rows[0][0]),
			 -rse_invalid);
	fx_region_fini(&f);
}
END_TEST

START_TEST(no_sideband_and_caller_nonsense)
{
	struct rs_region_params p;
	struct rs_sideband_writer w;
	struct rs_sideband_info info;
	struct fx_region f;
	uint8_t id[RS_SIDEBAND_BUILD_ID_MAX + 1] = { 0 };

	params_sb(&p, 1, 0);
	fx_region_init(&f, &p, 0);
	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), -rse_absent);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_absent);
	fx_region_fini(&f);

	params_sb(&p, 1, SB_PAGES);
	fx_region_init(&f, &p, 0);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE - 1, &info),
			 -rse_too_small);
	ck_assert_int_eq(rs_sideband_read(NULL, host_buf, SB_SIZE, &info),
			 -rse_invalid);
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, NULL),
			 -rse_invalid);
	ck_assert_int_eq(rs_sideband_begin(NULL, &w), -rse_invalid);
	ck_assert_int_eq(rs_sideband_begin(&f.region, NULL), -rse_invalid);
	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), 0);
	ck_assert_int_eq(rs_sideband_append(&w, NULL, 1), -rse_invalid);
	ck_assert_int_eq(rs_sideband_append(&w, NULL, 0), 1);
	ck_assert_int_eq(rs_sideband_set_build_id(&w, id, sizeof(id)), -rse_invalid);
	ck_assert_int_eq(rs_sideband_commit(&w, 0), -rse_invalid);
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), 0);
	ck_assert_int_eq(rs_sideband_append(&w, "a", 1), -rse_invalid);
	fx_region_fini(&f);
}
END_TEST

/* A guest that writes a complete-looking descriptor of its own. */
enum { LIE_LENGTH, LIE_LENGTH_HUGE, LIE_WANTED_LOW, LIE_TRUNC_NO_MORE,
       LIE_MORE_NO_TRUNC, LIE_FLAGS, LIE_MAGIC, LIE_KIND, LIE_BUILD_ID,
       NR_LIES };

START_TEST(hostile_descriptor_refused)
{
	struct rs_region_params p;
	struct rs_sideband_writer w;
	struct rs_sideband_info info;
	struct fx_region f;
	struct rs_sideband_desc *d;

	params_sb(&p, 1, SB_PAGES);
	fx_region_init(&f, &p, FX_GUARD);
	ck_assert_int_eq(rs_sideband_begin(&f.region, &w), 0);
	ck_assert_int_eq(rs_sideband_append(&w, "abc\n", 4), 1);
	ck_assert_int_eq(rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS), 0);
	d = &fx_header(&f)->sideband;
	switch (_i) {
	case LIE_LENGTH: d->length = SB_SIZE + 1; d->wanted = d->length; break;
	case LIE_LENGTH_HUGE: d->length = UINT64_MAX; d->wanted = UINT64_MAX; break;
	case LIE_WANTED_LOW: d->wanted = 3; break;
	case LIE_TRUNC_NO_MORE: d->flags = RS_SIDEBAND_TRUNCATED; break;
	case LIE_MORE_NO_TRUNC: d->wanted = 5; break;
	case LIE_FLAGS: d->flags = 0x80; break;
	case LIE_MAGIC: d->magic = 0; break;
	case LIE_KIND: d->kind = 0; break;
	case LIE_BUILD_ID: d->build_id_len = RS_SIDEBAND_BUILD_ID_MAX + 1; break;
	}
	memset(&info, 0xa5, sizeof(info));
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_corrupt);
	ck_assert_uint_eq(info.length, 0);
	/* the header claims an area elsewhere: the host's copy of the layout
	 * stands, the content is read where it was laid out */
	d->length = 4;
	d->wanted = 4;
	d->flags = 0;
	d->magic = RS_SIDEBAND_MAGIC;
	d->kind = RS_SIDEBAND_KALLSYMS;
	d->build_id_len = 0;
	fx_header(&f)->sideband_offset = 0;
	ck_assert_int_eq(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_int_eq(memcmp(host_buf, "abc\n", 4), 0);
	fx_region_fini(&f);
}
END_TEST

/* Random descriptors: never a crash (guard pages around the region), and
 * whatever is accepted is bounded by the area. */
START_TEST(hostile_random)
{
	struct rs_region_params p;
	struct rs_sideband_info info;
	struct fx_region f;
	struct rs_sideband_desc *d;
	uint64_t rng = 0x5eed;
	int ok = 0, refused = 0;

	params_sb(&p, 1, SB_PAGES);
	fx_region_init(&f, &p, FX_GUARD);
	d = &fx_header(&f)->sideband;
	for (int i = 0; i < 20000; i++) {
		uint64_t r = fx_rand(&rng);
		int ret;

		d->magic = (r & 1) ? RS_SIDEBAND_MAGIC : (uint32_t)fx_rand(&rng);
		d->seq = (uint32_t)fx_rand(&rng) & ~1u;
		d->kind = (uint32_t)(fx_rand(&rng) % 3);
		d->flags = (uint32_t)(fx_rand(&rng) % 4);
		d->length = (r & 2) ? fx_rand(&rng) % (2 * SB_SIZE) : fx_rand(&rng);
		d->wanted = (r & 4) ? d->length + fx_rand(&rng) % 3 : fx_rand(&rng);
		d->build_id_len = (uint32_t)(fx_rand(&rng) % 80);
		ret = rs_sideband_read(&f.region, host_buf, SB_SIZE, &info);
		FX_CHECK(ret == 1 || ret == 0 || ret == -rse_corrupt,
			 "unexpected %d", ret);
		if (ret == 1) {
			FX_CHECK(info.length <= SB_SIZE && info.wanted >= info.length &&
				 info.build_id_len <= RS_SIDEBAND_BUILD_ID_MAX,
				 "accepted an unbounded descriptor");
			ok++;
		} else if (ret < 0) {
			refused++;
		}
	}
	ck_assert_int_gt(ok, 0);
	ck_assert_int_gt(refused, 0);
	fx_region_fini(&f);
}
END_TEST

/* A guest that rewrites the sideband while the host copies it: every copy
 * the host accepts is one complete write (all bytes of one generation). */
struct race {
	struct fx_region *f;
	volatile int stop;
	uint64_t writes;
};

/* One generation: SB_SIZE / 2 + 1 + gen % 64 bytes of @gen, build id @gen.
 * 0, or what refused it. */
static int write_gen(struct fx_region *f, uint8_t gen)
{
	static uint8_t piece[SB_SIZE / 2];
	struct rs_sideband_writer w;
	int err;

	memset(piece, gen, sizeof(piece));
	err = rs_sideband_begin(&f->region, &w);
	if (!err && rs_sideband_append(&w, piece, sizeof(piece)) != 1)
		err = -1;
	if (!err && rs_sideband_append(&w, piece, 1 + gen % 64) != 1)
		err = -1;
	if (!err)
		err = rs_sideband_set_build_id(&w, &gen, 1);
	if (!err)
		err = rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS);
	return err;
}

static void *rewriter(void *arg)
{
	struct race *r = arg;
	uint8_t gen = 0;

	while (!r->stop) {
		if (write_gen(r->f, ++gen))
			break;
		r->writes++;
		/* a short pause, so some copies fall between two writes */
		for (volatile int k = 0; k < 2000; k++)
			;
	}
	return NULL;
}

/* A copy taken with @ret == 1 is one generation of the rewriter, whole. */
static void check_copy(int ret, const struct rs_sideband_info *info)
{
	FX_CHECK(ret == 1, "read %d", ret);
	FX_CHECK(info->build_id_len == 1, "build id length %u",
		 info->build_id_len);
	FX_CHECK(info->length == SB_SIZE / 2 + 1 + info->build_id[0] % 64,
		 "length %llu of generation %u",
		 (unsigned long long)info->length, info->build_id[0]);
	for (uint64_t j = 0; j < info->length; j++)
		FX_CHECK(host_buf[j] == info->build_id[0],
			 "byte %llu of generation %u is %u",
			 (unsigned long long)j, info->build_id[0], host_buf[j]);
}

START_TEST(concurrent_rewrite)
{
	struct rs_region_params p;
	struct rs_sideband_info info;
	struct fx_region f;
	struct race r = { .f = &f };
	pthread_t t;
	int good = 0, busy = 0;

	params_sb(&p, 1, SB_PAGES);
	fx_region_init(&f, &p, 0);
	/* generation 0 first: there is always a whole one to find */
	ck_assert_int_eq(write_gen(&f, 0), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, rewriter, &r), 0);
	for (int i = 0; i < 2000000 && good < 200; i++) {
		int ret = rs_sideband_read(&f.region, host_buf, SB_SIZE, &info);

		if (ret == -rse_busy) {
			busy++;
			continue;
		}
		if (ret == 0)
			continue;
		check_copy(ret, &info);
		good++;
	}
	r.stop = 1;
	pthread_join(t, NULL);
	/* How many copies succeed during the race is the scheduler's
	 * business (under valgrind the threads take turns): every one that
	 * did was whole.  Once the writer has stopped, a copy must succeed
	 * and be whole. */
	check_copy(rs_sideband_read(&f.region, host_buf, SB_SIZE, &info), &info);
	good++;
	ck_assert_int_gt(good, 0);
	fprintf(stderr, "concurrent_rewrite: %d consistent copies, %d busy, "
		"%llu writes\n", good, busy, (unsigned long long)r.writes);
	fx_region_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sideband");
	TCase *tc = fx_tcase(s, "sideband");

	tcase_add_test(tc, layout_places_sideband);
	tcase_add_test(tc, params_v1_and_limits);
	tcase_add_loop_test(tc, open_refuses_bad_geometry, 0, NR_BAD);
	tcase_add_test(tc, write_then_read);
	tcase_add_test(tc, torn_write_refused);
	tcase_add_test(tc, truncated_reported);
	tcase_add_test(tc, kbuf_table_below_symbols);
	tcase_add_test(tc, no_sideband_and_caller_nonsense);
	tcase_add_loop_test(tc, hostile_descriptor_refused, 0, NR_LIES);
	tcase_add_test(tc, hostile_random);
	tcase_add_test(tc, concurrent_rewrite);
	return fx_run(s);
}
