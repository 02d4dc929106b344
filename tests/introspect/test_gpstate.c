/* SPDX-License-Identifier: MIT */
/*
 * The host's checks of the guest's process state table (gi_pstate_parse) and
 * the records it makes of it (gi_pstate_comm, gi_pstate_mmap2): a table of
 * good processes is kept whole and gives the COMM and MMAP2 records perf
 * reads; each lie an agent does not tell (lengths, pids, a pid twice,
 * counts, build ids, mappings that wrap) refuses its process alone,
 * counted, and the processes around it are kept; a name perf must not
 * read (relative, unprintable, a NUL or a ".." inside) costs its mapping
 * alone; a process's parent and its end are kept as said, bounded.
 */
#include <check.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "ringside/introspect.h"

static uint8_t table[8192] __attribute__((aligned(8)));

/* A map of @n bytes of @name at @start, a build id filled with @id0
 * (0: none). */
static uint32_t put_map_n(uint8_t *buf, uint64_t start, const char *name,
			  uint32_t n, uint8_t id0)
{
	struct rs_pstate_map m = { .start = start, .len = 0x2000,
		.pgoff = 0x1000, .prot = 5, .flags = 2, .maj = 8, .min = 1,
		.ino = 77 };
	uint32_t len = (80u + n + 7u) & ~7u;

	m.name_len = (uint16_t)n;
	if (id0) {
		m.build_id_len = 20;
		memset(m.build_id, id0, 20);
	}
	memset(buf, 0, len);
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), name, n);
	return len;
}

static uint32_t put_map(uint8_t *buf, uint64_t start, const char *name,
			uint8_t id0)
{
	return put_map_n(buf, start, name, (uint32_t)strlen(name), id0);
}

/* Process @pid "@comm" with two maps into @buf; its length. */
static uint32_t put_proc(uint8_t *buf, uint32_t pid, const char *comm)
{
	struct rs_pstate_proc p = { .pid = pid, .nr_maps = 2 };
	uint32_t at = sizeof(p);

	memcpy(p.comm, comm, strnlen(comm, sizeof(p.comm)));
	at += put_map(buf + at, 0x400000, "/bin/rs-workload", 0xab);
	at += put_map(buf + at, 0x7fff0000, "[vdso]", 0);
	p.length = at;
	memcpy(buf, &p, sizeof(p));
	return at;
}

/* A process's parent and whether it had ended are kept as the agent
 * says them; a parent no process could have is none, and flag bits the
 * host does not know are dropped: neither refuses the process. */
START_TEST(parent_and_end_kept)
{
	static const struct { uint32_t ppid; uint16_t flags; uint32_t want_ppid,
			      want_flags; } c[] = {
		{ 1, RS_PSTATE_PROC_ENDED, 1, RS_PSTATE_PROC_ENDED },
		{ 0, 0, 0, 0 },
		{ UINT32_MAX, 0, 0, 0 },
		{ (1u << 22) + 1, 0xfffe, 0, 0 },
		{ 43, 0xffff, 0, RS_PSTATE_PROC_ENDED },  /* its own pid */
	};
	struct rs_pstate_proc p;
	struct gi_pstate g;
	uint32_t i, len = 0, at[5];

	memset(&g, 0, sizeof(g));
	for (i = 0; i < 5; i++) {
		at[i] = len;
		len += put_proc(table + len, 42 + i, "gzip");
	}
	for (i = 0; i < 5; i++) {
		memcpy(&p, table + at[i], sizeof(p));
		p.ppid = c[i].ppid;
		p.flags = c[i].flags;
		if (i == 4)
			p.ppid = p.pid;
		memcpy(table + at[i], &p, sizeof(p));
	}
	ck_assert_int_eq(gi_pstate_parse(&g, table, len, 5), 0);
	ck_assert_uint_eq(g.nr_procs, 5);
	ck_assert_uint_eq(g.st.refused, 0);
	for (i = 0; i < 5; i++) {
		ck_assert_uint_eq(g.procs[i].ppid, c[i].want_ppid);
		ck_assert_uint_eq(g.procs[i].flags, c[i].want_flags);
	}
	ck_assert_uint_eq(g.st.ended, 2);
	gi_pstate_fini(&g);
}
END_TEST

