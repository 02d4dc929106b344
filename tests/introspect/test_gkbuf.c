/* SPDX-License-Identifier: MIT */
/* Recovering the guest kernel's unforwarded perf records (introspect/src/gi_kbuf.c)
 * from a synthesized "guest memory" through a fake peek: the agent's table
 * in a real region's sideband, hostile buffers, hostile tables.  Never a
 * read outside guest RAM, never a crash, clear counts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "ringside/introspect.h"

#define PAGE     4096u
#define MEM      (1u << 20)          /* guest RAM: 1 MiB */
#define PAGES    4u                  /* data pages per buffer */


#define ST       0x107ull          /* IP, TID, TIME, PERIOD, say */

static uint8_t *mem;                 /* guest-physical memory */
static void *rmem;                   /* the region */
static uint64_t rsize;
static struct rs_region guest, host;
static uint64_t rows[2][2 + PAGES];
static uint64_t peeks, wild, fail_at;

static int peek(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	(void)ctx;
	peeks++;
	if (fail_at && peeks == fail_at)
		return -EIO;
	if (peeks > 1000)           /* a runaway loop ends, and fails below */
		return -EIO;
	if (gpa >= MEM || len > MEM - gpa) {
		wild++;
		return -EFAULT;
	}
	memcpy(buf, mem + gpa, len);
	return 0;
}

static const char *errname(int err)
{
	return strerror(-err);
}

static struct gi_kbuf_src src = {
	.peek = peek, .errstr = errname, .ram = { { 0, MEM }, { 0, 0 } },
};

/* CPU @c's buffer: control page at 64 KiB + c * 64 KiB, data pages in
 * reverse order after it, so that the table's order matters. */
static void layout(uint32_t c)
{
	uint64_t base = 0x10000 + (uint64_t)c * 0x10000;

	rows[c][0] = c;
	rows[c][1] = base;
	for (uint32_t i = 0; i < PAGES; i++)
		rows[c][2 + i] = base + (uint64_t)(PAGES - i) * PAGE;
}

static struct rs_ctrl_page *ctrl(uint32_t c)
{
	return (struct rs_ctrl_page *)(void *)(mem + rows[c][1]);
}

/* @len bytes at buffer position @pos of CPU @c, through the page table. */
static void put(uint32_t c, uint64_t pos, const void *src_, size_t len)
{
	const uint8_t *s = src_;

	for (size_t i = 0; i < len; i++) {
		uint64_t p = (pos + i) & (PAGES * PAGE - 1);

		mem[rows[c][2 + p / PAGE] + p % PAGE] = s[i];
	}
}

/* A record of @type and @size at @pos, its body a pattern. */
static void rec(uint32_t c, uint64_t pos, uint32_t type, uint16_t size)
{
	uint8_t buf[65536];
	struct rs_perf_header h = { .type = type, .misc = 0, .size = size };

	memset(buf, 0xa5 ^ (uint8_t)pos, sizeof(buf));
	memcpy(buf, &h, sizeof(h));
	put(c, pos, buf, size >= sizeof(h) ? size : sizeof(h));
}

static void publish(uint32_t cpus, uint64_t sample_type)
{
	struct rs_kbuf_info info = { .nr_cpus = cpus, .data_pages = PAGES,
				     .sample_type = sample_type };

	ck_assert_int_eq(rs_kbuf_publish(&guest, &info, &rows[0][0]), 0);
}

static void setup(void)
{
	struct rs_region_params p;

	mem = calloc(1, MEM);
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(rs_region_params_init(&p, 1, 1, 0, RS_MODE_OVERWRITE,
					       RS_MODE_NORMAL), 0);
	p.sideband_pages = 2;
	p.sample_type = ST;
	ck_assert_int_eq(rs_region_size(&p, &rsize), 0);
	rmem = aligned_alloc(PAGE, rsize);
	ck_assert_ptr_nonnull(rmem);
	ck_assert_int_eq(rs_region_layout(rmem, rsize, &p), 0);
	ck_assert_int_eq(rs_region_open(&guest, rmem, rsize), 0);
	ck_assert_int_eq(rs_region_open(&host, rmem, rsize), 0);
	layout(0);
	layout(1);
	for (uint32_t c = 0; c < 2; c++)
		ctrl(c)->data_size = PAGES * PAGE;
	peeks = wild = fail_at = 0;
}

