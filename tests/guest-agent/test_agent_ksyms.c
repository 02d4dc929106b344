/* SPDX-License-Identifier: MIT */
/*
 * The kernel's symbols from the guest's agent (guest-agent/linux/ksyms.c)
 * to the host's checks (introspect's gi_syms, pdf_ksyms_parse): a table read
 * while modules load is published consistent (module lines held against
 * the module list read before, in the module's core), and read again while
 * the list is not settled or changed under the read; kptr_restrict lowered
 * for the opens alone and put back.  Files stand in for /proc and /sys:
 * regular ones, and a FIFO where the test must act amid the read.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../guest-agent/linux/agent.h"
#include "ringside/introspect.h"

#define SB_PAGES 1024u

static void *mem;
static uint64_t mem_size;
static struct rs_region region;
static char dir[64];
/* the real table's files (argv[1..3]) */
static const char *real_kallsyms, *real_modules, *real_sys;

static void setup(void)
{
	struct rs_region_params p;

	ck_assert_int_eq(rs_region_params_init(&p, 1, 4, 0, RS_MODE_NORMAL,
					       RS_MODE_NORMAL), 0);
	p.sideband_pages = SB_PAGES;
	ck_assert_int_eq(rs_region_size(&p, &mem_size), 0);
	mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_int_eq(rs_region_layout(mem, mem_size, &p), 0);
	ck_assert_int_eq(rs_region_open(&region, mem, mem_size), 0);
	snprintf(dir, sizeof(dir), "/tmp/rs-agent-ksyms.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	munmap(mem, mem_size);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The files that stand in for /proc and /sys, in the test's directory. */
static char pk[PATH_MAX], pn[PATH_MAX], pr[PATH_MAX], pm[PATH_MAX],
	    ps[PATH_MAX];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static char *get(const char *path)
{
	static char buf[64];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* /sys/module/NAME/{coresize,initsize} under @sys. */
static void sys_module(const char *sys, const char *name, long core, long init)
{
	char p[PATH_MAX], v[32];

	snprintf(p, sizeof(p), "%s/%s", sys, name);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/coresize", sys, name);
	snprintf(v, sizeof(v), "%ld\n", core);
	put(p, v);
	snprintf(p, sizeof(p), "%s/%s/initsize", sys, name);
	snprintf(v, sizeof(v), "%ld\n", init);
	put(p, v);
}

static struct agent_ksyms_paths paths_in_dir(void)
{
	struct agent_ksyms_paths p = {
		.kallsyms = pk, .notes = pn /* absent */, .kptr_restrict = pr,
		.modules = pm, .sys_module = ps, .retry_ms = 0,
	};

	snprintf(pk, sizeof(pk), "%s/kallsyms", dir);
	snprintf(pn, sizeof(pn), "%s/notes", dir);
	snprintf(pr, sizeof(pr), "%s/kptr_restrict", dir);
	snprintf(pm, sizeof(pm), "%s/modules", dir);
	snprintf(ps, sizeof(ps), "%s/sys", dir);
	put(pr, "0\n");
	mkdir(ps, 0755);
	return p;
}

/* What the sideband holds now, NUL-terminated, and the host's word. */
static char *published(struct gi_syms *g)
{
	char *text;

	memset(g, 0, sizeof(*g));
	ck_assert_int_eq(gi_syms_read(g, &region, 0), 0);
	ck_assert_int_eq(g->state, GI_SYMS_OK);
	text = malloc(g->info.length + 1);
	ck_assert_ptr_nonnull(text);
	memcpy(text, g->text, g->info.length);
	text[g->info.length] = '\0';
	return text;
}

/*
 * The real table: Debian 12's 6.1.0-56-amd64 under QEMU TCG (2 vCPUs), a
 * busybox init loading 40 modules at once as udev does at boot, and one
 * of its reads (a reader looping: /proc/modules, each listed module's
 * /sys/module/NAME/{coresize,initsize}, /proc/kallsyms, /proc/modules
 * again).  The modules file is that read's, as it was: 19 lines, 10 of
 * them listed twice, because modules went in at the list's head between
 * two read()s of it (scsi_common Loading in the first part, Live in the
 * second); evdev and floppy were Loading, with .init text.  kallsyms is
 * trimmed (the kernel's first 30 lines, its first 20 and last 10
 * functions, _text _stext _etext, 40 others; per module the first and
 * last two functions of its core, its first other line, every function
 * outside its core): it lists 60 modules, loaded meanwhile, two of them
 * (ata_piix, aesni_intel) with .init text amid other modules, which cost
 * the whole table on the host before.  Published as read, the host
 * refuses those two modules; the agent keeps what the list before the
 * read vouches for.
 */
START_TEST(real_6_1_load)
{
	struct agent_ksyms_paths p;
	struct agent_ksyms res;
	char cmd[3 * PATH_MAX], name[64], *text;
	long core, init;
	struct gi_syms g;
	FILE *f;

	ck_assert_ptr_nonnull(real_sys);
	p = paths_in_dir();
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && cp '%s' '%s'",
		 real_kallsyms, p.kallsyms, real_modules, p.modules);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(real_sys, "r");
	ck_assert_ptr_nonnull(f);
	while (fscanf(f, "%63s %ld %ld", name, &core, &init) == 3)
		sys_module(p.sys_module, name, core, init);
	fclose(f);

	ck_assert_int_eq(agent_ksyms_publish(&region, &p, 0, &res), 0);
	/* never settled (the same files each time): every read made */
	ck_assert_uint_eq(res.tries, AGENT_KSYMS_TRIES);
	ck_assert_uint_eq(res.lines, 407);
	ck_assert_uint_eq(res.kept, 90);
	ck_assert_uint_eq(res.mod_dropped, 200);
	ck_assert_uint_eq(res.modules, 19);
	ck_assert_uint_eq(res.unsettled, 5);   /* evdev, floppy twice, scsi_common */
	ck_assert_int_eq(res.modules_err, 0);
	ck_assert_uint_eq(res.zero_addrs, 0);
	ck_assert_int_eq(res.build_id_err, -ENOENT);

	text = published(&g);
	ck_assert_uint_eq(g.functions, 90);
	ck_assert_uint_eq(g.modules, 9);
	ck_assert_uint_eq(g.modules_refused, 0);
	/* no .init symbol went out: neither evdev's nor the racing ones' */
	ck_assert_ptr_null(strstr(text, "init_module"));
	ck_assert_ptr_null(strstr(text, "[ata_piix]"));
	ck_assert_ptr_null(strstr(text, "[aesni_intel]"));
	ck_assert_ptr_nonnull(strstr(text, "\t[evdev]\n"));
	ck_assert_ptr_nonnull(strstr(text, " T _text\n"));
	free(text);
	gi_syms_fini(&g);
}
END_TEST

/* The rules one by one: a module whose init memory is not yet freed
 * (Live, initsize not 0), one going away, one not listed. */
START_TEST(module_rules)
{
	static const char ksyms[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t start_kernel\n"
		"ffffffff81200000 r some_rodata\n"
		"ffffffffc0010000 t a_fn\t[a]\n"
		"ffffffffc0013ff0 t a_last\t[a]\n"
		"ffffffffc0012000 d a_data\t[a]\n"
		"ffffffffc0020000 t b_fn\t[b]\n"
		"ffffffffc0025000 t b_init\t[b]\n"      /* in size, not in core */
		"ffffffffc0025000 t init_module\t[b]\n"
		"ffffffffc0030000 t c_fn\t[c]\n"        /* Unloading */
		"ffffffffc0040000 t d_fn\t[d]\n";       /* not listed */
	static const char want[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t start_kernel\n"
		"ffffffffc0010000 t a_fn\t[a]\n"
		"ffffffffc0013ff0 t a_last\t[a]\n"
		"ffffffffc0020000 t b_fn\t[b]\n";
	struct agent_ksyms_paths p = paths_in_dir();
	struct agent_ksyms res;
	struct gi_syms g;
	char *text;

	put(p.kallsyms, ksyms);
	put(p.modules,
	    "a 16384 0 - Live 0xffffffffc0010000\n"
	    "b 24576 0 - Live 0xffffffffc0020000\n"
	    "c 16384 0 - Unloading 0xffffffffc0030000 (OE)\n");
	sys_module(p.sys_module, "a", 16384, 0);
	sys_module(p.sys_module, "b", 16384, 8192);
	ck_assert_int_eq(agent_ksyms_publish(&region, &p, 0, &res), 0);
	ck_assert_uint_eq(res.tries, AGENT_KSYMS_TRIES);
	ck_assert_uint_eq(res.modules, 3);
	ck_assert_uint_eq(res.unsettled, 2);
	ck_assert_uint_eq(res.mod_dropped, 4);
	ck_assert_uint_eq(res.kept, 5);
	text = published(&g);
	ck_assert_str_eq(text, want);
	free(text);
	gi_syms_fini(&g);

	/* settled: one read; without /sys/module the size of
	 * /proc/modules bounds the core */
	put(p.kallsyms, want);
	put(p.modules,
	    "b 16384 0 - Live 0xffffffffc0020000\n"
	    "a 16384 1 b, Live 0xffffffffc0010000\n");
	p.sys_module = NULL;
	ck_assert_int_eq(agent_ksyms_publish(&region, &p, 0, &res), 0);
	ck_assert_uint_eq(res.tries, 1);
	ck_assert_uint_eq(res.unsettled, 0);
	ck_assert_uint_eq(res.mod_dropped, 0);
	text = published(&g);
	ck_assert_str_eq(text, want);
	free(text);
	gi_syms_fini(&g);

	/* no /proc/modules (a kernel without modules): nothing held
	 * against, one read */
	unlink(p.modules);
	ck_assert_int_eq(agent_ksyms_publish(&region, &p, 0, &res), 0);
	ck_assert_uint_eq(res.tries, 1);
	ck_assert_int_eq(res.modules_err, -ENOENT);
	ck_assert_uint_eq(res.kept, 5);
}
END_TEST

/* kptr_restrict 2: lowered for the opens, put back; zeros (another
 * agent put it back before this one opened) read again, then left out. */
START_TEST(kptr_zeros)
{
	struct agent_ksyms_paths p = paths_in_dir();
	struct agent_ksyms res;

	put(p.kptr_restrict, "2\n");
	put(p.kallsyms, "0000000000000000 T _text\n"
			"0000000000000000 t start_kernel\n");
	unlink(p.modules);
	ck_assert_int_eq(agent_ksyms_publish(&region, &p, 0, &res), 0);
	ck_assert_uint_eq(res.tries, AGENT_KSYMS_TRIES);
	ck_assert_uint_eq(res.zero_addrs, 2);
	ck_assert_uint_eq(res.kept, 0);
	ck_assert_int_eq(res.kptr_restrict, 2);
	ck_assert_int_eq(res.kptr_lowered, 1);
	ck_assert_str_eq(get(p.kptr_restrict), "2\n");

	/* kallsyms missing: the error, and kptr_restrict put back */
	unlink(p.kallsyms);
	ck_assert_int_eq(agent_ksyms_publish(&region, &p, 0, &res), -ENOENT);
	ck_assert_str_eq(get(p.kptr_restrict), "2\n");
}
END_TEST

/* A FIFO for kallsyms, so the test acts amid the agent's read: during
 * the first read /proc/modules changes (a module goes in), and kallsyms
 * becomes a regular file of the same text for the reads after.  The text
 * is larger than the pipe: the writer's write() returns only once the
 * agent is reading it, after its first read of the module list and
 * before its second. */
struct feeder {
	const char *fifo, *modules;
	char *text, next[80];
	size_t len;
};

static void *feed(void *arg)
{
	struct feeder *fd = arg;
	int w = open(fd->fifo, O_WRONLY | O_CLOEXEC);
	size_t off = 0;
	FILE *f;

	if (w < 0)
		return NULL;
	while (off < fd->len) {
		ssize_t n = write(w, fd->text + off, fd->len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	put(fd->modules, "n 16384 0 - Live 0xffffffffc0030000\n"
			 "a 16384 0 - Live 0xffffffffc0010000\n");
	f = fopen(fd->next, "w");
	if (f) {
		fwrite(fd->text, 1, fd->len, f);
		fclose(f);
		rename(fd->next, fd->fifo);
	}
	close(w);
	return NULL;
}

START_TEST(changed_during_read)
{
	struct agent_ksyms_paths p = paths_in_dir();
	struct feeder fd = { 0 };
	struct agent_ksyms res;
	struct stat st;
	pthread_t t;
	size_t cap = 1u << 20, len = 0;
	unsigned i;
	int r;

	/* > 4 pipes' worth of kernel functions, and one of a's */
	fd.text = malloc(cap);
	ck_assert_ptr_nonnull(fd.text);
	len += (size_t)sprintf(fd.text, "ffffffff81000000 T _text\n");
	for (i = 0; len < 600000; i++)
		len += (size_t)sprintf(fd.text + len,
				       "ffffffff81%06x t f%u\n", 16 + i * 16, i);
	len += (size_t)sprintf(fd.text + len,
			       "ffffffffc0010000 t a_fn\t[a]\n");
	fd.len = len;
	fd.fifo = p.kallsyms;
	fd.modules = p.modules;
	snprintf(fd.next, sizeof(fd.next), "%s/kallsyms.next", dir);
	ck_assert_int_eq(mkfifo(p.kallsyms, 0600), 0);
	r = open(p.kallsyms, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(r, 0);
	ck_assert_int_lt(fcntl(r, F_GETPIPE_SZ), 600000 / 4);
	close(r);
	put(p.modules, "a 16384 0 - Live 0xffffffffc0010000\n");
	ck_assert_int_eq(pthread_create(&t, NULL, feed, &fd), 0);

	ck_assert_int_eq(agent_ksyms_publish(&region, &p, 0, &res), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	/* the FIFO served one read, which saw the list change under it;
	 * the second (the regular file) saw it settled */
	ck_assert_int_eq(stat(p.kallsyms, &st), 0);
	ck_assert_int_eq(S_ISREG(st.st_mode), 1);
	ck_assert_uint_eq(res.tries, 2);
	ck_assert_uint_eq(res.modules, 2);
	ck_assert_uint_eq(res.mod_dropped, 0);
	ck_assert_uint_eq(res.kept, i + 2);
	free(fd.text);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("agent_ksyms");
	TCase *tc = tcase_create("ksyms");
	SRunner *sr;
	int failed;

	if (argc > 3) {
		real_kallsyms = argv[1];
		real_modules = argv[2];
		real_sys = argv[3];
	}
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, real_6_1_load);
	tcase_add_test(tc, module_rules);
	tcase_add_test(tc, kptr_zeros);
	tcase_add_test(tc, changed_during_read);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
