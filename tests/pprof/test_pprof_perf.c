/* SPDX-License-Identifier: MIT */
/*
 * `ringside report FILE --pprof OUT` judged by two readers of the same
 * file: a guest file written with ringside-perfdata (a made-up guest
 * kallsyms with a module, a guest user binary known only by its published
 * symbols, COMM and MMAP2 records, samples with call chains through
 * kernel and user code), then `go tool pprof -top` of the profile and
 * `perf report` of the file must list the same functions with the same
 * sample counts, both equal to what the test put there; `go tool pprof
 * -tags` must count the labels as written.  Everything is read from
 * ringside's build-id cache beside the file (`perf --buildid-dir`; a
 * temporary $HOME for perf's own): the names exist nowhere else.
 * argv[1]: the ringside command.  Exit 77 (skipped) when perf or go is
 * missing (scripts/setup.sh installs both).
 */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <check.h>

#include <linux/perf_event.h>

#include "ringside/perfdata.h"

#define KBASE     UINT64_C(0xffffffff9e200000)
#define MODBASE   UINT64_C(0xffffffffc0a10000)
#define NR_CORE   120u
#define NR_MFN    12u
#define NR_KFN    (NR_CORE + NR_MFN)
#define NR_UFN    16u
#define NR_SAMPLES 3000u
#define PERIOD    250000u              /* ns: 4 kHz */
#define UBASE     UINT64_C(0x55d0c0de0000)
#define UPATH     "/usr/lib/rs-guest-only/rs-app"
#define GUEST_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct fn {
	uint64_t start, size;
	char name[32];
	unsigned self;          /* samples whose ip is in it */
};

static struct fn kfns[NR_KFN], ufns[NR_UFN];
static unsigned comm_app, comm_kthread, vcpu_hits[2];
static const char *ringside;
static char dir[64], file[128], prof[128];

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void make_tables(void)
{
	uint64_t at = KBASE + 0x1000;
	uint32_t seed = 3;
	unsigned i;

	memset(kfns, 0, sizeof(kfns));
	memset(ufns, 0, sizeof(ufns));
	for (i = 0; i < NR_KFN; i++) {
		if (i == NR_CORE)
			at = MODBASE;
		kfns[i].start = at;
		kfns[i].size = 0x40 + (lcg(&seed) % 32) * 0x10;
		if (i < NR_CORE)
			snprintf(kfns[i].name, sizeof(kfns[i].name), "rs_kfn_%03u", i);
		else
			snprintf(kfns[i].name, sizeof(kfns[i].name), "rs_mod_fn_%02u",
				 i - NR_CORE);
		at += kfns[i].size;
	}
	for (i = 0; i < NR_UFN; i++) {
		ufns[i].start = 0x1100 + i * 0x100u;   /* vaddr in the binary */
		ufns[i].size = 0x100;
		snprintf(ufns[i].name, sizeof(ufns[i].name), "rs_ufn_%02u", i);
	}
}

static size_t make_kallsyms(char *s)
{
	size_t len = 0;
	unsigned i;

	len += (size_t)sprintf(s + len, "%016" PRIx64 " T _text\n", KBASE);
	for (i = 0; i < NR_KFN; i++) {
		len += (size_t)sprintf(s + len, "%016" PRIx64 " %c %s%s\n",
				       kfns[i].start, i % 2 ? 't' : 'T',
				       kfns[i].name, i < NR_CORE ? "" : "\t[rs_mod]");
		/* aliases, as a kernel has them (several names at one
		 * address): perf names the samples after one of them */
		if (i % 10 == 3)
			len += (size_t)sprintf(s + len, "%016" PRIx64 " %c %s%s%s\n",
					       kfns[i].start, "tTwW"[i / 10 % 4],
					       i / 10 % 3 ? "__" : "z",
					       kfns[i].name,
					       i < NR_CORE ? "" : "\t[rs_mod]");
	}
	return len;
}

