/* SPDX-License-Identifier: MIT */
/*
 * ringside-pprof alone: the protobuf encoder against the bytes the
 * protobuf encoding documentation gives; a profile built, encoded and read
 * back with a small decoder of the test's own (field numbers of
 * profile.proto); gzip read back with zlib; the names from a build-id
 * cache that perfdata filled (kernel kallsyms, a user symbol file).
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <zlib.h>

#include <linux/perf_event.h>

#include "ringside/pprof.h"

#include "pprof_int.h"

/* ---- a decoder ----------------------------------------------------------- */

struct field {
	uint32_t num;
	unsigned wire;
	uint64_t v;               /* varint */
	const uint8_t *p;         /* length-delimited */
	size_t len;
};

static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* 1 a field, 0 the end; fails the test on malformed bytes. */
static int next(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t key;

	if (*p == end)
		return 0;
	ck_assert_int_eq(varint(p, end, &key), 0);
	f->num = (uint32_t)(key >> 3);
	f->wire = key & 7;
	if (f->wire == 0) {
		ck_assert_int_eq(varint(p, end, &f->v), 0);
	} else {
		ck_assert_uint_eq(f->wire, 2);
		ck_assert_int_eq(varint(p, end, &f->v), 0);
		ck_assert_uint_le(f->v, (uint64_t)(end - *p));
		f->p = *p;
		f->len = (size_t)f->v;
		*p += f->len;
	}
	return 1;
}

#define MAXN 64

/* What the test reads of a Profile. */
struct prof {
	char str[MAXN][64];
	unsigned nr_str;
	unsigned nr_samples, nr_types, nr_maps, nr_locs, nr_funcs;
	uint64_t sample_locs[MAXN][8];
	unsigned sample_nr_locs[MAXN];
	uint64_t sample_vals[MAXN][4];
	uint64_t label_key[MAXN][8], label_str[MAXN][8], label_num[MAXN][8];
	unsigned sample_nr_labels[MAXN];
	uint64_t loc_id[MAXN], loc_map[MAXN], loc_addr[MAXN], loc_fn[MAXN];
	uint64_t fn_id[MAXN], fn_name[MAXN], fn_file[MAXN];
	uint64_t map_id[MAXN], map_start[MAXN], map_file[MAXN], map_bid[MAXN],
		 map_hasf[MAXN];
	uint64_t type[4][2];
	uint64_t time_nanos, duration_nanos, period, period_type[2];
};

static void packed(const struct field *f, uint64_t *out, unsigned *nr)
{
	const uint8_t *p = f->p, *end = f->p + f->len;

	while (p < end) {
		ck_assert_uint_lt(*nr, 8);
		ck_assert_int_eq(varint(&p, end, &out[(*nr)++]), 0);
	}
}

static void decode_sample(struct prof *d, const struct field *s)
{
	const uint8_t *p = s->p, *end = s->p + s->len;
	unsigned i = d->nr_samples++, nv = 0;
	struct field f, g;

	ck_assert_uint_lt(i, MAXN);
	while (next(&p, end, &f)) {
		if (f.num == 1) {
			packed(&f, d->sample_locs[i], &d->sample_nr_locs[i]);
		} else if (f.num == 2) {
			packed(&f, d->sample_vals[i], &nv);
		} else if (f.num == 3) {
			const uint8_t *q = f.p, *qe = f.p + f.len;
			unsigned l = d->sample_nr_labels[i]++;

			while (next(&q, qe, &g)) {
				if (g.num == 1)
					d->label_key[i][l] = g.v;
				if (g.num == 2)
					d->label_str[i][l] = g.v;
				if (g.num == 3)
					d->label_num[i][l] = g.v;
			}
		}
	}
}

