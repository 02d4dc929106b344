/* SPDX-License-Identifier: MIT */
/* The option tables (opt/): parsing as getopt_long() does, each kind of
 * value, the messages of bad usage, and --help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ringside/opt.h"

struct vals {
	const char *out;
	const char *list[2];
	uint32_t nr_list;
	uint32_t n, pages, mode;
	double secs;
	int quiet, stable;
	const char *fn_seen;
};

static struct vals v;
static char said[4096];     /* what the last call printed, stdout + stderr */

static const char *check_even(const struct opt *o, const char *value)
{
	*(const char **)o->dest = value;
	return strlen(value) % 2 ? "an even number of letters" : NULL;
}

static const char *const modes[] = { "normal", "overwrite", NULL };

static const struct opt opts[] = {
	OPT_STRING('o', "output", &v.out, "FILE", "the file"),
	OPT_LIST('e', "event", v.list, &v.nr_list, 2, "E", "up to {max} events"),
	OPT_U32('n', "number", &v.n, "N", 1, 48, NULL, "from {min} to {max}"),
	OPT_U32(0, "interval", &v.n, "MS", 1, UINT32_MAX, "milliseconds", "ms"),
	OPT_POW2(0, "pages", &v.pages, "N", 0, 1024, "0 or a power of two"),
	OPT_SECONDS('d', "duration", &v.secs, "S", 100, "seconds"),
	OPT_ENUM('m', "mode", &v.mode, "M", modes, "normal or overwrite"),
	OPT_FN(0, "even", check_even, &v.fn_seen, "W", "a word of even length"),
	OPT_FLAG('q', "quiet", &v.quiet, "quiet"),
	OPT_FLAG('s', "stable", &v.stable, "a flag whose help is long enough to "
		 "be wrapped at the edge of an eighty column terminal, twice over "
		 "and then some more words"),
	OPT_END
};

static const struct opt_arg args[] = {
	{ "FILE", "the operand" },
	{ NULL, NULL },
};

static const struct opt_cmd cmd = {
	.prog = "t cmd",
	.usage = "FILE [OPTIONS]\nFILE FILE",
	.about = "What it does.\n\n  an indented line",
	.args = args,
	.opts = opts,
	.notes = "Exit status: 0.",
	.max_args = 2,
	.missing = "which file?",
};

/* opt_parse(@c) on the NULL-ended words, stdout and stderr into said. */
static int parse_cmd(const struct opt_cmd *c, char **argv, int *first)
{
	FILE *f = tmpfile();
	int argc = 0, ret, out, err;
	size_t n;

	ck_assert_ptr_nonnull(f);
	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	out = dup(STDOUT_FILENO);
	err = dup(STDERR_FILENO);
	dup2(fileno(f), STDOUT_FILENO);
	dup2(fileno(f), STDERR_FILENO);
	ret = opt_parse(c, argc, argv, first);
	fflush(stdout);
	fflush(stderr);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	rewind(f);
	n = fread(said, 1, sizeof(said) - 1, f);
	said[n] = '\0';
	fclose(f);
	return ret;
}

static int parse(char **argv, int *first)
{
	return parse_cmd(&cmd, argv, first);
}

#define ARGV(...) ((char *[]){ "t", __VA_ARGS__, NULL })

static void setup(void)
{
	memset(&v, 0, sizeof(v));
	said[0] = '\0';
}

START_TEST(opt_parse_null)
{
	int first = -5;

	ck_assert_int_eq(opt_parse(NULL, 1, ARGV("x"), &first), OPT_EXIT_USAGE);
	ck_assert_int_eq(opt_parse(&cmd, 1, NULL, &first), OPT_EXIT_USAGE);
	ck_assert_int_eq(first, -5);
}
END_TEST

