/* SPDX-License-Identifier: MIT */
/*
 * The guest's process table at the head of every file a recording writes
 * (cap_recorder, cap_pstate_file): each file, a rotated one too, names the
 * processes that were alive as it began, just before its first timed
 * record, as the host's own records (ringside:state).  The ring counts
 * read back from each file never include them: every ring record is in
 * exactly one file, as without the table.  A process born after the
 * agent's last read is filed as its parent was (cap_pstate_file_child).  A
 * process the table gives no name gets no COMM.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <check.h>
#include <linux/perf_event.h>

#include "ringside/capture.h"
#include "ringside/ring.h"

#define FIRST  30     /* records before the recording: the first file */
#define SECOND 20     /* written at the rotation: the second file */

struct fixture {
	char path[256];
	void *mem;
	uint64_t size;
	struct rs_region region;
	struct rs_producer prod;
	uint64_t seq;
	char next[256];
	unsigned asked;
};

static void tmp_path(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "%s/rs-pstate-%d-%s",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(),
		 what);
}

/* A normal-mode region file of one ring with a sideband area. */
static void make(struct fixture *f)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = 8,
		.data_mode = RS_MODE_NORMAL,
		.aux_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST,
		.sideband_pages = 4,
	};
	int fd;

	tmp_path(f->path, sizeof(f->path), "region");
	ck_assert_int_eq(rs_region_size(&params, &f->size), 0);
	fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)f->size), 0);
	f->mem = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ck_assert_ptr_ne(f->mem, MAP_FAILED);
	ck_assert_int_eq(rs_region_layout(f->mem, f->size, &params), 0);
	ck_assert_int_eq(rs_region_enable(f->mem), 0);
	ck_assert_int_eq(rs_region_open(&f->region, f->mem, f->size), 0);
	ck_assert_int_eq(rs_producer_init(&f->prod, &f->region, 0), 0);
}

/* An executable mapping of @name, build id bytes @id0. */
static uint32_t put_map(uint8_t *buf, uint64_t start, const char *name,
			uint8_t id0)
{
	struct rs_pstate_map m = { .start = start, .len = 0x2000,
		.pgoff = 0, .prot = 5, .flags = 2 };
	uint32_t n = (uint32_t)strlen(name), len = (80u + n + 7u) & ~7u;

	m.name_len = (uint16_t)n;
	m.build_id_len = 20;
	memset(m.build_id, id0, 20);
	memset(buf, 0, len);
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), name, n);
	return len;
}

static uint32_t put_proc(uint8_t *buf, uint32_t pid, const char *comm,
			 const char *lib)
{
	struct rs_pstate_proc p = { .pid = pid, .nr_maps = 2 };
	uint32_t at = sizeof(p);

	memcpy(p.comm, comm, strnlen(comm, sizeof(p.comm)));
	at += put_map(buf + at, 0x400000, "/usr/bin/gzip", 0xab);
	at += put_map(buf + at, 0x7f0000000000, lib, 0xcd);
	p.length = at;
	memcpy(buf, &p, sizeof(p));
	return at;
}

/* The guest agent's table: two processes, two mappings each, the second
 * process's library named @lib. */
static void publish_table_lib(struct fixture *f, const char *lib)
{
	static uint8_t entries[2048] __attribute__((aligned(8)));
	struct rs_pstate_copy head = { 0 };
	struct rs_pstate_writer w;

	head.length = put_proc(entries, 42, "gzip", "/usr/lib/libc.so.6");
	head.length += put_proc(entries + head.length, 43, "gzip-2", lib);
	head.nr_procs = 2;
	head.nr_maps = 4;
	ck_assert_int_eq(rs_pstate_begin(&f->region, &w, 0, 8192), 0);
	ck_assert_int_eq(rs_pstate_publish(&w, &head, entries), 0);
}

static void publish_table(struct fixture *f)
{
	publish_table_lib(f, "/usr/lib/libc.so.6");
}

/* @n records, a COMM first (untimed) the first time. */
static void put(struct fixture *f, unsigned n)
{
	_Alignas(8) uint8_t buf[RS_RECORD_MAX];

	while (n--) {
		int size = rs_seq_build(buf, f->seq, 5000 + f->seq, 0, 0);

		ck_assert_int_gt(size, 8);
		ck_assert_int_eq(rs_producer_output(&f->prod, RS_RECORD_SEQ, 0,
						    buf + 8, (uint32_t)size - 8), 0);
		f->seq++;
	}
}