static void decode(struct prof *d, const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf, *end = buf + len, *q, *qe;
	struct field f, g, h;
	unsigned i;

	memset(d, 0, sizeof(*d));
	while (next(&p, end, &f)) {
		q = f.p;
		qe = f.p + f.len;
		switch (f.num) {
		case 1:
			i = d->nr_types++;
			while (next(&q, qe, &g))
				d->type[i][g.num - 1] = g.v;
			break;
		case 2:
			decode_sample(d, &f);
			break;
		case 3:
			i = d->nr_maps++;
			while (next(&q, qe, &g)) {
				if (g.num == 1) d->map_id[i] = g.v;
				if (g.num == 2) d->map_start[i] = g.v;
				if (g.num == 5) d->map_file[i] = g.v;
				if (g.num == 6) d->map_bid[i] = g.v;
				if (g.num == 7) d->map_hasf[i] = g.v;
			}
			break;
		case 4:
			i = d->nr_locs++;
			while (next(&q, qe, &g)) {
				if (g.num == 1) d->loc_id[i] = g.v;
				if (g.num == 2) d->loc_map[i] = g.v;
				if (g.num == 3) d->loc_addr[i] = g.v;
				if (g.num == 4) {
					const uint8_t *r = g.p, *re = g.p + g.len;

					while (next(&r, re, &h))
						if (h.num == 1)
							d->loc_fn[i] = h.v;
				}
			}
			break;
		case 5:
			i = d->nr_funcs++;
			while (next(&q, qe, &g)) {
				if (g.num == 1) d->fn_id[i] = g.v;
				if (g.num == 2) d->fn_name[i] = g.v;
				if (g.num == 4) d->fn_file[i] = g.v;
			}
			break;
		case 6:
			ck_assert_uint_lt(d->nr_str, MAXN);
			ck_assert_uint_lt(f.len, 64);
			memcpy(d->str[d->nr_str], f.p, f.len);
			d->str[d->nr_str++][f.len] = 0;
			break;
		case 9: d->time_nanos = f.v; break;
		case 10: d->duration_nanos = f.v; break;
		case 11:
			while (next(&q, qe, &g))
				d->period_type[g.num - 1] = g.v;
			break;
		case 12: d->period = f.v; break;
		default:
			ck_abort_msg("unexpected field %u", f.num);
		}
	}
}

/* ---- the encoder --------------------------------------------------------- */

static void expect(const struct pdf_buf *b, const uint8_t *want, size_t len)
{
	ck_assert_int_eq(b->err, 0);
	ck_assert_uint_eq(b->len, len);
	ck_assert_mem_eq(b->data, want, len);
}