START_TEST(good_table_kept)
{
	struct gi_pstate g;
	struct pdf_buf rec;
	struct rs_perf_header h;
	uint32_t len = 0, pid;
	uint64_t addr;

	memset(&g, 0, sizeof(g));
	len += put_proc(table + len, 42, "rs-workload");
	len += put_proc(table + len, 1, "sh");
	ck_assert_int_eq(gi_pstate_parse(&g, table, len, 2), 0);
	ck_assert_uint_eq(g.nr_procs, 2);
	ck_assert_uint_eq(g.nr_maps, 4);
	ck_assert_uint_eq(g.st.refused, 0);
	ck_assert_str_eq(g.procs[0].comm, "rs-workload");
	ck_assert_uint_eq(g.procs[1].first_map, 2);
	pdf_buf_init(&rec);
	ck_assert_int_eq(gi_pstate_comm(&g, 0, &rec), 0);
	memcpy(&h, rec.data, sizeof(h));
	ck_assert_uint_eq(h.type, PERF_RECORD_COMM);
	ck_assert_uint_eq(h.size, rec.len);
	ck_assert_uint_eq(rec.len, 8 + 8 + 16);
	memcpy(&pid, rec.data + 12, 4);
	ck_assert_uint_eq(pid, 42);
	ck_assert_str_eq((const char *)rec.data + 16, "rs-workload");
	ck_assert_int_eq(gi_pstate_mmap2(&g, 0, 0, &rec), 0);
	memcpy(&h, rec.data, sizeof(h));
	ck_assert_uint_eq(h.type, PERF_RECORD_MMAP2);
	ck_assert_uint_eq(h.misc, PERF_RECORD_MISC_USER |
			  PERF_RECORD_MISC_MMAP_BUILD_ID);
	ck_assert_uint_eq(rec.len, 8 + 64 + 24);
	memcpy(&addr, rec.data + 16, 8);
	ck_assert_uint_eq(addr, 0x400000);
	ck_assert_uint_eq(rec.data[8 + 32], 20);        /* build id size */
	ck_assert_uint_eq(rec.data[8 + 36], 0xab);
	ck_assert_str_eq((const char *)rec.data + 72, "/bin/rs-workload");
	/* no build id: device and inode */
	ck_assert_int_eq(gi_pstate_mmap2(&g, 1, 1, &rec), 0);
	memcpy(&h, rec.data, sizeof(h));
	ck_assert_uint_eq(h.misc, PERF_RECORD_MISC_USER);
	ck_assert_str_eq((const char *)rec.data + 72, "[vdso]");
	ck_assert_int_eq(gi_pstate_mmap2(&g, 1, 2, &rec), -EINVAL);
	ck_assert_int_eq(gi_pstate_comm(&g, 2, &rec), -EINVAL);
	pdf_buf_fini(&rec);
	gi_pstate_fini(&g);
}
END_TEST

enum lie {
	LIE_PID0, LIE_PID_MAX, LIE_TWICE, LIE_MAPS, LIE_BUILD_ID, LIE_WRAP,
	LIE_EMPTY, LIE_NAME_LONG, LIE_SHORT, NR_LIES
};

/* Process 2 of 3 lies: it alone is refused. */
START_TEST(hostile_proc_refused_alone)
{
	struct gi_pstate g;
	uint32_t a, b, len;
	uint8_t *p;
	struct rs_pstate_proc pr;
	struct rs_pstate_map m;

	memset(&g, 0, sizeof(g));
	a = put_proc(table, 42, "one");
	b = put_proc(table + a, 43, "two");
	len = a + b + put_proc(table + a + b, 44, "three");
	p = table + a;
	memcpy(&pr, p, sizeof(pr));
	memcpy(&m, p + sizeof(pr), sizeof(m));
	switch (_i) {
	case LIE_PID0: pr.pid = 0; break;
	case LIE_PID_MAX: pr.pid = UINT32_MAX; break;
	case LIE_TWICE: pr.pid = 42; break;
	case LIE_MAPS: pr.nr_maps = 3; break;
	case LIE_BUILD_ID: m.build_id_len = 21; break;
	case LIE_WRAP: m.start = UINT64_MAX - 0x1000; break;
	case LIE_EMPTY: m.len = 0; break;
	case LIE_NAME_LONG: m.name_len = 4000; break;
	case LIE_SHORT: m.name_len = 25; break;   /* past its own padding */
	}
	memcpy(p, &pr, sizeof(pr));
	memcpy(p + sizeof(pr), &m, sizeof(m));
	ck_assert_int_eq(gi_pstate_parse(&g, table, len, 3), 0);
	ck_assert_uint_eq(g.nr_procs, 2);
	ck_assert_uint_eq(g.nr_maps, 4);
	ck_assert_uint_eq(g.st.refused, 1);
	ck_assert_uint_eq(g.procs[0].pid, 42);
	ck_assert_uint_eq(g.procs[1].pid, 44);
	ck_assert_uint_eq(g.procs[1].first_map, 2);
	ck_assert_int_ne(g.st.why, GI_PSTATE_WHY_NONE);
	gi_pstate_fini(&g);
}
END_TEST

/* Names a mapping must not have, each of its length: relative, empty,
 * with a NUL or an unprintable byte inside, a ".." component anywhere
 * (perf would join it to --symfs and leave that tree). */