static void teardown(void)
{
	free(rmem);
	free(mem);
}

static void recover(struct gi_kbuf *g)
{
	gi_kbuf_init(g);
	ck_assert_int_eq(gi_kbuf_recover(g, &host, &src, ST), 0);
	ck_assert_uint_eq(wild, 0);
}

START_TEST(wrapping_records_recovered)
{
	const uint64_t size = PAGES * PAGE;
	uint64_t tail = 5 * size - 48, head = tail + 48 + 64 + 32;
	struct gi_kbuf g;
	uint32_t cpu;

	rec(0, tail, RS_PERF_RECORD_SAMPLE, 48);         /* ends at the end */
	rec(0, tail + 48, RS_PERF_RECORD_SAMPLE, 64);
	rec(0, tail + 112, 3 /* COMM */, 32);
	ctrl(0)->data_tail = tail;
	ctrl(0)->data_head = head;
	/* CPU 1: a record crossing the end, then a LOST */
	rec(1, size - 16, RS_PERF_RECORD_SAMPLE, 40);
	rec(1, size + 24, RS_PERF_RECORD_LOST, 24);
	ctrl(1)->data_tail = size - 16;
	ctrl(1)->data_head = size + 48;
	publish(2, ST);
	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_OK);
	ck_assert_uint_eq(g.cpus, 2);
	ck_assert_uint_eq(g.cpus_recovered, 2);
	ck_assert_uint_eq(g.records, 5);
	ck_assert_uint_eq(g.corrupt, 0);
	ck_assert_uint_eq(gi_kbuf_count(&g), 5);
	ck_assert_uint_eq(gi_kbuf_record(&g, 1, &cpu)->size, 64);
	ck_assert_uint_eq(cpu, 0);
	ck_assert_uint_eq(gi_kbuf_record(&g, 3, &cpu)->size, 40);
	ck_assert_uint_eq(cpu, 1);
	ck_assert_uint_eq(gi_kbuf_record(&g, 4, NULL)->type,
			  RS_PERF_RECORD_LOST_SAMPLES);
	gi_kbuf_drop(&g, 0);
	gi_kbuf_drop(&g, 0);
	ck_assert_uint_eq(g.duplicates, 1);
	ck_assert_int_eq(gi_kbuf_dropped(&g, 0), 1);
	ck_assert_int_eq(gi_kbuf_dropped(&g, 1), 0);
	gi_kbuf_fini(&g);
}
END_TEST

/* The FORK of a new process, apart from the records (the host describes
 * the child as its parent was); a thread's, or one of no process, is of
 * the other types; one too short is corrupt.  A COMM's sample_id trailer
 * is taken off, as the agent takes it off what it forwards. */
