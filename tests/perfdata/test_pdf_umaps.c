/* SPDX-License-Identifier: MIT */
/* The user-space mappings of a guest's processes: pdf_umaps.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <linux/perf_event.h>

#include "ringside/perfdata.h"

/* An MMAP2 record of @pid mapping [@addr, @addr + @len) at @pgoff. */
static const struct rs_perf_header *mmap2(uint16_t mode, uint32_t pid,
					  uint64_t addr, uint64_t len,
					  uint64_t pgoff)
{
	static _Alignas(8) uint8_t rec[sizeof(struct rs_perf_header) +
				       sizeof(struct rs_perf_mmap2_body) + 8];
	struct rs_perf_header h = { PERF_RECORD_MMAP2, mode, sizeof(rec) };
	struct rs_perf_mmap2_body m = { .pid = pid, .tid = pid, .addr = addr,
					.len = len, .pgoff = pgoff };

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), &m, sizeof(m));
	memcpy(rec + sizeof(h) + sizeof(m), "/bin/a", 7);
	return (const struct rs_perf_header *)(const void *)rec;
}

static int add(struct pdf_umaps *t, uint32_t pid, uint64_t addr,
	       uint64_t len, uint32_t file)
{
	struct rs_perf_mmap2_body m;

	ck_assert_ptr_nonnull(pdf_umaps_mmap2(mmap2(PERF_RECORD_MISC_USER, pid,
						    addr, len, 0), &m));
	return pdf_umaps_add(t, &m, file);
}

START_TEST(umaps_user_only)
{
	struct rs_perf_mmap2_body m;
	const char *name;

	name = pdf_umaps_mmap2(mmap2(PERF_RECORD_MISC_GUEST_USER, 7, 0x1000,
				     0x1000, 0x200), &m);
	ck_assert_ptr_nonnull(name);
	ck_assert_str_eq(name, "/bin/a");
	ck_assert_uint_eq(m.pgoff, 0x200);
	ck_assert_ptr_null(pdf_umaps_mmap2(mmap2(PERF_RECORD_MISC_KERNEL, 7,
						 0x1000, 0x1000, 0), &m));
	ck_assert_ptr_null(pdf_umaps_mmap2(mmap2(PERF_RECORD_MISC_USER, 7,
						 0x1000, 0, 0), &m));
	ck_assert_ptr_null(pdf_umaps_mmap2(mmap2(PERF_RECORD_MISC_USER, 7,
						 UINT64_MAX - 10, 0x1000, 0), &m));
}
END_TEST

START_TEST(umaps_find_by_pid)
{
	struct pdf_umaps t;

	ck_assert_int_eq(pdf_umaps_init(&t, 16, 1, UINT64_MAX), 0);
	ck_assert_int_eq(add(&t, 2, 0x1000, 0x1000, 1), 0);
	ck_assert_int_eq(add(&t, 1, 0x1000, 0x1000, 2), 0);
	ck_assert_int_eq(add(&t, 2, 0x4000, 0x1000, 3), 0);
	ck_assert_uint_eq(pdf_umaps_find(&t, 2, 0x1fff)->file, 1);
	ck_assert_uint_eq(pdf_umaps_find(&t, 1, 0x1000)->file, 2);
	ck_assert_uint_eq(pdf_umaps_find(&t, 2, 0x4800)->file, 3);
	ck_assert_ptr_null(pdf_umaps_find(&t, 2, 0x2000));
	ck_assert_ptr_null(pdf_umaps_find(&t, 2, 0xfff));
	ck_assert_ptr_null(pdf_umaps_find(&t, 3, 0x1000));
	ck_assert_ptr_null(pdf_umaps_find(&t, 2, UINT64_MAX));
	pdf_umaps_fini(&t);
}
END_TEST

START_TEST(umaps_newer_replaces)
{
	struct pdf_umaps t;

	ck_assert_int_eq(pdf_umaps_init(&t, 16, 1, UINT64_MAX), 0);
	ck_assert_int_eq(add(&t, 1, 0x1000, 0x1000, 1), 0);
	ck_assert_int_eq(add(&t, 1, 0x2000, 0x1000, 2), 0);
	ck_assert_int_eq(add(&t, 1, 0x3000, 0x1000, 3), 0);
	/* over the first two: they go, the third stays */
	ck_assert_int_eq(add(&t, 1, 0x1800, 0x1000, 4), 0);
	ck_assert_uint_eq(t.nr, 2);
	ck_assert_ptr_null(pdf_umaps_find(&t, 1, 0x1000));
	ck_assert_uint_eq(pdf_umaps_find(&t, 1, 0x2000)->file, 4);
	ck_assert_ptr_null(pdf_umaps_find(&t, 1, 0x2900));
	ck_assert_uint_eq(pdf_umaps_find(&t, 1, 0x3000)->file, 3);
	pdf_umaps_fini(&t);
}
END_TEST