START_TEST(opt_parse_permutes)
{
	char **argv = ARGV("a", "-o", "x", "b", "--quiet");
	int first;

	ck_assert_int_eq(parse(argv, &first), 0);
	ck_assert_int_eq(first, 4);
	ck_assert_str_eq(argv[1], "-o");
	ck_assert_str_eq(argv[2], "x");
	ck_assert_str_eq(argv[3], "--quiet");
	ck_assert_str_eq(argv[4], "a");
	ck_assert_str_eq(argv[5], "b");
	ck_assert_str_eq(v.out, "x");
	ck_assert_int_eq(v.quiet, 1);
	ck_assert_str_eq(said, "");
}
END_TEST

START_TEST(opt_parse_forms)
{
	int first;

	ck_assert_int_eq(parse(ARGV("--output=a=b", "-qsn7"), &first), 0);
	ck_assert_str_eq(v.out, "a=b");
	ck_assert_int_eq(v.quiet + v.stable, 2);
	ck_assert_uint_eq(v.n, 7);
	ck_assert_int_eq(parse(ARGV("-ofile", "--dur", "0.5", "--mo=overwrite"),
			       &first), 0);
	ck_assert_str_eq(v.out, "file");
	ck_assert(v.secs == 0.5);
	ck_assert_uint_eq(v.mode, 1);
	/* a value may look like an option */
	ck_assert_int_eq(parse(ARGV("-o", "-q", "--output", "--x"), &first), 0);
	ck_assert_str_eq(v.out, "--x");
	ck_assert_int_eq(v.quiet, 1);
}
END_TEST

START_TEST(opt_parse_dashdash)
{
	char **argv = ARGV("a", "--", "-q");
	int first;

	ck_assert_int_eq(parse(argv, &first), 0);
	ck_assert_int_eq(first, 2);
	ck_assert_str_eq(argv[1], "--");
	ck_assert_str_eq(argv[2], "a");
	ck_assert_str_eq(argv[3], "-q");
	ck_assert_int_eq(parse_cmd(&cmd, ARGV("-", "-"), &first), 0);
	ck_assert_int_eq(first, 1);
	ck_assert_int_eq(v.quiet, 0);
}
END_TEST

START_TEST(opt_parse_in_order)
{
	struct opt_cmd c = cmd;
	char **argv = ARGV("-q", "DOM", "-s", "x");
	int first;

	c.flags = OPT_IN_ORDER;
	c.max_args = OPT_ANY_ARGS;
	ck_assert_int_eq(parse_cmd(&c, argv, &first), 0);
	ck_assert_int_eq(first, 2);
	ck_assert_str_eq(argv[2], "DOM");
	ck_assert_str_eq(argv[3], "-s");
	ck_assert_int_eq(v.stable, 0);
}
END_TEST

