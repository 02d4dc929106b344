/* SPDX-License-Identifier: MIT */
/* The service's configuration file and its per-domain rate limit. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/service.h"

static int parse(struct svc_config *c, const char *text, unsigned *line,
		 const char **why)
{
	svc_config_default(c);
	return svc_config_parse(c, text, strlen(text), line, why);
}

START_TEST(defaults)
{
	struct svc_config c;

	svc_config_default(&c);
	ck_assert_ptr_null(c.uri);
	ck_assert_ptr_null(c.capture_dir);
	ck_assert_uint_eq(c.keep, CAP_FLIGHT_KEEP);
	ck_assert_uint_eq(c.keep_bytes, CAP_FLIGHT_KEEP_BYTES);
	ck_assert_uint_eq(c.capture_on, SVC_ON_CRASH | SVC_ON_WATCHDOG |
			  SVC_ON_HANG);
	ck_assert_uint_eq(c.hang_after_s, SVC_HANG_AFTER_S);
	ck_assert_ptr_null(c.socket);
	ck_assert_uint_eq(c.burst, SVC_BURST);
	ck_assert_uint_eq(c.window_s, SVC_WINDOW_S);
}
END_TEST

START_TEST(every_key)
{
	static const char more[] = "uri = test:///default\ncapture-on = none\n"
				   "socket = none\n";
	struct svc_config c;
	const char *why;
	unsigned line;

	ck_assert_int_eq(parse(&c, "# a comment\n\n"
			       "uri = qemu+ssh://h/system  # trailing\n"
			       "capture-dir=/srv/captures\r\n"
			       "\tkeep = 3\n"
			       "keep-mb = 20\n"
			       "capture-on = watchdog hang\n"
			       "rate-limit = 5/60\n"
			       "hang-after = 5\n"
			       "socket = /tmp/s.sock\n", &line, &why), 0);
	ck_assert_str_eq(c.uri, "qemu+ssh://h/system");
	ck_assert_str_eq(c.capture_dir, "/srv/captures");
	ck_assert_uint_eq(c.keep, 3);
	ck_assert_uint_eq(c.keep_bytes, 20ull << 20);
	ck_assert_uint_eq(c.capture_on, SVC_ON_WATCHDOG | SVC_ON_HANG);
	ck_assert_uint_eq(c.hang_after_s, 5);
	ck_assert_str_eq(c.socket, "/tmp/s.sock");
	ck_assert_uint_eq(c.burst, 5);
	ck_assert_uint_eq(c.window_s, 60);
	/* a later value replaces an earlier one */
	ck_assert_int_eq(svc_config_parse(&c, more, strlen(more), &line, &why),
			 0);
	ck_assert_str_eq(c.uri, "test:///default");
	ck_assert_uint_eq(c.capture_on, 0);
	ck_assert_str_eq(c.socket, "");
	svc_config_fini(&c);
}
END_TEST

/* Each bad line is refused with its number and a reason; the values of
 * the lines before it are kept. */
START_TEST(bad_lines)
{
	static const struct { const char *text; unsigned line; } bad[] = {
		{ "keep = 3\nkeep = -1\n", 2 },
		{ "keep = 3x\n", 1 },
		{ "keep-mb = 99999999999999999999\n", 1 },
		{ "capture-dir = relative/dir\n", 1 },
		{ "capture-on = crash reboot\n", 1 },
		{ "rate-limit = 5\n", 1 },
		{ "rate-limit = 0/60\n", 1 },
		{ "rate-limit = 5/0\n", 1 },
		{ "rate-limit = 5/9999999\n", 1 },
		{ "\n\nno equals sign\n", 3 },
		{ "colour = blue\n", 1 },
		{ "hang-after = 0\n", 1 },
		{ "hang-after = 86401\n", 1 },
		{ "socket = run/s.sock\n", 1 },
		{ "record-region = dom1\n", 1 },
		{ "record-region = dom1 relative/path\n", 1 },
		{ "record-region = a/b /dev/shm/x\n", 1 },
		{ "record-region = .hidden /dev/shm/x\n", 1 },
	};
	struct svc_config c;
	const char *why;
	unsigned line;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse(&c, bad[i].text, &line, &why), -EINVAL);
		ck_assert_uint_eq(line, bad[i].line);
		ck_assert_ptr_nonnull(why);
		svc_config_fini(&c);
	}
	ck_assert_int_eq(parse(&c, "keep = 3\nkeep = -1\n", &line, &why), -EINVAL);
	ck_assert_uint_eq(c.keep, 3);
	svc_config_fini(&c);
}
END_TEST