START_TEST(forks_apart)
{
	struct {
		struct rs_perf_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} f = { { 7, 0, sizeof(f) }, 300, 200, 300, 200, 123456789 };
	uint64_t pos = 0;
	struct gi_kbuf_fork got;
	struct gi_kbuf g;

	rec(0, pos, RS_PERF_RECORD_SAMPLE, 48);
	pos += 48;
	put(0, pos, &f, sizeof(f));          /* a new process */
	pos += sizeof(f);
	f.pid = f.tid = 301;
	f.ppid = 301;                        /* a thread of 301 */
	put(0, pos, &f, sizeof(f));
	pos += sizeof(f);
	f.ppid = 0;                          /* no process's parent */
	put(0, pos, &f, sizeof(f));
	pos += sizeof(f);
	rec(0, pos, 7, 24);                  /* too short for a FORK */
	pos += 24;
	{       /* a COMM with the sample_id trailer the agent's events give */
		struct {
			struct rs_perf_header h;
			uint32_t pid, tid;
			char comm[8];
			uint64_t trailer[2];
		} c = { { 3, 0, sizeof(c) }, 300, 300, "gzip", { 1, 2 } };

		put(0, pos, &c, sizeof(c));
		pos += sizeof(c);
	}
	ctrl(0)->data_tail = 0;
	ctrl(0)->data_head = pos;
	publish(1, ST);
	recover(&g);
	ck_assert_uint_eq(g.records, 2);
	/* as the agent forwards it: the trailer off */
	ck_assert_uint_eq(gi_kbuf_record(&g, 1, NULL)->type, 3);
	ck_assert_uint_eq(gi_kbuf_record(&g, 1, NULL)->size, 24);
	ck_assert_uint_eq(g.forks, 1);
	ck_assert_uint_eq(g.other, 2);
	ck_assert_uint_eq(g.corrupt, 1);
	ck_assert_uint_eq(gi_kbuf_fork_count(&g), 1);
	ck_assert_int_eq(gi_kbuf_fork_get(&g, 0, &got), 0);
	ck_assert_uint_eq(got.cpu, 0);
	ck_assert_uint_eq(got.pid, 300);
	ck_assert_uint_eq(got.ppid, 200);
	ck_assert_uint_eq(got.time, 123456789);
	ck_assert_int_eq(gi_kbuf_fork_get(&g, 1, &got), -EINVAL);
	gi_kbuf_fini(&g);
}
END_TEST

START_TEST(nothing_unforwarded)
{
	struct gi_kbuf g;

	ctrl(0)->data_tail = ctrl(0)->data_head = 12345 * 8;
	publish(1, ST);
	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_OK);
	ck_assert_uint_eq(g.records, 0);
	ck_assert_uint_eq(g.cpus_recovered, 0);
	ck_assert_uint_eq(peeks, 1);       /* the control page only */
	gi_kbuf_fini(&g);
}
END_TEST

START_TEST(hostile_positions)
{
	struct gi_kbuf g;

	ctrl(0)->data_tail = 0;
	ctrl(0)->data_head = PAGES * PAGE + 8;          /* more than a buffer */
	ctrl(1)->data_tail = 4096;
	ctrl(1)->data_head = 8;                         /* tail beyond head */
	publish(2, ST);
	recover(&g);
	ck_assert_uint_eq(g.bad_pages, 2);
	ck_assert_uint_eq(g.records, 0);
	gi_kbuf_fini(&g);
	ctrl(0)->data_head = 8;
	ctrl(0)->data_size = 2 * PAGES * PAGE;          /* not the table's */
	recover(&g);
	ck_assert_uint_eq(g.bad_pages, 2);
	gi_kbuf_fini(&g);
}
END_TEST

/* At most (1 + data pages) page reads per row, whatever head and tail
 * say (docs/threat-model.md): positions next to 2^64, where a position
 * stepping by pages wraps, and a full buffer not page-aligned, which
 * touches one page more than the buffer holds. */
START_TEST(page_reads_bounded)
{
	const uint64_t size = PAGES * PAGE, top = ~0ull;
	/* tail = 2^64 - tail_back, head = 2^64 - 1 - head_back */
	const struct { uint64_t tail_back, head_back, reads; } c[] = {
		{ 250, 0, 2 },                   /* head 2^64-1, tail head-249 */
		{ PAGE + 16, 15, 3 },            /* two pages below 2^64 */
		{ size + 8, 7, 1 + PAGES },      /* a full buffer, unaligned */
		{ size, 0, 1 + PAGES },
		{ 8, 0, 2 },
	};
	struct gi_kbuf g;

	publish(1, ST);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ctrl(0)->data_tail = 0 - c[i].tail_back;
		ctrl(0)->data_head = top - c[i].head_back;
		peeks = 0;
		recover(&g);
		ck_assert_uint_eq(g.bad_pages, 0);
		ck_assert_uint_eq(g.peek_failed, 0);
		ck_assert_uint_eq(peeks, c[i].reads);
		ck_assert_uint_eq(g.page_reads, peeks);
		gi_kbuf_fini(&g);
	}
	/* a full buffer from an unaligned tail spans PAGES + 1 pages */
	ctrl(0)->data_tail = 8;
	ctrl(0)->data_head = size + 8;
	peeks = 0;
	recover(&g);
	ck_assert_uint_eq(peeks, 1 + PAGES);
	gi_kbuf_fini(&g);
}
END_TEST

