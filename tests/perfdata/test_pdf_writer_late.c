/* SPDX-License-Identifier: MIT */
/*
 * pdf_writer_add_ksyms: a guest kernel's symbols given to a writer after
 * its open (a recording that began before the guest published them): the
 * maps amid the records, the build id in HEADER_BUILD_ID, once per writer.
 * perf itself reading such a file is tests/cli/cli_ksyms.sh's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ringside/perfdata.h"

#include "pdf_format.h"
#include "pdf_kernel.h"

static const char table[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T late_one\n"
	"ffffffff81002000 t late_two\n";
static const uint8_t id[20] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
				9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };

static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/pdf-late.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void sample(struct pdf_writer *w, uint64_t time)
{
	_Alignas(8) uint8_t buf[24] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint64_t ip = 0xffffffff81001010ull;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = sizeof(buf);
	memcpy(h + 1, &ip, 8);
	ck_assert_int_eq(pdf_writer_add(w, 0, time, h), 0);
}

START_TEST(late_symbols)
{
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	struct pdf_writer_params k = { .size = sizeof(k) };
	struct pdf_file_header hdr;
	char path[256], cache[128], entry[256];
	struct pdf_writer *w;
	unsigned i;
	int fd, n;

	snprintf(path, sizeof(path), "%s/late.data", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	p.buildid_dir = cache;    /* the writer's cache is chosen at open */
	ck_assert_int_eq(pdf_writer_open(&w, path, &p), 0);
	ck_assert_uint_eq(pdf_writer_stats(w)->build_id_len, 0);
	sample(w, 10);
	/* nothing to add, or nonsense */
	ck_assert_int_eq(pdf_writer_add_ksyms(w, &k), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_writer_add_ksyms(NULL, &k), PDF_ERR(pdfe_invalid));
	k.guest_kallsyms = table;
	k.guest_kallsyms_len = strlen(table);
	k.guest_build_id = id;
	k.guest_build_id_len = sizeof(id);
	k.buildid_dir = "/nonexistent";   /* not looked at */
	ck_assert_int_eq(pdf_writer_add_ksyms(w, &k), 0);
	ck_assert_int_eq(pdf_writer_stats(w)->ksyms_err, 0);
	/* the table's id, never the guest's own */
	ck_assert_uint_eq(pdf_writer_stats(w)->build_id_len, sizeof(id));
	ck_assert_int_ne(memcmp(pdf_writer_stats(w)->build_id, id, sizeof(id)), 0);
	n = snprintf(entry, sizeof(entry), "%s/[kernel.kallsyms]/", cache);
	for (i = 0; i < sizeof(id); i++)
		n += snprintf(entry + n, sizeof(entry) - (size_t)n, "%02x",
			      pdf_writer_stats(w)->build_id[i]);
	snprintf(entry + n, sizeof(entry) - (size_t)n, "/kallsyms");
	ck_assert_int_eq(pdf_writer_add_ksyms(w, &k), -EALREADY);
	sample(w, 20);
	ck_assert_int_eq(pdf_writer_finish(w), 0);

	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &hdr, sizeof(hdr), 0), sizeof(hdr));
	close(fd);
	ck_assert_uint_eq(hdr.features[0] & (1u << PDF_FEAT_BUILD_ID),
			  1u << PDF_FEAT_BUILD_ID);
	ck_assert_int_eq(access(entry, R_OK), 0);
}
END_TEST

START_TEST(given_at_open)
{
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.guest_kallsyms = "no kallsyms\n", .guest_kallsyms_len = 12,
	};
	char path[128];
	struct pdf_writer *w;

	snprintf(path, sizeof(path), "%s/open.data", dir);
	ck_assert_int_eq(pdf_writer_open(&w, path, &p), 0);
	/* refused at open (its error in the stats): given all the same */
	ck_assert_int_ne(pdf_writer_stats(w)->ksyms_err, 0);
	p.guest_kallsyms = table;
	p.guest_kallsyms_len = strlen(table);
	ck_assert_int_eq(pdf_writer_add_ksyms(w, &p), -EALREADY);
	pdf_writer_discard(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_writer_late");
	TCase *tc = tcase_create("late");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, late_symbols);
	tcase_add_test(tc, given_at_open);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
