/* SPDX-License-Identifier: MIT */
/*
 * The real perf as the judge: a file written with a made-up guest kallsyms
 * (a KASLR'd kernel and three modules, given out of order, with the noise
 * a real one has) and samples at known addresses; `perf --buildid-dir
 * CACHE script -i F` and `... report -i F --stdio --sort sym` must name
 * >= 95% of the kernel samples as the table says, reading the table from
 * ringside's build-id cache beside F (never the host's /proc/kallsyms:
 * the names exist nowhere else; a temporary $HOME for perf's own).  Exit 77 (skipped) when there is no perf.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ringside/perfdata.h"

#include "pdf_format.h"

#define KBASE    UINT64_C(0xffffffff9e200000)
#define NR_CORE  300u
#define NR_MODS  3u
#define NR_MFN   25u
#define NR_FN    (NR_CORE + NR_MODS * NR_MFN)
#define NR_KSAMPLES 3000u
#define NR_USAMPLES 300u
#define GUEST_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		    PERF_SAMPLE_PERIOD)

struct fn {
	uint64_t start, size;
	char name[32];
	const char *dso;        /* perf's name of its map */
	unsigned hits;
};

static const char *const mod_names[NR_MODS] = { "rs_net", "rs_fs", "rs_blk" };
static const char *const mod_dsos[NR_MODS] = { "[rs_net]", "[rs_fs]", "[rs_blk]" };
static const uint64_t mod_base[NR_MODS] = {
	0xffffffffc0a10000ull, 0xffffffffc0400000ull, 0xffffffffc1000000ull };

static struct fn fns[NR_FN];
static int module_first;   /* the first kernel samples in a module */
static char dir[64];
static char file[128];

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void make_table(void)
{
	uint64_t at = KBASE + 0x1000;
	uint32_t seed = 7;
	unsigned i, m, n = 0;

	for (i = 0; i < NR_CORE; i++, n++) {
		fns[n].start = at;
		fns[n].size = 0x40 + (lcg(&seed) % 64) * 0x10;
		snprintf(fns[n].name, sizeof(fns[n].name), "rs_kfn_%03u", i);
		fns[n].dso = "[kernel.kallsyms]";
		at += fns[n].size;
	}
	for (m = 0; m < NR_MODS; m++) {
		at = mod_base[m];
		for (i = 0; i < NR_MFN; i++, n++) {
			fns[n].start = at;
			fns[n].size = 0x80 + (lcg(&seed) % 16) * 0x20;
			snprintf(fns[n].name, sizeof(fns[n].name), "%s_fn_%02u",
				 mod_names[m], i);
			fns[n].dso = mod_dsos[m];
			at += fns[n].size;
		}
	}
}

/* The kallsyms text: modules first, the kernel backwards, noise between. */
static size_t make_kallsyms(char *s)
{
	size_t len = 0;
	unsigned i, m;

	for (m = NR_MODS; m-- > 0;) {
		for (i = 0; i < NR_MFN; i++) {
			const struct fn *f = &fns[NR_CORE + m * NR_MFN + i];

			len += (size_t)sprintf(s + len, "%016" PRIx64 " %c %s\t[%s]\n",
					       f->start, i % 3 ? 't' : 'T',
					       f->name, mod_names[m]);
		}
		len += (size_t)sprintf(s + len, "%016" PRIx64 " d %s_data\t[%s]\n",
				       mod_base[m] + 0x8000u, mod_names[m],
				       mod_names[m]);
		len += (size_t)sprintf(s + len, "%016" PRIx64 " t bpf_prog_%u\t[bpf]\n",
				       UINT64_C(0xffffffffc2000000) + m * 0x1000u, m);
	}
	len += (size_t)sprintf(s + len, "0000000000000000 A fixed_percpu_data\n"
			       "0000000000001000 A cpu_debug_store\n");
	for (i = NR_CORE; i-- > 0;)
		len += (size_t)sprintf(s + len, "%016" PRIx64 " %c %s\n",
				       fns[i].start, i % 2 ? 't' : 'T',
				       fns[i].name);
	len += (size_t)sprintf(s + len, "%016" PRIx64 " T _text\n"
			       "%016" PRIx64 " T startup_64\n"
			       "%016" PRIx64 " r rs_rodata\n"
			       "%016" PRIx64 " D rs_data",   /* no newline */
			       KBASE, KBASE, KBASE + 0x200000u, KBASE + 0x400000u);
	return len;
}