static const char *next_output(void *arg, const struct cap_recorder *r)
{
	struct fixture *f = arg;

	(void)r;
	if (f->asked++)
		return NULL;
	put(f, SECOND);
	return f->next;
}

static int finished(void *arg)
{
	(void)arg;
	return 1;
}

struct seen {
	uint64_t ring_records;
	uint64_t state_comms, state_mmaps;
	uint64_t first_ring_time;     /* of the first timed ring record */
	uint64_t state_time;          /* of the last host record */
};

/* @path as perf's reader gives it, and as the read-back tallies it. */
static void read_file(const char *path, struct seen *s)
{
	struct pdf_reader *r;
	struct pdf_event ev;
	struct cap_tally t;
	struct cap_tally_ring sum;
	uint64_t at;
	int n;

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		if (ev.state) {
			ck_assert_uint_eq(ev.ring, 0);
			s->state_comms += ev.rec->type == PERF_RECORD_COMM;
			s->state_mmaps += ev.rec->type == PERF_RECORD_MMAP2;
			s->state_time = ev.time;
			continue;
		}
		if (ev.rec->type == RS_RECORD_SEQ && !s->ring_records)
			s->first_ring_time = ev.time;
		s->ring_records++;
	}
	ck_assert_int_eq(n, 0);
	pdf_reader_close(r);
	ck_assert_int_eq(cap_tally_file(path, &t, NULL, &at), 0);
	cap_tally_total(&t, &sum);
	ck_assert_uint_eq(sum.records, s->ring_records);
	ck_assert_uint_eq(t.state_comms, s->state_comms);
	ck_assert_uint_eq(t.state_mmaps, s->state_mmaps);
}

START_TEST(every_file_names_the_processes)
{
	struct cap_recorder_config c;
	struct cap_recorder *r;
	struct fixture f = { 0 };
	struct cap_err e = { 0 };
	char first[256];
	struct seen s;
	struct cap_source *m;

	make(&f);
	publish_table(&f);
	put(&f, FIRST);
	ck_assert_int_eq(cap_source_new(&m), 0);
	ck_assert_int_eq(cap_source_open(m, f.path, CAP_SOURCE_WRITE |
					 CAP_SOURCE_EXCL, &e), 0);
	tmp_path(first, sizeof(first), "1.data");
	tmp_path(f.next, sizeof(f.next), "2.data");
	cap_recorder_config_init(&c);
	c.source = f.path;
	c.output = first;
	c.finished = finished;
	c.hooks.next_output = next_output;
	c.hooks.arg = &f;
	ck_assert_int_eq(cap_recorder_new(&r, &c), 0);
	ck_assert_int_eq(cap_recorder_run(r, cap_source_region(m)), 0);
	ck_assert_int_eq(cap_recorder_stats(r)->fail.what, CAP_FAIL_NONE);
	ck_assert_uint_eq(cap_recorder_stats(r)->files, 2);
	/* the last file's count, as record's summary prints it */
	ck_assert_uint_eq(cap_recorder_pstate(r)->nr_procs, 2);
	ck_assert_uint_eq(cap_recorder_stats(r)->pstate_out.comms, 2);
	ck_assert_uint_eq(cap_recorder_stats(r)->pstate_out.mmaps, 4);
	ck_assert_uint_eq(cap_recorder_stats(r)->pstate_out.refused, 0);

	read_file(first, &s);
	ck_assert_uint_eq(s.ring_records, FIRST);
	ck_assert_uint_eq(s.state_comms, 2);
	ck_assert_uint_eq(s.state_mmaps, 4);
	ck_assert_uint_eq(s.first_ring_time, 5000);
	ck_assert_uint_eq(s.state_time, 4999);   /* just before it */

	read_file(f.next, &s);
	ck_assert_uint_eq(s.ring_records, SECOND);
	ck_assert_uint_eq(s.state_comms, 2);
	ck_assert_uint_eq(s.state_mmaps, 4);
	ck_assert_uint_eq(s.first_ring_time, 5000 + FIRST);
	ck_assert_uint_eq(s.state_time, 5000 + FIRST - 1);

	cap_recorder_free(r);
	cap_source_free(m);
	unlink(first);
	unlink(f.next);
	munmap(f.mem, f.size);
	unlink(f.path);
}
END_TEST

