/* SPDX-License-Identifier: MIT */
/*
 * The Linux agent's identity block (guest-agent/linux/ginfo.c) alone:
 * what it reads of this machine (uname, CPUs), of a meminfo and cpuinfo
 * given as files, and the sampling event kbuf opens.
 */
#include <check.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent.h"

static char dir[] = "/tmp/rs-ginfo-XXXXXX";
static char meminfo[64], cpuinfo[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(meminfo, sizeof(meminfo), "%s/meminfo", dir);
	snprintf(cpuinfo, sizeof(cpuinfo), "%s/cpuinfo", dir);
}

static void teardown(void)
{
	unlink(meminfo);
	unlink(cpuinfo);
	rmdir(dir);
	strcpy(dir, "/tmp/rs-ginfo-XXXXXX");
}

static const struct agent_events ev = { .freq = 997, .buf_pages = 4 };

START_TEST(fills_everything)
{
	const struct agent_ginfo_paths p = { meminfo, cpuinfo };
	struct rs_guest_info gi;
	struct utsname u;

	write_file(meminfo, "MemTotalX:  1 kB\nMemTotal:        2014276 kB\n"
		   "MemFree:  5 kB\n");
	write_file(cpuinfo, "processor\t: 0\nvendor_id\t: GenuineIntel\n"
		   "model name\t: QEMU Virtual CPU version 2.5+  \n"
		   "processor\t: 1\nmodel name\t: another\n");
	ck_assert_int_eq(agent_ginfo_fill(&gi, &ev, &p), 0);
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_str_eq(gi.hostname, u.nodename);
	ck_assert_str_eq(gi.os_release, u.release);
	ck_assert_str_eq(gi.arch, u.machine);
	ck_assert_uint_eq(gi.mem_total_kib, 2014276);
	ck_assert_str_eq(gi.cpu_desc, "QEMU Virtual CPU version 2.5+");
	ck_assert_uint_eq(gi.nr_cpus_online,
			  (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert_uint_eq(gi.nr_cpus_avail,
			  (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
	ck_assert_uint_ge(gi.nr_cpus_avail, gi.nr_cpus_online);
	/* the event kbuf opens: cpu-clock at 997 Hz, user and kernel */
	ck_assert_uint_eq(gi.sample_type_id, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(gi.sample_config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_uint_eq(gi.sample_period, 997);
	ck_assert_uint_eq(gi.sample_flags, RS_SAMPLE_FREQ);
	ck_assert_uint_eq(gi.magic, 0);      /* the ring library's to set */
}
END_TEST

/* A long model name is cut at the field, which need not end in a NUL. */
START_TEST(long_name_cut)
{
	const struct agent_ginfo_paths p = { meminfo, cpuinfo };
	struct rs_guest_info gi;
	char text[256];

	write_file(meminfo, "MemTotal: 4 kB\n");
	snprintf(text, sizeof(text), "model name : %0100d\n", 7);
	write_file(cpuinfo, text);
	ck_assert_int_eq(agent_ginfo_fill(&gi, &ev, &p), 0);
	ck_assert_int_eq(memcmp(gi.cpu_desc, text + 13, sizeof(gi.cpu_desc)), 0);
	ck_assert_uint_eq(gi.mem_total_kib, 4);
}
END_TEST

/* What is missing stays 0 and is said; the rest is filled. */
START_TEST(missing_files)
{
	const struct agent_ginfo_paths p = { meminfo, cpuinfo };
	struct rs_guest_info gi;

	ck_assert_int_eq(agent_ginfo_fill(&gi, &ev, &p), -ENOENT);
	ck_assert_uint_eq(gi.mem_total_kib, 0);
	ck_assert_uint_eq((uint8_t)gi.cpu_desc[0], 0);
	ck_assert_uint_gt(strlen(gi.os_release), 0);
	ck_assert_uint_eq(gi.sample_period, 997);
	/* a meminfo without the line, a cpuinfo without a model name */
	write_file(meminfo, "MemFree: 5 kB\n");
	write_file(cpuinfo, "processor : 0\nmodel name without colon\n");
	ck_assert_int_eq(agent_ginfo_fill(&gi, &ev, &p), -ENOENT);
	ck_assert_uint_eq(gi.mem_total_kib, 0);
	/* a MemTotal that is no number */
	write_file(meminfo, "MemTotal: lots\n");
	write_file(cpuinfo, "model name: x\n");
	ck_assert_int_eq(agent_ginfo_fill(&gi, &ev, &p), -EINVAL);
	ck_assert_str_eq(gi.cpu_desc, "x");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent_ginfo");
	TCase *tc = tcase_create("ginfo");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, fills_everything);
	tcase_add_test(tc, long_name_cut);
	tcase_add_test(tc, missing_files);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
