/* SPDX-License-Identifier: MIT */
/*
 * pdf_ksyms.c: a guest's kallsyms checked as untrusted input (each hostile
 * case with its exact outcome); pdf_cache.c: the cache entry; the
 * writer's use of them; pdf_sha256.c against FIPS 180-4's examples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "ringside/perfdata.h"

#include "pdf_format.h"
#include "pdf_kernel.h"
#include "pdf_sha256.h"

#define K(s) s, sizeof(s) - 1

/* A small kallsyms, not sorted: a module first, noise among the lines. */
static const char good[] =
	"ffffffffc0201000 t mod_b_fn\t[mod_b]\n"
	"ffffffffc0201040 T mod_b_other\t[mod_b]\n"
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81002000 t do_idle\n"
	"ffffffff81200000 r some_rodata\n"
	"ffffffff82000000 D init_task\n"
	"ffffffffc0100000 t mod_a_fn\t[mod_a]\n"
	"ffffffffc0100400 d mod_a_data\t[mod_a]\n"
	"ffffffffc0300000 t bpf_prog_1234\t[bpf]\n"
	"ffffffff81002000 t do_idle\n"
	"ffffffff81003000 W weak_fn";  /* no newline at the end */

static int parse(const char *s, size_t len)
{
	struct pdf_ksyms *k = NULL;
	int err = pdf_ksyms_parse(&k, s, len);

	if (err)
		ck_assert_ptr_null(k);
	pdf_ksyms_free(k);
	return err;
}

START_TEST(ksyms_good)
{
	const struct pdf_ksyms_stats *st;
	struct pdf_ksyms *k;
	struct pdf_ksym sym;
	struct pdf_buf text;

	ck_assert_int_eq(pdf_ksyms_parse(&k, K(good)), 0);
	st = pdf_ksyms_stats(k);
	ck_assert_uint_eq(st->lines, 14);
	ck_assert_uint_eq(st->ignored, 2);   /* A, r */
	ck_assert_uint_eq(st->dropped, 3);   /* module data, [bpf], repeat */
	ck_assert_uint_eq(st->symbols, 9);
	ck_assert_uint_eq(st->modules, 2);
	ck_assert_int_eq(st->have_text, 1);
	ck_assert_uint_eq(st->text, 0xffffffff81000000ull);
	ck_assert_uint_eq(st->kernel_start, 0xffffffff81000000ull);
	ck_assert_uint_eq(st->kernel_end, 0xffffffff82001000ull);

	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffff81002010ull, &sym), 1);
	ck_assert_str_eq(sym.name, "do_idle");
	ck_assert_ptr_null(sym.module);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0201044ull, &sym), 1);
	ck_assert_str_eq(sym.name, "mod_b_other");
	ck_assert_str_eq(sym.module, "mod_b");
	ck_assert_int_eq(sym.type, 'T');
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0100010ull, &sym), 1);
	ck_assert_str_eq(sym.name, "mod_a_fn");
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffff80000000ull, &sym), 0);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0400000ull, &sym), 0);

	pdf_buf_init(&text);
	ck_assert_int_eq(pdf_ksyms_text(k, &text), 0);
	pdf_buf_add(&text, "", 1);
	ck_assert_str_eq((const char *)text.data,
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81001000 T start_kernel\n"
		"ffffffff81002000 t do_idle\n"
		"ffffffff81003000 W weak_fn\n"
		"ffffffff82000000 D init_task\n"
		"ffffffffc00fffff t mod_a_fn\t[mod_a]\n"
		"ffffffffc0100000 t mod_a_fn\t[mod_a]\n"
		"ffffffffc0200fff t mod_b_fn\t[mod_b]\n"
		"ffffffffc0201000 t mod_b_fn\t[mod_b]\n"
		"ffffffffc0201040 T mod_b_other\t[mod_b]\n");
	pdf_buf_fini(&text);
	pdf_ksyms_free(k);
}
END_TEST

