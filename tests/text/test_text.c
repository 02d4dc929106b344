/* SPDX-License-Identifier: MIT */
/* ringside/text.h: what comes out is printable ASCII, whatever went in. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/text.h"

/* Every byte printable ASCII. */
static int plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

START_TEST(term_escapes)
{
	char buf[256];
	/* an OSC title, a CSI, DEL, a C1 CSI, UTF-8 and a backslash */
	const char hostile[] = "a\033]0;owned\007b\033[2Jc\177d\x9b" "e\xc3\xa9\\f";

	ck_assert_uint_eq(rs_text_term(buf, sizeof(buf), hostile,
				       sizeof(hostile) - 1, 0),
			  strlen(buf));
	ck_assert_str_eq(buf, "a\\x1b]0;owned\\x07b\\x1b[2Jc\\x7fd\\x9be"
			 "\\xc3\\xa9\\\\f");
	ck_assert(plain(buf));
	/* quotes only where asked */
	ck_assert_str_eq(rs_text_str(buf, sizeof(buf), "say \"hi\"", 0),
			 "say \"hi\"");
	ck_assert_str_eq(rs_text_str(buf, sizeof(buf), "say \"hi\"",
				     RS_TEXT_QUOTED), "say \\\"hi\\\"");
	/* up to the NUL, or n bytes */
	ck_assert_uint_eq(rs_text_term(buf, sizeof(buf), "ab\0cd", 5, 0), 2);
	ck_assert_uint_eq(rs_text_term(buf, sizeof(buf), "ab\0cd", 5,
				       RS_TEXT_BYTES), 8);
	ck_assert_str_eq(buf, "ab\\x00cd");
	ck_assert_uint_eq(rs_text_term(buf, sizeof(buf), "abcd", 3, 0), 3);
	ck_assert_str_eq(buf, "abc");
	ck_assert_str_eq(rs_text_str(buf, sizeof(buf), NULL, 0), "");
	ck_assert_str_eq(rs_text_str(buf, sizeof(buf), "", 0), "");
}
END_TEST

/* A cut never splits an escape, always ends in a NUL, and says how long
 * the whole would have been. */
START_TEST(term_cut)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(rs_text_term(buf, 7, "ab\033cdef", 7, 0), 10);
	ck_assert_str_eq(buf, "ab\\x1b");
	ck_assert_uint_eq(rs_text_term(buf, 5, "ab\033cd", 5, 0), 8);
	ck_assert_str_eq(buf, "ab");
	ck_assert_uint_eq(rs_text_term(buf, 1, "abc", 3, 0), 3);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(rs_text_term(NULL, 0, "a\nb", 3, 0), 6);
	ck_assert_uint_eq(rs_text_term(buf, sizeof(buf), "", 0, 0), 0);
}
END_TEST

START_TEST(json_utf8)
{
	char buf[512];
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "q\"b\\s/", "q\\\"b\\\\s/" },
		{ "\n\t\033\177", "\\u000a\\u0009\\u001b\\u007f" },
		{ "\xc3\xa9", "\\u00e9" },                   /* é */
		{ "\xe2\x80\xae", "\\u202e" },               /* RLO */
		{ "\xf0\x9f\x98\x80", "\\ud83d\\ude00" },    /* U+1F600 */
		{ "\xc2\x9b", "\\u009b" },                   /* C1 CSI */
		{ "\x80", "\\ufffd" },                       /* stray */
		{ "\xc3", "\\ufffd" },                       /* truncated */
		{ "\xc3(", "\\ufffd(" },
		{ "\xc0\xaf", "\\ufffd\\ufffd" },            /* overlong / */
		{ "\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd" },  /* overlong */
		{ "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd" },  /* a surrogate */
		{ "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd" },
		{ "\xff\xfe", "\\ufffd\\ufffd" },
		{ "\xf4\x8f\xbf\xbf", "\\udbff\\udfff" },    /* U+10FFFF */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = rs_text_json(buf, sizeof(buf), cases[i].in,
					strlen(cases[i].in));

		ck_assert_msg(!strcmp(buf, cases[i].out), "case %zu: %s", i,
			      buf);
		ck_assert_uint_eq(n, strlen(buf));
	}
}
END_TEST

