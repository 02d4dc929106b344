/* SPDX-License-Identifier: MIT */
/* Continuous recording's parts without threads: the configuration's keys,
 * the JSON sidecar, the retention bounds. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/service.h"

static int parse(struct svc_config *c, const char *text, unsigned *line,
		 const char **why)
{
	svc_config_default(c);
	return svc_config_parse(c, text, strlen(text), line, why);
}

START_TEST(keys)
{
	static const char text[] =
		"record = web1 db-2\nrecord-dir = /srv/rec\nrotate-mb = 64\n"
		"rotate-seconds = 600\nrecord-keep-mb = 100\n"
		"record-total-mb = 1000\npost-command = /usr/bin/true\n"
		"post-tries = 3\npprof = no\n";
	struct svc_config c;
	const char *why;
	unsigned line;

	svc_config_default(&c);
	ck_assert_int_eq(c.rec.all, 0);
	ck_assert_uint_eq(c.rec.nr_domains, 0);
	ck_assert_uint_eq(c.rec.rotate_bytes, (uint64_t)SVC_REC_ROTATE_MB << 20);
	ck_assert_uint_eq(c.rec.post_tries, SVC_REC_POST_TRIES);
	ck_assert_int_eq(c.rec.pprof, 1);
	ck_assert_int_eq(svc_rec_config_selects(&c.rec, "web1"), 0);
	svc_config_fini(&c);

	ck_assert_int_eq(parse(&c, text, &line, &why), 0);
	ck_assert_uint_eq(c.rec.nr_domains, 2);
	ck_assert_int_eq(svc_rec_config_selects(&c.rec, "web1"), 1);
	ck_assert_int_eq(svc_rec_config_selects(&c.rec, "db-2"), 1);
	ck_assert_int_eq(svc_rec_config_selects(&c.rec, "web"), 0);
	ck_assert_str_eq(c.rec.dir, "/srv/rec");
	ck_assert_uint_eq(c.rec.rotate_bytes, 64ull << 20);
	ck_assert_uint_eq(c.rec.rotate_s, 600);
	ck_assert_uint_eq(c.rec.keep_bytes, 100ull << 20);
	ck_assert_uint_eq(c.rec.total_bytes, 1000ull << 20);
	ck_assert_str_eq(c.rec.post_command, "/usr/bin/true");
	ck_assert_uint_eq(c.rec.post_tries, 3);
	ck_assert_int_eq(c.rec.pprof, 0);
	svc_config_fini(&c);

	ck_assert_int_eq(parse(&c, "record = all\n", &line, &why), 0);
	ck_assert_int_eq(svc_rec_config_selects(&c.rec, "anything"), 1);
	svc_config_fini(&c);
	ck_assert_int_eq(parse(&c, "record = all\nrecord = none\n", &line,
			       &why), 0);
	ck_assert_int_eq(svc_rec_config_selects(&c.rec, "anything"), 0);
	svc_config_fini(&c);
}
END_TEST

/* Each bad value refused with its line. */
START_TEST(bad_values)
{
	static const char *const bad[] = {
		"record = ../etc\n", "record = a/b\n", "record-dir = rel\n",
		"rotate-mb = -1\n", "rotate-mb = 1x\n", "rotate-seconds = 604801\n",
		"record-keep-mb = \n", "post-command = rel/cmd\n",
		"post-tries = 0\n", "post-tries = 21\n", "pprof = maybe\n",
	};
	struct svc_config c;
	const char *why;
	unsigned line;
	char text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "# a comment\n%s", bad[i]);
		ck_assert_msg(parse(&c, text, &line, &why) == -EINVAL, "%s", bad[i]);
		ck_assert_uint_eq(line, 2);
		ck_assert_ptr_nonnull(why);
		svc_config_fini(&c);
	}
}
END_TEST

static const struct svc_sidecar sample = {
	.domain = "we\"b\\1\n", .uuid = "00000000-0000-4000-8000-000000000001",
	.host = "h", .reason = "rotation", .file = "rec-x.data",
	.start_ns = 1000000000ull, .end_ns = 2500000000ull,
	.wall_offset_ns = 1700000000ll * 1000000000ll,
	.bytes = 4096, .rings = 2, .records = 10, .lost_records = 1,
	.corrupt = 3, .corrupt_bytes = 64, .not_written = 4, .overwritten = 5,
	.disk_lost = 12, .disk_lost_lost = 13,
	.lost = 7, .lost_samples = 8, .aux_truncated = 9, .flagged = 11,
};