/* A bound on the page reads in all: the buffers read whole while it
 * holds them, the rest left and counted, none read in part. */
START_TEST(page_budget)
{
	const struct { uint64_t max, reads, unread; } c[] = {
		{ 0, 2 * (1 + PAGES), 0 },             /* no bound */
		{ 2 * (1 + PAGES), 2 * (1 + PAGES), 0 },
		{ 2 * (1 + PAGES) - 1, 1 + PAGES, 1 },
		{ 1 + PAGES, 1 + PAGES, 1 },
		{ PAGES, 0, 2 },                       /* not one whole */
	};
	struct gi_kbuf g;

	/* two full buffers of one-page samples: every page read */
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		for (uint32_t k = 0; k < PAGES; k++)
			rec(cpu, (uint64_t)k * PAGE, RS_PERF_RECORD_SAMPLE, PAGE);
		ctrl(cpu)->data_tail = 0;
		ctrl(cpu)->data_head = PAGES * PAGE;
	}
	publish(2, ST);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		src.max_page_reads = c[i].max;
		peeks = 0;
		recover(&g);
		ck_assert_uint_eq(peeks, c[i].reads);
		ck_assert_uint_eq(g.page_reads, c[i].reads);
		ck_assert_uint_eq(g.cpus_unread, c[i].unread);
		ck_assert_uint_eq(g.cpus, 2 - c[i].unread);
		ck_assert_uint_eq(g.peek_failed, 0);
		ck_assert_uint_eq(g.records, (2 - c[i].unread) * PAGES);
		gi_kbuf_fini(&g);
	}
	src.max_page_reads = 0;
}
END_TEST

/* Records crossing a page just below 2^64 come back whole. */
START_TEST(records_below_wrap)
{
	const uint64_t tail = 0ull - PAGE - 16;
	const struct rs_perf_header *r;
	struct gi_kbuf g;

	rec(0, tail, RS_PERF_RECORD_SAMPLE, 48);
	rec(0, tail + 48, RS_PERF_RECORD_SAMPLE, PAGE - 48);
	ctrl(0)->data_tail = tail;
	ctrl(0)->data_head = tail + PAGE;
	publish(1, ST);
	recover(&g);
	ck_assert_uint_eq(peeks, 3);
	ck_assert_uint_eq(g.records, 2);
	ck_assert_uint_eq(g.corrupt, 0);
	r = gi_kbuf_record(&g, 1, NULL);
	ck_assert_uint_eq(r->size, PAGE - 48);
	ck_assert_uint_eq(((const uint8_t *)r)[PAGE - 49],
			  0xa5 ^ (uint8_t)(tail + 48));
	gi_kbuf_fini(&g);
}
END_TEST

