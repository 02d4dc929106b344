/* SPDX-License-Identifier: MIT */
/*
 * The real perf as the judge of a guest's vdso: samples in a "[vdso]"
 * mapping, as the guest kernel describes it (no build id), at the offsets
 * of this host's own vdso functions.  perf takes its own process's vdso
 * for a DSO of that name it knows no build id of, and would name the
 * guest's samples after the host's functions; the writer gives the vdso
 * an id no vdso has when the guest did not describe it (no name at all),
 * and the guest's symbols when it did (named from ringside's build-id
 * cache beside the file, DIR/[vdso]/ID/vdso, `perf --buildid-dir DIR`).  Exit 77 (skipped) when there is no perf.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ringside/perfdata.h"

#include "pdf_format.h"

#define NR_SAMPLES 300u
#define GUEST_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		    PERF_SAMPLE_PERIOD)
#define BASE       0x7ffd4a000000ull

static char dir[64];
static char file[128];

static void setup(void)
{
	char cfg[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/rs-test-vdso-perf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/guest.data", dir);
	snprintf(cfg, sizeof(cfg), "%s/perfconfig", dir);
	f = fopen(cfg, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	setenv("HOME", dir, 1);
	setenv("PERF_CONFIG", cfg, 1);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The offset of this host's vdso function @name (its .dynsym).  valgrind
 * gives its programs no vdso: there, an offset in the text of any vdso
 * (perf, run apart, still has one). */
static uint64_t host_vdso_fn(const char *name)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Shdr *sh;

	if (!eh && getenv("RS_UNDER_VALGRIND"))
		return 0x800;
	ck_assert_ptr_nonnull(eh);
	sh = (const void *)((const char *)eh + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *s = (const void *)((const char *)eh +
						    sh[i].sh_offset);
		const char *str;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		str = (const char *)eh + sh[sh[i].sh_link].sh_offset;
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*s); k++)
			if (!strcmp(str + s[k].st_name, name))
				return s[k].st_value;
	}
	return 0;
}

static void add_vdso_mmap2(struct pdf_writer *w)
{
	_Alignas(8) uint8_t buf[256] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint8_t *p = (uint8_t *)(h + 1);
	uint32_t pid = 1000, prot = PROT_READ | PROT_EXEC, flags = MAP_PRIVATE;
	uint64_t addr = BASE, len = 0x2000, pgoff = 0;

	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &pid, 4);
	memcpy(p + 8, &addr, 8);
	memcpy(p + 16, &len, 8);
	memcpy(p + 24, &pgoff, 8);
	memcpy(p + 56, &prot, 4);
	memcpy(p + 60, &flags, 4);
	memcpy(p + 64, "[vdso]", 7);
	h->size = (uint16_t)(sizeof(*h) + 64 + 8);
	ck_assert_int_eq(pdf_writer_add(w, 0, 1000, h), 0);
}

/* A guest vdso that has one function, rs_guest_vdso_fn, where this
 * host's vdso has __vdso_clock_gettime. */
static void guest_vdso(struct pdf_ubin *b, struct pdf_usym *sym, uint64_t at)
{
	static char names[] = "rs_guest_vdso_fn";

	memset(b, 0, sizeof(*b));
	b->e_type = ET_DYN;
	b->e_machine = EM_X86_64;
	b->build_id_len = 20;
	for (unsigned i = 0; i < 20; i++)
		b->build_id[i] = (uint8_t)(0x51 + i);
	b->nr_loads = 1;
	b->loads[0] = (struct pdf_uload){ 0, 0, 0x2000, 0x2000, PF_R | PF_X };
	b->text_addr = 0x400;
	b->text_offset = 0x400;
	b->text_size = 0x1000;
	sym->value = at & ~0xfull;
	sym->size = 0x100;
	sym->name = 0;
	b->nr_syms = 1;
	b->syms = sym;
	b->names = names;
	b->names_len = sizeof(names);
	b->path = "[vdso]";
}

/* perf report's symbol column, the lines of @file's samples. */
static void report(char *out, size_t len)
{
	char cmd[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf --buildid-dir '%s/" PDF_CACHE_NAME
		 "' report -i '%s' --stdio --sort dso,sym 2>&1 | grep -v '^#' | "
		 "grep .", dir, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	pclose(p);
}

static void write_file(const struct pdf_ubin *b, uint64_t at)
{
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 1, .sample_type = GUEST_TYPE,
	};
	struct pdf_writer *w;

	ck_assert_int_eq(pdf_writer_open(&w, file, &p), 0);
	add_vdso_mmap2(w);
	if (b)
		ck_assert_int_eq(pdf_writer_add_ubins(w, b, 1), 1);
	for (unsigned i = 0; i < NR_SAMPLES; i++) {
		_Alignas(8) uint8_t buf[48] = { 0 };
		struct rs_perf_header *h = (void *)buf;
		uint64_t *v = (uint64_t *)(h + 1);

		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = 40;
		v[0] = BASE + at + (i % 16);
		v[1] = (uint64_t)1000 << 32 | 1000;
		v[2] = 2000 + i * 1000ull;
		v[3] = 1;
		ck_assert_int_eq(pdf_writer_add(w, 0, v[2], h), 0);
	}
	ck_assert_int_eq(pdf_writer_finish(w), 0);
}

/* The guest said nothing of its vdso: perf names none of its samples,
 * and never after this host's vdso. */
START_TEST(unknown_vdso_never_the_hosts)
{
	uint64_t at = host_vdso_fn("__vdso_clock_gettime");
	char out[4096];

	ck_assert_uint_ne(at, 0);
	write_file(NULL, at);
	report(out, sizeof(out));
	ck_assert_msg(!strstr(out, "__vdso") && !strstr(out, "clock_gettime"),
		      "a host vdso symbol named the guest's: %s", out);
	/* unnamed: one line per address, every one in the guest's [vdso] */
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
		ck_assert_msg(strstr(l, "[vdso]") && strstr(l, "0x"),
			      "a sample not an address of [vdso]: %s", l);
}
END_TEST

/* The guest described its vdso: perf names its samples from the cache. */
START_TEST(guest_vdso_named)
{
	uint64_t at = host_vdso_fn("__vdso_clock_gettime");
	struct pdf_usym sym;
	struct pdf_ubin b;
	char out[4096], cached[512];
	struct stat sb;
	int n;

	guest_vdso(&b, &sym, at);
	write_file(&b, at);
	n = snprintf(cached, sizeof(cached), "%s/" PDF_CACHE_NAME "/[vdso]/",
		     dir);
	for (unsigned i = 0; i < 20; i++)
		n += snprintf(cached + n, sizeof(cached) - (size_t)n, "%02x",
			      b.build_id[i]);
	snprintf(cached + n, sizeof(cached) - (size_t)n, "/vdso");
	ck_assert_int_eq(stat(cached, &sb), 0);
	report(out, sizeof(out));
	printf("guest vdso: %s", out);
	ck_assert_msg(strstr(out, "100.00%") && strstr(out, "rs_guest_vdso_fn"),
		      "not named from the guest's vdso: %s", out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_vdso_perf");
	TCase *tc = tcase_create("perf");
	SRunner *sr;
	int failed;

	if (system("perf --version >/dev/null 2>&1"))
		return 77;
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, unknown_vdso_never_the_hosts);
	tcase_add_test(tc, guest_vdso_named);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