/* Every byte string of up to three bytes (and a sample of four): the
 * output is printable ASCII within the stated bound, and a well-formed
 * character decodes to what it encodes. */
START_TEST(all_short_inputs)
{
	char out[RS_TEXT_JSON_MAX(4)], term[RS_TEXT_TERM_MAX(4)];
	unsigned char in[5];

	for (unsigned v = 0; v < (1u << 24); v += (v < (1u << 16) ? 1 : 251)) {
		size_t n = v < 256 ? 1 : v < 65536 ? 2 : 3, j;

		for (j = 0; j < n; j++)
			in[j] = (unsigned char)(v >> (8 * j));
		in[n] = 0x80 | (unsigned char)(v & 0x3f);
		for (size_t m = n; m <= n + 1; m++) {
			size_t w = rs_text_json(out, sizeof(out),
						(const char *)in, m);

			ck_assert_uint_lt(w, sizeof(out));
			ck_assert(plain(out));
			w = rs_text_term(term, sizeof(term),
					 (const char *)in, m, RS_TEXT_QUOTED);
			ck_assert_uint_lt(w, sizeof(term));
			ck_assert(plain(term));
			ck_assert(!strchr(term, '"') || strstr(term, "\\\""));
		}
	}
}
END_TEST

START_TEST(utf8_decode)
{
	unsigned cp;

	ck_assert_uint_eq(rs_text_utf8((const unsigned char *)"A", 1, &cp), 1);
	ck_assert_uint_eq(cp, 'A');
	ck_assert_uint_eq(rs_text_utf8((const unsigned char *)"\xe2\x82\xac",
				       3, &cp), 3);
	ck_assert_uint_eq(cp, 0x20ac);
	ck_assert_uint_eq(rs_text_utf8((const unsigned char *)"\xe2\x82\xac",
				       2, &cp), 0);
	ck_assert_uint_eq(cp, 0xfffd);
}
END_TEST

/* Every byte value alone, then inside a name: only 0x21..0x7e pass. */
START_TEST(graph_bytes)
{
	char name[] = "/usr/bin/x";

	for (unsigned b = 0; b < 256; b++) {
		char c = (char)b;

		ck_assert_int_eq(rs_text_graph(&c, 1), b >= 0x21 && b <= 0x7e);
		name[5] = c;
		ck_assert_int_eq(rs_text_graph(name, sizeof(name) - 1),
				 b >= 0x21 && b <= 0x7e);
	}
	ck_assert_int_eq(rs_text_graph("", 0), 1);
	/* only @n bytes are looked at: the NUL after them is not */
	ck_assert_int_eq(rs_text_graph("ab", 2), 1);
	ck_assert_int_eq(rs_text_graph("ab", 3), 0);
}
END_TEST

START_TEST(trim_blanks)
{
	char a[] = " \t key = value \t\r", b[] = "plain", c[] = " \t\r ";
	char d[] = "\rinner \t space\n";

	ck_assert_str_eq(rs_text_trim(a), "key = value");
	ck_assert_str_eq(rs_text_trim(b), "plain");
	ck_assert_str_eq(rs_text_trim(c), "");
	/* a leading CR and a trailing newline are not blanks */
	ck_assert_str_eq(rs_text_trim(d), "\rinner \t space\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("text");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, term_escapes);
	tcase_add_test(tc, term_cut);
	tcase_add_test(tc, json_utf8);
	tcase_add_test(tc, all_short_inputs);
	tcase_add_test(tc, utf8_decode);
	tcase_add_test(tc, graph_bytes);
	tcase_add_test(tc, trim_blanks);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