START_TEST(ksyms_content_id)
{
	static const char sorted[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T a\n"
		"ffffffff81002000 T b\n";
	static const char shuffled[] =
		"ffffffff81002000 T b\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T a\n"
		"ffffffff81001000 T a\n";
	static const char other[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T a\n"
		"ffffffff81002001 T b\n";
	uint8_t a[PDF_BUILD_ID_SIZE], b[PDF_BUILD_ID_SIZE], c[PDF_BUILD_ID_SIZE];
	struct pdf_ksyms *k;

	ck_assert_int_eq(pdf_ksyms_parse(&k, K(sorted)), 0);
	ck_assert_int_eq(pdf_ksyms_content_id(k, a), 0);
	pdf_ksyms_free(k);
	ck_assert_int_eq(pdf_ksyms_parse(&k, K(shuffled)), 0);
	ck_assert_int_eq(pdf_ksyms_content_id(k, b), 0);
	pdf_ksyms_free(k);
	ck_assert_int_eq(pdf_ksyms_parse(&k, K(other)), 0);
	ck_assert_int_eq(pdf_ksyms_content_id(k, c), 0);
	pdf_ksyms_free(k);
	ck_assert_mem_eq(a, b, sizeof(a));
	ck_assert_int_ne(memcmp(a, c, sizeof(a)), 0);
}
END_TEST

/* Every refusal, with its code. */
START_TEST(ksyms_hostile)
{
	static const struct { const char *s; size_t len; int err; } cases[] = {
#define C(s, e) { s, sizeof(s) - 1, PDF_ERR(e) }
		/* empty, or nothing perf could name */
		C("", pdfe_ksyms_empty),
		C("0000000000000000 A fixed_percpu_data\n", pdfe_ksyms_empty),
		C("ffffffff82000000 D only_data\n", pdfe_ksyms_empty),
		C("ffffffffc0100000 t f\t[m]\n", pdfe_ksyms_empty),
		/* not a kallsyms line */
		C("\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\n\nffffffff81000010 T b\n", pdfe_ksyms_format),
		C("ffffffff81000000 T\n", pdfe_ksyms_format),
		C("ffffffff81000000 T \n", pdfe_ksyms_format),
		C("ffffffff81000000  T a\n", pdfe_ksyms_format),
		C("ffffffff81000000 1 a\n", pdfe_ksyms_format),
		C("ffffffff81000000 \xc3 a\n", pdfe_ksyms_format),
		C("xffffffff81000000 T a\n", pdfe_ksyms_format),
		C("0ffffffff81000000 T a\n", pdfe_ksyms_format),   /* 17 digits */
		C("ffffffff81000000 T a b\n", pdfe_ksyms_format),  /* a space */
		C("ffffffff81000000 T a\r\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\x01\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a]\n", pdfe_ksyms_format),
		C("ffffffff81000000 T \xff\xfe\n", pdfe_ksyms_format),
		/* a NUL inside a name: no name ends early */
		{ "ffffffff81000000 T ab\0cd\n", 25, PDF_ERR(pdfe_ksyms_format) },
		{ "ffffffff81000000 T ab\0", 22, PDF_ERR(pdfe_ksyms_format) },
		/* modules */
		C("ffffffff81000000 T a\t\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[]\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[m\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[m] \n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t\t[m]\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[m.x]\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[m]\t[n]\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[vdso]\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[vsyscall]\n", pdfe_ksyms_format),
		C("ffffffff81000000 T a\t[01234567890123456789012345678901234567890123456789012345]\n",
		  pdfe_ksyms_format), /* 56 bytes */
		/* a function outside the kernel half: kptr_restrict, or lies */
		C("0000000000000000 T _text\n0000000000000000 T start_kernel\n",
		  pdfe_ksyms_range),
		C("ffff7fffffffffff T a\n", pdfe_ksyms_range),
		C("ffffffff81000000 T a\n00007f0000000000 t b\t[m]\n",
		  pdfe_ksyms_range),
		/* modules amid each other refused, and then no kernel */
		C("ffffffffc0000000 t m1\t[m]\n"
		  "ffffffffc0000100 t n1\t[n]\n"
		  "ffffffffc0000200 t m2\t[m]\n", pdfe_ksyms_empty),
#undef C
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = parse(cases[i].s, cases[i].len);

		ck_assert_msg(err == cases[i].err, "case %u: %d (%s), want %s",
			      i, err, pdf_error_str(err), pdf_error_str(cases[i].err));
	}
}
END_TEST

/* What is dropped, not refused; names at their bound. */
START_TEST(ksyms_bounds)
{
	char line[PDF_KSYMS_NAME_MAX + 64];
	const struct pdf_ksyms_stats *st;
	struct pdf_ksyms *k;
	struct pdf_ksym sym;
	int n;

	n = snprintf(line, sizeof(line), "ffffffff81000000 T %0*d\n",
		     (int)PDF_KSYMS_NAME_MAX, 7);
	ck_assert_int_eq(pdf_ksyms_parse(&k, line, (size_t)n), 0);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffff81000000ull, &sym), 1);
	ck_assert_uint_eq(strlen(sym.name), PDF_KSYMS_NAME_MAX);
	pdf_ksyms_free(k);
	n = snprintf(line, sizeof(line), "ffffffff81000000 T %0*d\n",
		     (int)PDF_KSYMS_NAME_MAX + 1, 7);
	ck_assert_int_eq(parse(line, (size_t)n), PDF_ERR(pdfe_ksyms_format));

	ck_assert_int_eq(pdf_ksyms_parse(&k, K(
		"ffffffff81000000 T a\n"
		"ffffffffc0000ff0 T near_module\n"
		"0000000000001000 D per_cpu_thing\n"          /* dropped */
		"ffffffffc0000000 t p1\t[__builtin__ftrace]\n"
		"ffffffff81000000 T a\n"
		"ffffffff81000000 t a\n"                       /* another type */
		"ffffffffc0001000 t m1\t[m-x_1]\n"
		"ffffffffc0002000 b m_bss\t[m-x_1]\n"
		"ffffffffc0003000 U undefined\n")), 0);
	st = pdf_ksyms_stats(k);
	ck_assert_uint_eq(st->lines, 9);
	ck_assert_uint_eq(st->ignored, 1);
	ck_assert_uint_eq(st->dropped, 4);
	ck_assert_uint_eq(st->symbols, 4);
	ck_assert_uint_eq(st->modules, 1);
	ck_assert_int_eq(st->have_text, 0);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0001100ull, &sym), 1);
	ck_assert_str_eq(sym.module, "m-x_1");
	/* the kernel's map stops where the module's starts */
	ck_assert_uint_eq(st->kernel_end, 0xffffffffc0001000ull);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0000ff8ull, &sym), 1);
	ck_assert_str_eq(sym.name, "near_module");
	pdf_ksyms_free(k);

	/* the top of the address space: no wrap */
	ck_assert_int_eq(pdf_ksyms_parse(&k, K("fffffffffffffff0 T last\n")), 0);
	ck_assert_uint_eq(pdf_ksyms_stats(k)->kernel_start, 0xfffffffffffff000ull);
	ck_assert_uint_eq(pdf_ksyms_stats(k)->kernel_end, UINT64_MAX);
	ck_assert_int_eq(pdf_ksyms_find(k, UINT64_MAX - 1, &sym), 1);
	pdf_ksyms_free(k);
}
END_TEST

