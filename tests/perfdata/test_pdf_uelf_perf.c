/* SPDX-License-Identifier: MIT */
/*
 * The real perf as the judge of a guest user binary's symbol file
 * (pdf_uelf.c): a file whose samples fall in a binary that exists nowhere
 * on this host, known only by its build id and the symbols a guest would
 * publish, put by the writer (pdf_writer_add_ubins) in ringside's own
 * build-id cache beside the file, never in perf's ($HOME/.debug, a
 * temporary one); `perf --buildid-dir CACHE report` (no --symfs) must name
 * every sample's function, for a position-independent binary and a fixed one
 * whose data segment sits at another vaddr - offset than its code.  Exit
 * 77 (skipped) when there is no perf.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ringside/perfdata.h"

#include "pdf_format.h"

#define NR_FN      24u
#define NR_SAMPLES 2400u
#define GUEST_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		    PERF_SAMPLE_PERIOD)
#define PATH       "/usr/lib/rs-guest-only/rs-synthetic"

static char dir[64];
static char file[128];
static unsigned hits[NR_FN];

static void setup(void)
{
	char cfg[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/rs-test-uelf-perf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/guest.data", dir);
	snprintf(cfg, sizeof(cfg), "%s/perfconfig", dir);
	f = fopen(cfg, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	setenv("HOME", dir, 1);
	setenv("PERF_CONFIG", cfg, 1);
	unsetenv("PERF_BUILDID_DIR");
	memset(hits, 0, sizeof(hits));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The binary: ET_DYN at 0 (@pie) or ET_EXEC at 0x400000; code at file
 * offset 0x1000, functions of 0x100 bytes from .text's start. */
static void make_bin(struct pdf_ubin *b, int pie, struct pdf_usym *syms,
		     char *names, uint64_t *base)
{
	uint64_t v = pie ? 0 : 0x400000;
	uint32_t i, at = 0;

	memset(b, 0, sizeof(*b));
	b->e_type = pie ? ET_DYN : ET_EXEC;
	b->e_machine = EM_X86_64;
	b->build_id_len = 20;
	for (i = 0; i < 20; i++)
		b->build_id[i] = (uint8_t)(0xa0 + i + pie);
	b->nr_loads = 3;
	b->loads[0] = (struct pdf_uload){ v, 0, 0x800, 0x800, PF_R };
	b->loads[1] = (struct pdf_uload){ v + 0x1000, 0x1000, 0x3000, 0x3000,
					  PF_R | PF_X };
	b->loads[2] = (struct pdf_uload){ v + 0x5db0, 0x4db0, 0x300, 0x900,
					  PF_R | PF_W };
	b->text_addr = v + 0x1100;
	b->text_offset = 0x1100;
	b->text_size = NR_FN * 0x100;
	for (i = 0; i < NR_FN; i++) {
		syms[i].value = b->text_addr + i * 0x100u;
		syms[i].size = 0x100;
		syms[i].name = at;
		at += (uint32_t)sprintf(names + at, "rs_ufn_%02u", i) + 1;
	}
	b->nr_syms = NR_FN;
	b->syms = syms;
	b->names = names;
	b->names_len = at;
	b->path = PATH;
	*base = pie ? 0x55d0c0de0000ull : 0;
}

/* A guest's MMAP2 of the code segment, as the agent writes it. */
static void add_mmap2(struct pdf_writer *w, const struct pdf_ubin *b,
		      uint64_t base)
{
	_Alignas(8) uint8_t buf[256] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint8_t *p = (uint8_t *)(h + 1);
	uint32_t pid = 1000;
	uint64_t addr = base + b->loads[1].vaddr, len = 0x3000, pgoff = 0x1000;
	uint32_t prot = PROT_READ | PROT_EXEC, flags = MAP_PRIVATE;

	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &addr, 8);
	memcpy(p + 16, &len, 8);
	memcpy(p + 24, &pgoff, 8);
	p[32] = (uint8_t)b->build_id_len;
	memcpy(p + 36, b->build_id, b->build_id_len);
	memcpy(p + 56, &prot, 4);
	memcpy(p + 60, &flags, 4);
	memcpy(p + 64, PATH, sizeof(PATH));
	h->size = (uint16_t)(sizeof(*h) + 64 + ((sizeof(PATH) + 7) & ~7u));
	ck_assert_int_eq(pdf_writer_add(w, 0, 1000, h), 0);
}