/* One recording of FIRST records into a file of @what, the second
 * process's library named @lib; the file read back into @s.  The
 * recorder, for its counts; cap_recorder_free frees it. */
static struct cap_recorder *record_one(const char *what, const char *lib,
				       int no_pstate, struct seen *s)
{
	struct cap_recorder_config c;
	struct cap_recorder *r;
	struct fixture f = { 0 };
	struct cap_err e = { 0 };
	char out[256];
	struct cap_source *m;

	make(&f);
	publish_table_lib(&f, lib);
	put(&f, FIRST);
	ck_assert_int_eq(cap_source_new(&m), 0);
	ck_assert_int_eq(cap_source_open(m, f.path, CAP_SOURCE_WRITE |
					 CAP_SOURCE_EXCL, &e), 0);
	tmp_path(out, sizeof(out), what);
	cap_recorder_config_init(&c);
	c.source = f.path;
	c.output = out;
	c.finished = finished;
	c.no_pstate = no_pstate;
	ck_assert_int_eq(cap_recorder_new(&r, &c), 0);
	ck_assert_int_eq(cap_recorder_run(r, cap_source_region(m)), 0);
	ck_assert_int_eq(cap_recorder_stats(r)->readback_err, 0);
	read_file(out, s);
	ck_assert_uint_eq(s->ring_records, FIRST);
	cap_source_free(m);
	unlink(out);
	munmap(f.mem, f.size);
	unlink(f.path);
	return r;
}

/* A mapping named to lead perf out of --symfs costs that mapping alone:
 * the file reads back whole, the other records of the table in it. */
START_TEST(hostile_name_costs_its_mapping)
{
	struct seen s;
	struct cap_recorder *r = record_one("dotdot.data", "/../../../../etc/passwd",
					    0, &s);

	ck_assert_uint_eq(cap_recorder_pstate(r)->nr_procs, 2);
	ck_assert_uint_eq(cap_recorder_pstate(r)->st.names_refused, 1);
	ck_assert_uint_eq(cap_recorder_stats(r)->pstate_out.comms, 2);
	ck_assert_uint_eq(cap_recorder_stats(r)->pstate_out.mmaps, 3);
	ck_assert_uint_eq(cap_recorder_stats(r)->pstate_out.refused, 0);
	ck_assert_uint_eq(s.state_comms, 2);
	ck_assert_uint_eq(s.state_mmaps, 3);
	cap_recorder_free(r);
}
END_TEST

/* --no-process-state: the rings alone. */
START_TEST(not_filed_when_asked)
{
	struct seen s;
	struct cap_recorder *r = record_one("none.data", "/usr/lib/libc.so.6", 1, &s);

	ck_assert_uint_eq(cap_recorder_stats(r)->pstate_out.comms, 0);
	ck_assert_uint_eq(s.state_comms + s.state_mmaps, 0);
	cap_recorder_free(r);
}
END_TEST

/* A checked table of two processes into @g: pid 42 "gzip" and @pid2
 * named @comm2, two mappings each; a file of one ring opened at @path. */
static void table_two(struct gi_pstate *g, uint32_t pid2, const char *comm2,
		      char *path, size_t path_len, const char *what,
		      struct pdf_writer **w)
{
	static uint8_t entries[2048] __attribute__((aligned(8)));
	struct pdf_writer_params wp = { .size = sizeof(wp), .nr_rings = 1 };
	uint32_t len;

	len = put_proc(entries, 42, "gzip", "/usr/lib/libc.so.6");
	len += put_proc(entries + len, pid2, comm2, "/usr/lib/libc.so.6");
	memset(g, 0, sizeof(*g));
	ck_assert_int_eq(gi_pstate_parse(g, entries, len, 2), 0);
	g->state = GI_PSTATE_OK;
	ck_assert_uint_eq(g->nr_procs, 2);
	tmp_path(path, path_len, what);
	ck_assert_int_eq(pdf_writer_open(w, path, &wp), 0);
}