START_TEST(ksyms_too_big)
{
	static const char tiny[] = "ffffffff81000000 T a\n";
	size_t i, last = 0, len = (size_t)PDF_KSYMS_MAX_LINES * 6 + 6;
	size_t mods = PDF_KSYMS_MAX_MODULES + 1;
	char *s = malloc(len);
	struct pdf_ksyms *k = NULL;

	/* refused by size before a byte is read */
	ck_assert_int_eq(pdf_ksyms_parse(&k, tiny, (size_t)PDF_KSYMS_MAX_BYTES + 1),
			 PDF_ERR(pdfe_ksyms_size));
	ck_assert_ptr_null(k);
	ck_assert_int_eq(pdf_ksyms_parse(&k, NULL, 1), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_ksyms_parse(NULL, tiny, 1), PDF_ERR(pdfe_invalid));

	/* one line too many */
	ck_assert_ptr_nonnull(s);
	for (i = 0; i + 6 <= len; i += 6)
		memcpy(s + i, "0 a x\n", 6);
	ck_assert_int_eq(parse(s, len), PDF_ERR(pdfe_ksyms_size));
	ck_assert_int_eq(parse(s, len - 6), PDF_ERR(pdfe_ksyms_empty));
	free(s);

	/* one module too many */
	s = malloc(mods * 64 + 64);
	ck_assert_ptr_nonnull(s);
	len = (size_t)sprintf(s, "ffffffff81000000 T a\n");
	for (i = 0; i < mods; i++) {
		last = len;
		len += (size_t)sprintf(s + len, "%016llx t f\t[m%zu]\n",
				       0xffffffffc0000000ull + i * 0x1000, i);
	}
	ck_assert_int_eq(parse(s, len), PDF_ERR(pdfe_ksyms_size));
	ck_assert_int_eq(pdf_ksyms_parse(&k, s, last), 0); /* one less */
	ck_assert_uint_eq(pdf_ksyms_stats(k)->modules, PDF_KSYMS_MAX_MODULES);
	pdf_ksyms_free(k);
	free(s);
}
END_TEST