START_TEST(sidecar_text)
{
	char buf[4096];
	int n = svc_sidecar_text(&sample, buf, sizeof(buf));

	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_ptr_nonnull(strstr(buf, "\"domain\":\"we\\\"b\\\\1\\u000a\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"uuid\":\"00000000-0000-4000-8000-000000000001\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"reason\":\"rotation\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"start_monotonic_ns\":1000000000,"));
	ck_assert_ptr_nonnull(strstr(buf, "\"end_monotonic_ns\":2500000000,"));
	/* 1700000001 s after the epoch: 2023-11-14T22:13:21Z */
	ck_assert_ptr_nonnull(strstr(buf, "\"start_time\":\"2023-11-14T22:13:21.000000000Z\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"end_time\":\"2023-11-14T22:13:22.500000000Z\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"records\":10,\"lost_records\":1,"));
	ck_assert_ptr_nonnull(strstr(buf, "\"host_observed\":{\"corrupt\":3,"
				     "\"corrupt_bytes\":64,\"not_written\":4,"
				     "\"overwritten\":5,\"disk_lost\":12}"));
	ck_assert_ptr_nonnull(strstr(buf, "\"guest_claimed\":{\"lost\":7,"
				     "\"lost_samples\":8,\"aux_truncated\":9,"
				     "\"flagged\":11,\"disk_lost_lost\":13}}"));
	/* too small: refused, never cut */
	ck_assert_int_eq(svc_sidecar_text(&sample, buf, (size_t)n), -ENOSPC);
	ck_assert_int_eq(svc_sidecar_text(&sample, buf, 0), -ENOSPC);
}
END_TEST

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/test-svc-record.XXXXXX";
	char *d = mkdtemp(tmpl);

	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

static void put_file(const char *dir, const char *name, size_t bytes)
{
	char path[8192];
	char *buf = calloc(1, bytes + 1);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, bytes), (ssize_t)bytes);
	close(fd);
	free(buf);
}

static int exists(const char *dir, const char *name)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

/* Names that are not UTF-8 (a host name, a domain): the sidecar is valid
 * UTF-8 all the same, plain ASCII, malformed bytes as U+FFFD. */
START_TEST(sidecar_utf8)
{
	struct svc_sidecar sc = sample;
	char buf[4096];
	int n;

	sc.host = "h\xffo\xc3\xa9\x1b]0;t\x07";
	sc.domain = "d\xc3(";
	n = svc_sidecar_text(&sc, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(buf, "\"host\":\"h\\ufffdo\\u00e9"
				     "\\u001b]0;t\\u0007\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"domain\":\"d\\ufffd(\""));
	for (int i = 0; i < n - 1; i++)
		ck_assert_msg(buf[i] >= 0x20 && buf[i] < 0x7f, "byte %d: %#x",
			      i, (unsigned char)buf[i]);
}
END_TEST