static void make_bin(struct pdf_ubin *b, struct pdf_usym *syms, char *names)
{
	uint32_t i, at = 0;

	memset(b, 0, sizeof(*b));
	b->e_type = ET_DYN;
	b->e_machine = EM_X86_64;
	b->build_id_len = 20;
	for (i = 0; i < 20; i++)
		b->build_id[i] = (uint8_t)(0x5a + i);
	b->nr_loads = 2;
	b->loads[0] = (struct pdf_uload){ 0, 0, 0x800, 0x800, PF_R };
	b->loads[1] = (struct pdf_uload){ 0x1000, 0x1000, 0x3000, 0x3000,
					  PF_R | PF_X };
	b->text_addr = 0x1100;
	b->text_offset = 0x1100;
	b->text_size = NR_UFN * 0x100;
	for (i = 0; i < NR_UFN; i++) {
		syms[i].value = ufns[i].start;
		syms[i].size = (uint32_t)ufns[i].size;
		syms[i].name = at;
		at += (uint32_t)sprintf(names + at, "%s", ufns[i].name) + 1;
	}
	b->nr_syms = NR_UFN;
	b->syms = syms;
	b->names = names;
	b->names_len = at;
	b->path = UPATH;
}

static void add_comm(struct pdf_writer *w, uint32_t pid, const char *name)
{
	_Alignas(8) uint8_t buf[64] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint8_t *p = (uint8_t *)(h + 1);

	h->type = PERF_RECORD_COMM;
	h->misc = PERF_RECORD_MISC_USER;
	memcpy(p, &pid, 4);
	memcpy(p + 4, &pid, 4);
	strcpy((char *)p + 8, name);
	h->size = (uint16_t)(sizeof(*h) + 8 + ((strlen(name) + 1 + 7) & ~7u));
	ck_assert_int_eq(pdf_writer_add(w, 0, 500, h), 0);
}

static void add_mmap2(struct pdf_writer *w, const struct pdf_ubin *b)
{
	_Alignas(8) uint8_t buf[256] = { 0 };
	struct rs_perf_header *h = (void *)buf;
	uint8_t *p = (uint8_t *)(h + 1);
	uint32_t pid = 1000, prot = PROT_READ | PROT_EXEC, flags = MAP_PRIVATE;
	uint64_t addr = UBASE + 0x1000, len = 0x3000, pgoff = 0x1000;

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
	memcpy(p + 64, UPATH, sizeof(UPATH));
	h->size = (uint16_t)(sizeof(*h) + 64 + ((sizeof(UPATH) + 7) & ~7u));
	ck_assert_int_eq(pdf_writer_add(w, 0, 1000, h), 0);
}

static uint64_t kaddr(unsigned f, uint32_t *seed)
{
	return kfns[f].start + lcg(seed) % kfns[f].size;
}

static uint64_t uaddr(unsigned f, uint32_t *seed)
{
	return UBASE + ufns[f].start + lcg(seed) % ufns[f].size;
}

/* Three kinds of sample: the app in the kernel (a syscall from user
 * code), the app in user code, a kernel thread; the first kernel sample
 * in the kernel proper (perf names no module before it). */