/* Parse @s, which must be accepted, and check what was refused. */
static struct pdf_ksyms *parse_ok(const char *s, size_t len, uint64_t symbols,
				  uint32_t modules, uint32_t refused_mods,
				  uint64_t refused)
{
	const struct pdf_ksyms_stats *st;
	struct pdf_ksyms *k = NULL;

	ck_assert_int_eq(pdf_ksyms_parse(&k, s, len), 0);
	st = pdf_ksyms_stats(k);
	ck_assert_uint_eq(st->symbols, symbols);
	ck_assert_uint_eq(st->modules, modules);
	ck_assert_uint_eq(st->modules_refused, refused_mods);
	ck_assert_uint_eq(st->refused, refused);
	return k;
}

/* A module amid another, or amid the kernel: that module goes, with all
 * its symbols; the kernel and the others keep their names. */
START_TEST(ksyms_overlap)
{
	struct pdf_ksyms *k;
	struct pdf_ksym sym;
	struct pdf_buf text;

	/* n lies whole in a hole of m (m's .init text listed below the
	 * modules loaded after it): m goes, n stays */
	k = parse_ok(K("ffffffff81000000 T a\n"
		       "ffffffffc0000000 t m1\t[m]\n"
		       "ffffffffc0000100 t n1\t[n]\n"
		       "ffffffffc0000140 t n2\t[n]\n"
		       "ffffffffc0000200 t m2\t[m]\n"
		       "ffffffffc0001000 t o1\t[o]\n"), 4, 2, 1, 2);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0000104ull, &sym), 1);
	ck_assert_str_eq(sym.name, "n1");
	ck_assert_str_eq(sym.module, "n");
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0001004ull, &sym), 1);
	ck_assert_str_eq(sym.module, "o");
	/* m's addresses name nothing: m's map is gone, n's ends where o's
	 * starts and begins at its first symbol */
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0000000ull, &sym), 0);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0000204ull, &sym), 1);
	ck_assert_str_eq(sym.name, "n2");
	pdf_buf_init(&text);
	ck_assert_int_eq(pdf_ksyms_text(k, &text), 0);
	pdf_buf_add(&text, "", 1);
	ck_assert_ptr_null(strstr((const char *)text.data, "[m]"));
	pdf_buf_fini(&text);
	pdf_ksyms_free(k);

	/* interleaved, each amid the other: both go */
	k = parse_ok(K("ffffffff81000000 T a\n"
		       "ffffffffc0000000 t m1\t[m]\n"
		       "ffffffffc0000100 t n1\t[n]\n"
		       "ffffffffc0000200 t m2\t[m]\n"
		       "ffffffffc0000300 t n2\t[n]\n"), 1, 0, 2, 4);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0000100ull, &sym), 0);
	pdf_ksyms_free(k);

	/* amid the kernel: the module goes, the kernel is one map again */
	k = parse_ok(K("ffffffff81000000 T a\n"
		       "ffffffff81000100 t m1\t[m]\n"
		       "ffffffff81000200 T b\n"), 2, 0, 1, 1);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffff81000104ull, &sym), 1);
	ck_assert_str_eq(sym.name, "a");
	ck_assert_ptr_null(sym.module);
	ck_assert_uint_eq(pdf_ksyms_stats(k)->kernel_start, 0xffffffff81000000ull);
	pdf_ksyms_free(k);
	/* one symbol past the kernel's last: still amid its span */
	k = parse_ok(K("ffffffff81000000 T a\n"
		       "ffffffff82000000 D data_end\n"
		       "ffffffff81000100 t m1\t[m]\n"
		       "ffffffffc0000000 t m2\t[m]\n"), 2, 0, 1, 2);
	pdf_ksyms_free(k);

	/* two maps at one address: the modules among them go, the kernel
	 * stays */
	k = parse_ok(K("ffffffff81000000 T a\n"
		       "ffffffffc0000000 t m1\t[m]\n"
		       "ffffffffc0000000 t n1\t[n]\n"
		       "ffffffffc0001000 t o1\t[o]\n"), 2, 1, 2, 2);
	pdf_ksyms_free(k);
	k = parse_ok(K("ffffffff81000000 T a\n"
		       "ffffffff81000000 t m1\t[m]\n"), 1, 0, 1, 1);
	pdf_ksyms_free(k);

	/* a module's aliases (two of its names at one address) are no
	 * overlap, nor are modules side by side */
	k = parse_ok(K("ffffffff81000000 T a\n"
		       "ffffffffc0000000 t m1\t[m]\n"
		       "ffffffffc0000000 t init_module\t[m]\n"
		       "ffffffffc0000010 t n1\t[n]\n"), 4, 2, 0, 0);
	pdf_ksyms_free(k);
}
END_TEST