START_TEST(pb_bytes_as_documented)
{
	static const uint8_t v0[] = { 0x00 }, v1[] = { 0x01 }, v127[] = { 0x7f },
		v128[] = { 0x80, 0x01 }, v300[] = { 0xac, 0x02 },
		vmax[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
		f150[] = { 0x08, 0x96, 0x01 },
		str[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' },
		pk[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 },
		neg[] = { 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			  0xff, 0x01 };
	static const uint64_t pv[] = { 3, 270, 86942 };
	struct pdf_buf b;

	pdf_buf_init(&b);
#define ONE(call, want) do { b.len = 0; call; expect(&b, want, sizeof(want)); } while (0)
	ONE(pprof_pb_varint(&b, 0), v0);
	ONE(pprof_pb_varint(&b, 1), v1);
	ONE(pprof_pb_varint(&b, 127), v127);
	ONE(pprof_pb_varint(&b, 128), v128);
	ONE(pprof_pb_varint(&b, 300), v300);
	ONE(pprof_pb_varint(&b, UINT64_MAX), vmax);
	ONE(pprof_pb_uint(&b, 1, 150), f150);
	ONE(pprof_pb_bytes(&b, 2, "testing", 7), str);
	ONE(pprof_pb_packed(&b, 4, pv, 3), pk);
	ONE(pprof_pb_uint(&b, 3, (uint64_t)(int64_t)-1), neg);
#undef ONE
	b.len = 0;
	pprof_pb_packed(&b, 4, pv, 0);
	ck_assert_uint_eq(b.len, 0);
	pdf_buf_fini(&b);
}
END_TEST

/* ---- the builder --------------------------------------------------------- */

static struct pprof *small_profile(void)
{
	const struct pprof_label lab[] = {
		{ .key = "domain", .str = "dom1" },
		{ .key = "vcpu", .num = 3 },
		{ .key = "pid", .num = 42, .unit = "id" },
	};
	struct pprof *p;
	int64_t m, m2, f1, f2, f1b, l1, l2, l3, l1b;
	uint64_t locs[3];
	int64_t v[2] = { 1, 250000 };

	ck_assert_int_eq(pprof_profile_new(&p), 0);
	ck_assert_int_eq(pprof_profile_string(p, ""), 0);
	ck_assert_int_eq(pprof_profile_sample_type(p, "samples", "count"), 0);
	ck_assert_int_eq(pprof_profile_sample_type(p, "cpu", "nanoseconds"), 0);
	ck_assert_int_eq(pprof_profile_set_period(p, "cpu", "nanoseconds", 250000), 0);
	pprof_profile_set_time(p, 1700000000000000000ll, 5000000000ll);
	m = pprof_profile_mapping(p, 0x1000, 0x5000, 0x1000, "/bin/app", "abcd", 1);
	m2 = pprof_profile_mapping(p, 0x1000, 0x5000, 0x1000, "/bin/app", "abcd", 1);
	ck_assert_int_eq(m, 1);
	ck_assert_int_eq(m2, 1);
	ck_assert_int_eq(pprof_profile_mapping(p, 0x1000, 0x5000, 0x1000, "/bin/app",
				       "abcd", 0), 2);
	f1 = pprof_profile_function(p, "main", "/bin/app");
	f2 = pprof_profile_function(p, "work", "/bin/app");
	f1b = pprof_profile_function(p, "main", "/bin/app");
	ck_assert_int_eq(f1, 1);
	ck_assert_int_eq(f2, 2);
	ck_assert_int_eq(f1b, 1);
	ck_assert_int_eq(pprof_profile_function(p, "main", NULL), 3);
	l1 = pprof_profile_location(p, (uint64_t)m, 0x1234, (uint64_t)f2);
	l2 = pprof_profile_location(p, (uint64_t)m, 0x1100, (uint64_t)f1);
	l3 = pprof_profile_location(p, 0, 0xdead, 0);
	l1b = pprof_profile_location(p, (uint64_t)m, 0x1234, 0);
	ck_assert_int_eq(l1, 1);
	ck_assert_int_eq(l2, 2);
	ck_assert_int_eq(l3, 3);
	ck_assert_int_eq(l1b, 1);
	locs[0] = (uint64_t)l1;
	locs[1] = (uint64_t)l2;
	locs[2] = (uint64_t)l3;
	ck_assert_int_eq(pprof_profile_sample(p, locs, 2, v, 2, lab, 3), 0);
	v[1] = 7;
	ck_assert_int_eq(pprof_profile_sample(p, locs + 2, 1, v, 2, NULL, 0), 0);
	/* refused whole: the profile stays as it was */
	ck_assert_int_eq(pprof_profile_sample(p, locs, 2, v, 1, NULL, 0), -EINVAL);
	ck_assert_int_eq(pprof_profile_sample(p, locs, 2, v, 2, lab, PPROF_MAX_LABELS + 1),
			 -EINVAL);
	ck_assert_int_eq(pprof_profile_sample(p, locs, PPROF_MAX_FRAMES + 1, v, 2, NULL, 0),
			 -EINVAL);
	ck_assert_int_eq(pprof_profile_sample_type(p, "late", "count"), -E2BIG);
	return p;
}

static const char *S(const struct prof *d, uint64_t i)
{
	ck_assert_uint_lt(i, d->nr_str);
	return d->str[i];
}

START_TEST(profile_read_back)
{
	struct pprof *p = small_profile();
	struct pprof_profile_counts c;
	struct pdf_buf b;
	struct prof *d = calloc(1, sizeof(*d));

	ck_assert_ptr_nonnull(d);
	pprof_profile_counts(p, &c);
	ck_assert_uint_eq(c.samples, 2);
	ck_assert_uint_eq(c.mappings, 2);
	ck_assert_uint_eq(c.functions, 3);
	ck_assert_uint_eq(c.locations, 3);
	pdf_buf_init(&b);
	ck_assert_int_eq(pprof_profile_encode(p, &b), 0);
	decode(d, b.data, b.len);

	ck_assert_uint_eq(d->nr_str, c.strings);
	ck_assert_str_eq(d->str[0], "");
	ck_assert_uint_eq(d->nr_types, 2);
	ck_assert_str_eq(S(d, d->type[0][0]), "samples");
	ck_assert_str_eq(S(d, d->type[0][1]), "count");
	ck_assert_str_eq(S(d, d->type[1][0]), "cpu");
	ck_assert_str_eq(S(d, d->type[1][1]), "nanoseconds");
	ck_assert_str_eq(S(d, d->period_type[0]), "cpu");
	ck_assert_uint_eq(d->period, 250000);
	ck_assert_uint_eq(d->time_nanos, 1700000000000000000ull);
	ck_assert_uint_eq(d->duration_nanos, 5000000000ull);

	ck_assert_uint_eq(d->nr_samples, 2);
	ck_assert_uint_eq(d->sample_nr_locs[0], 2);
	ck_assert_uint_eq(d->sample_locs[0][0], 1);
	ck_assert_uint_eq(d->sample_locs[0][1], 2);
	ck_assert_uint_eq(d->sample_vals[0][0], 1);
	ck_assert_uint_eq(d->sample_vals[0][1], 250000);
	ck_assert_uint_eq(d->sample_nr_labels[0], 3);
	ck_assert_str_eq(S(d, d->label_key[0][0]), "domain");
	ck_assert_str_eq(S(d, d->label_str[0][0]), "dom1");
	ck_assert_str_eq(S(d, d->label_key[0][1]), "vcpu");
	ck_assert_uint_eq(d->label_num[0][1], 3);
	ck_assert_uint_eq(d->label_num[0][2], 42);
	ck_assert_uint_eq(d->sample_nr_locs[1], 1);
	ck_assert_uint_eq(d->sample_locs[1][0], 3);
	ck_assert_uint_eq(d->sample_vals[1][1], 7);
	ck_assert_uint_eq(d->sample_nr_labels[1], 0);

	ck_assert_uint_eq(d->nr_maps, 2);
	ck_assert_uint_eq(d->map_id[0], 1);
	ck_assert_uint_eq(d->map_start[0], 0x1000);
	ck_assert_str_eq(S(d, d->map_file[0]), "/bin/app");
	ck_assert_str_eq(S(d, d->map_bid[0]), "abcd");
	ck_assert_uint_eq(d->map_hasf[0], 1);
	ck_assert_uint_eq(d->map_hasf[1], 0);

	ck_assert_uint_eq(d->nr_locs, 3);
	ck_assert_uint_eq(d->loc_id[0], 1);
	ck_assert_uint_eq(d->loc_map[0], 1);
	ck_assert_uint_eq(d->loc_addr[0], 0x1234);
	ck_assert_uint_eq(d->loc_fn[0], 2);   /* the first call's function */
	ck_assert_uint_eq(d->loc_fn[1], 1);
	ck_assert_uint_eq(d->loc_map[2], 0);
	ck_assert_uint_eq(d->loc_fn[2], 0);   /* not named: no line */

	ck_assert_uint_eq(d->nr_funcs, 3);
	ck_assert_uint_eq(d->fn_id[1], 2);
	ck_assert_str_eq(S(d, d->fn_name[1]), "work");
	ck_assert_str_eq(S(d, d->fn_file[1]), "/bin/app");
	ck_assert_str_eq(S(d, d->fn_name[2]), "main");
	ck_assert_uint_eq(d->fn_file[2], 0);

	pdf_buf_fini(&b);
	pprof_profile_free(p);
	free(d);
}
END_TEST

/* Many entries: the hash tables grow and still find each one. */
START_TEST(profile_grows)
{
	struct pprof *p;
	char name[32];
	unsigned i;

	ck_assert_int_eq(pprof_profile_new(&p), 0);
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "fn_%u", i);
		ck_assert_int_eq(pprof_profile_function(p, name, NULL), i + 1);
		ck_assert_int_eq(pprof_profile_location(p, 0, i * 16ull, i + 1), i + 1);
	}
	for (i = 0; i < 20000; i += 7) {
		snprintf(name, sizeof(name), "fn_%u", i);
		ck_assert_int_eq(pprof_profile_function(p, name, NULL), i + 1);
		ck_assert_int_eq(pprof_profile_location(p, 0, i * 16ull, 0), i + 1);
	}
	ck_assert_int_eq(pprof_profile_string(p, NULL), -EINVAL);
	pprof_profile_free(p);
	pprof_profile_free(NULL);
}
END_TEST

