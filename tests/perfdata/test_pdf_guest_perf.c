/* SPDX-License-Identifier: MIT */
/*
 * The guest recording of pdf_guest_file.h read by the real readers: perf
 * 6.1 (report --header-only, script, evlist -v) and hotspot's parser
 * (hotspot-perfparser, when installed).  Exit 77 (skipped) when there is
 * no perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "pdf_guest_file.h"

#define PERFPARSER "/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser"

static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rs-test-pdf-guest-perf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/guest.data", dir);
	/* no host kernel or build-id cache of ours in the way */
	setenv("HOME", dir, 1);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* @cmd's output (stdout and stderr) into @out, NUL-terminated; its
 * exit status. */
static int run(const char *cmd, char *out, size_t size)
{
	size_t n = 0, got;
	FILE *p = popen(cmd, "r");

	ck_assert_ptr_nonnull(p);
	while (n + 1 < size && (got = fread(out + n, 1, size - 1 - n, p)) > 0)
		n += got;
	out[n] = 0;
	return pclose(p);
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

START_TEST(header_shows_the_guest)
{
	static char out[1 << 16];
	char cmd[256];

	g_write(path, &g_facts, 0, NULL);
	snprintf(cmd, sizeof(cmd), "perf report --header-only -i '%s' 2>&1", path);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "# hostname : guest-vm\n"));
	ck_assert_ptr_nonnull(strstr(out, "# os release : 6.1.0-27-amd64\n"));
	ck_assert_ptr_nonnull(strstr(out, "# arch : x86_64\n"));
	ck_assert_ptr_nonnull(strstr(out, "# nrcpus online : 2\n"));
	ck_assert_ptr_nonnull(strstr(out, "# nrcpus avail : 4\n"));
	ck_assert_ptr_nonnull(strstr(out, "# cpudesc : QEMU Virtual CPU version 2.5+\n"));
	ck_assert_ptr_nonnull(strstr(out, "# total memory : 2035424 kB\n"));
	/* the samples' span, not the COMM's 3 s before */
	ck_assert_ptr_nonnull(strstr(out, "# time of first sample : 5.000000\n"));
	ck_assert_ptr_nonnull(strstr(out, "# time of last sample : 5.039000\n"));
	/* the guest's event, its frequency */
	ck_assert_ptr_nonnull(strstr(out, "name = ringside:sample, , id = { 1 }, "
				     "type = 1, size = 112, { sample_period, "
				     "sample_freq } = 997"));

	/* an unknown guest: no hostname, os release or arch at all */
	g_write(path, NULL, 0, NULL);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
	ck_assert_ptr_null(strstr(out, "# hostname :"));
	ck_assert_ptr_null(strstr(out, "# os release :"));
	ck_assert_ptr_null(strstr(out, "# total memory :"));
	ck_assert_ptr_nonnull(strstr(out, "# nrcpus avail : 2\n"));
}
END_TEST

START_TEST(evlist_one_layout)
{
	static char out[1 << 14];
	char cmd[256], *line;
	unsigned n = 0;

	g_write(path, &g_facts, 0, NULL);
	snprintf(cmd, sizeof(cmd), "perf evlist -v -i '%s' 2>&1", path);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		/* TID|TIME ... CPU ... IDENTIFIER in every event */
		ck_assert_msg(strstr(line, "TID|TIME") && strstr(line, "|CPU|") &&
			      strstr(line, "|IDENTIFIER,") &&
			      strstr(line, "sample_id_all: 1"), "%s", line);
		n++;
	}
	ck_assert_uint_eq(n, PDF_KIND_MAX);
}
END_TEST

START_TEST(script_names_and_markers)
{
	static char out[1 << 17];
	char cmd[256], want[128];

	g_write(path, &g_facts, 0, NULL);
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' 2>&1", path);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
	/* markers: their text, under their writer's thread */
	snprintf(want, sizeof(want), "BPF string: \"%s\"", G_MARKER);
	ck_assert_uint_eq(count(out, want), 4);
	ck_assert_uint_eq(count(out, "BPF string: \"start\""), 1);
	ck_assert_ptr_nonnull(strstr(out, "              sh     5 [001]     2.000000:"
				     "          1 ringside:marker:"));
	ck_assert_ptr_nonnull(strstr(out, "rs-workload    77 [001]     5.005000:"
				     "          1 ringside:marker:"));
	/* (a sequence record has no thread: perf's ":-1") */
	ck_assert_uint_eq(count(out, ":-1 "), 1);
	ck_assert_ptr_nonnull(strstr(out, ":-1    -1 [000]     5.039000:"
				     "          1    ringside:seq:"));
	/* whole names; the samples' chains end in the map, never at 0 */
	ck_assert_uint_eq(count(out, "ringside:sample:"), G_NR_SAMPLES);
	ck_assert_uint_eq(count(out, "rs-workload    77 "), G_NR_SAMPLES + 4);
	ck_assert_uint_eq(count(out, "(/usr/bin/rs-workload)"), 2 * G_NR_SAMPLES);
	ck_assert_ptr_null(strstr(out, "\t               0 [unknown]"));
	ck_assert_ptr_null(strstr(out, "7f0000001000"));
}
END_TEST

/* hotspot's parser reads every trailer by the first event's layout: the
 * COMM and MMAP2 names whole (its output has them as u32 length, bytes). */
static unsigned parsed_names(const uint8_t *d, size_t len, const char *name)
{
	size_t n = strlen(name), i;
	unsigned hits = 0;

	for (i = 0; i + 4 + n <= len; i++)
		if (d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 0 && d[i + 3] == n &&
		    !memcmp(d + i + 4, name, n))
			hits++;
	return hits;
}

static void perfparser(int v1, uint8_t *out, size_t *len)
{
	char cmd[512], res[128];
	FILE *f;

	g_write(path, &g_facts, v1, NULL);
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s --input guest.data --output pp.out "
		 ">pp.err 2>&1; echo $?", dir, PERFPARSER);
	run(cmd, res, sizeof(res));
	ck_assert_str_eq(res, "0\n");
	snprintf(cmd, sizeof(cmd), "%s/pp.out", dir);
	f = fopen(cmd, "rb");
	ck_assert_ptr_nonnull(f);
	*len = fread(out, 1, *len, f);
	fclose(f);
}

START_TEST(hotspot_names_whole)
{
	static uint8_t out[1 << 20];
	size_t len = sizeof(out);

	if (access(PERFPARSER, X_OK))
		return;    /* hotspot not installed */
	perfparser(0, out, &len);
	ck_assert_uint_ge(parsed_names(out, len, "rs-workload"), 1);
	ck_assert_uint_ge(parsed_names(out, len, "sh"), 1);
	ck_assert_uint_ge(parsed_names(out, len, "/usr/bin/rs-workload"), 1);
	ck_assert_uint_eq(parsed_names(out, len, "rs-workl"), 0);
	/* the layout before cut them: the check can tell */
	len = sizeof(out);
	perfparser(1, out, &len);
	ck_assert_uint_eq(parsed_names(out, len, "rs-workload"), 0);
	ck_assert_uint_ge(parsed_names(out, len, "rs-workl"), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pdf_guest_perf");
	TCase *tc = tcase_create("perf");
	SRunner *sr;
	int failed;

	if (system("perf --version >/dev/null 2>&1"))
		return 77;
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, header_shows_the_guest);
	tcase_add_test(tc, evlist_one_layout);
	tcase_add_test(tc, script_names_and_markers);
	tcase_add_test(tc, hotspot_names_whole);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