/* The file of the regression test below (argv[1]). */
static const char *race_path;

/*
 * A real table, of a read racing module loads: Debian 12's 6.1.0-56-amd64
 * (KASLR) under QEMU TCG with 2 vCPUs, /proc/kallsyms read while 40
 * modules were loaded at once as udev loads them at boot, the lines the
 * agent published before it checked the module list (T t W w, _text,
 * _stext, _etext).  Trimmed to the kernel's first 40 and last 15
 * functions with _text, _stext and _etext and 40 others, and for each
 * module the first and last two functions of its core and every line
 * outside its core (.init symbols, listed while a module is still in its
 * init), plus 8 of psmouse's lines listed twice (the read went back by
 * the symbols of a module loaded meanwhile: the list is walked from its
 * head, where a new module goes).  Ten modules were in their init
 * (state Loading) with .init text in holes between other modules; 30
 * were not, ghash_clmulni_intel among them with its .init text next to
 * its core.  As whole, pdfe_ksyms_overlap refused it, every kernel name
 * with it.
 */
START_TEST(ksyms_race_6_1)
{
	static const char *const refused[] = { "autofs4", "binfmt_misc",
		"configfs", "efi_pstore", "fuse", "joydev", "parport", "pcspkr",
		"scsi_mod", "x_tables" };
	const struct pdf_ksyms_stats *st;
	struct pdf_ksyms *k = NULL;
	struct pdf_ksym sym;
	struct pdf_buf text;
	char pat[64];
	char *buf;
	long len;
	unsigned i;
	FILE *f;

	ck_assert_ptr_nonnull(race_path);
	f = fopen(race_path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	ck_assert_int_gt(len, 0);
	rewind(f);
	buf = malloc((size_t)len);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);

	ck_assert_int_eq(pdf_ksyms_parse(&k, buf, (size_t)len), 0);
	st = pdf_ksyms_stats(k);
	ck_assert_uint_eq(st->lines, 334);
	ck_assert_uint_eq(st->dropped, 8);             /* psmouse's repeats */
	ck_assert_uint_eq(st->modules, 30);
	ck_assert_uint_eq(st->modules_refused, 10);
	ck_assert_uint_eq(st->refused, 65);
	ck_assert_uint_eq(st->symbols, 261);
	ck_assert_int_eq(st->have_text, 1);
	ck_assert_uint_eq(st->text, 0xffffffffa5e00000ull);

	/* the kernel named */
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffa6c01d30ull, &sym), 1);
	ck_assert_ptr_null(sym.module);
	/* a module that was loading, its .init text next to its core: kept
	 * whole, .init names too */
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc06cb004ull, &sym), 1);
	ck_assert_str_eq(sym.module, "ghash_clmulni_intel");
	/* psmouse, listed twice in part: once */
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0379074ull, &sym), 1);
	ck_assert_str_eq(sym.name, "fsp_disconnect");
	ck_assert_str_eq(sym.module, "psmouse");
	/* fuse, in its init: its core and its .init text name nothing */
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc03f10f4ull, &sym), 0);
	ck_assert_int_eq(pdf_ksyms_find(k, 0xffffffffc0469058ull, &sym), 0);

	pdf_buf_init(&text);
	ck_assert_int_eq(pdf_ksyms_text(k, &text), 0);
	pdf_buf_add(&text, "", 1);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(pat, sizeof(pat), "\t[%s]\n", refused[i]);
		ck_assert_msg(!strstr((const char *)text.data, pat), "%s kept",
			      refused[i]);
	}
	ck_assert_ptr_nonnull(strstr((const char *)text.data, "\t[psmouse]\n"));
	pdf_buf_fini(&text);
	pdf_ksyms_free(k);
	free(buf);
}
END_TEST