START_TEST(opt_parse_unknown)
{
	ck_assert_int_eq(parse(ARGV("--frob"), NULL), OPT_EXIT_USAGE);
	ck_assert_str_eq(said, "t cmd: unknown option '--frob'\n"
		  "Try 't cmd --help'.\n");
	ck_assert_int_eq(parse(ARGV("-qz"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "unknown option '-z'"));
	ck_assert_int_eq(parse(ARGV("--=x"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "unknown option '--'"));
	ck_assert_int_eq(parse(ARGV("--st=1"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "option '--stable' takes no value"));
	ck_assert_int_eq(parse(ARGV("x", "--out"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "option '--out' needs a value"));
	ck_assert_int_eq(parse(ARGV("-o"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "option '-o' needs a value"));
}
END_TEST

START_TEST(opt_parse_ambiguous)
{
	ck_assert_int_eq(parse(ARGV("--s"), NULL), 0);
	ck_assert_int_eq(v.stable, 1);
	ck_assert_int_eq(parse(ARGV("--e"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "option '--e' is ambiguous: --event "
				     "or --even?"));
	/* an exact name wins over the longer ones it starts */
	ck_assert_int_eq(parse(ARGV("--even", "ab"), NULL), 0);
	ck_assert_str_eq(v.fn_seen, "ab");
}
END_TEST

/* The decimal numbers of option values (and of libvirt's metadata). */
START_TEST(opt_u32_digits)
{
	uint32_t n = 7;

	ck_assert_int_eq(opt_u32("0", 10, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(opt_u32("4294967295", UINT32_MAX, &n), 0);
	ck_assert_uint_eq(n, UINT32_MAX);
	ck_assert_int_eq(opt_u32("10", 10, &n), 0);
	ck_assert_uint_eq(n, 10);
	n = 7;
	ck_assert_int_eq(opt_u32("11", 10, &n), -EINVAL);
	ck_assert_int_eq(opt_u32("4294967296", UINT32_MAX, &n), -EINVAL);
	ck_assert_int_eq(opt_u32("", 10, &n), -EINVAL);
	ck_assert_int_eq(opt_u32(" 1", 10, &n), -EINVAL);
	ck_assert_int_eq(opt_u32("+1", 10, &n), -EINVAL);
	ck_assert_int_eq(opt_u32("-1", 10, &n), -EINVAL);
	ck_assert_int_eq(opt_u32("1x", 10, &n), -EINVAL);
	ck_assert_int_eq(opt_u32(NULL, 10, &n), -EINVAL);
	ck_assert_uint_eq(n, 7);
}
END_TEST

START_TEST(opt_parse_numbers)
{
	ck_assert_int_eq(parse(ARGV("-n", "48"), NULL), 0);
	ck_assert_uint_eq(v.n, 48);
	ck_assert_int_eq(parse(ARGV("-n", "49"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--number wants a number 1..48, not '49'"));
	ck_assert_int_eq(parse(ARGV("-n", "0"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("-n", "+3"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("-n", " 3"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("-n", "3x"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("-n", ""), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("--interval", "4294967296"), NULL),
			 OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--interval wants milliseconds >= 1, "
				     "not '4294967296'"));
	ck_assert_int_eq(parse(ARGV("--interval", "4294967295"), NULL), 0);
	ck_assert_uint_eq(v.n, UINT32_MAX);
}
END_TEST

START_TEST(opt_parse_pow2)
{
	ck_assert_int_eq(parse(ARGV("--pages", "0"), NULL), 0);
	ck_assert_int_eq(parse(ARGV("--pages", "1024"), NULL), 0);
	ck_assert_uint_eq(v.pages, 1024);
	ck_assert_int_eq(parse(ARGV("--pages", "2048"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("--pages", "6"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--pages wants a power of two or 0 up "
				     "to 1024, not '6'"));
}
END_TEST

START_TEST(opt_parse_seconds)
{
	ck_assert_int_eq(parse(ARGV("-d", "1e-3"), NULL), 0);
	ck_assert(v.secs == 1e-3);
	ck_assert_int_eq(parse(ARGV("-d", "0"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--duration wants seconds > 0, not '0'"));
	ck_assert_int_eq(parse(ARGV("-d", "nan"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("-d", "inf"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("-d", "1s"), NULL), OPT_EXIT_USAGE);
	ck_assert_int_eq(parse(ARGV("-d", "101"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--duration wants seconds up to 100"));
}
END_TEST

START_TEST(opt_parse_enum)
{
	ck_assert_int_eq(parse(ARGV("-m", "normal"), NULL), 0);
	ck_assert_uint_eq(v.mode, 0);
	ck_assert_int_eq(parse(ARGV("-m", "norm"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--mode is normal or overwrite, not "
				     "'norm'"));
}
END_TEST

START_TEST(opt_parse_list)
{
	ck_assert_int_eq(parse(ARGV("-e", "a", "--event=b"), NULL), 0);
	ck_assert_uint_eq(v.nr_list, 2);
	ck_assert_str_eq(v.list[0], "a");
	ck_assert_str_eq(v.list[1], "b");
	v.nr_list = 0;
	ck_assert_int_eq(parse(ARGV("-e", "a", "-e", "b", "-e", "c"), NULL),
			 OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--event is taken at most 2 times; 'c' "
				     "is one too many"));
	ck_assert_uint_eq(v.nr_list, 2);
}
END_TEST

START_TEST(opt_parse_fn)
{
	ck_assert_int_eq(parse(ARGV("--even", "abc"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "--even 'abc': an even number of "
				     "letters"));
}
END_TEST

START_TEST(opt_parse_operands)
{
	struct opt_cmd c = cmd;

	ck_assert_int_eq(parse(ARGV("a", "b", "c"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "'c' is extra"));
	c.min_args = c.max_args = 1;
	ck_assert_int_eq(parse_cmd(&c, ARGV("-q"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "t cmd: which file?\n"));
	ck_assert_int_eq(parse_cmd(&c, ARGV("a", "b"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "one FILE only; 'b' is extra"));
	c.max_args = 0;
	c.min_args = 0;
	ck_assert_int_eq(parse_cmd(&c, ARGV("a"), NULL), OPT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(said, "'a' is extra"));
}
END_TEST

START_TEST(opt_parse_help)
{
	char lines[sizeof(said)], *line, *save = NULL;
	size_t i;

	ck_assert_int_eq(parse(ARGV("-q", "--help", "--frob"), NULL), OPT_HELP);
	ck_assert_ptr_nonnull(strstr(said, "usage: t cmd FILE [OPTIONS]\n"
				     "       t cmd FILE FILE\n\nWhat it does.\n\n"
				     "  an indented line\n\n"));
	ck_assert_ptr_nonnull(strstr(said, "from 1 to 48"));
	ck_assert_ptr_nonnull(strstr(said, "up to 2 events"));
	ck_assert_ptr_nonnull(strstr(said, "\n  -h, --help "));
	ck_assert_ptr_nonnull(strstr(said, "\n      --pages N "));
	ck_assert_ptr_nonnull(strstr(said, "\n  FILE "));
	ck_assert_ptr_nonnull(strstr(said, "\n\nExit status: 0.\n"));
	for (i = 0; opts[i].name; i++) {
		char name[64];

		snprintf(name, sizeof(name), "--%s", opts[i].name);
		ck_assert_msg(strstr(said, name), "%s not in the help", name);
	}
	strcpy(lines, said);
	for (line = strtok_r(lines, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		ck_assert_msg(strlen(line) <= 80, "too wide: %s", line);
	ck_assert_int_eq(parse(ARGV("-h"), NULL), OPT_HELP);
}
END_TEST

START_TEST(opt_help_null)
{
	opt_help(NULL);
}
END_TEST

START_TEST(opt_usage_returns_2)
{
	ck_assert_int_eq(opt_usage("t", "x %d", 1), OPT_EXIT_USAGE);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("opt");
	TCase *tc = tcase_create("opt");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, opt_parse_null);
	tcase_add_test(tc, opt_parse_permutes);
	tcase_add_test(tc, opt_parse_forms);
	tcase_add_test(tc, opt_parse_dashdash);
	tcase_add_test(tc, opt_parse_in_order);
	tcase_add_test(tc, opt_parse_unknown);
	tcase_add_test(tc, opt_parse_ambiguous);
	tcase_add_test(tc, opt_parse_numbers);
	tcase_add_test(tc, opt_u32_digits);
	tcase_add_test(tc, opt_parse_pow2);
	tcase_add_test(tc, opt_parse_seconds);
	tcase_add_test(tc, opt_parse_enum);
	tcase_add_test(tc, opt_parse_list);
	tcase_add_test(tc, opt_parse_fn);
	tcase_add_test(tc, opt_parse_operands);
	tcase_add_test(tc, opt_parse_help);
	tcase_add_test(tc, opt_help_null);
	tcase_add_test(tc, opt_usage_returns_2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