START_TEST(gzip_reads_back)
{
	struct pprof *p = small_profile();
	struct pdf_buf raw, gz;
	uint8_t *back;
	z_stream z = { 0 };

	pdf_buf_init(&raw);
	pdf_buf_init(&gz);
	ck_assert_int_eq(pprof_profile_encode(p, &raw), 0);
	ck_assert_int_eq(pprof_gzip(raw.data, raw.len, &gz), 0);
	/* gzip's magic, deflate */
	ck_assert_uint_ge(gz.len, 18);
	ck_assert_uint_eq(gz.data[0], 0x1f);
	ck_assert_uint_eq(gz.data[1], 0x8b);
	ck_assert_uint_eq(gz.data[2], 8);
	back = malloc(raw.len + 16);
	ck_assert_ptr_nonnull(back);
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz.data;
	z.avail_in = (uInt)gz.len;
	z.next_out = back;
	z.avail_out = (uInt)raw.len + 16;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	ck_assert_uint_eq(z.total_out, raw.len);
	ck_assert_mem_eq(back, raw.data, raw.len);
	inflateEnd(&z);
	free(back);
	/* an empty input is a whole gzip member too */
	gz.len = 0;
	ck_assert_int_eq(pprof_gzip(NULL, 0, &gz), 0);
	ck_assert_uint_ge(gz.len, 18);
	ck_assert_int_eq(pprof_gzip(NULL, 1, &gz), -EINVAL);
	pdf_buf_fini(&raw);
	pdf_buf_fini(&gz);
	pprof_profile_free(p);
}
END_TEST

/* ---- names from a build-id cache ---------------------------------------- */

static char cache[64];