START_TEST(hostile_records)
{
	struct gi_kbuf g;

	/* CPU 0: one good record, then one running past head */
	rec(0, 0, RS_PERF_RECORD_SAMPLE, 32);
	rec(0, 32, RS_PERF_RECORD_SAMPLE, 200);
	ctrl(0)->data_tail = 0;
	ctrl(0)->data_head = 128;
	/* CPU 1: size 0 first (a reader that trusts it loops forever) */
	rec(1, 0, RS_PERF_RECORD_SAMPLE, 0);
	ctrl(1)->data_tail = 0;
	ctrl(1)->data_head = PAGES * PAGE;
	publish(2, ST);
	recover(&g);
	ck_assert_uint_eq(g.records, 1);
	ck_assert_uint_eq(g.corrupt, 2);
	gi_kbuf_fini(&g);
	/* a huge size that would wrap the buffer many times */
	put(0, 32, &(struct rs_perf_header){ RS_PERF_RECORD_SAMPLE, 0, 65528 }, 8);
	ctrl(0)->data_head = PAGES * PAGE;
	recover(&g);
	ck_assert_uint_eq(g.records, 1);
	ck_assert_uint_eq(g.corrupt, 2);
	gi_kbuf_fini(&g);
	ctrl(0)->data_head = 128;
	/* unaligned size, and a head that cuts a header */
	rec(1, 0, RS_PERF_RECORD_SAMPLE, 20);
	recover(&g);
	ck_assert_uint_eq(g.corrupt, 2);
	gi_kbuf_fini(&g);
	rec(1, 0, RS_PERF_RECORD_SAMPLE, 16);
	ctrl(1)->data_head = 20;
	recover(&g);
	ck_assert_uint_eq(g.records, 2);        /* one per CPU */
	ck_assert_uint_eq(g.corrupt, 2);        /* CPU 0's huge one; the cut */
	gi_kbuf_fini(&g);
}
END_TEST

START_TEST(hostile_addresses)
{
	struct gi_kbuf g;

	rows[0][1] = MEM;                       /* past guest RAM */
	rows[1][2 + 1] = 0x20000 + 8;           /* not page-aligned */
	publish(2, ST);
	recover(&g);
	ck_assert_uint_eq(g.bad_rows, 2);
	ck_assert_uint_eq(peeks, 0);
	gi_kbuf_fini(&g);
	layout(0);
	layout(1);
	rows[1][0] = 100000;                    /* no such CPU */
	rows[0][2] = ~0ull & ~(uint64_t)(PAGE - 1); /* wraps */
	publish(2, ST);
	recover(&g);
	ck_assert_uint_eq(g.bad_rows, 2);
	ck_assert_uint_eq(peeks, 0);
	gi_kbuf_fini(&g);
}
END_TEST

START_TEST(peek_fails)
{
	struct gi_kbuf g;

	rec(0, 0, RS_PERF_RECORD_SAMPLE, 32);
	ctrl(0)->data_head = 32;
	publish(1, ST);
	fail_at = 2;                            /* the data page */
	recover(&g);
	ck_assert_uint_eq(g.peek_failed, 1);
	ck_assert_int_eq(g.peek_err, -EIO);
	ck_assert_uint_eq(g.records, 0);
	gi_kbuf_fini(&g);
}
END_TEST

START_TEST(hostile_tables)
{
	struct rs_region_header *h = rmem;
	struct gi_kbuf g;

	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_NONE);
	gi_kbuf_fini(&g);
	publish(1, ST + 1);
	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_MISMATCH);
	gi_kbuf_fini(&g);
	publish(1, ST);
	h->kbuf.table_len += 8;
	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_CORRUPT);
	gi_kbuf_fini(&g);
	publish(1, ST);
	h->kbuf.table_offset = rs_sideband_size(&host);   /* past the area */
	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_CORRUPT);
	gi_kbuf_fini(&g);
	publish(1, ST);
	h->kbuf.data_pages = 3;
	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_CORRUPT);
	gi_kbuf_fini(&g);
	publish(1, ST);
	h->kbuf.seq |= 1;                        /* forever being written */
	recover(&g);
	ck_assert_int_eq(g.state, GI_KBUF_BUSY);
	gi_kbuf_fini(&g);
	ck_assert_uint_eq(peeks, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gkbuf");
	TCase *t = tcase_create("recover");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, wrapping_records_recovered);
	tcase_add_test(t, forks_apart);
	tcase_add_test(t, nothing_unforwarded);
	tcase_add_test(t, hostile_positions);
	tcase_add_test(t, page_reads_bounded);
	tcase_add_test(t, page_budget);
	tcase_add_test(t, records_below_wrap);
	tcase_add_test(t, hostile_records);
	tcase_add_test(t, hostile_addresses);
	tcase_add_test(t, peek_fails);
	tcase_add_test(t, hostile_tables);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
