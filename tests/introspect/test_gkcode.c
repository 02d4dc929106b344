/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's code for perf's PT decoder (introspect/src/gi_kcode.c), with
 * a fake peek over a synthesized guest: the ranges the writer's symbols
 * name are read (the kernel's functions, not its data), an unreadable page
 * becomes INT3s and is counted, and the cache entry gets a kcore holding
 * exactly the guest's bytes at their addresses and a modules file naming
 * each module's map.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ringside/introspect.h"

#define KTEXT 0xffffffff81000000ull
#define KLEN  0x8000ull              /* _text .. _etext's page + 2 pages */
#define MOD   0xffffffffc0002000ull  /* the module's map */
#define MODLEN 0x2000ull
#define HOLE  (KTEXT + 0x3000)       /* a page no peek can read */

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T start_kernel\n"
	"ffffffff81005ff0 T last_fn\n"
	"ffffffff81006000 T _etext\n"
	"ffffffff81400000 D some_data\n"
	"ffffffffc0002010 t mod_fn\t[e1000]\n"
	"ffffffffc0002800 t mod_fn2\t[e1000]\n";

/* The guest's byte at @gva: its address, mixed. */
static uint8_t guest_byte(uint64_t gva)
{
	return (uint8_t)(gva ^ (gva >> 8) ^ (gva >> 16));
}

static unsigned peeks, big_refused;

static int peek(void *ctx, uint64_t gva, void *buf, size_t len)
{
	size_t i;

	(void)ctx;
	peeks++;
	ck_assert_uint_le(len, 16384);
	if (gva < HOLE + 4096 && gva + len > HOLE) {
		big_refused += len > 4096;
		return -EFAULT;
	}
	for (i = 0; i < len; i++)
		((uint8_t *)buf)[i] = guest_byte(gva + i);
	return 0;
}

static const char *errname(int err)
{
	return err == -EFAULT ? "fault" : "?";
}

static char dir[] = "/tmp/rs-gkcode.XXXXXX";

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	buf[st.st_size] = 0;
	*len = (size_t)st.st_size;
	return buf;
}

static struct pdf_writer *writer(const char *path, int pt, int syms)
{
	struct pdf_writer_params wp = {
		.size = sizeof(wp), .nr_rings = 1,
		.aux_format = pt ? PDF_AUX_INTEL_PT : PDF_AUX_NONE,
		.buildid_dir = dir,
	};
	struct pdf_writer *w = NULL;

	if (syms) {
		wp.guest_kallsyms = kallsyms;
		wp.guest_kallsyms_len = sizeof(kallsyms) - 1;
	}
	ck_assert_int_eq(pdf_writer_open(&w, path, &wp), 0);
	return w;
}

START_TEST(gkcode_reads_and_caches)
{
	struct gi_kcode_src src = { peek, NULL, errname, 16384 };
	struct pdf_kcore_seg segs[8];
	struct pdf_code_range r[4];
	char path[512], out[512];
	struct pdf_writer *w;
	struct gi_kcode g;
	uint8_t *image;
	char *mods;
	size_t len, i;
	int n;

	snprintf(out, sizeof(out), "%s/pt.data", dir);
	w = writer(out, 1, 1);
	ck_assert_int_eq(pdf_writer_code_ranges(w, r, 4), 2);
	ck_assert_uint_eq(r[0].start, KTEXT);
	ck_assert_uint_eq(r[0].end, KTEXT + KLEN);   /* not the data at +4 MiB */
	ck_assert_uint_eq(r[1].start, MOD);
	ck_assert_uint_eq(r[1].end, MOD + MODLEN);

	ck_assert_int_eq(gi_kcode_put(&g, &src, w), 0);
	ck_assert_int_eq(g.state, GI_KCODE_OK);
	ck_assert_uint_eq(g.wanted, KLEN + MODLEN);
	ck_assert_uint_eq(g.bytes, KLEN + MODLEN - 4096);
	ck_assert_uint_eq(g.pages_unread, 1);
	ck_assert_uint_eq(g.segments, 2);
	ck_assert_uint_gt(big_refused, 0);            /* chunk, then pages */
	ck_assert_int_eq(pdf_writer_finish(w), 0);

	/* the entry: exactly the guest's bytes, where they were */
	n = snprintf(path, sizeof(path), "%s/[kernel.kallsyms]", dir);
	ck_assert_int_gt(n, 0);
	{
		FILE *ls;
		char cmd[600], id[64];

		snprintf(cmd, sizeof(cmd), "ls '%s'", path);
		ls = popen(cmd, "r");
		ck_assert_ptr_nonnull(ls);
		ck_assert_ptr_nonnull(fgets(id, sizeof(id), ls));
		pclose(ls);
		id[strcspn(id, "\n")] = 0;
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kcore",
			 dir, id);
		image = slurp(path, &len);
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/modules",
			 dir, id);
		mods = (char *)slurp(path, &i);
	}
	/* the kernel's own segment (with _stext) has the last header: perf
	 * 6.1 takes them in reverse and must replace its kernel map first */
	{
		uint64_t vaddr[2];

		memcpy(&vaddr[0], image + 64 + 16, 8);
		memcpy(&vaddr[1], image + 64 + 56 + 16, 8);
		ck_assert_uint_eq(vaddr[0], MOD);
		ck_assert_uint_eq(vaddr[1], KTEXT);
	}
	n = pdf_kcore_parse(image, len, segs, 8);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(segs[0].addr, KTEXT);
	ck_assert_uint_eq(segs[0].len, KLEN);
	ck_assert_uint_eq(segs[1].addr, MOD);
	ck_assert_uint_eq(segs[1].len, MODLEN);
	for (n = 0; n < 2; n++)
		for (i = 0; i < segs[n].len; i++) {
			uint64_t a = segs[n].addr + i;

			ck_assert_uint_eq(((const uint8_t *)segs[n].data)[i],
					  a >= HOLE && a < HOLE + 4096 ? 0xcc :
					  guest_byte(a));
		}
	ck_assert_str_eq(mods, "e1000 8192 0 - Live 0xffffffffc0002000\n");
	free(image);
	free(mods);
}
END_TEST

