/* SPDX-License-Identifier: MIT */
/*
 * Where a guest's names go (pdf_cache.c, docs/perfdata.md, "Where
 * guest names go"): ringside's own build-id cache beside each file, never
 * perf's (whose entries name the host's own programs for the host's
 * perf), and only directories and files this user made, never through a
 * link: the writer's default, perf's cache refused by name and by
 * identity, planted links and foreign or open directories refused with
 * nothing written through them, a planted entry file never followed.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/perfdata.h"

#include "pdf_kernel.h"

static char dir[] = "/tmp/rs-pdf-cache.XXXXXX";

#define K(s) (s), sizeof(s) - 1

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T rs_cache_fn\n"
	"ffffffff81002000 T _etext\n";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("HOME", dir, 1);
	setenv("PERF_CONFIG", "/dev/null", 1);   /* perf's: $HOME/.debug */
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/rs-pdf-cache.XXXXXX");
}

/* Whether DIR/@a@b is there (a link counts). */
static int exists(const char *a, const char *b)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s%s", dir, a, b);
	return !lstat(path, &st);
}

/* A binary's symbols as introspect's gusyms gives them. */
static struct pdf_ubin ubin(const char *path)
{
	static const struct pdf_usym sym = { 0x1000, 0x100, 0 };
	static const char names[] = "rs_cache_ufn";
	struct pdf_ubin b = {
		.e_type = 3 /* ET_DYN */, .e_machine = 62 /* EM_X86_64 */,
		.build_id_len = 20, .build_id = { 0xab, 0xcd, [19] = 0x01 },
		.nr_loads = 1,
		.loads = { { 0, 0, 0x2000, 0x2000, 5 } },
		.text_addr = 0x1000, .text_offset = 0x1000, .text_size = 0x100,
		.nr_syms = 1, .syms = &sym,
		.names_len = sizeof(names), .names = names, .path = path,
	};

	return b;
}

START_TEST(cache_dir_of)
{
	char got[PATH_MAX];

	ck_assert_int_eq(pdf_cache_dir_of("/a/b/x.data", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "/a/b/" PDF_CACHE_NAME);
	ck_assert_int_eq(pdf_cache_dir_of("/x.data", got, sizeof(got)), 0);
	ck_assert_str_eq(got, "/" PDF_CACHE_NAME);
	ck_assert_int_eq(pdf_cache_dir_of("x.data", got, sizeof(got)), 0);
	ck_assert_str_eq(got, PDF_CACHE_NAME);
	ck_assert_int_eq(pdf_cache_dir_of("/a/x.data", got, 4), -ENAMETOOLONG);
	ck_assert_int_eq(pdf_cache_dir_of("", got, sizeof(got)),
			 PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_cache_dir_of(NULL, got, sizeof(got)),
			 PDF_ERR(pdfe_invalid));
}
END_TEST

/* The writer without a cache named: the file's own, beside it; nothing
 * in perf's. */
START_TEST(writer_default)
{
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 1,
		.guest_kallsyms = kallsyms, .guest_kallsyms_len = sizeof(kallsyms) - 1,
	};
	const struct pdf_writer_stats *st;
	struct pdf_ubin b = ubin("/usr/bin/rs-cache-prog");
	char path[PATH_MAX], hex[41], kpath[64];
	struct pdf_writer *w;
	uint32_t i;

	snprintf(path, sizeof(path), "%s/rec", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/rec/x.data", dir);
	ck_assert_int_eq(pdf_writer_open(&w, path, &p), 0);
	ck_assert_int_eq(pdf_writer_add_ubins(w, &b, 1), 1);
	st = pdf_writer_stats(w);
	ck_assert_int_eq(st->ksyms_err, 0);
	ck_assert_uint_eq(st->build_id_len, 20);
	for (i = 0; i < st->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", st->build_id[i]);
	snprintf(kpath, sizeof(kpath), "%s/kallsyms", hex);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert(exists("rec/" PDF_CACHE_NAME "/[kernel.kallsyms]/", kpath));
	ck_assert(exists("rec/" PDF_CACHE_NAME "/usr/bin/rs-cache-prog/",
			 "abcd000000000000000000000000000000000001/elf"));
	ck_assert(exists("rec/" PDF_CACHE_NAME "/.build-id/ab/",
			 "cd000000000000000000000000000000000001"));
	ck_assert(!exists(".debug", ""));
}
END_TEST

/* perf's own cache is refused whatever names it: the guest's build id
 * would give the guest's names to the host's binary of that id. */
START_TEST(perfs_refused)
{
	struct pdf_ubin b = ubin("/usr/bin/rs-cache-prog");
	static const uint8_t id[20] = { 1, 2, 3 };
	char perf[PATH_MAX], link[PATH_MAX];
	struct pdf_ksyms *k;

	ck_assert_int_eq(pdf_ksyms_parse(&k, K(kallsyms)), 0);
	ck_assert_int_eq(pdf_cache_perf_dir(perf, sizeof(perf)), 0);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, perf), PDF_ERR(pdfe_cache_unsafe));
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, sizeof(id), perf),
			 PDF_ERR(pdfe_cache_unsafe));
	/* by another name: the same directory */
	snprintf(link, sizeof(link), "%s/./.debug", dir);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, link), PDF_ERR(pdfe_cache_unsafe));
	ck_assert(!exists(".debug", ""));        /* not even made */
	/* there already: nothing put in it */
	ck_assert_int_eq(mkdir(perf, 0755), 0);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, perf), PDF_ERR(pdfe_cache_unsafe));
	ck_assert(!exists(".debug/", "usr"));
	ck_assert(!exists(".debug/", ".build-id"));
	ck_assert(!exists(".debug/", "[kernel.kallsyms]"));
	/* no cache at all is no default to perf's */
	ck_assert_int_eq(pdf_uelf_cache_put(&b, NULL), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, sizeof(id), NULL),
			 PDF_ERR(pdfe_invalid));
	pdf_ksyms_free(k);
}
END_TEST