/* A process born after the agent's last read (its FORK recovered from the
 * guest kernel's buffer) is filed as its parent was: the parent's name
 * and mappings under the child's pid, at its birth; not when the table
 * has the child already, nor without its parent in the table. */
START_TEST(child_filed_as_its_parent)
{
	struct cap_pstate_filed c = { 0 };
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	struct gi_pstate g;
	char path[256];
	uint32_t comms = 0, mmaps = 0, ids[2];
	int n;

	table_two(&g, 43, "sh", path, sizeof(path), "born.data", &w);
	ck_assert_int_eq(cap_pstate_file_child(&g, w, 42, 99, 5000, &c), 1);
	ck_assert_int_eq(cap_pstate_file_child(&g, w, 42, 43, 5000, &c), 0);
	ck_assert_int_eq(cap_pstate_file_child(&g, w, 7, 100, 5000, &c), 0);
	ck_assert_int_eq(cap_pstate_file_child(&g, NULL, 43, 101, 5000, &c), 1);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_uint_eq(c.born, 2);
	ck_assert_uint_eq(c.comms, 2);
	ck_assert_uint_eq(c.mmaps, 4);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		ck_assert(ev.state);
		ck_assert_uint_eq(ev.time, 5000);
		memcpy(ids, ev.rec + 1, sizeof(ids));
		ck_assert_uint_eq(ids[0], 99);
		ck_assert_uint_eq(ids[1], 99);
		if (ev.rec->type == PERF_RECORD_COMM) {
			ck_assert_str_eq((const char *)(ev.rec + 1) + 8, "gzip");
			comms++;
		} else {
			ck_assert_uint_eq(ev.rec->type, PERF_RECORD_MMAP2);
			mmaps++;
		}
	}
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(comms, 1);
	ck_assert_uint_eq(mmaps, 2);
	pdf_reader_close(r);
	unlink(path);
	gi_pstate_fini(&g);
}
END_TEST

/* A process the table names with no name (the agent met its pid in a
 * sample and it was gone before its name could be read) gets its
 * mappings and no COMM: a COMM of "" would claim the name is empty,
 * where perf, without one, says the pid (":96") as for any process it
 * has no name of.  The named one beside it gets both. */
START_TEST(nameless_process_no_comm)
{
	struct cap_pstate_filed c = { 0 };
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	struct gi_pstate g;
	char path[256];
	uint32_t comms = 0, mmaps[2] = { 0, 0 }, ids[2];
	int n;

	table_two(&g, 96, "", path, sizeof(path), "nameless.data", &w);
	ck_assert_int_eq(cap_pstate_file(&g, w, 5000, &c), 0);
	ck_assert_int_eq(cap_pstate_file_child(&g, w, 96, 97, 5000, &c), 1);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
	ck_assert_uint_eq(c.comms, 1);
	ck_assert_uint_eq(c.mmaps, 6);
	ck_assert_uint_eq(c.refused, 0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		ck_assert(ev.state);
		memcpy(ids, ev.rec + 1, sizeof(ids));
		if (ev.rec->type == PERF_RECORD_COMM) {
			ck_assert_uint_eq(ids[0], 42);
			ck_assert_str_eq((const char *)(ev.rec + 1) + 8, "gzip");
			comms++;
		} else {
			ck_assert_uint_eq(ev.rec->type, PERF_RECORD_MMAP2);
			mmaps[ids[0] != 42]++;
		}
	}
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(comms, 1);
	ck_assert_uint_eq(mmaps[0], 2);
	ck_assert_uint_eq(mmaps[1], 4);   /* pid 96's and its child's */
	pdf_reader_close(r);
	unlink(path);
	gi_pstate_fini(&g);
}
END_TEST

static Suite *record_pstate_suite(void)
{
	Suite *s = suite_create("record_pstate");
	TCase *tc = tcase_create("record_pstate");

	tcase_add_test(tc, every_file_names_the_processes);
	tcase_add_test(tc, hostile_name_costs_its_mapping);
	tcase_add_test(tc, not_filed_when_asked);
	tcase_add_test(tc, child_filed_as_its_parent);
	tcase_add_test(tc, nameless_process_no_comm);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(record_pstate_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