static int peek_nothing(void *ctx, uint64_t gva, void *buf, size_t len)
{
	(void)ctx;
	(void)gva;
	(void)buf;
	(void)len;
	return -EFAULT;
}

/* A guest whose memory cannot be read (a domain that has gone): perf can
 * still decode when an earlier read of the same kernel left its code in
 * the cache, and the summary must not say otherwise. */
START_TEST(gkcode_unreadable_with_and_without_cache)
{
	struct gi_kcode_src src = { peek, NULL, errname, 16384 };
	struct gi_kcode_src gone = { peek_nothing, NULL, errname, 16384 };
	char out[512];
	struct pdf_writer *w;
	struct gi_kcode g;

	snprintf(out, sizeof(out), "%s/first.data", dir);
	w = writer(out, 1, 1);
	ck_assert_int_eq(pdf_writer_has_kcore(w), 0);
	ck_assert_int_eq(gi_kcode_put(&g, &gone, w), 0);
	ck_assert_int_eq(g.state, GI_KCODE_UNREADABLE);
	pdf_writer_discard(w);

	w = writer(out, 1, 1);
	ck_assert_int_eq(gi_kcode_put(&g, &src, w), 0);
	ck_assert_int_eq(g.state, GI_KCODE_OK);
	ck_assert_int_eq(pdf_writer_finish(w), 0);

	snprintf(out, sizeof(out), "%s/later.data", dir);
	w = writer(out, 1, 1);
	ck_assert_int_eq(pdf_writer_has_kcore(w), 1);
	ck_assert_int_eq(gi_kcode_put(&g, &gone, w), 0);
	ck_assert_int_eq(g.state, GI_KCODE_UNREADABLE_CACHED);
	ck_assert_ptr_nonnull(g.errstr);
	ck_assert_int_lt(g.err, 0);
	pdf_writer_discard(w);
}
END_TEST

/* A recording's reader (gi_kcode_reader): the code read and cached in
 * a thread while the guest runs, byte for byte, marked early;
 * nothing started without symbols. */