/* A planted link, a directory of another user or one others can write:
 * refused, nothing written through or into them. */
START_TEST(unsafe_dirs)
{
	struct pdf_ubin b = ubin("/usr/bin/rs-cache-prog");
	char path[PATH_MAX], target[PATH_MAX];

	snprintf(target, sizeof(target), "%s/target", dir);
	ck_assert_int_eq(mkdir(target, 0700), 0);
	/* the cache itself a link */
	snprintf(path, sizeof(path), "%s/linked", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, path), PDF_ERR(pdfe_cache_unsafe));
	/* a directory inside it a link */
	snprintf(path, sizeof(path), "%s/inner", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/inner/usr", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/inner", dir);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, path), PDF_ERR(pdfe_cache_unsafe));
	/* .build-id a link */
	snprintf(path, sizeof(path), "%s/bid", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/bid/.build-id", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/bid", dir);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, path), PDF_ERR(pdfe_cache_unsafe));
	/* writable by others */
	snprintf(path, sizeof(path), "%s/open", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(chmod(path, 0777), 0);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, path), PDF_ERR(pdfe_cache_unsafe));
	ck_assert(!exists("open/", "usr"));
	/* another user's (root can give it away) */
	if (!geteuid()) {
		snprintf(path, sizeof(path), "%s/other", dir);
		ck_assert_int_eq(mkdir(path, 0700), 0);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(pdf_uelf_cache_put(&b, path),
				 PDF_ERR(pdfe_cache_unsafe));
		ck_assert(!exists("other/", "usr"));
	}
	/* nothing went through a link */
	ck_assert_int_eq(rmdir(target), 0);
	ck_assert_str_eq(pdf_error_str(PDF_ERR(pdfe_cache_unsafe)),
			 "build-id cache refused: a link, not this user's, "
			 "writable by others, or perf's own");
}
END_TEST

/* An entry's file planted as a link (or a FIFO) is neither followed nor
 * replaced. */
START_TEST(planted_file)
{
	struct pdf_ubin b = ubin("/usr/bin/rs-cache-prog");
	char target[PATH_MAX], cache[PATH_MAX];
	struct stat st;
	int root, entry;

	snprintf(cache, sizeof(cache), "%s/c", dir);
	snprintf(target, sizeof(target), "%s/victim", dir);
	ck_assert_int_eq(close(open(target, O_CREAT | O_WRONLY, 0600)), 0);
	root = pdf_cache_root(cache);
	ck_assert_int_ge(root, 0);
	entry = pdf_cache_subdir(root, "usr/bin/rs-cache-prog/"
				 "abcd000000000000000000000000000000000001");
	ck_assert_int_ge(entry, 0);
	ck_assert_int_eq(symlinkat(target, entry, "elf"), 0);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, cache), PDF_ERR(pdfe_cache_unsafe));
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(unlinkat(entry, "elf", 0), 0);
	ck_assert_int_eq(mkfifoat(entry, "elf", 0600), 0);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, cache), PDF_ERR(pdfe_cache_unsafe));
	ck_assert_int_eq(unlinkat(entry, "elf", 0), 0);
	/* then written, once; a second put finds the same bytes */
	ck_assert_int_eq(pdf_uelf_cache_put(&b, cache), 0);
	ck_assert_int_eq(pdf_uelf_cache_put(&b, cache), 0);
	ck_assert_int_eq(fstatat(entry, "elf", &st, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	/* the root is the user's alone */
	ck_assert_int_eq(stat(cache, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0077, 0);
	/* no component may climb out */
	ck_assert_int_eq(pdf_cache_subdir(root, "a/../b"), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_cache_subdir(root, "/a"), PDF_ERR(pdfe_invalid));
	ck_assert(!exists("c/", "b"));
	close(entry);
	close(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_cache");
	TCase *tc = tcase_create("cache");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cache_dir_of);
	tcase_add_test(tc, writer_default);
	tcase_add_test(tc, perfs_refused);
	tcase_add_test(tc, unsafe_dirs);
	tcase_add_test(tc, planted_file);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
