/* SPDX-License-Identifier: MIT */
/*
 * The service's keys' table (service/src/svc_config.c) against what is
 * written about it: the example file the package ships
 * (dist/host/service.conf) and the configuration table of
 * docs/service.md.  Every key of the table is in both, once, with the
 * table's default; neither names a key the table lacks; the example's
 * lines, every one uncommented, parse.  RS_SOURCE_ROOT names the source
 * tree.  Each disagreement is printed, then the test fails.
 */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/service_client.h"
#include "ringside/service_config.h"
#include "ringside/service_http.h"

#define LINE_MAX_ 4096

static unsigned problems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void problem(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	problems++;
}

static FILE *open_doc(const char *rel, char *path, size_t len)
{
	const char *root = getenv("RS_SOURCE_ROOT");
	FILE *f;

	ck_assert_msg(root && *root, "RS_SOURCE_ROOT is not set (meson sets it)");
	snprintf(path, len, "%s/%s", root, rel);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	return f;
}

static int key_index(const char *k)
{
	for (size_t i = 0; i < svc_config_nkeys(); i++)
		if (!strcmp(svc_config_key(i), k))
			return (int)i;
	return -1;
}

/* Key @i's default as a line of the file gives it; 0 if it has none. */
static int default_of(size_t i, char *buf, size_t len)
{
	struct svc_config c;
	int r;

	svc_config_default(&c);
	r = svc_config_value(&c, i, 0, buf, len);
	svc_config_fini(&c);
	ck_assert_int_ge(r, 0);
	return r;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Every key has a default or says what applies unset, and the default
 * of each parses back to itself. */
START_TEST(table_defaults_parse)
{
	char v[LINE_MAX_], line[LINE_MAX_ + 64], again[LINE_MAX_];
	struct svc_config c;
	const char *why;
	unsigned ln;

	ck_assert_uint_gt(svc_config_nkeys(), 0);
	for (size_t i = 0; i < svc_config_nkeys(); i++) {
		const char *k = svc_config_key(i);

		if (!default_of(i, v, sizeof(v))) {
			ck_assert_msg(svc_config_unset(i) != NULL,
				      "%s: no default and no word for unset", k);
			continue;
		}
		snprintf(line, sizeof(line), "%s = %s\n", k, v);
		svc_config_default(&c);
		ck_assert_msg(!svc_config_parse(&c, line, strlen(line), &ln, &why),
			      "the default '%s' does not parse: %s", line, why);
		ck_assert_int_eq(svc_config_value(&c, i, 0, again, sizeof(again)), 1);
		ck_assert_str_eq(again, v);
		svc_config_fini(&c);
	}
	ck_assert_ptr_null(svc_config_key(svc_config_nkeys()));
}
END_TEST

/* Every key's value in @c, a `key = value` line each, into @out. */
static size_t show_all(const struct svc_config *c, char *out, size_t cap)
{
	char v[LINE_MAX_];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < svc_config_nkeys(); i++)
		for (uint32_t n = 0; svc_config_value(c, i, n, v, sizeof(v)) > 0; n++) {
			len += (size_t)snprintf(out + len, cap - len, "%s = %s\n",
						svc_config_key(i), v);
			ck_assert_uint_lt(len, cap);
		}
	return len;
}

/* A value other than the default for every key is shown as it was set,
 * and what is shown parses back to the same. */