static void cache_setup(void)
{
	snprintf(cache, sizeof(cache), "/tmp/rs-test-pprof.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(cache));
}

static void cache_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(kernel_names_from_cache)
{
	static const char text[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T rs_one\n"
		"ffffffff81001100 t rs_two\n"
		"ffffffffc0001000 t rs_mfn\t[rs_mod]\n";
	static const uint8_t id[20] = { 1, 2, 3 };
	static const uint8_t other[20] = { 9 };
	struct pdf_ksyms *k, *back;
	struct pdf_ksym s;

	ck_assert_int_eq(pdf_ksyms_parse(&k, text, sizeof(text) - 1), 0);
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, 20, cache), 0);
	ck_assert_int_eq(pprof_names_ksyms(&back, cache, id, 20), 0);
	ck_assert_int_eq(pdf_ksyms_find(back, 0xffffffff81001150ull, &s), 1);
	ck_assert_str_eq(s.name, "rs_two");
	ck_assert_int_eq(pdf_ksyms_find(back, 0xffffffffc0001004ull, &s), 1);
	ck_assert_str_eq(s.name, "rs_mfn");
	ck_assert_str_eq(s.module, "rs_mod");
	pdf_ksyms_free(back);
	/* no entry for another id, none without an id: never another table */
	ck_assert_int_eq(pprof_names_ksyms(&back, cache, other, 20), -ENOENT);
	ck_assert_ptr_null(back);
	ck_assert_int_eq(pprof_names_ksyms(&back, cache, id, 0), -ENODATA);
	pdf_ksyms_free(k);
}
END_TEST

START_TEST(user_names_from_cache)
{
	static const struct pdf_usym syms[] = {
		{ 0x401100, 0x80, 0 }, { 0x401200, 0x100, 6 },
	};
	static const char names[] = "alpha\0beta";
	struct pdf_ubin b;
	struct pprof_uelf *u;
	uint8_t other[20];
	unsigned i;

	memset(&b, 0, sizeof(b));
	b.e_type = ET_EXEC;
	b.e_machine = EM_X86_64;
	b.build_id_len = 20;
	for (i = 0; i < 20; i++)
		b.build_id[i] = (uint8_t)(0x10 + i);
	b.nr_loads = 1;
	/* code at vaddr 0x401000, file offset 0x1000 */
	b.loads[0] = (struct pdf_uload){ 0x401000, 0x1000, 0x2000, 0x2000,
					 PF_R | PF_X };
	b.text_addr = 0x401100;
	b.text_offset = 0x1100;
	b.text_size = 0x200;
	b.nr_syms = 2;
	b.syms = syms;
	b.names = names;
	b.names_len = sizeof(names);
	b.path = "/usr/bin/rs-test";
	ck_assert_int_eq(pdf_uelf_cache_put(&b, cache), 0);
	ck_assert_int_eq(pprof_uelf_load(&u, cache, b.build_id, 20), 0);
	/* by file offset, as perf keeps them */
	ck_assert_str_eq(pprof_uelf_find(u, 0x1100), "alpha");
	ck_assert_str_eq(pprof_uelf_find(u, 0x117f), "alpha");
	ck_assert_ptr_null(pprof_uelf_find(u, 0x1180));   /* the gap */
	ck_assert_str_eq(pprof_uelf_find(u, 0x12ff), "beta");
	ck_assert_ptr_null(pprof_uelf_find(u, 0x1300));
	ck_assert_ptr_null(pprof_uelf_find(u, 0x10ff));
	pprof_uelf_free(u);
	memcpy(other, b.build_id, 20);
	other[19] ^= 1;
	ck_assert_int_eq(pprof_uelf_load(&u, cache, other, 20), -ENOENT);
	ck_assert_ptr_null(u);
}
END_TEST

START_TEST(write_refuses_what_is_no_file)
{
	char path[128], out[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/none.data", cache);
	snprintf(out, sizeof(out), "%s/out.pb.gz", cache);
	ck_assert_int_eq(pprof_file_write(path, out, NULL, NULL), -ENOENT);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not a perf.data file, not at all, no", f);
	fclose(f);
	ck_assert_int_eq(pprof_file_write(path, out, NULL, NULL), PDF_ERR(pdfe_magic));
	ck_assert_int_eq(access(out, F_OK), -1);
	ck_assert_int_eq(pprof_file_write(NULL, out, NULL, NULL), PDF_ERR(pdfe_invalid));
}
END_TEST

/* ---- a whole file -------------------------------------------------------- */

#define TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define KB    UINT64_C(0xffffffff81000000)
#define UB    UINT64_C(0x7f0000000000)

static void rec_add(struct pdf_writer *w, uint32_t ring, struct rs_perf_header *h)
{
	ck_assert_int_eq(pdf_writer_add(w, ring, 1000, h), 0);
}

static void file_comm(struct pdf_writer *w, uint32_t pid, const char *name)
{
	_Alignas(8) uint8_t buf[64] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint8_t *p = (uint8_t *)(h + 1);

	h->type = PERF_RECORD_COMM;
	h->misc = PERF_RECORD_MISC_USER;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &pid, 4);
	strcpy((char *)p + 8, name);
	h->size = (uint16_t)(sizeof(*h) + 8 + ((strlen(name) + 1 + 7) & ~7u));
	rec_add(w, 0, h);
}

