/* SPDX-License-Identifier: MIT */
/* The sequence-record helpers (seq.c) and rs_error_str, rs_error_name
 * (error.c). */
#include <limits.h>
#include <string.h>

#include "fixture.h"

static _Alignas(8) uint8_t buf[RS_RECORD_MAX + 64];

static const uint32_t fills[] = { 0, 1, 7, 8, 9, 100, 4095, 4096,
				  RS_RECORD_MAX - sizeof(struct rs_rec_seq) };

START_TEST(seq_size_alignment)
{
	for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++) {
		uint64_t min = sizeof(struct rs_rec_seq) + fills[i];
		uint32_t size = rs_seq_size(fills[i]);

		ck_assert_uint_ge(size, min);
		ck_assert_uint_lt(size, min + RS_RECORD_ALIGN);
		ck_assert_uint_eq(size % RS_RECORD_ALIGN, 0);
	}
}
END_TEST

START_TEST(seq_build_roundtrip)
{
	for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++) {
		const struct rs_rec_seq *r = (const void *)buf;
		int size = rs_seq_build(buf, 1000 + i, 77 * i, (uint32_t)i, fills[i]);

		ck_assert_int_eq(size, (int)rs_seq_size(fills[i]));
		ck_assert_uint_eq(r->header.type, RS_RECORD_SEQ);
		ck_assert_uint_eq(r->header.size, (uint32_t)size);
		ck_assert_uint_eq(r->seq, 1000 + i);
		ck_assert_uint_eq(r->time, 77 * i);
		ck_assert_uint_eq(r->producer, i);
		ck_assert_uint_eq(r->fill, fills[i]);
		ck_assert_uint_eq(r->checksum, rs_seq_checksum(r));
		ck_assert_int_eq(rs_seq_check(&r->header), 1);
	}
}
END_TEST

START_TEST(seq_build_too_big)
{
	uint32_t max_fill = RS_RECORD_MAX - sizeof(struct rs_rec_seq);

	ck_assert_int_eq(rs_seq_build(buf, 1, 1, 0, max_fill), RS_RECORD_MAX);
	ck_assert_int_eq(rs_seq_build(buf, 1, 1, 0, max_fill + 1), -rse_too_big);
	ck_assert_int_eq(rs_seq_build(buf, 1, 1, 0, UINT32_MAX), -rse_too_big);
	ck_assert_int_eq(rs_seq_build(buf, 1, 1, 0, UINT32_MAX - 39), -rse_too_big);
}
END_TEST

START_TEST(seq_check_every_byte)
{
	const uint32_t fill = 37;
	const struct rs_perf_header *h = (const void *)buf;
	int size = rs_seq_build(buf, 5, 6, 7, fill);
	size_t covered = sizeof(struct rs_rec_seq) + fill;

	ck_assert_int_gt(size, 0);
	/* Every byte the checksum covers (and the header type and size) must
	 * be able to make the check fail. */
	for (size_t i = 0; i < covered; i++) {
		if (i == offsetof(struct rs_perf_header, misc) ||
		    i == offsetof(struct rs_perf_header, misc) + 1)
			continue;
		buf[i] ^= 0x10;
		ck_assert_msg(rs_seq_check(h) == 0, "flip of byte %zu not detected", i);
		buf[i] ^= 0x10;
	}
	ck_assert_int_eq(rs_seq_check(h), 1);
}
END_TEST

START_TEST(seq_check_short_size)
{
	struct rs_perf_header *h = (void *)buf;

	ck_assert_int_gt(rs_seq_build(buf, 5, 6, 7, 0), 0);
	for (uint16_t size = 0; size < sizeof(struct rs_rec_seq); size += 8) {
		h->size = size;
		ck_assert_int_eq(rs_seq_check(h), 0);
	}
	/* fill claims more pattern than the record holds */
	ck_assert_int_gt(rs_seq_build(buf, 5, 6, 7, 64), 0);
	h->size = (uint16_t)rs_seq_size(0);
	ck_assert_int_eq(rs_seq_check(h), 0);
}
END_TEST

START_TEST(seq_null)
{
	ck_assert_int_eq(rs_seq_build(NULL, 1, 1, 0, 0), -rse_invalid);
	ck_assert_int_eq(rs_seq_check(NULL), 0);
	ck_assert_uint_ge(rs_seq_size(0), sizeof(struct rs_rec_seq));
}
END_TEST

START_TEST(seq_checksum_null)
{
	/* Its siblings refuse NULL; this one has no error value, but must
	 * not crash either. */
	(void)rs_seq_checksum(NULL);
}
END_TEST

START_TEST(errstr_distinct)
{
	for (int i = 0; i < rse_max; i++) {
		const char *a = rs_error_str(i);

		ck_assert_ptr_nonnull(a);
		ck_assert_uint_gt(strlen(a), 0);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(a, rs_error_str(j));
	}
}
END_TEST

START_TEST(errstr_negated)
{
	/* Functions return -rse_*; naming the returned value must work. */
	for (int i = 0; i < rse_max; i++)
		ck_assert_str_eq(rs_error_str(-i), rs_error_str(i));
}
END_TEST

START_TEST(errstr_invalid)
{
	const int bad[] = { rse_max, -rse_max, INT_MAX, INT_MIN, 1000 };
	const char *unknown = rs_error_str(rse_max);

	ck_assert_ptr_nonnull(unknown);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_ptr_nonnull(rs_error_str(bad[i]));
		ck_assert_str_eq(rs_error_str(bad[i]), unknown);
	}
	for (int i = 0; i < rse_max; i++)
		ck_assert_str_ne(rs_error_str(i), unknown);
}
END_TEST

START_TEST(errname_table)
{
	/* every library's lookup: an entry left NULL is unknown too */
	static const char *const names[4] = { "zero", "one", NULL, "three" };

	ck_assert_str_eq(rs_error_name(-1, names, 4, "?"), "one");
	ck_assert_str_eq(rs_error_name(3, names, 4, "?"), "three");
	ck_assert_str_eq(rs_error_name(0, names, 4, "?"), "zero");
	ck_assert_str_eq(rs_error_name(-2, names, 4, "?"), "?");
	ck_assert_str_eq(rs_error_name(-4, names, 4, "?"), "?");
	ck_assert_str_eq(rs_error_name(INT_MIN, names, 4, "?"), "?");
	ck_assert_str_eq(rs_error_name(INT_MAX, names, 4, "?"), "?");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("seq");
	TCase *tc = fx_tcase(s, "seq");

	tcase_add_test(tc, seq_size_alignment);
	tcase_add_test(tc, seq_build_roundtrip);
	tcase_add_test(tc, seq_build_too_big);
	tcase_add_test(tc, seq_check_every_byte);
	tcase_add_test(tc, seq_check_short_size);
	tcase_add_test(tc, seq_null);
	tcase_add_test(tc, seq_checksum_null);
	tcase_add_test(tc, errstr_distinct);
	tcase_add_test(tc, errstr_negated);
	tcase_add_test(tc, errstr_invalid);
	tcase_add_test(tc, errname_table);
	return fx_run(s);
}