START_TEST(values_round_trip)
{
	static const char text[] =
		"uri = test:///default\ncapture-dir = /srv/c\nkeep = 3\n"
		"keep-mb = 7\ncapture-on = hang\nrate-limit = 2/60\n"
		"hang-after = 9\nsocket = none\nmetrics = none\n"
		"record = all web1\nrecord-dir = /srv/r\nrotate-mb = 0\n"
		"rotate-seconds = 30\nrecord-keep-mb = 1\nrecord-total-mb = 2\n"
		"post-command = /bin/true\npost-tries = 1\npprof = no\n"
		"record-region = d1 /dev/shm/x\nrecord-region = d2 /dev/shm/y\n";
	static char shown[1 << 14], again[1 << 14], def[1 << 14];
	struct svc_config c;
	const char *why;
	unsigned ln;
	size_t len;

	svc_config_default(&c);
	ck_assert_int_eq(svc_config_parse(&c, text, strlen(text), &ln, &why), 0);
	len = show_all(&c, shown, sizeof(shown));
	ck_assert_str_eq(shown, text);
	svc_config_fini(&c);
	svc_config_default(&c);
	ck_assert_int_eq(svc_config_parse(&c, shown, len, &ln, &why), 0);
	show_all(&c, again, sizeof(again));
	ck_assert_str_eq(again, shown);
	svc_config_fini(&c);
	/* the defaults: every key but those with none */
	svc_config_default(&c);
	show_all(&c, def, sizeof(def));
	ck_assert_ptr_null(strstr(def, "uri = "));
	ck_assert_ptr_null(strstr(def, "record-region = "));
	ck_assert_ptr_nonnull(strstr(def, "\nsocket = " SVC_SOCKET_PATH "\n"));
	ck_assert_ptr_nonnull(strstr(def, "\ncapture-on = crash watchdog hang\n"));
	svc_config_fini(&c);
}
END_TEST

/* The unknown-key message names every key of the table. */
START_TEST(unknown_key_names_all)
{
	static const char text[] = "no-such-key = 1\n";
	struct svc_config c;
	const char *why;
	unsigned ln;

	svc_config_default(&c);
	ck_assert_int_eq(svc_config_parse(&c, text, strlen(text), &ln, &why),
			 -EINVAL);
	ck_assert_uint_eq(ln, 1);
	for (size_t i = 0; i < svc_config_nkeys(); i++) {
		char word[64];

		/* a key in the list: followed by ',' or ')' */
		snprintf(word, sizeof(word), " %s,", svc_config_key(i));
		if (!strstr(why, word)) {
			snprintf(word, sizeof(word), " %s)", svc_config_key(i));
			ck_assert_msg(strstr(why, word) != NULL,
				      "'%s' lacks key %s", why, svc_config_key(i));
		}
	}
	svc_config_fini(&c);
}
END_TEST

/*
 * dist/host/service.conf: `#key = value` (or `key = value`) lines, each
 * key of the table once, with its default where it has one; the lines
 * uncommented, all together, parse.
 */
START_TEST(example_file)
{
	char path[4096], buf[LINE_MAX_], v[LINE_MAX_];
	size_t n = svc_config_nkeys(), len = 0, cap = 1 << 16;
	unsigned *seen = calloc(n, sizeof(*seen)), lineno = 0, ln;
	char *all = malloc(cap);
	struct svc_config c;
	const char *why;
	FILE *f;

	ck_assert_ptr_nonnull(seen);
	ck_assert_ptr_nonnull(all);
	f = open_doc("dist/host/service.conf", path, sizeof(path));
	while (fgets(buf, sizeof(buf), f)) {
		char *l = buf, *eq, *k, *val;
		int i;

		lineno++;
		if (*l == '#')
			l++;
		/* "#key = value": a key at once after the '#'; other
		 * comments start "# " */
		if (!islower((unsigned char)*l) || !(eq = strchr(l, '=')))
			continue;
		*eq = '\0';
		k = trim(l);
		val = trim(eq + 1);
		if (strspn(k, "abcdefghijklmnopqrstuvwxyz-") != strlen(k))
			continue;
		i = key_index(k);
		if (i < 0) {
			problem("%s:%u: key '%s' is not one of the service's "
				"(service/src/svc_config.c)", path, lineno, k);
			continue;
		}
		if (seen[i]++)
			problem("%s:%u: key '%s' again (line %u before)", path,
				lineno, k, seen[i]);
		seen[i] = lineno;
		if (default_of((size_t)i, v, sizeof(v)) && strcmp(val, v))
			problem("%s:%u: %s = %s, but its default is '%s'", path,
				lineno, k, val, v);
		len += (size_t)snprintf(all + len, cap - len, "%s = %s\n", k, val);
		ck_assert_uint_lt(len, cap);
	}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!seen[i])
			problem("%s: no line '#%s = ...' for key %s", path,
				svc_config_key(i), svc_config_key(i));
	svc_config_default(&c);
	if (svc_config_parse(&c, all, len, &ln, &why))
		problem("%s: its lines, uncommented, do not parse: line %u of "
			"them: %s", path, ln, why);
	svc_config_fini(&c);
	free(seen);
	free(all);
	ck_assert_msg(!problems, "%u disagreements between %s and the keys' "
		      "table (above)", problems, path);
}
END_TEST