static void file_mmap2(struct pdf_writer *w, uint32_t pid, const struct pdf_ubin *b)
{
	_Alignas(8) uint8_t buf[128] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint8_t *p = (uint8_t *)(h + 1);
	uint64_t addr = UB + 0x1000, len = 0x1000, pgoff = 0x1000;
	size_t nl = strlen(b->path) + 1;

	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &addr, 8);
	memcpy(p + 16, &len, 8);
	memcpy(p + 24, &pgoff, 8);
	p[32] = (uint8_t)b->build_id_len;
	memcpy(p + 36, b->build_id, b->build_id_len);
	memcpy(p + 64, b->path, nl);
	h->size = (uint16_t)(sizeof(*h) + 64 + ((nl + 7) & ~(size_t)7));
	rec_add(w, 0, h);
}

static void file_sample(struct pdf_writer *w, uint32_t ring, uint16_t misc,
			uint32_t pid, uint64_t period, const uint64_t *cc,
			unsigned nr)
{
	_Alignas(8) uint8_t buf[256] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint64_t *b = (uint64_t *)(h + 1);
	unsigned i;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = misc;
	b[0] = cc[1];                       /* the ip: the chain's first */
	b[1] = (uint64_t)pid << 32 | pid;
	b[2] = 5000;
	b[3] = period;
	b[4] = nr;
	for (i = 0; i < nr; i++)
		b[5 + i] = cc[i];
	h->size = (uint16_t)(sizeof(*h) + (5 + nr) * 8);
	rec_add(w, ring, h);
}

static void read_gz(const char *path, struct prof *d)
{
	static uint8_t gz[1 << 16], raw[1 << 18];
	z_stream z = { 0 };
	size_t len;
	FILE *f = fopen(path, "rb");

	ck_assert_ptr_nonnull(f);
	len = fread(gz, 1, sizeof(gz), f);
	fclose(f);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	len = z.total_out;
	inflateEnd(&z);
	decode(d, raw, len);
}

/* The function name of sample @s's frame @i ("" when not named). */
static const char *frame_fn(const struct prof *d, unsigned s, unsigned i)
{
	uint64_t loc = d->sample_locs[s][i], fn;

	ck_assert_uint_ge(loc, 1);
	ck_assert_uint_le(loc, d->nr_locs);
	ck_assert_uint_eq(d->loc_id[loc - 1], loc);
	fn = d->loc_fn[loc - 1];
	if (!fn)
		return "";
	ck_assert_uint_eq(d->fn_id[fn - 1], fn);
	return S(d, d->fn_name[fn - 1]);
}

static const char *label(const struct prof *d, unsigned s, const char *key)
{
	unsigned i;

	for (i = 0; i < d->sample_nr_labels[s]; i++)
		if (!strcmp(S(d, d->label_key[s][i]), key))
			return S(d, d->label_str[s][i]);
	return NULL;
}

/* A user sample of @pid on @ring filed at @time (one frame). */
static void timed_sample(struct pdf_writer *w, uint32_t ring, uint64_t time,
			 uint32_t pid)
{
	const uint64_t cc[] = { PERF_CONTEXT_USER, UB + 0x1110 };
	_Alignas(8) uint8_t buf[128] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint64_t *b = (uint64_t *)(h + 1);

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	b[0] = cc[1];
	b[1] = (uint64_t)pid << 32 | pid;
	b[2] = time;
	b[3] = 100;
	b[4] = 2;
	b[5] = cc[0];
	b[6] = cc[1];
	h->size = (uint16_t)(sizeof(*h) + 7 * 8);
	ck_assert_int_eq(pdf_writer_add(w, ring, time, h), 0);
}

static void host_switch(struct pdf_writer *w, uint32_t lane, uint16_t misc,
			uint64_t time)
{
	struct pdf_host_rec h = {
		.type = PERF_RECORD_SWITCH, .misc = misc, .lane = lane,
		.tid = PDF_HOST_TID(lane), .time = time,
	};

	ck_assert_int_eq(pdf_writer_add_host(w, &h), 0);
}

#define PREEMPTED (PERF_RECORD_MISC_SWITCH_OUT | \
		   PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)

/* Samples taken right after the host ran a vCPU's thread again from a
 * long preemption carry after_steal_ms; those later, of another vCPU, or
 * after a short preemption or a block, do not.  The host's records come
 * after the samples in the file, as a recording's pass files them. */