/* record-region (tests, benchmarks): repeated, in order */
START_TEST(record_regions)
{
	struct svc_config c;
	const char *why = NULL;
	unsigned line = 0;

	ck_assert_int_eq(parse(&c, "record-region = dom1 /dev/shm/a\n"
			       "record-region =   dom2\t /dev/shm/b c\n",
			       &line, &why), 0);
	ck_assert_uint_eq(c.rec.nr_regions, 2);
	ck_assert_str_eq(c.rec.region_names[0], "dom1");
	ck_assert_str_eq(c.rec.region_paths[0], "/dev/shm/a");
	ck_assert_str_eq(c.rec.region_names[1], "dom2");
	ck_assert_str_eq(c.rec.region_paths[1], "/dev/shm/b c");
	svc_config_fini(&c);
}
END_TEST

START_TEST(load_file)
{
	char path[] = "/tmp/svc-config-XXXXXX";
	struct svc_config c;
	const char *why;
	unsigned line;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "keep = 7\n", 9), 9);
	close(fd);
	svc_config_default(&c);
	ck_assert_int_eq(svc_config_load(&c, path, &line, &why), 0);
	ck_assert_uint_eq(c.keep, 7);
	unlink(path);
	ck_assert_int_eq(svc_config_load(&c, path, &line, &why), -ENOENT);
	svc_config_fini(&c);
}
END_TEST

#define S 1000000000ull

/* Three in an hour: the fourth waits until the first is an hour old; a
 * second domain has its own allowance. */
START_TEST(rate_limit)
{
	struct svc_limit *l;

	ck_assert_int_eq(svc_limit_new(&l, 3, 3600), 0);
	ck_assert_int_eq(svc_limit_take(l, "a", 10 * S), 1);
	ck_assert_int_eq(svc_limit_take(l, "a", 20 * S), 1);
	ck_assert_int_eq(svc_limit_take(l, "a", 30 * S), 1);
	ck_assert_int_eq(svc_limit_take(l, "a", 40 * S), 0);
	ck_assert_int_eq(svc_limit_take(l, "b", 40 * S), 1);
	ck_assert_int_eq(svc_limit_take(l, "a", 3609 * S), 0);
	ck_assert_int_eq(svc_limit_take(l, "a", 3610 * S), 1);
	ck_assert_int_eq(svc_limit_take(l, "a", 3615 * S), 0);
	ck_assert_uint_eq(svc_limit_refused(l), 3);
	svc_limit_free(l);
	ck_assert_int_eq(svc_limit_new(&l, 0, 60), -EINVAL);
}
END_TEST

/* More domains than the table holds: the least recently captured is
 * forgotten, and every domain still gets its first capture. */
START_TEST(many_domains)
{
	struct svc_limit *l;
	char name[32];

	ck_assert_int_eq(svc_limit_new(&l, 1, 60), 0);
	for (unsigned i = 0; i < SVC_DOMAINS_MAX + 10; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		ck_assert_int_eq(svc_limit_take(l, name, (i + 1) * S), 1);
	}
	/* the newest is remembered */
	ck_assert_int_eq(svc_limit_take(l, name, (SVC_DOMAINS_MAX + 11) * S), 0);
	svc_limit_free(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_config");
	TCase *tc = tcase_create("config");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, every_key);
	tcase_add_test(tc, bad_lines);
	tcase_add_test(tc, load_file);
	tcase_add_test(tc, rate_limit);
	tcase_add_test(tc, many_domains);
	tcase_add_test(tc, record_regions);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
