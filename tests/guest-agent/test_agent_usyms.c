/* SPDX-License-Identifier: MIT */
/*
 * The user symbols from the guest's agent to the host's checks: the agent
 * (guest-agent/linux/usyms.c) publishes this very test program's symbol
 * table into a region's sideband, once per build id, and the host copies
 * and checks it (introspect's gusyms): the entry is whole, keeps this
 * program's functions at their addresses in the file, and its symbol file
 * builds (pdf_uelf_image).  Then a table too small: TRUNCATED, counted.
 */
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../guest-agent/linux/agent.h"
#include "ringside/introspect.h"

#define SB_PAGES 256u

static void *mem;
static uint64_t mem_size;
static struct rs_region region;

static void region_new(void)
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
}

static void region_free(void)
{
	munmap(mem, mem_size);
}

/* A function of this program, to be found by name. */
__attribute__((noinline)) int rs_usyms_marker_fn(int x);
__attribute__((noinline)) int rs_usyms_marker_fn(int x)
{
	return x * 3 + 1;
}

static int self_fd(char *path)
{
	ck_assert_ptr_nonnull(realpath("/proc/self/exe", path));
	return open(path, O_RDONLY | O_CLOEXEC);
}

START_TEST(agent_to_host)
{
	static const uint8_t id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					13, 14, 15, 16, 17, 18, 19, 20 };
	const struct agent_usyms_stats *st;
	struct gusyms g;
	struct pdf_buf img;
	char path[PATH_MAX];
	uint64_t want = 0;
	uint32_t i, found = 0;
	int fd;

	region_new();
	ck_assert_int_eq(agent_usyms_begin(&region, 1001, 64 * RS_PAGE_SIZE), 0);
	fd = self_fd(path);
	ck_assert_int_ge(fd, 0);
	agent_usyms_note(fd, path, id, sizeof(id));
	agent_usyms_note(fd, path, id, sizeof(id));     /* once per build id */
	close(fd);
	st = agent_usyms_stats();
	ck_assert_uint_eq(st->published, 1);
	ck_assert_uint_gt(st->symbols, 10);
	ck_assert_uint_eq(st->no_room, 0);
	printf("agent: %llu symbols of this program, %llu bytes\n",
	       (unsigned long long)st->symbols, (unsigned long long)st->bytes);

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(gi_usyms_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_USYMS_OK);
	ck_assert_uint_eq(g.info.table_offset, 1008);   /* rounded up to 8 */
	ck_assert_uint_eq(g.info.length, st->bytes);
	ck_assert_uint_eq(g.nr, 1);
	ck_assert_uint_eq(g.st.refused, 0);
	ck_assert_str_eq(g.bins[0].ub.path, path);
	ck_assert_mem_eq(g.bins[0].ub.build_id, id, 20);
	ck_assert_uint_eq(g.bins[0].ub.nr_syms, st->symbols);
	/* the marker function at its address in the file: the run-time
	 * address less the load bias of this (position-independent or not)
	 * program */
	{
		uintptr_t bias = 0;
		const ElfW(Phdr) *ph = (const void *)getauxval(AT_PHDR);
		unsigned long n = getauxval(AT_PHNUM);

		for (i = 0; i < n; i++)
			if (ph[i].p_type == PT_PHDR)
				bias = (uintptr_t)ph - ph[i].p_vaddr;
		want = (uint64_t)((uintptr_t)&rs_usyms_marker_fn - bias);
	}
	for (i = 0; i < g.bins[0].ub.nr_syms; i++)
		if (!strcmp(g.bins[0].ub.names + g.bins[0].ub.syms[i].name,
			    "rs_usyms_marker_fn")) {
			ck_assert_uint_eq(g.bins[0].ub.syms[i].value, want);
			found++;
		}
	ck_assert_uint_eq(found, 1);
	pdf_buf_init(&img);
	ck_assert_int_eq(pdf_uelf_image(&g.bins[0].ub, &img), 0);
	ck_assert_uint_gt(img.len, st->symbols * sizeof(Elf64_Sym));
	pdf_buf_fini(&img);
	gi_usyms_fini(&g);
	agent_usyms_end();
	region_free();
}
END_TEST

START_TEST(table_too_small)
{
	static const uint8_t id[20] = { 9 };
	const struct agent_usyms_stats *st;
	struct gusyms g;
	char path[PATH_MAX];
	int fd;

	region_new();
	ck_assert_int_eq(agent_usyms_begin(&region, 0, 256), 0);
	fd = self_fd(path);
	agent_usyms_note(fd, path, id, sizeof(id));
	close(fd);
	st = agent_usyms_stats();
	ck_assert_uint_eq(st->published, 0);
	ck_assert_uint_eq(st->no_room, 1);
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(gi_usyms_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_USYMS_OK);
	ck_assert_uint_eq(g.info.flags, RS_USYMS_TRUNCATED);
	ck_assert_uint_eq(g.info.wanted, st->no_room_bytes);
	ck_assert_uint_eq(g.nr, 0);
	gi_usyms_fini(&g);
	agent_usyms_end();      /* the next test begins afresh (CK_FORK=no) */
	region_free();
}
END_TEST

/* An agent that follows its device publishes again into the next
 * session's region what it published into the last one. */