START_TEST(after_steal_label)
{
	struct pdf_writer_params wp = {
		.size = sizeof(wp), .nr_rings = 2, .sample_type = TYPE,
		.buildid_dir = cache, .host_view = 1,
	};
	struct pprof_params pp = {
		.size = sizeof(pp), .buildid_dir = cache, .interval_ns = 1000000,
	};
	struct pprof_stats st;
	struct pdf_writer *w;
	struct prof *d = calloc(1, sizeof(*d));
	char file[128], out[128];
	unsigned i;

	ck_assert_ptr_nonnull(d);
	snprintf(file, sizeof(file), "%s/s.data", cache);
	snprintf(out, sizeof(out), "%s/s.pb.gz", cache);
	ck_assert_int_eq(pdf_writer_open(&w, file, &wp), 0);
	timed_sample(w, 0, 10000000, 1);  /* after a 3 ms preemption */
	timed_sample(w, 0, 12000000, 2);  /* 2.5 ms after it: too late */
	timed_sample(w, 1, 10000000, 3);  /* another vCPU */
	timed_sample(w, 0, 20100000, 4);  /* after a 0.5 ms preemption */
	timed_sample(w, 0, 30100000, 5);  /* after a 5 ms block */
	host_switch(w, 0, 0, 6000000);
	host_switch(w, 0, PREEMPTED, 6500000);
	host_switch(w, 0, 0, 9500000);
	host_switch(w, 0, PREEMPTED, 19500000);
	host_switch(w, 0, 0, 20000000);
	host_switch(w, 0, PERF_RECORD_MISC_SWITCH_OUT, 25000000);
	host_switch(w, 0, 0, 30000000);
	ck_assert_int_eq(pdf_writer_finish(w), 0);

	ck_assert_int_eq(pprof_file_write(file, out, &pp, &st), 0);
	ck_assert_uint_eq(st.samples, 5);
	ck_assert_uint_eq(st.steals, 1);
	ck_assert_uint_eq(st.after_steal, 1);
	read_gz(out, d);
	ck_assert_uint_eq(d->nr_samples, 5);
	for (i = 0; i < 5; i++) {
		const char *pid = label(d, i, "pid");
		const char *after = label(d, i, "after_steal_ms");

		ck_assert_ptr_nonnull(pid);
		if (!strcmp(pid, "1"))
			ck_assert_str_eq(after, "3");
		else
			ck_assert_ptr_null(after);
	}
	free(d);
}
END_TEST