static const struct fn *lookup(uint64_t addr)
{
	unsigned i;

	for (i = 0; i < NR_FN; i++)
		if (addr >= fns[i].start && addr < fns[i].start + fns[i].size)
			return &fns[i];
	return NULL;
}

static void setup(void)
{
	char cfg[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/rs-test-ksyms-perf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/guest.data", dir);
	/* perf's cache under a HOME of our own, and no perfconfig but ours
	 * (empty): the writer and perf choose the directory alike */
	snprintf(cfg, sizeof(cfg), "%s/perfconfig", dir);
	f = fopen(cfg, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	setenv("HOME", dir, 1);
	setenv("PERF_CONFIG", cfg, 1);
	unsetenv("PERF_BUILDID_DIR");
	memset(fns, 0, sizeof(fns));
	module_first = 0;
	make_table();
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_guest_file(void)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5,
					6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static char ks[1 << 16];
	static const struct pdf_guest_facts guest = {
		.known = 1, .sample_type_id = PERF_TYPE_SOFTWARE,
		.sample_config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1,
		.arch = "x86_64", .os_release = "6.1.0-test",
	};
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 2, .sample_type = GUEST_TYPE,
		.guest_kallsyms = ks, .guest_build_id = id,
		.guest_build_id_len = sizeof(id),
	};
	const struct pdf_writer_stats *st;
	struct pdf_writer *w;
	char cached[256];
	uint32_t seed = 42;
	struct stat sb;
	unsigned i;
	int n;

	p.guest_kallsyms_len = make_kallsyms(ks);
	/* the guest's facts, as an agent gives them: without an arch, perf
	 * 6.1 leaves two more module samples unnamed in
	 * perf_script_module_first (a file says no arch of a guest that did
	 * not claim one) */
	p.guest = &guest;
	ck_assert_int_eq(pdf_writer_open(&w, file, &p), 0);
	st = pdf_writer_stats(w);
	ck_assert_int_eq(st->ksyms_err, 0);
	/* the table's id, never the guest's own */
	ck_assert_uint_eq(st->build_id_len, 20);
	ck_assert_int_ne(memcmp(st->build_id, id, 20), 0);
	n = snprintf(cached, sizeof(cached), "%s/" PDF_CACHE_NAME
		     "/[kernel.kallsyms]/", dir);
	for (i = 0; i < 20; i++)
		n += snprintf(cached + n, sizeof(cached) - (size_t)n, "%02x",
			      st->build_id[i]);
	snprintf(cached + n, sizeof(cached) - (size_t)n, "/kallsyms");
	ck_assert_int_eq(stat(cached, &sb), 0);

	for (i = 0; i < NR_KSAMPLES + NR_USAMPLES; i++) {
		_Alignas(8) uint8_t buf[48] = { 0 };
		struct rs_perf_header *h = (void *)buf;
		uint64_t *b = (uint64_t *)(h + 1);
		int user = i % 11 == 10;

		h->type = PERF_RECORD_SAMPLE;
		h->size = 40;
		if (user) {
			h->misc = PERF_RECORD_MISC_USER;
			b[0] = 0x401000 + i;
		} else {
			struct fn *f = &fns[lcg(&seed) % NR_FN];

			/* the first function of a module, twice, before any
			 * sample in the kernel proper */
			if (module_first && i < 2)
				f = &fns[NR_CORE];

			h->misc = PERF_RECORD_MISC_KERNEL;
			b[0] = f->start + lcg(&seed) % f->size;
			f->hits++;
		}
		b[1] = (uint64_t)(1000 + i % 5) << 32 | (1000 + i % 5);
		b[2] = 1000000 + i * 1000ull;
		b[3] = 1;
		ck_assert_int_eq(pdf_writer_add(w, i % 2, b[2], h), 0);
	}
	ck_assert_int_eq(pdf_writer_finish(w), 0);
}

static unsigned run_script(void)
{
	char cmd[512], line[1024];
	unsigned kernel = 0, named = 0, user = 0;
	FILE *p;

	write_guest_file();
	snprintf(cmd, sizeof(cmd), "perf --buildid-dir '%s/" PDF_CACHE_NAME
		 "' script -i '%s' 2>&1", dir, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		char *at = strstr(line, "ringside:sample:"), *sym, *end;
		const struct fn *f;
		uint64_t addr;
		char dso[64];

		ck_assert_msg(!strstr(line, "No kallsyms"), "perf: %s", line);
		if (!at)
			continue;
		addr = strtoull(at + 16, &sym, 16);
		if (addr < PDF_KSYMS_MIN_ADDR) {
			user++;
			continue;
		}
		kernel++;
		f = lookup(addr);
		ck_assert_ptr_nonnull(f);
		while (*sym == ' ')
			sym++;
		end = strstr(sym, "+0x");
		if (!end || sscanf(end, "+0x%*x (%63[^)])", dso) != 1)
			continue;
		*end = 0;
		if (!strcmp(sym, f->name) && !strcmp(dso, f->dso))
			named++;
	}
	ck_assert_int_eq(pclose(p), 0);
	printf("perf script: %u of %u kernel samples named\n", named, kernel);
	ck_assert_uint_eq(kernel, NR_KSAMPLES);
	ck_assert_uint_eq(user, NR_USAMPLES);
	ck_assert_msg(named * 100 >= kernel * 95, "perf script named %u of %u",
		      named, kernel);
	return named;
}

START_TEST(perf_script_names_guest_kernel)
{
	ck_assert_uint_eq(run_script(), NR_KSAMPLES);
}
END_TEST

/* perf 6.1 loads a module's symbols with the kernel's: a sample in a module
 * before any in the kernel proper stays unnamed, and the module's first
 * symbol would be lost (pdf_ksyms_text() keeps it); only that sample is. */
START_TEST(perf_script_module_first)
{
	module_first = 1;
	ck_assert_uint_eq(run_script(), NR_KSAMPLES - 1);
}
END_TEST

START_TEST(perf_report_names_guest_kernel)
{
	const double total = NR_KSAMPLES + NR_USAMPLES;
	char cmd[512], line[1024], name[256];
	unsigned rows = 0, named = 0, i, n;
	double pct;
	FILE *p;

	write_guest_file();
	snprintf(cmd, sizeof(cmd), "perf --buildid-dir '%s/" PDF_CACHE_NAME
		 "' report -i '%s' --stdio --sort sym 2>&1", dir,
		 file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		ck_assert_msg(!strstr(line, "No kallsyms"), "perf: %s", line);
		if (sscanf(line, " %lf%% [k] %255s", &pct, name) != 2)
			continue;
		for (i = 0; i < NR_FN; i++)
			if (!strcmp(fns[i].name, name))
				break;
		if (i == NR_FN)
			continue;
		/* percentages to 0.01 of 3300 samples: the count, exactly */
		n = (unsigned)(pct * total / 100.0 + 0.5);
		/* each name as often as the table says, or once less: the one
		 * sample perf may leave unnamed (docs/perfdata.md) */
		ck_assert_msg(n == fns[i].hits || n + 1 == fns[i].hits,
			      "%s: %.2f%% = %u samples, %u hits", name, pct, n,
			      fns[i].hits);
		named += n;
		rows++;
	}
	ck_assert_int_eq(pclose(p), 0);
	printf("perf report: %u symbols, %u of %u kernel samples named\n", rows,
	       named, NR_KSAMPLES);
	ck_assert_uint_ge(rows, NR_FN * 9 / 10);
	ck_assert_msg(named * 100 >= NR_KSAMPLES * 95, "perf report named %u of %u",
		      named, NR_KSAMPLES);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_ksyms_perf");
	TCase *tc = tcase_create("perf");
	SRunner *sr;
	int failed;

	if (system("perf --version >/dev/null 2>&1"))
		return 77;
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, perf_script_names_guest_kernel);
	tcase_add_test(tc, perf_script_module_first);
	tcase_add_test(tc, perf_report_names_guest_kernel);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
