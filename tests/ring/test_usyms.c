/* SPDX-License-Identifier: MIT */
/*
 * The table of the guest's user symbols: the guest's appends under the
 * seqcount (rs_usyms_begin, rs_usyms_append), never rewriting a published
 * entry, TRUNCATED and wanted when one does not fit; the host's one copy
 * (rs_usyms_read), bounded by its own layout whatever the descriptor says.
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

/* An entry of @len bytes whose bytes after the header say @fill. */
static void entry(uint8_t *buf, uint32_t len, uint8_t fill)
{
	struct rs_usyms_entry e = { .length = len, .e_type = 3,
				    .build_id_len = 20, .nr_loads = 1 };

	memset(buf, fill, len);
	memcpy(buf, &e, sizeof(e));
}

static struct rs_usyms_desc *desc(struct fx_region *f)
{
	return &((struct rs_region_header *)f->region.base)->usyms;
}

START_TEST(append_then_read)
{
	struct fx_region f;
	struct rs_usyms_writer w;
	struct rs_usyms_info info;
	uint8_t a[128], b[256], c[2048];

	region_sb(&f, SB_PAGES);
	ck_assert_int_eq(rs_usyms_read(&f.region, host_buf, SB_SIZE, &info), 0);
	/* a table of 1 KiB after 1 KiB of kallsyms */
	ck_assert_int_eq(rs_usyms_begin(&f.region, &w, 1024, 1024), 0);
	ck_assert_int_eq(rs_usyms_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.length, 0);
	ck_assert_uint_eq(info.entries, 0);
	entry(a, sizeof(a), 0xaa);
	entry(b, sizeof(b), 0xbb);
	entry(c, sizeof(c), 0xcc);
	ck_assert_int_eq(rs_usyms_append(&w, a, sizeof(a)), 1);
	ck_assert_int_eq(rs_usyms_append(&w, b, sizeof(b)), 1);
	ck_assert_int_eq(rs_usyms_append(&w, c, sizeof(c)), 0); /* too big */
	ck_assert_int_eq(rs_usyms_append(&w, a, sizeof(a)), 1); /* still fits */
	ck_assert_int_eq(rs_usyms_read(&f.region, host_buf, SB_SIZE, &info), 1);
	ck_assert_uint_eq(info.entries, 3);
	ck_assert_uint_eq(info.length, 128 + 256 + 128);
	ck_assert_uint_eq(info.wanted, 128 + 256 + 2048 + 128);
	ck_assert_uint_eq(info.flags, RS_USYMS_TRUNCATED);
	ck_assert_uint_eq(info.table_offset, 1024);
	ck_assert_int_eq(memcmp(host_buf, a, sizeof(a)), 0);
	ck_assert_int_eq(memcmp(host_buf + 128, b, sizeof(b)), 0);
	ck_assert_int_eq(memcmp(host_buf + 384, a, sizeof(a)), 0);
	/* what lies outside the table stays untouched */
	ck_assert_uint_eq(f.region.base[f.region.sideband_offset + 1023], 0);
	ck_assert_uint_eq(f.region.base[f.region.sideband_offset + 1024 + 512], 0);
	ck_assert_int_eq(rs_usyms_read(&f.region, host_buf, SB_SIZE - 1, &info),
			 -rse_too_small);
	fx_region_fini(&f);
}
END_TEST

START_TEST(caller_nonsense)
{
	struct fx_region f;
	struct rs_usyms_writer w;
	struct rs_usyms_info info;
	uint8_t a[80];

	region_sb(&f, 0);
	ck_assert_int_eq(rs_usyms_begin(&f.region, &w, 0, 0), -rse_absent);
	ck_assert_int_eq(rs_usyms_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_absent);
	fx_region_fini(&f);
	region_sb(&f, 1);
	ck_assert_int_eq(rs_usyms_begin(&f.region, &w, 4, 8), -rse_invalid);
	ck_assert_int_eq(rs_usyms_begin(&f.region, &w, 0, RS_PAGE_SIZE + 8),
			 -rse_invalid);
	ck_assert_int_eq(rs_usyms_begin(&f.region, &w, 8, RS_PAGE_SIZE - 8), 0);
	entry(a, sizeof(a), 1);
	ck_assert_int_eq(rs_usyms_append(&w, a, 72 - 8), -rse_invalid);
	ck_assert_int_eq(rs_usyms_append(&w, a, 77), -rse_invalid);
	ck_assert_int_eq(rs_usyms_append(NULL, a, 80), -rse_invalid);
	ck_assert_int_eq(rs_usyms_append(&w, a, 80), 1);
	fx_region_fini(&f);
}
END_TEST

/* Descriptors no writer makes: each is refused, nothing is copied. */
enum { LIE_MAGIC, LIE_ODD_OFFSET, LIE_OFFSET, LIE_SIZE, LIE_LENGTH,
       LIE_LENGTH_ODD, LIE_WANTED, LIE_TRUNC, LIE_NOT_TRUNC, LIE_FLAGS,
       LIE_ENTRIES, LIE_NO_ENTRIES, NR_LIES };

START_TEST(hostile_descriptor_refused)
{
	struct fx_region f;
	struct rs_usyms_writer w;
	struct rs_usyms_info info;
	struct rs_usyms_desc *d;
	uint8_t a[80];

	region_sb(&f, 2);
	ck_assert_int_eq(rs_usyms_begin(&f.region, &w, 4096, 4096), 0);
	entry(a, sizeof(a), 1);
	ck_assert_int_eq(rs_usyms_append(&w, a, sizeof(a)), 1);
	d = desc(&f);
	d->seq += 2;      /* a complete write of: */
	switch (_i) {
	case LIE_MAGIC: d->magic = 0x12345678; break;
	case LIE_ODD_OFFSET: d->table_offset = 4092; break;
	case LIE_OFFSET: d->table_offset = 3 * 4096; break;
	case LIE_SIZE: d->table_size = 4104; break;
	case LIE_LENGTH: d->length = 4104; d->wanted = 4104; break;
	case LIE_LENGTH_ODD: d->length = 84; d->wanted = 84; break;
	case LIE_WANTED: d->wanted = 8; break;
	case LIE_TRUNC: d->flags = RS_USYMS_TRUNCATED; break;
	case LIE_NOT_TRUNC: d->wanted = 160; break;
	case LIE_FLAGS: d->flags = 4; break;
	case LIE_ENTRIES: d->entries = 2; break;
	case LIE_NO_ENTRIES: d->entries = 0; break;
	}
	memset(host_buf, 0x5a, sizeof(host_buf));
	ck_assert_int_eq(rs_usyms_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_corrupt);
	ck_assert_uint_eq(info.length, 0);
	ck_assert_uint_eq(host_buf[0], 0x5a);
	/* being written: busy, never a copy */
	d->seq |= 1;
	ck_assert_int_eq(rs_usyms_read(&f.region, host_buf, SB_SIZE, &info),
			 -rse_busy);
	fx_region_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("usyms");
	TCase *tc = fx_tcase(s, "usyms");

	tcase_add_test(tc, append_then_read);
	tcase_add_test(tc, caller_nonsense);
	tcase_add_loop_test(tc, hostile_descriptor_refused, 0, NR_LIES);
	return fx_run(s);
}