START_TEST(sha256_vectors)
{
	static const uint8_t abc[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
		0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
		0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad };
	static const uint8_t two[32] = {
		0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26,
		0x93, 0x0c, 0x3e, 0x60, 0x39, 0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff,
		0x21, 0x67, 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1 };
	static const char *msg2 =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	struct pdf_sha256 s;
	uint8_t d[32];
	size_t i;

	pdf_sha256_init(&s);
	pdf_sha256_add(&s, "abc", 3);
	pdf_sha256_end(&s, d);
	ck_assert_mem_eq(d, abc, 32);
	pdf_sha256_init(&s); /* in pieces, across a block */
	for (i = 0; i < strlen(msg2); i++)
		pdf_sha256_add(&s, msg2 + i, 1);
	pdf_sha256_end(&s, d);
	ck_assert_mem_eq(d, two, 32);
}
END_TEST

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rs-test-ksyms.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *slurp(const char *path, size_t *len)
{
	char *buf = malloc(1 << 16);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, (1 << 16) - 1);
	ck_assert_int_ge(n, 0);
	close(fd);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

START_TEST(ksyms_cache)
{
	static const uint8_t id[20] = { 0x12, 0x34, 0xab, [19] = 0xff };
	char cache[128], path[256], got[256];
	struct pdf_ksyms *k, *other;
	struct pdf_buf text;
	struct stat st;
	size_t len;
	char *file;
	FILE *f;

	snprintf(cache, sizeof(cache), "%s/cache", dir);
	/* the id's hex: 12 34 ab, 16 zero bytes, ff */
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/1234ab%032dff/kallsyms",
		 cache, 0);
	ck_assert_int_eq(pdf_ksyms_parse(&k, K(good)), 0);
	ck_assert_int_eq(pdf_ksyms_parse(&other, K("ffffffff81000000 T x\n")), 0);
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, sizeof(id), cache), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	file = slurp(path, &len);
	pdf_buf_init(&text);
	ck_assert_int_eq(pdf_ksyms_text(k, &text), 0);
	ck_assert_uint_eq(len, text.len);
	ck_assert_mem_eq(file, text.data, len);
	free(file);
	/* perf's link to the entry, which it reads under --symfs */
	snprintf(path, sizeof(path), "%s/.build-id/12/34ab%032dff", cache, 0);
	len = (size_t)readlink(path, got, sizeof(got) - 1);
	ck_assert_int_gt((ssize_t)len, 0);
	got[len] = 0;
	snprintf(path, sizeof(path), "../../[kernel.kallsyms]/1234ab%032dff", 0);
	ck_assert_str_eq(got, path);
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/1234ab%032dff/kallsyms",
		 cache, 0);
	/* again: the same bytes are there; other bytes are not put there */
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, sizeof(id), cache), 0);
	ck_assert_int_eq(pdf_ksyms_cache_put(other, id, sizeof(id), cache), 1);
	file = slurp(path, &len);
	ck_assert_mem_eq(file, text.data, len);
	free(file);
	pdf_buf_fini(&text);
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, 0, cache), PDF_ERR(pdfe_invalid));
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, 21, cache), PDF_ERR(pdfe_invalid));
	/* a file where a directory goes */
	snprintf(path, sizeof(path), "%s/file", dir);
	f = fopen(path, "w");
	fclose(f);
	ck_assert_int_eq(pdf_ksyms_cache_put(k, id, sizeof(id), path), -ENOTDIR);

	/* where perf looks: perfconfig's buildid.dir, else $HOME/.debug */
	snprintf(path, sizeof(path), "%s/perfconfig", dir);
	f = fopen(path, "w");
	fprintf(f, "[report]\n\tdir = /nowhere\n[buildid]\n\tdir = %s/b # c\n", dir);
	fclose(f);
	setenv("HOME", dir, 1);
	setenv("PERF_CONFIG", path, 1);
	setenv("PERF_BUILDID_DIR", "/ignored", 1);
	ck_assert_int_eq(pdf_cache_perf_dir(got, sizeof(got)), 0);
	snprintf(path, sizeof(path), "%s/b", dir);
	ck_assert_str_eq(got, path);
	setenv("PERF_CONFIG", "/dev/null", 1);
	ck_assert_int_eq(pdf_cache_perf_dir(got, sizeof(got)), 0);
	snprintf(path, sizeof(path), "%s/.debug", dir);
	ck_assert_str_eq(got, path);
	ck_assert_int_eq(pdf_cache_perf_dir(got, 4), -ENAMETOOLONG);
	unsetenv("HOME");
	ck_assert_int_eq(pdf_cache_perf_dir(got, sizeof(got)), -ENOENT);
	pdf_ksyms_free(k);
	pdf_ksyms_free(other);
}
END_TEST