START_TEST(sidecar_write)
{
	char *d = tmpdir(), data[4200], json[4300], buf[4096];
	FILE *f;
	size_t n;

	snprintf(data, sizeof(data), "%s/rec-x.data", d);
	ck_assert_int_eq(svc_sidecar_write(data, &sample), 0);
	snprintf(json, sizeof(json), "%s.json", data);
	f = fopen(json, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	ck_assert_int_eq((int)n, svc_sidecar_text(&sample, buf + 2048, 2048));
	ck_assert_int_eq(exists(d, "rec-x.data.json.tmp"), 0);
	{       /* what it says of the guest: 0600, as the .data */
		struct stat sb;

		ck_assert_int_eq(stat(json, &sb), 0);
		ck_assert_uint_eq(sb.st_mode & 07777, 0600);
	}
	unlink(json);
	/* a directory that is not there: an error, nothing left */
	snprintf(data, sizeof(data), "%s/none/rec-x.data", d);
	ck_assert_int_eq(svc_sidecar_write(data, &sample), -ENOENT);
	rmdir(d);
	free(d);
}
END_TEST

/* Per domain: the oldest go first, with their sidecars, the newest and
 * the file named stay; in total: across domains, by the names' times. */
START_TEST(prune)
{
	char *d = tmpdir(), a[512], b[512];
	struct svc_room_freed p = { 0 };

	snprintf(a, sizeof(a), "%s/a", d);
	snprintf(b, sizeof(b), "%s/b", d);
	ck_assert_int_eq(mkdir(a, 0755), 0);
	ck_assert_int_eq(mkdir(b, 0755), 0);
	put_file(a, "rec-20260101T000001Z-000000.data", 1000);
	put_file(a, "rec-20260101T000001Z-000000.data.json", 100);
	put_file(a, "rec-20260101T000002Z-000001.data", 1000);
	put_file(a, "rec-20260101T000003Z-000002.data", 1000);
	put_file(a, "rec-20260101T000004Z-000003.data", 1000);
	put_file(a, "rec-20260101T000005Z-000004.data.tmp", 5000);  /* open */
	put_file(a, "20260101-000-panic.data", 5000);   /* a capture: not ours */
	put_file(b, "rec-20260101T000000Z-000000.data", 1000);
	put_file(b, "rec-20260101T000009Z-000001.data", 1000);

	/* a's 4100 bytes of recordings down to 2500: the two oldest go */
	ck_assert_int_eq(svc_room_prune(d, "a", NULL, 2500, 0, &p), 0);
	ck_assert_uint_eq(p.removed, 2);
	ck_assert_uint_eq(p.freed, 2100);
	ck_assert_int_eq(exists(a, "rec-20260101T000001Z-000000.data"), 0);
	ck_assert_int_eq(exists(a, "rec-20260101T000001Z-000000.data.json"), 0);
	ck_assert_int_eq(exists(a, "rec-20260101T000002Z-000001.data"), 0);
	ck_assert_int_eq(exists(a, "rec-20260101T000003Z-000002.data"), 1);
	ck_assert_int_eq(exists(a, "rec-20260101T000005Z-000004.data.tmp"), 1);
	ck_assert_int_eq(exists(a, "20260101-000-panic.data"), 1);

	/* 4000 in total down to 2000: b's oldest, then a's oldest; each
	 * domain's newest stays */
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(svc_room_prune(d, "a", NULL, 0, 2000, &p), 0);
	ck_assert_uint_eq(p.removed, 2);
	ck_assert_int_eq(exists(b, "rec-20260101T000000Z-000000.data"), 0);
	ck_assert_int_eq(exists(a, "rec-20260101T000003Z-000002.data"), 0);
	ck_assert_int_eq(exists(a, "rec-20260101T000004Z-000003.data"), 1);
	ck_assert_int_eq(exists(b, "rec-20260101T000009Z-000001.data"), 1);

	/* a bound below one file: the newest still stays */
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(svc_room_prune(d, "a", NULL, 1, 1, &p), 0);
	ck_assert_uint_eq(p.removed, 0);
	ck_assert_int_eq(svc_room_prune(d, "none", NULL, 1, 0, &p), 0);

	/* sidecars whose file is gone go; the others stay */
	{
		uint32_t n = 0;

		put_file(a, "20260101-000-panic.data.json", 10);
		put_file(a, "20260101-001-panic.data.json", 10);
		ck_assert_int_eq(svc_sidecar_orphans(a, &n), 0);
		ck_assert_uint_eq(n, 1);
		ck_assert_int_eq(exists(a, "20260101-000-panic.data.json"), 1);
		ck_assert_int_eq(exists(a, "20260101-001-panic.data.json"), 0);
		ck_assert_int_eq(svc_sidecar_orphans("/nonexistent-dir", &n),
				 -ENOENT);
	}

	{
		char cmd[4300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
		ck_assert_int_eq(system(cmd), 0);
	}
	free(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_record");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, keys);
	tcase_add_test(tc, bad_values);
	tcase_add_test(tc, sidecar_text);
	tcase_add_test(tc, sidecar_utf8);
	tcase_add_test(tc, sidecar_write);
	tcase_add_test(tc, prune);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