START_TEST(file_to_profile)
{
	static const char ks[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T k_a\n"
		"ffffffff81001100 T k_b\n"
		"ffffffff81002000 T k_end\n";
	static const struct pdf_usym syms[] = {
		{ 0x1100, 0x100, 0 }, { 0x1200, 0x100, 4 },
	};
	static const char names[] = "u_a\0u_b";
	const uint64_t s1[] = { PERF_CONTEXT_KERNEL, KB + 0x1010, KB + 0x1120,
				PERF_CONTEXT_USER, UB + 0x1230 };
	const uint64_t s2[] = { PERF_CONTEXT_USER, UB + 0x1110 };
	const uint64_t s3[] = { PERF_CONTEXT_KERNEL, KB - 0x10 };
	const uint64_t s4[] = { PERF_CONTEXT_USER, UB + 0x9000 };
	struct pdf_writer_params wp = {
		.size = sizeof(wp), .nr_rings = 2, .sample_type = TYPE,
		.guest_kallsyms = ks, .guest_kallsyms_len = sizeof(ks) - 1,
		.buildid_dir = cache,
	};
	struct pprof_params pp = {
		.size = sizeof(pp), .domain = "dom\x01", .buildid_dir = cache,
		.interval_ns = 1000,
	};
	struct pprof_stats st;
	struct pdf_writer *w;
	struct pdf_ubin b;
	struct prof *d = calloc(1, sizeof(*d));
	char file[128], out[128];
	unsigned i;

	ck_assert_ptr_nonnull(d);
	snprintf(file, sizeof(file), "%s/g.data", cache);
	snprintf(out, sizeof(out), "%s/g.pb.gz", cache);
	memset(&b, 0, sizeof(b));
	b.e_type = ET_DYN;
	b.e_machine = EM_X86_64;
	b.build_id_len = 20;
	for (i = 0; i < 20; i++)
		b.build_id[i] = (uint8_t)(0x77 + i);
	b.nr_loads = 1;
	b.loads[0] = (struct pdf_uload){ 0x1000, 0x1000, 0x1000, 0x1000,
					 PF_R | PF_X };
	b.text_addr = 0x1100;
	b.text_offset = 0x1100;
	b.text_size = 0x200;
	b.nr_syms = 2;
	b.syms = syms;
	b.names = names;
	b.names_len = sizeof(names);
	b.path = "/opt/app";

	ck_assert_int_eq(pdf_writer_open(&w, file, &wp), 0);
	ck_assert_int_eq(pdf_writer_stats(w)->ksyms_err, 0);
	ck_assert_int_eq(pdf_writer_add_ubins(w, &b, 1), 1);
	file_comm(w, 7, "app\tx");
	file_mmap2(w, 7, &b);
	file_sample(w, 1, PERF_RECORD_MISC_KERNEL, 7, 100, s1, 5);
	file_sample(w, 0, PERF_RECORD_MISC_USER, 7, 0, s2, 2);
	file_sample(w, 0, PERF_RECORD_MISC_KERNEL, 0, 100, s3, 2);
	file_sample(w, 0, PERF_RECORD_MISC_USER, 7, 100, s4, 2);
	ck_assert_int_eq(pdf_writer_finish(w), 0);

	ck_assert_int_eq(pprof_file_write(file, out, &pp, &st), 0);
	ck_assert_uint_eq(st.samples, 4);
	ck_assert_uint_eq(st.bad_samples, 0);
	ck_assert_int_eq(st.ksyms_err, 0);
	ck_assert_uint_eq(st.kernel_frames, 3);
	ck_assert_uint_eq(st.kernel_unnamed, 1);   /* below _text */
	ck_assert_uint_eq(st.user_frames, 3);
	ck_assert_uint_eq(st.user_unmapped, 1);
	ck_assert_uint_eq(st.user_unnamed, 0);
	ck_assert_uint_eq(st.ubins, 1);
	ck_assert_uint_eq(st.frames, 6);
	ck_assert_int_eq(access(out, F_OK), 0);
	{       /* the guest's samples, as the .data: the owner's alone */
		struct stat sb;

		ck_assert_int_eq(stat(out, &sb), 0);
		ck_assert_uint_eq(sb.st_mode & 07777, 0600);
	}

	read_gz(out, d);
	ck_assert_uint_eq(d->nr_samples, 4);
	ck_assert_uint_eq(d->nr_types, 2);
	/* leaf first, markers dropped, the ip once */
	ck_assert_uint_eq(d->sample_nr_locs[0], 3);
	ck_assert_str_eq(frame_fn(d, 0, 0), "k_a");
	ck_assert_str_eq(frame_fn(d, 0, 1), "k_b");
	ck_assert_str_eq(frame_fn(d, 0, 2), "u_b");
	ck_assert_uint_eq(d->sample_vals[0][0], 1);
	ck_assert_uint_eq(d->sample_vals[0][1], 100);
	ck_assert_str_eq(label(d, 0, "vcpu"), "1");
	ck_assert_str_eq(label(d, 0, "pid"), "7");
	ck_assert_str_eq(label(d, 0, "tid"), "7");
	/* strings printable: the guest's tab, the caller's control byte */
	ck_assert_str_eq(label(d, 0, "comm"), "app?x");
	ck_assert_str_eq(label(d, 0, "domain"), "dom?");
	ck_assert_uint_eq(d->sample_nr_locs[1], 1);
	ck_assert_str_eq(frame_fn(d, 1, 0), "u_a");
	ck_assert_uint_eq(d->sample_vals[1][1], 1000);   /* no period: the interval */
	ck_assert_str_eq(label(d, 1, "vcpu"), "0");
	ck_assert_str_eq(frame_fn(d, 2, 0), "");
	ck_assert_str_eq(label(d, 2, "pid"), "0");
	ck_assert_ptr_null(label(d, 2, "comm"));
	ck_assert_str_eq(frame_fn(d, 3, 0), "");
	ck_assert_uint_eq(d->loc_map[d->sample_locs[3][0] - 1], 0);
	/* the binary's mapping: its file and build id, named here */
	ck_assert_uint_eq(d->nr_maps, 2);
	ck_assert_str_eq(S(d, d->map_file[0]), "[kernel.kallsyms]");
	ck_assert_str_eq(S(d, d->map_file[1]), "/opt/app");
	ck_assert_str_eq(S(d, d->map_bid[1]),
			 "7778797a7b7c7d7e7f808182838485868788898a");
	ck_assert_uint_eq(d->map_hasf[1], 1);
	ck_assert_str_eq(S(d, d->period_type[0]), "cpu");
	ck_assert_uint_eq(d->period, 1000);
	free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pprof_build");
	TCase *tc = tcase_create("encode");
	TCase *tn = tcase_create("names");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, pb_bytes_as_documented);
	tcase_add_test(tc, profile_read_back);
	tcase_add_test(tc, profile_grows);
	tcase_add_test(tc, gzip_reads_back);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tn, cache_setup, cache_teardown);
	tcase_add_test(tn, kernel_names_from_cache);
	tcase_add_test(tn, user_names_from_cache);
	tcase_add_test(tn, write_refuses_what_is_no_file);
	tcase_add_test(tn, file_to_profile);
	tcase_add_test(tn, after_steal_label);
	suite_add_tcase(s, tn);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