/*
 * docs/service.md, its table "| key | default | meaning |": a row per key
 * of the table, the default cell (backquotes dropped) the key's default,
 * or for a key with none, starting with what applies unset.
 */
START_TEST(service_md)
{
	char path[4096], buf[LINE_MAX_], v[LINE_MAX_];
	size_t n = svc_config_nkeys();
	unsigned *seen = calloc(n, sizeof(*seen)), lineno = 0;
	int in_table = 0, tables = 0;
	FILE *f;

	ck_assert_ptr_nonnull(seen);
	f = open_doc("docs/service.md", path, sizeof(path));
	while (fgets(buf, sizeof(buf), f)) {
		char *cells[3], *p = buf, *d, *s;
		int i, nc = 0;

		lineno++;
		if (!strncmp(buf, "| key | default | meaning |", 27)) {
			in_table = 1;
			tables++;
			continue;
		}
		if (!in_table)
			continue;
		if (buf[0] != '|') {
			in_table = 0;
			continue;
		}
		if (!strncmp(buf, "|---", 4))
			continue;
		/* | `key` | default | meaning |: each cell ends at the next
		 * '|' */
		while (nc < 3 && (p = strchr(p, '|'))) {
			*p++ = '\0';
			cells[nc++] = p;
		}
		ck_assert_msg(nc == 3 && strchr(cells[2], '|'),
			      "%s:%u: not a row of three cells", path, lineno);
		for (int j = 0; j < 2; j++) {
			/* drop the backquotes */
			for (s = d = cells[j]; *s; s++)
				if (*s != '`')
					*d++ = *s;
			*d = '\0';
			cells[j] = trim(cells[j]);
		}
		i = key_index(cells[0]);
		if (i < 0) {
			problem("%s:%u: key '%s' is not one of the service's "
				"(service/src/svc_config.c)", path, lineno,
				cells[0]);
			continue;
		}
		if (seen[i]++)
			problem("%s:%u: key '%s' again", path, lineno, cells[0]);
		if (default_of((size_t)i, v, sizeof(v))) {
			if (strcmp(cells[1], v))
				problem("%s:%u: %s: default '%s', but the "
					"service's is '%s'", path, lineno,
					cells[0], cells[1], v);
		} else if (strncmp(cells[1], svc_config_unset((size_t)i),
				   strlen(svc_config_unset((size_t)i)))) {
			problem("%s:%u: %s: default '%s', but unset it is '%s'",
				path, lineno, cells[0], cells[1],
				svc_config_unset((size_t)i));
		}
	}
	fclose(f);
	ck_assert_msg(tables == 1, "%s: %d tables '| key | default | meaning |', "
		      "not one", path, tables);
	for (size_t i = 0; i < n; i++)
		if (!seen[i])
			problem("%s: no row for key %s", path, svc_config_key(i));
	free(seen);
	ck_assert_msg(!problems, "%u disagreements between %s and the keys' "
		      "table (above)", problems, path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_docs");
	TCase *tc = tcase_create("docs");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, table_defaults_parse);
	tcase_add_test(tc, values_round_trip);
	tcase_add_test(tc, unknown_key_names_all);
	tcase_add_test(tc, example_file);
	tcase_add_test(tc, service_md);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