static const struct { const char *name; uint32_t len; } bad_names[] = {
	{ "bin/rs-workload", 15 }, { "", 0 }, { "/bin/\0sh", 8 },
	{ "/bin/\x7fsh", 8 }, { "/bin/\nsh", 8 },
	{ "/../../../../etc/passwd", 23 }, { "/..", 3 }, { "/usr/..", 7 },
	{ "/usr/../bin/sh", 14 }, { "/usr//../sh", 11 },
};

/* Process 2 of 3 has a mapping of a bad name: that mapping alone is
 * left out, counted; every record made of what is kept is one perf
 * takes whole (the writer's rule and the table's are the same). */
START_TEST(hostile_name_costs_its_map)
{
	struct rs_pstate_proc pr = { .pid = 43, .nr_maps = 2 };
	struct pdf_buf rec;
	struct gi_pstate g;
	uint32_t a, b, len;

	memset(&g, 0, sizeof(g));
	a = put_proc(table, 42, "one");
	b = sizeof(pr);
	b += put_map_n(table + a + b, 0x400000, bad_names[_i].name,
		       bad_names[_i].len, 0xab);
	b += put_map(table + a + b, 0x7fff0000, "[vdso]", 0);
	pr.length = b;
	memcpy(pr.comm, "two", 3);
	memcpy(table + a, &pr, sizeof(pr));
	len = a + b + put_proc(table + a + b, 44, "three");
	ck_assert_int_eq(gi_pstate_parse(&g, table, len, 3), 0);
	ck_assert_uint_eq(g.nr_procs, 3);
	ck_assert_uint_eq(g.st.refused, 0);
	ck_assert_uint_eq(g.st.names_refused, 1);
	ck_assert_uint_eq(g.nr_maps, 5);
	ck_assert_uint_eq(g.procs[1].nr_maps, 1);
	ck_assert_uint_eq(g.maps[g.procs[1].first_map].name_len, 6);
	ck_assert_uint_eq(g.procs[2].first_map, 3);
	pdf_buf_init(&rec);
	for (uint32_t i = 0; i < g.nr_procs; i++)
		for (uint32_t j = 0; j < g.procs[i].nr_maps; j++) {
			ck_assert_int_eq(gi_pstate_mmap2(&g, i, j, &rec), 0);
			ck_assert_uint_eq(8 + pdf_rrec_perf_body((const void *)rec.data),
					  rec.len);
		}
	pdf_buf_fini(&rec);
	gi_pstate_fini(&g);
}
END_TEST

/* Names perf takes, dots and all, are kept. */
START_TEST(dotted_names_kept)
{
	static const char *const names[] = {
		"/usr/lib/..so", "/...", "/a..", "/..a/b", "/usr/lib/.", "[vdso]",
	};
	struct rs_pstate_proc pr = { .pid = 7, .nr_maps = 6 };
	struct gi_pstate g;
	uint32_t at = sizeof(pr);

	memset(&g, 0, sizeof(g));
	for (uint32_t i = 0; i < 6; i++)
		at += put_map(table + at, 0x400000 + i * 0x10000, names[i], 0);
	pr.length = at;
	memcpy(table, &pr, sizeof(pr));
	ck_assert_int_eq(gi_pstate_parse(&g, table, at, 1), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.nr_maps, 6);
	ck_assert_uint_eq(g.st.names_refused, 0);
	gi_pstate_fini(&g);
}
END_TEST

/* An entry's own length outside the table: nothing to skip by, the rest
 * refused; claims of more processes than the table holds counted. */
START_TEST(bad_length_stops)
{
	struct gi_pstate g;
	uint32_t a, b, bad;

	memset(&g, 0, sizeof(g));
	a = put_proc(table, 42, "one");
	b = put_proc(table + a, 43, "two");
	bad = 1u << 20;
	memcpy(table + a, &bad, 4);
	ck_assert_int_eq(gi_pstate_parse(&g, table, a + b, 2), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.st.refused, 1);
	ck_assert_int_eq(g.st.why, GI_PSTATE_WHY_LENGTH);
	ck_assert_int_eq(gi_pstate_parse(&g, table, a, 5), 0);
	ck_assert_uint_eq(g.nr_procs, 1);
	ck_assert_uint_eq(g.st.refused, 4);
	/* a copy says more processes than it can hold: bounded by its bytes */
	ck_assert_int_eq(gi_pstate_parse(&g, table, 0, 100000), 0);
	ck_assert_uint_eq(g.nr_procs, 0);
	ck_assert_int_eq(gi_pstate_parse(NULL, table, 8, 1), -EINVAL);
	gi_pstate_fini(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpstate");
	TCase *tc = tcase_create("gpstate");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, good_table_kept);
	tcase_add_test(tc, parent_and_end_kept);
	tcase_add_loop_test(tc, hostile_proc_refused_alone, 0, NR_LIES);
	tcase_add_loop_test(tc, hostile_name_costs_its_map, 0,
			    sizeof(bad_names) / sizeof(bad_names[0]));
	tcase_add_test(tc, dotted_names_kept);
	tcase_add_test(tc, bad_length_stops);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