static void add_samples(struct pdf_writer *w)
{
	uint32_t seed = 11;
	unsigned i;

	for (i = 0; i < NR_SAMPLES; i++) {
		_Alignas(8) uint8_t buf[128] = { 0 };
		struct rs_perf_header *h = (void *)buf;
		uint64_t *b = (uint64_t *)(h + 1), *cc = b + 5;
		unsigned kind = i % 3, nr = 0, f, g, ring = (i / 7) % 2;
		uint32_t pid = kind == 2 ? 1001 : 1000;

		if (kind == 1) {
			f = lcg(&seed) % NR_UFN;
			g = lcg(&seed) % NR_UFN;
			ufns[f].self++;
			h->misc = PERF_RECORD_MISC_USER;
			b[0] = uaddr(f, &seed);
			cc[nr++] = PERF_CONTEXT_USER;
			cc[nr++] = b[0];
			cc[nr++] = uaddr(g, &seed);
		} else {
			f = i ? lcg(&seed) % NR_KFN : 0;
			g = lcg(&seed) % NR_CORE;
			kfns[f].self++;
			h->misc = PERF_RECORD_MISC_KERNEL;
			b[0] = kaddr(f, &seed);
			cc[nr++] = PERF_CONTEXT_KERNEL;
			cc[nr++] = b[0];
			cc[nr++] = kaddr(g, &seed);
			if (kind == 0) {
				cc[nr++] = PERF_CONTEXT_USER;
				cc[nr++] = uaddr(lcg(&seed) % NR_UFN, &seed);
			}
		}
		if (pid == 1000)
			comm_app++;
		else
			comm_kthread++;
		vcpu_hits[ring]++;
		h->type = PERF_RECORD_SAMPLE;
		b[1] = (uint64_t)pid << 32 | pid;
		b[2] = 2000000 + i * 1000ull;
		b[3] = PERIOD;
		b[4] = nr;
		h->size = (uint16_t)(sizeof(*h) + (5 + nr) * 8);
		ck_assert_int_eq(pdf_writer_add(w, ring, b[2], h), 0);
	}
}

static void write_guest_file(void)
{
	static const uint8_t id[20] = { 0xc0, 0xff, 0xee, 1, 2, 3, 4, 5, 6, 7,
					8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };
	static const struct pdf_guest_facts guest = {
		.known = 1, .sample_type_id = PERF_TYPE_SOFTWARE,
		.sample_config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = PERIOD, .arch = "x86_64",
		.os_release = "6.1.0-test",
	};
	static char ks[1 << 15], names[NR_UFN * 16];
	static struct pdf_usym syms[NR_UFN];
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 2, .sample_type = GUEST_TYPE,
		.guest_kallsyms = ks, .guest_build_id = id,
		.guest_build_id_len = sizeof(id), .guest = &guest,
	};
	const struct pdf_writer_stats *st;
	struct pdf_writer *w;
	struct pdf_ubin b;

	make_tables();
	p.guest_kallsyms_len = make_kallsyms(ks);
	make_bin(&b, syms, names);
	ck_assert_int_eq(pdf_writer_open(&w, file, &p), 0);
	st = pdf_writer_stats(w);
	ck_assert_int_eq(st->ksyms_err, 0);
	add_comm(w, 1000, "rs-app");
	add_comm(w, 1001, "kworker/0:1");
	add_mmap2(w, &b);
	ck_assert_int_eq(pdf_writer_add_ubins(w, &b, 1), 1);
	add_samples(w);
	ck_assert_uint_eq(st->frames_trimmed, 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
}