START_TEST(gkcode_reader_caches_early)
{
	struct gi_kcode_src src = { peek, NULL, errname, 16384 };
	struct gi_kcode_src gone = { peek_nothing, NULL, errname, 16384 };
	struct gi_kcode_reader k = { 0 }, none = { 0 };
	const struct gi_kcode *g;
	struct pdf_writer *w, *bare;
	char out[512];
	struct gi_kcode end;

	snprintf(out, sizeof(out), "%s/early.data", dir);
	bare = writer(out, 1, 0);
	ck_assert_int_eq(gi_kcode_reader_start(&none, &src, bare), 1);
	ck_assert_int_eq(gi_kcode_reader_done(&none), 0);
	ck_assert_ptr_null(gi_kcode_reader_join(&none));
	pdf_writer_discard(bare);

	w = writer(out, 1, 1);
	ck_assert_int_eq(gi_kcode_reader_start(&k, &src, w), 0);
	ck_assert_int_eq(gi_kcode_reader_start(&k, &src, w), 0);   /* once */
	g = gi_kcode_reader_join(&k);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(gi_kcode_reader_done(&k), 1);
	ck_assert(g->state == GI_KCODE_OK || g->state == GI_KCODE_KEPT);
	ck_assert_int_eq(g->early, 1);
	ck_assert_uint_eq(g->bytes, KLEN + MODLEN - 4096);
	ck_assert_uint_eq(g->pages_unread, 1);
	ck_assert_int_eq(pdf_writer_has_kcore(w), 1);
	/* the guest gone at the end: the cache has the code */
	ck_assert_int_eq(gi_kcode_put(&end, &gone, w), 0);
	ck_assert_int_eq(end.state, GI_KCODE_UNREADABLE_CACHED);
	ck_assert_uint_gt(g->segments, 0);
	gi_kcode_reader_fini(&k);
	gi_kcode_reader_fini(&none);
	pdf_writer_discard(w);
}
END_TEST

START_TEST(gkcode_without_symbols_or_memory)
{
	struct gi_kcode_src src = { peek, NULL, errname, 16384 };
	char out[512];
	struct pdf_writer *w;
	struct gi_kcode g;

	snprintf(out, sizeof(out), "%s/none.data", dir);
	w = writer(out, 1, 0);
	ck_assert_int_eq(pdf_writer_code_ranges(w, NULL, 0), 0);
	ck_assert_int_eq(gi_kcode_put(&g, &src, w), 0);
	ck_assert_int_eq(g.state, GI_KCODE_NO_SYMBOLS);
	ck_assert_int_eq(pdf_writer_add_kcore(w, (struct pdf_kcore_seg[]){
		{ KTEXT, 1, "x" } }, 1), -ENOENT);
	pdf_writer_discard(w);
}
END_TEST

START_TEST(kcore_image_refuses)
{
	static const uint8_t b[16];
	const struct pdf_kcore_seg bad[][2] = {
		{ { 0x1000, 16, b }, { 0, 0, NULL } },               /* user half */
		{ { KTEXT, 0, b }, { 0, 0, NULL } },                 /* empty */
		{ { KTEXT, 16, NULL }, { 0, 0, NULL } },             /* no data */
		{ { KTEXT + 8, 16, b }, { KTEXT, 16, b } },          /* unsorted */
		{ { UINT64_MAX - 4, 16, b }, { 0, 0, NULL } },       /* wraps */
	};
	const uint32_t nr[] = { 1, 1, 1, 2, 1 };
	struct pdf_buf out;
	uint8_t junk[200];
	size_t i;

	for (i = 0; i < sizeof(nr) / sizeof(nr[0]); i++) {
		pdf_buf_init(&out);
		ck_assert_int_eq(pdf_kcore_image(bad[i], nr[i], 0, &out),
				 PDF_ERR(pdfe_invalid));
		pdf_buf_fini(&out);
	}
	/* a file that is no kcore, or lies about its segments */
	memset(junk, 0x7f, sizeof(junk));
	ck_assert_int_eq(pdf_kcore_parse(junk, sizeof(junk), NULL, 0),
			 PDF_ERR(pdfe_format));
	pdf_buf_init(&out);
	ck_assert_int_eq(pdf_kcore_image((struct pdf_kcore_seg[]){
		{ KTEXT, 16, b } }, 1, KTEXT, &out), 0);
	ck_assert_int_eq(pdf_kcore_parse(out.data, out.len, NULL, 0), 1);
	ck_assert_int_eq(pdf_kcore_parse(out.data, out.len - 1, NULL, 0),
			 PDF_ERR(pdfe_format));                 /* cut short */
	pdf_buf_fini(&out);
}
END_TEST

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/rs-gkcode.XXXXXX");
}

int main(void)
{
	Suite *s = suite_create("gkcode");
	TCase *tc = tcase_create("gkcode");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, gkcode_reads_and_caches);
	tcase_add_test(tc, gkcode_without_symbols_or_memory);
	tcase_add_test(tc, gkcode_unreadable_with_and_without_cache);
	tcase_add_test(tc, gkcode_reader_caches_early);
	tcase_add_test(tc, kcore_image_refuses);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