/* The writer: maps first in the data section, the build id chosen. */
static int write_file(const char *path, const char *ks, size_t len,
		      const uint8_t *id, uint32_t id_len, const char *cache,
		      struct pdf_writer_stats *out)
{
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.guest_kallsyms = ks, .guest_kallsyms_len = len,
		.guest_build_id = id, .guest_build_id_len = id_len,
		.buildid_dir = cache,
	};
	_Alignas(8) uint8_t buf[32] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint64_t ip = 0xffffffff81001010ull;
	struct pdf_writer *w;
	int err;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = 24;
	memcpy(h + 1, &ip, 8);
	err = pdf_writer_open(&w, path, &p);
	if (err)
		return err;
	*out = *pdf_writer_stats(w);
	ck_assert_int_eq(pdf_writer_add(w, 0, 5, h), 0);
	return pdf_writer_finish(w);
}

/* The maps of `good`, first in the data section: the kernel, the modules */
static void check_mmaps(int fd, uint64_t at)
{
	static const struct { uint64_t start, len, pgoff; const char *name; } want[] = {
		{ 0xffffffff81000000ull, 0x1001000, 0xffffffff81000000ull,
		  "[kernel.kallsyms]_text" },
		{ 0xffffffffc0100000ull, 0x1000, 0, "[mod_a]" },
		{ 0xffffffffc0201000ull, 0x2000, 0, "[mod_b]" },
	};
	_Alignas(8) uint8_t rec[256];
	struct rs_perf_header *h = (void *)rec;
	uint64_t v[4];
	unsigned i;

	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(pread(fd, rec, sizeof(rec), (off_t)at), sizeof(rec));
		ck_assert_uint_eq(h->type, PERF_RECORD_MMAP);
		ck_assert_uint_eq(h->misc, PERF_RECORD_MISC_KERNEL);
		memcpy(v, h + 1, sizeof(v));
		ck_assert_uint_eq(v[0], 0xffffffffull);   /* pid -1, tid 0 */
		ck_assert_uint_eq(v[1], want[i].start);
		ck_assert_uint_eq(v[2], want[i].len);
		ck_assert_uint_eq(v[3], want[i].pgoff);
		ck_assert_str_eq((const char *)(h + 1) + 32, want[i].name);
		at += h->size;
	}
}

/* HEADER_BUILD_ID, the first feature: one entry as perf writes it */
static void check_build_id_feature(const char *path, const uint8_t *id)
{
	struct pdf_file_header hdr;
	struct pdf_section sec;
	uint8_t e[100];
	int32_t pid;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &hdr, sizeof(hdr), 0), sizeof(hdr));
	ck_assert_uint_eq(hdr.features[0] & (1u << PDF_FEAT_BUILD_ID),
			  1u << PDF_FEAT_BUILD_ID);
	ck_assert_int_eq(pread(fd, &sec, sizeof(sec),
			       (off_t)(hdr.data.offset + hdr.data.size)),
			 sizeof(sec));
	ck_assert_uint_eq(sec.size, sizeof(e));
	ck_assert_int_eq(pread(fd, e, sizeof(e), (off_t)sec.offset), sizeof(e));
	check_mmaps(fd, hdr.data.offset);
	close(fd);
	ck_assert_uint_eq(e[4] | e[5] << 8, PERF_RECORD_MISC_KERNEL | 1u << 15);
	ck_assert_uint_eq(e[6] | e[7] << 8, sizeof(e));
	memcpy(&pid, e + 8, 4);
	ck_assert_int_eq(pid, -1);
	ck_assert_mem_eq(e + 12, id, 20);
	ck_assert_uint_eq(e[32], 20);              /* the id's size */
	ck_assert_str_eq((const char *)e + 36, "[kernel.kallsyms]");
}