START_TEST(umaps_full_and_moves)
{
	struct pdf_umaps t;

	ck_assert_int_eq(pdf_umaps_init(&t, 2, 1, UINT64_MAX), 0);
	ck_assert_int_eq(add(&t, 1, 0x1000, 0x1000, 1), 0);
	ck_assert_int_eq(add(&t, 1, 0x3000, 0x1000, 2), 0);
	ck_assert_int_eq(add(&t, 1, 0x5000, 0x1000, 3), -ENOSPC);
	/* one in the place of another needs no room */
	ck_assert_int_eq(add(&t, 1, 0x3000, 0x800, 4), 0);
	ck_assert_uint_eq(pdf_umaps_find(&t, 1, 0x3000)->file, 4);
	pdf_umaps_fini(&t);

	/* a budget of one move: inserting before two entries takes two */
	ck_assert_int_eq(pdf_umaps_init(&t, 8, 1, 1), 0);
	ck_assert_int_eq(add(&t, 1, 0x3000, 0x1000, 1), 0);
	ck_assert_int_eq(add(&t, 1, 0x5000, 0x1000, 2), 0);
	ck_assert_int_eq(add(&t, 1, 0x1000, 0x1000, 3), -ENOSPC);
	ck_assert_int_eq(add(&t, 1, 0x4000, 0x800, 4), 0);
	ck_assert_uint_eq(t.moves, 0);
	ck_assert_uint_eq(t.nr, 3);
	pdf_umaps_fini(&t);
}
END_TEST

/* A mapping's file's functions (pdf_uelf.c), sorted, then looked up: the
 * last at or below, inside its size; one of size 0 runs to the next. */
START_TEST(uelf_find_sorted)
{
	struct pdf_uelf_sym syms[] = {
		{ 0x3000, 0, 3 }, { 0x1000, 0x100, 1 }, { 0x2000, 0x10, 2 },
	};
	const struct pdf_uelf_sym *s;

	pdf_uelf_sort(syms, 3);
	ck_assert_uint_eq(syms[0].at, 0x1000);
	ck_assert_uint_eq(syms[2].at, 0x3000);
	ck_assert_ptr_null(pdf_uelf_find(syms, 3, 0xfff));
	s = pdf_uelf_find(syms, 3, 0x10ff);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->name, 1);
	ck_assert_ptr_null(pdf_uelf_find(syms, 3, 0x1100));   /* past its size */
	ck_assert_uint_eq(pdf_uelf_find(syms, 3, 0x2000)->name, 2);
	ck_assert_ptr_null(pdf_uelf_find(syms, 3, 0x2010));
	ck_assert_uint_eq(pdf_uelf_find(syms, 3, 0x3000)->name, 3);
	ck_assert_uint_eq(pdf_uelf_find(syms, 3, UINT64_MAX)->name, 3);
	ck_assert_ptr_null(pdf_uelf_find(syms, 0, 0x1000));
}
END_TEST

/* The mapped files, each (name, build id) once, numbered as first met;
 * a build id counts only where the record's misc says it is one. */
START_TEST(umaps_files_once)
{
	const uint16_t bid = PERF_RECORD_MISC_MMAP_BUILD_ID;
	struct rs_perf_mmap2_body m = { .len = 1 };
	struct pdf_umaps u;
	struct pdf_ufiles *t = &u.files;
	uint32_t idx = 99;

	ck_assert_int_eq(pdf_umaps_init(&u, 1, 3, UINT64_MAX), 0);
	m.u.build_id.size = 2;
	m.u.build_id.id[0] = 0xab;
	ck_assert_int_eq(pdf_umaps_file(&u, "/bin/a", &m, bid, &idx), 0);
	ck_assert_uint_eq(idx, 0);
	ck_assert_int_eq(pdf_umaps_file(&u, "/bin/b", &m, bid, &idx), 0);
	ck_assert_uint_eq(idx, 1);
	ck_assert_int_eq(pdf_umaps_file(&u, "/bin/a", &m, 0, &idx), 0);
	ck_assert_uint_eq(idx, 2);                /* no build id: another */
	ck_assert_uint_eq(t->files[2].id_len, 0);
	ck_assert_int_eq(pdf_umaps_file(&u, "/bin/a", &m, bid, &idx), 0);
	ck_assert_uint_eq(idx, 0);
	ck_assert_uint_eq(t->files[0].id_len, 2);
	ck_assert_uint_eq(t->files[0].id[0], 0xab);
	m.u.build_id.id[0] = 0xac;                /* another id: full */
	ck_assert_int_eq(pdf_umaps_file(&u, "/bin/a", &m, bid, &idx), -1);
	ck_assert_uint_eq(t->nr, 3);
	ck_assert_str_eq(t->files[1].name, "/bin/b");
	pdf_umaps_fini(&u);
	ck_assert_ptr_null(t->files);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_umaps");
	TCase *tc = tcase_create("umaps");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, umaps_user_only);
	tcase_add_test(tc, umaps_find_by_pid);
	tcase_add_test(tc, umaps_newer_replaces);
	tcase_add_test(tc, umaps_full_and_moves);
	tcase_add_test(tc, uelf_find_sorted);
	tcase_add_test(tc, umaps_files_once);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