static void setup(void)
{
	char cfg[128];
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/rs-test-pprof-perf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/guest.data", dir);
	snprintf(prof, sizeof(prof), "%s/guest.pb.gz", dir);
	snprintf(cfg, sizeof(cfg), "%s/perfconfig", dir);
	f = fopen(cfg, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	setenv("HOME", dir, 1);
	setenv("PERF_CONFIG", cfg, 1);
	unsetenv("PERF_BUILDID_DIR");
	unsetenv("PPROF_BINARY_PATH");
	comm_app = comm_kthread = 0;
	vcpu_hits[0] = vcpu_hits[1] = 0;
	write_guest_file();
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* What a function's name says it should have (an alias's too). */
static const struct fn *fn_named(const char *name)
{
	unsigned i;

	if (name[0] == 'z')
		name++;
	else if (!strncmp(name, "__", 2))
		name += 2;

	for (i = 0; i < NR_KFN; i++)
		if (!strcmp(kfns[i].name, name))
			return &kfns[i];
	for (i = 0; i < NR_UFN; i++)
		if (!strcmp(ufns[i].name, name))
			return &ufns[i];
	return NULL;
}

struct row {
	char name[64];
	unsigned n;
	int kernel;
};

/* `perf report`, self samples per symbol: "  1.23%  37  [k] name". */
static unsigned perf_rows(struct row *rows, unsigned max)
{
	char cmd[512], line[1024], mode;
	unsigned nr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf --buildid-dir '%s/" PDF_CACHE_NAME
		 "' report -i '%s' --stdio --no-children -n --sort sym -g none "
		 "2>&1", dir, file);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		struct row r = { 0 };
		double pct;

		ck_assert_msg(!strstr(line, "No kallsyms"), "perf: %s", line);
		if (sscanf(line, " %lf%% %u [%c] %63s", &pct, &r.n, &mode,
			   r.name) != 4)
			continue;
		r.kernel = mode == 'k';
		ck_assert_uint_lt(nr, max);
		rows[nr++] = r;
	}
	ck_assert_int_eq(pclose(p), 0);
	return nr;
}

/* `go tool pprof -top`: "  37  1.23%  1.23%  74  2.47%  name" (flat first). */
static unsigned pprof_rows(struct row *rows, unsigned max)
{
	char cmd[512], line[1024];
	unsigned nr = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "go tool pprof -top -sample_index=samples "
		 "-nodecount=100000 -nodefraction=0 '%s' 2>&1", prof);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		struct row r = { 0 };
		double pct, sum, cpct;
		unsigned cum;

		if (sscanf(line, " %u %lf%% %lf%% %u %lf%% %63s", &r.n, &pct, &sum,
			   &cum, &cpct, r.name) != 6 || !r.n)
			continue;
		ck_assert_uint_lt(nr, max);
		rows[nr++] = r;
	}
	ck_assert_int_eq(pclose(p), 0);
	return nr;
}

static const struct row *row_named(const struct row *rows, unsigned nr,
				   const char *name)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->name, y->name);
}

START_TEST(pprof_top_is_perf_report)
{
	static struct row pr[512], gr[512];
	unsigned npr, ngr, i, kernel = 0, user = 0, top, aliases = 0;
	char cmd[512], line[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' report '%s' --pprof '%s' --domain rs-dom",
		 ringside, file, prof);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
	printf("ringside: %s", line);
	/* every frame named: the user binary's and the kernel's */
	ck_assert_msg(strstr(line, " 3000 samples,") &&
		      strstr(line, "kernel 0 of") && strstr(line, "user 0 of"),
		      "%s", line);
	ck_assert_int_eq(pclose(p), 0);

	npr = perf_rows(pr, 512);
	ngr = pprof_rows(gr, 512);
	qsort(pr, npr, sizeof(pr[0]), row_cmp);
	/* every function perf lists, with its count, in pprof's top; each
	 * the count the test put there */
	for (i = 0; i < npr; i++) {
		const struct row *g = row_named(gr, ngr, pr[i].name);
		const struct fn *f = fn_named(pr[i].name);

		ck_assert_msg(f, "perf names %s, not the test's", pr[i].name);
		ck_assert_msg(g, "perf's %s (%u samples) not in pprof -top",
			      pr[i].name, pr[i].n);
		ck_assert_msg(g->n == pr[i].n, "%s: perf %u, pprof %u", pr[i].name,
			      pr[i].n, g->n);
		ck_assert_uint_eq(pr[i].n, f->self);
		aliases += strcmp(pr[i].name, f->name) != 0;
		if (pr[i].kernel)
			kernel += pr[i].n;
		else
			user += pr[i].n;
	}
	/* and nothing else in pprof's */
	for (i = 0; i < ngr; i++)
		ck_assert_msg(row_named(pr, npr, gr[i].name), "pprof's %s (%u) "
			      "not in perf report", gr[i].name, gr[i].n);
	ck_assert_uint_eq(kernel, NR_SAMPLES / 3 * 2);
	/* functions with aliases named by one of them, the same one */
	printf("functions named by an alias: %u\n", aliases);
	ck_assert_uint_ge(aliases, 3);
	ck_assert_uint_eq(user, NR_SAMPLES / 3);
	/* the top ten kernel functions, in perf's order, as pprof counts them */
	for (i = 0, top = 0; i < npr && top < 10; i++)
		if (pr[i].kernel) {
			printf("top %2u: %-14s perf %3u pprof %3u\n", top + 1,
			       pr[i].name, pr[i].n,
			       row_named(gr, ngr, pr[i].name)->n);
			top++;
		}
	ck_assert_uint_eq(top, 10);
}
END_TEST