START_TEST(next_session_wants_again)
{
	static const uint8_t id[20] = { 7, 7 };
	char path[PATH_MAX];
	int fd;

	region_new();
	ck_assert_int_eq(agent_usyms_wants(id, 20), 0);   /* not begun */
	ck_assert_int_eq(agent_usyms_begin(&region, 0, 64 * RS_PAGE_SIZE), 0);
	ck_assert_int_eq(agent_usyms_wants(id, 20), 1);
	fd = self_fd(path);
	agent_usyms_note(fd, path, id, sizeof(id));
	ck_assert_int_eq(agent_usyms_wants(id, 20), 0);
	agent_usyms_end();
	ck_assert_int_eq(agent_usyms_begin(&region, 0, 64 * RS_PAGE_SIZE), 0);
	ck_assert_int_eq(agent_usyms_wants(id, 20), 1);
	agent_usyms_note(fd, path, id, sizeof(id));
	ck_assert_uint_eq(agent_usyms_stats()->published, 1);
	close(fd);
	agent_usyms_end();
	region_free();
}
END_TEST

/* A copy of this program's first @len bytes (its headers: the section
 * headers, at the end, cut off) in a memory file: a read that fails. */
static int cut_copy(const char *path, size_t len)
{
	char *buf = malloc(len);
	int in = open(path, O_RDONLY | O_CLOEXEC);
	int fd = memfd_create("rs-usyms-cut", MFD_CLOEXEC);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(in, buf, len, 0), (ssize_t)len);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(in);
	free(buf);
	return fd;
}

/* A binary whose first read failed (a file cut short, memory short) is
 * tried again when it is met again, and published then; a few failures
 * and it is given up, counted; a file with no symbols is final at once. */
START_TEST(failed_read_tried_again)
{
	static const uint8_t id[20] = { 5, 5, 5 }, id2[20] = { 6, 6, 6 },
			     id3[20] = { 8, 8, 8 };
	const struct agent_usyms_stats *st;
	struct gusyms g;
	char path[PATH_MAX];
	int fd, cut, i;

	region_new();
	ck_assert_int_eq(agent_usyms_begin(&region, 0, 64 * RS_PAGE_SIZE), 0);
	fd = self_fd(path);
	ck_assert_int_ge(fd, 0);
	cut = cut_copy(path, 4096);
	st = agent_usyms_stats();
	agent_usyms_note(cut, path, id, sizeof(id));
	ck_assert_uint_eq(st->published, 0);
	ck_assert_uint_eq(st->failed_reads, 1);
	ck_assert_uint_eq(st->no_symbols, 0);
	ck_assert_int_eq(agent_usyms_wants(id, sizeof(id)), 1);
	agent_usyms_note(fd, path, id, sizeof(id));
	ck_assert_uint_eq(st->published, 1);
	ck_assert_int_eq(agent_usyms_wants(id, sizeof(id)), 0);
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(gi_usyms_read(&g, &region), 0);
	ck_assert_uint_eq(g.nr, 1);
	ck_assert_mem_eq(g.bins[0].ub.build_id, id, 20);
	gi_usyms_fini(&g);
	/* bounded: three failures and the id is given up */
	for (i = 0; i < 5; i++)
		agent_usyms_note(cut, path, id2, sizeof(id2));
	ck_assert_uint_eq(st->failed_reads, 4);
	ck_assert_uint_eq(st->unreadable, 1);
	ck_assert_int_eq(agent_usyms_wants(id2, sizeof(id2)), 0);
	agent_usyms_note(fd, path, id2, sizeof(id2));
	ck_assert_uint_eq(st->published, 1);
	/* no ELF file at all: no symbols, final */
	close(cut);
	cut = memfd_create("rs-usyms-text", MFD_CLOEXEC);
	ck_assert_int_eq(write(cut, "#!/bin/sh\nexit 0\n", 17), 17);
	agent_usyms_note(cut, path, id3, sizeof(id3));
	ck_assert_uint_eq(st->no_symbols, 1);
	ck_assert_int_eq(agent_usyms_wants(id3, sizeof(id3)), 0);
	ck_assert_uint_eq(st->failed_reads, 4);
	close(cut);
	close(fd);
	agent_usyms_end();
	region_free();
}
END_TEST

/* The vdso, published from the agent's own mapping as "[vdso]" with the
 * image's build id: the host takes it, and its functions are the ones
 * this process calls through it. */
START_TEST(vdso_published)
{
	const struct agent_usyms_stats *st;
	struct gusyms g;
	uint32_t i, found = 0;

	region_new();
	ck_assert_int_eq(agent_usyms_begin(&region, 0, 64 * RS_PAGE_SIZE), 0);
	agent_vdso_usyms();
	st = agent_usyms_stats();
	/* valgrind gives its programs no vdso (no AT_SYSINFO_EHDR): nothing
	 * to publish, and nothing published */
	if (getenv("RS_UNDER_VALGRIND") && !getauxval(AT_SYSINFO_EHDR)) {
		ck_assert_uint_eq(st->published, 0);
		agent_usyms_end();
		region_free();
		return;
	}
	ck_assert_uint_eq(st->published, 1);
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(gi_usyms_read(&g, &region), 0);
	ck_assert_int_eq(g.state, GI_USYMS_OK);
	ck_assert_uint_eq(g.nr, 1);
	ck_assert_uint_eq(g.st.refused, 0);
	ck_assert_str_eq(g.bins[0].ub.path, "[vdso]");
	ck_assert_uint_gt(g.bins[0].ub.build_id_len, 0);
	for (i = 0; i < g.bins[0].ub.nr_syms; i++)
		found += !strcmp(g.bins[0].ub.names + g.bins[0].ub.syms[i].name,
				 "__vdso_clock_gettime");
	ck_assert_uint_eq(found, 1);
	gi_usyms_fini(&g);
	agent_usyms_end();
	region_free();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent_usyms");
	TCase *tc = tcase_create("usyms");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, agent_to_host);
	tcase_add_test(tc, table_too_small);
	tcase_add_test(tc, next_session_wants_again);
	tcase_add_test(tc, failed_read_tried_again);
	tcase_add_test(tc, vdso_published);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