START_TEST(ksyms_writer)
{
	static const uint8_t guest[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					   13, 14, 15, 16, 17, 18, 19, 20 };
	uint8_t content[PDF_BUILD_ID_SIZE], host[PDF_BUILD_ID_SIZE];
	char path[128], cache[128];
	struct pdf_writer_stats st;
	struct pdf_reader *r;
	struct pdf_event ev;
	struct pdf_ksyms *k;
	size_t host_len;

	snprintf(path, sizeof(path), "%s/f.data", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	ck_assert_int_eq(pdf_ksyms_parse(&k, K(good)), 0);
	ck_assert_int_eq(pdf_ksyms_content_id(k, content), 0);
	pdf_ksyms_free(k);

	/* no build id from the guest: the content's */
	ck_assert_int_eq(write_file(path, K(good), NULL, 0, cache, &st), 0);
	ck_assert_int_eq(st.ksyms_err, 0);
	ck_assert_uint_eq(st.build_id_len, 20);
	ck_assert_mem_eq(st.build_id, content, 20);
	check_build_id_feature(path, content);
	/* the ring records read back; the 3 MMAPs are perf's, skipped */
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
	ck_assert_uint_eq(ev.rec->type, PERF_RECORD_SAMPLE);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	ck_assert_uint_eq(pdf_reader_skipped(r), 3);
	pdf_reader_close(r);

	/* never the guest's own (a reader running that kernel would take its
	 * own /proc/kallsyms): the content's, for other symbols another */
	ck_assert_int_eq(write_file(path, K(good), guest, 20, cache, &st), 0);
	ck_assert_int_eq(st.ksyms_err, 0);
	ck_assert_mem_eq(st.build_id, content, 20);
	check_build_id_feature(path, content);
	ck_assert_int_eq(write_file(path, K("ffffffff81000000 T x\n"), guest, 20,
				    cache, &st), 0);
	ck_assert_int_eq(st.ksyms_err, 0);
	ck_assert_int_ne(memcmp(st.build_id, guest, 20), 0);
	ck_assert_int_ne(memcmp(st.build_id, content, 20), 0);

	/* the host kernel's id is never taken from a guest */
	host_len = pdf_buildid_host(host);
	if (host_len) {
		ck_assert_int_eq(write_file(path, K(good), host,
					    (uint32_t)host_len, cache, &st), 0);
		ck_assert_mem_eq(st.build_id, content, 20);
	}

	/* refused symbols: the file is written without them */
	ck_assert_int_eq(write_file(path, K("0 T x\n"), NULL, 0, cache, &st), 0);
	ck_assert_int_eq(st.ksyms_err, PDF_ERR(pdfe_ksyms_range));
	ck_assert_uint_eq(st.build_id_len, 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 1);
	ck_assert_int_eq(pdf_reader_next(r, &ev), 0);
	ck_assert_uint_eq(pdf_reader_skipped(r), 0);
	pdf_reader_close(r);

	/* a cache that cannot be written: the file still is */
	snprintf(cache, sizeof(cache), "%s/f.data", dir);
	ck_assert_int_eq(write_file(path, K(good), NULL, 0, cache, &st), 0);
	ck_assert_int_eq(st.ksyms_err, -ENOTDIR);
	ck_assert_uint_eq(st.build_id_len, 20);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("pdf_ksyms");
	TCase *tc = tcase_create("ksyms");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	race_path = argc > 1 ? argv[1] : NULL;
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ksyms_good);
	tcase_add_test(tc, ksyms_content_id);
	tcase_add_test(tc, ksyms_hostile);
	tcase_add_test(tc, ksyms_bounds);
	tcase_add_test(tc, ksyms_too_big);
	tcase_add_test(tc, ksyms_overlap);
	tcase_add_test(tc, ksyms_race_6_1);
	tcase_add_test(tc, sha256_vectors);
	tcase_add_test(tc, ksyms_cache);
	tcase_add_test(tc, ksyms_writer);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