static unsigned check(unsigned got, unsigned want, unsigned bit)
{
	ck_assert_uint_eq(got, want);
	return bit;
}

/* The labels, as `go tool pprof -tags` counts them. */
START_TEST(pprof_labels)
{
	char cmd[512], line[1024], key[64] = "", k[64], val[128];
	unsigned n, seen = 0;
	double count, pct;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' report '%s' --pprof '%s' --domain rs-dom "
		 ">/dev/null && go tool pprof -tags -sample_index=samples '%s' 2>&1",
		 ringside, file, prof, prof);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	/* " comm: Total 3000.0", then "  2000.0 (66.67%): rs-app" */
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %63[^:]: Total %lf", k, &count) == 2) {
			ck_assert_msg(count == NR_SAMPLES, "%s", line);
			memcpy(key, k, sizeof(key));
			continue;
		}
		if (sscanf(line, " %lf (%lf%%): %127s", &count, &pct, val) != 3)
			continue;
		n = (unsigned)count;
		if (!strcmp(key, "comm") && !strcmp(val, "rs-app"))
			seen |= check(n, comm_app, 1);
		else if (!strcmp(key, "comm") && !strcmp(val, "kworker/0:1"))
			seen |= check(n, comm_kthread, 2);
		else if (!strcmp(key, "domain") && !strcmp(val, "rs-dom"))
			seen |= check(n, NR_SAMPLES, 4);
		else if (!strcmp(key, "vcpu") && !strcmp(val, "0"))
			seen |= check(n, vcpu_hits[0], 8);
		else if (!strcmp(key, "vcpu") && !strcmp(val, "1"))
			seen |= check(n, vcpu_hits[1], 16);
		else if (!strcmp(key, "pid") && !strcmp(val, "1001"))
			seen |= check(n, comm_kthread, 32);
		else if (!strcmp(key, "tid") && !strcmp(val, "1000"))
			seen |= check(n, comm_app, 64);
	}
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_msg(seen == 127, "labels seen: %#x", seen);
}
END_TEST

/* The cpu value: each sample's period, in ns. */
START_TEST(pprof_cpu_ns)
{
	char cmd[512], line[1024];
	double total = 0;
	int found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' report '%s' --pprof '%s' >/dev/null && "
		 "go tool pprof -top -sample_index=cpu -unit=ns '%s' 2>&1",
		 ringside, file, prof, prof);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "Showing nodes accounting for %*s %*s of %lfns total",
			   &total) == 1)
			found = 1;
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_int_eq(found, 1);
	ck_assert_msg(total == (double)NR_SAMPLES * PERIOD, "total %.0f ns", total);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("pprof_perf");
	TCase *tc = tcase_create("readers");
	SRunner *sr;
	int failed;

	if (argc < 2)
		return 2;
	ringside = argv[1];
	if (system("perf --version >/dev/null 2>&1") ||
	    system("go version >/dev/null 2>&1"))
		return 77;
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pprof_top_is_perf_report);
	tcase_add_test(tc, pprof_labels);
	tcase_add_test(tc, pprof_cpu_ns);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