static void write_file(int pie)
{
	static struct pdf_usym syms[NR_FN];
	static char names[NR_FN * 16];
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 1, .sample_type = GUEST_TYPE,
	};
	const struct pdf_writer_stats *st;
	struct pdf_writer *w;
	struct pdf_ubin b;
	uint64_t base;
	uint32_t seed = 9;
	char cached[512];
	struct stat sb;
	unsigned i;
	int n;

	make_bin(&b, pie, syms, names, &base);
	ck_assert_int_eq(pdf_writer_open(&w, file, &p), 0);
	add_mmap2(w, &b, base);
	ck_assert_int_eq(pdf_writer_add_ubins(w, &b, 1), 1);
	ck_assert_int_eq(pdf_writer_add_ubins(w, &b, 1), 0);  /* once */
	st = pdf_writer_stats(w);
	ck_assert_uint_eq(st->ubins, 1);
	ck_assert_uint_eq(st->ubins_failed + st->ubins_other, 0);
	/* DIR/PATH/HEX/elf, and DIR/.build-id/XX/REST to its directory */
	n = snprintf(cached, sizeof(cached), "%s/" PDF_CACHE_NAME "%s/", dir,
		     PATH);
	for (i = 0; i < 20; i++)
		n += snprintf(cached + n, sizeof(cached) - (size_t)n, "%02x",
			      b.build_id[i]);
	snprintf(cached + n, sizeof(cached) - (size_t)n, "/elf");
	ck_assert_int_eq(stat(cached, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	n = snprintf(cached, sizeof(cached), "%s/" PDF_CACHE_NAME
		     "/.build-id/%02x/", dir, b.build_id[0]);
	for (i = 1; i < 20; i++)
		n += snprintf(cached + n, sizeof(cached) - (size_t)n, "%02x",
			      b.build_id[i]);
	snprintf(cached + n, sizeof(cached) - (size_t)n, "/elf");
	ck_assert_int_eq(stat(cached, &sb), 0);
	/* nothing in perf's own cache */
	snprintf(cached, sizeof(cached), "%s/.debug", dir);
	ck_assert_int_ne(stat(cached, &sb), 0);
	for (i = 0; i < NR_SAMPLES; i++) {
		_Alignas(8) uint8_t buf[48] = { 0 };
		struct rs_perf_header *h = (void *)buf;
		uint64_t *v = (uint64_t *)(h + 1);
		unsigned f;

		seed = seed * 1103515245u + 12345u;
		f = (seed >> 8) % NR_FN;
		hits[f]++;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = 40;
		v[0] = base + syms[f].value + ((seed >> 4) % 0x100);
		v[1] = (uint64_t)1000 << 32 | 1000;
		v[2] = 2000 + i * 1000ull;
		v[3] = 1;
		ck_assert_int_eq(pdf_writer_add(w, 0, v[2], h), 0);
	}
	ck_assert_int_eq(pdf_writer_finish(w), 0);
}

static void report(int pie)
{
	char cmd[512], line[1024], name[256];
	unsigned named = 0, i, n;
	double pct;
	FILE *p;

	write_file(pie);
	snprintf(cmd, sizeof(cmd), "perf --buildid-dir '%s/" PDF_CACHE_NAME
		 "' report -i '%s' --stdio --sort sym 2>&1", dir, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %lf%% [.] %255s", &pct, name) != 2)
			continue;
		if (sscanf(name, "rs_ufn_%u", &i) != 1 || i >= NR_FN)
			continue;
		n = (unsigned)(pct * NR_SAMPLES / 100.0 + 0.5);
		ck_assert_msg(n == hits[i], "%s: %.2f%% = %u samples, %u hits",
			      name, pct, n, hits[i]);
		named += n;
	}
	ck_assert_int_eq(pclose(p), 0);
	printf("perf report (%s): %u of %u user samples named\n",
	       pie ? "ET_DYN" : "ET_EXEC", named, NR_SAMPLES);
	ck_assert_uint_eq(named, NR_SAMPLES);
}

START_TEST(perf_report_names_pie)
{
	report(1);
}
END_TEST

START_TEST(perf_report_names_exec)
{
	report(0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_uelf_perf");
	TCase *tc = tcase_create("perf");
	SRunner *sr;
	int failed;

	if (system("perf --version >/dev/null 2>&1"))
		return 77;
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, perf_report_names_pie);
	tcase_add_test(tc, perf_report_names_exec);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
