/* SPDX-License-Identifier: MIT */
/*
 * The host's checks of the guest's user symbol table (gi_usyms_parse): a
 * table of good entries is kept whole; each lie an agent does not tell
 * (lengths, counts, overflowing PT_LOADs, .text or symbols outside them,
 * names unprintable or unterminated, paths that climb out of the cache,
 * a build id twice) refuses its entry alone, counted, and the entries
 * around it are kept.
 */
#include <check.h>
#include <elf.h>
#include <string.h>

#include "ringside/introspect.h"

/* One entry: two loads, @nsyms symbols, path @path, in @buf; its length. */
static uint32_t make_entry(uint8_t *buf, uint8_t id0, const char *path)
{
	struct rs_usyms_entry e = { .e_type = ET_DYN, .e_machine = EM_X86_64,
		.build_id_len = 20, .nr_loads = 2, .nr_syms = 3,
		.text_addr = 0x1100, .text_offset = 0x1100, .text_size = 0x300 };
	struct rs_usyms_load l[2] = {
		{ 0, 0, 0x800, 0x800, PF_R, 0 },
		{ 0x1000, 0x1000, 0x1000, 0x1000, PF_R | PF_X, 0 } };
	struct rs_usyms_sym s[3] = { { 0x1100, 0x100, 0 }, { 0x1200, 0x100, 6 },
				     { 0x1300, 0x100, 14 } };
	static const char names[] = "alpha\0beta_fn\0hot_loop";
	uint32_t at = 0;

	e.path_len = (uint16_t)strlen(path);
	e.str_size = sizeof(names);
	memset(e.build_id, id0, 20);
	at = sizeof(e);
	memcpy(buf + at, l, sizeof(l));
	at += sizeof(l);
	memcpy(buf + at, s, sizeof(s));
	at += sizeof(s);
	memcpy(buf + at, path, e.path_len);
	at += e.path_len;
	memcpy(buf + at, names, sizeof(names));
	at += sizeof(names);
	while (at % 8)
		buf[at++] = 0;
	e.length = at;
	memcpy(buf, &e, sizeof(e));
	return at;
}

START_TEST(good_table_kept)
{
	uint8_t table[1024];
	uint32_t n = make_entry(table, 1, "/usr/bin/rs-workload");
	struct gi_usyms g;

	n += make_entry(table + n, 2, "/lib/x86_64-linux-gnu/libc.so.6");
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(gi_usyms_parse(&g, table, n, 2), 0);
	ck_assert_uint_eq(g.nr, 2);
	ck_assert_uint_eq(g.st.refused, 0);
	ck_assert_uint_eq(g.st.symbols, 6);
	ck_assert_str_eq(g.bins[1].ub.path, "/lib/x86_64-linux-gnu/libc.so.6");
	ck_assert_str_eq(g.bins[0].ub.names + g.bins[0].ub.syms[2].name,
			 "hot_loop");
	ck_assert_uint_eq(g.bins[0].ub.syms[2].value, 0x1300);
	gi_usyms_fini(&g);
}
END_TEST

enum { L_BUILD_ID, L_TYPE, L_FLAGS, L_LOADS0, L_LOADS_MANY, L_COUNT,
       L_LOAD_OVERFLOW, L_FILESZ, L_TEXT_OUT, L_SYM_OUT, L_NAME_OUT,
       L_NAME_UNPRINTABLE, L_NAMES_UNTERMINATED, L_PATH_DOTDOT,
       L_PATH_RELATIVE, L_PATH_SPACE, L_DUPLICATE, L_STR_SIZE, NR_LIES };

START_TEST(hostile_entry_refused_alone)
{
	uint8_t table[2048];
	uint32_t a = make_entry(table, 1, "/usr/bin/a");
	uint32_t b = make_entry(table + a, 2, "/usr/bin/b");
	uint32_t c = make_entry(table + a + b, 3, "/usr/bin/c");
	uint8_t *e = table + a;   /* the middle one lies */
	struct rs_usyms_entry h;
	struct rs_usyms_load l;
	struct rs_usyms_sym s;
	struct gi_usyms g;
	const size_t loads = sizeof(h), syms = loads + 2 * sizeof(l);
	const size_t path = syms + 3 * sizeof(s);

	memcpy(&h, e, sizeof(h));
	memcpy(&l, e + loads + sizeof(l), sizeof(l));
	memcpy(&s, e + syms, sizeof(s));
	switch (_i) {
	case L_BUILD_ID: h.build_id_len = 21; break;
	case L_TYPE: h.e_type = ET_REL; break;
	case L_FLAGS: h.flags = 0x80; break;
	case L_LOADS0: h.nr_loads = 0; break;
	case L_LOADS_MANY: h.nr_loads = 17; break;
	case L_COUNT: h.nr_syms = 4; break;
	case L_LOAD_OVERFLOW: l.vaddr = UINT64_MAX - 0x10; break;
	case L_FILESZ: l.filesz = l.memsz + 1; break;
	case L_TEXT_OUT: h.text_addr = 0x9000; break;
	case L_SYM_OUT: s.value = 0x2000; break;
	case L_NAME_OUT: s.name = 1000; break;
	case L_NAME_UNPRINTABLE: e[path + strlen("/usr/bin/b") + 1] = 0x07; break;
	case L_NAMES_UNTERMINATED:
		e[path + strlen("/usr/bin/b") + h.str_size - 1] = 'x';
		break;
	case L_PATH_DOTDOT: memcpy(e + path, "/usr/../b", 9); h.path_len = 9;
		h.str_size = 0; break;
	case L_PATH_RELATIVE: e[path] = 'u'; break;
	case L_PATH_SPACE: e[path + 4] = ' '; break;
	case L_DUPLICATE: memset(h.build_id, 1, 20); break;
	case L_STR_SIZE: h.str_size += 8; break;
	}
	memcpy(e, &h, sizeof(h));
	memcpy(e + loads + sizeof(l), &l, sizeof(l));
	memcpy(e + syms, &s, sizeof(s));
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(gi_usyms_parse(&g, table, a + b + c, 3), 0);
	ck_assert_uint_eq(g.st.refused, 1);
	ck_assert_uint_eq(g.nr, 2);
	ck_assert_str_eq(g.bins[0].ub.path, "/usr/bin/a");
	ck_assert_str_eq(g.bins[1].ub.path, "/usr/bin/c");
	ck_assert_int_ne(g.st.why, GI_USYMS_WHY_NONE);
	gi_usyms_fini(&g);
}
END_TEST

/* A length no entry has leaves nothing to skip by: the rest is refused. */
START_TEST(bad_length_stops)
{
	uint8_t table[1024];
	uint32_t a = make_entry(table, 1, "/a");
	uint32_t b = make_entry(table + a, 2, "/b");
	struct gi_usyms g;
	uint32_t bad = b + 8;

	memcpy(table + a, &bad, 4);
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(gi_usyms_parse(&g, table, a + b, 2), 0);
	ck_assert_uint_eq(g.nr, 1);
	ck_assert_uint_eq(g.st.refused, 1);
	ck_assert_int_eq(g.st.why, GI_USYMS_WHY_LENGTH);
	gi_usyms_fini(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gusyms");
	TCase *tc = tcase_create("gusyms");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, good_table_kept);
	tcase_add_loop_test(tc, hostile_entry_refused_alone, 0, NR_LIES);
	tcase_add_test(tc, bad_length_stops);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
