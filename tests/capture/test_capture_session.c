/* SPDX-License-Identifier: MIT */
/*
 * A second program over ringside-capture, beside `ringside`: it opens
 * region files as any front end does (cap_source_open), records one with a
 * rotation (the next_output hook: each file complete on its own), and
 * snapshots a flight recorder, linking the libraries alone (nothing of
 * cli/).  Each file is read back as `ringside report` reads it
 * (cap_tally_file), and every record written is in exactly one file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <linux/perf_event.h>

#include "ringside/capture.h"
#include "ringside/ring.h"

#define FIRST  40     /* records in the first file */
#define SECOND 25     /* written after the first pass: the second file */
#define FLIGHT 30     /* in the flight recorder */

struct region_file {
	char path[256];
	void *mem;
	uint64_t size;
	struct rs_region region;
	struct rs_producer prod;
	uint64_t seq;
};

/* Every path the tests use lies in a directory of this run's own, made
 * fresh by main(): a name left behind by an earlier run, or planted, can
 * never be met. */
static char tmp_base[128];

static void tmp_path(char *buf, size_t len, const char *what)
{
	int n = snprintf(buf, len, "%s/%s", tmp_base, what);

	ck_assert(n > 0 && (size_t)n < len);
}

/* A region file laid out by @params, enabled, with a producer on its
 * first ring. */
static void region_file_lay(struct region_file *rf, const char *name,
			    const struct rs_region_params *params)
{
	int fd;

	memset(rf, 0, sizeof(*rf));
	tmp_path(rf->path, sizeof(rf->path), name);
	ck_assert_int_eq(rs_region_size(params, &rf->size), 0);
	fd = open(rf->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)rf->size), 0);
	rf->mem = mmap(NULL, rf->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ck_assert_ptr_ne(rf->mem, MAP_FAILED);
	ck_assert_int_eq(rs_region_layout(rf->mem, rf->size, params), 0);
	ck_assert_int_eq(rs_region_enable(rf->mem), 0);
	ck_assert_int_eq(rs_region_open(&rf->region, rf->mem, rf->size), 0);
	ck_assert_int_eq(rs_producer_init(&rf->prod, &rf->region, 0), 0);
}

/* A region file of one ring in @mode, enabled, with a producer on it. */
static void region_file_make(struct region_file *rf, const char *name,
			     uint32_t mode)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = 8,
		.data_mode = mode,
		.aux_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST,
	};

	region_file_lay(rf, name, &params);
}

static void region_file_put(struct region_file *rf, unsigned n)
{
	_Alignas(8) uint8_t buf[RS_RECORD_MAX];

	while (n--) {
		int size = rs_seq_build(buf, rf->seq, 1000 + rf->seq, 0, 0);

		ck_assert_int_gt(size, 8);
		ck_assert_int_eq(rs_producer_output(&rf->prod, RS_RECORD_SEQ, 0,
						    buf + 8, (uint32_t)size - 8), 0);
		rf->seq++;
	}
}

static void region_file_free(struct region_file *rf)
{
	munmap(rf->mem, rf->size);
	unlink(rf->path);
}

/* Records in @path as report reads them. */
static uint64_t file_records(const char *path)
{
	struct cap_tally t;
	struct cap_tally_ring sum;
	uint64_t at;

	ck_assert_int_eq(cap_tally_file(path, &t, NULL, &at), 0);
	cap_tally_total(&t, &sum);
	ck_assert_uint_eq(cap_tally_flagged(&sum), 0);
	return sum.records;
}

/* @path opened as a front end opens it. */
static struct cap_source *source_open(const char *path, unsigned flags)
{
	struct cap_err e = { 0 };
	struct cap_source *m;

	ck_assert_int_eq(cap_source_new(&m), 0);
	ck_assert_int_eq(cap_source_open(m, path, flags, &e), 0);
	return m;
}

/* A snapshot session of @source into @output. */
static struct cap_snapper *snapper_new(const char *source, const char *output)
{
	struct cap_snapper_config c;
	struct cap_snapper *s;

	cap_snapper_config_init(&c);
	c.source = source;
	c.output = output;
	ck_assert_int_eq(cap_snapper_new(&s, &c), 0);
	return s;
}

struct rotation {
	struct region_file *rf;
	char next[256];
	unsigned asked;
	unsigned done;
	char done_path[256];
	uint64_t done_records;
};

/* Once: the guest writes SECOND more records, and they go to a new file. */
static const char *next_output(void *arg, const struct cap_recorder *r)
{
	struct rotation *x = arg;

	(void)r;
	if (x->asked++)
		return NULL;
	region_file_put(x->rf, SECOND);
	return x->next;
}

static void file_done(void *arg, const struct cap_recorder *r)
{
	struct rotation *x = arg;
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	struct cap_tally_ring sum;

	x->done++;
	snprintf(x->done_path, sizeof(x->done_path), "%s", st->output);
	ck_assert_int_eq(st->have_file_tally, 1);
	cap_tally_total(&st->file_tally, &sum);
	x->done_records = sum.records;
}

static int finished(void *arg)
{
	(void)arg;
	return 1;
}

START_TEST(record_rotates)
{
	const struct cap_recorder_stats *st;
	struct cap_recorder_config c;
	struct cap_recorder *r;
	struct rotation x = { 0 };
	struct region_file rf;
	struct cap_err e = { 0 };
	char first[256];
	struct cap_source *m, *other;

	region_file_make(&rf, "normal.region", RS_MODE_NORMAL);
	region_file_put(&rf, FIRST);
	ck_assert_int_eq(cap_source_new(&m), 0);
	ck_assert_int_eq(cap_source_open(m, rf.path, CAP_SOURCE_WRITE |
					 CAP_SOURCE_EXCL, &e), 0);
	/* a second consumer is refused while this one holds the region */
	{
		struct cap_err e2 = { 0 };

		ck_assert_int_eq(cap_source_new(&other), 0);
		ck_assert_int_ne(cap_source_open(other, rf.path, CAP_SOURCE_WRITE |
						 CAP_SOURCE_EXCL, &e2), 0);
		ck_assert(cap_err_from(&e2, cap_err_sys));
		cap_source_free(other);
	}
	tmp_path(first, sizeof(first), "1.data");
	tmp_path(x.next, sizeof(x.next), "2.data");
	x.rf = &rf;
	cap_recorder_config_init(&c);
	c.source = rf.path;
	c.output = first;
	c.finished = finished;
	c.hooks.next_output = next_output;
	c.hooks.file_done = file_done;
	c.hooks.arg = &x;
	ck_assert_int_eq(cap_recorder_new(&r, &c), 0);
	st = cap_recorder_stats(r);
	ck_assert_int_eq(cap_recorder_run(r, cap_source_region(m)), 0);
	ck_assert_int_eq(st->fail.what, CAP_FAIL_NONE);
	ck_assert_uint_eq(st->files, 2);
	ck_assert_uint_eq(x.done, 1);
	ck_assert_str_eq(x.done_path, first);
	ck_assert_uint_eq(x.done_records, FIRST);
	ck_assert_str_eq(st->output, x.next);
	/* each file whole on its own, every record in one of them */
	ck_assert_uint_eq(file_records(first), FIRST);
	ck_assert_uint_eq(file_records(x.next), SECOND);
	ck_assert_uint_eq(st->host.ring[0].corrupt, 0);
	ck_assert_uint_ge(st->host.end_ns, st->host.start_ns);
	cap_recorder_free(r);
	cap_source_free(m);
	unlink(first);
	unlink(x.next);
	region_file_free(&rf);
}
END_TEST

START_TEST(snapshot_flight_recorder)
{
	struct cap_snapper *s;
	struct region_file rf;
	char out[256];
	struct cap_source *m;

	region_file_make(&rf, "overwrite.region", RS_MODE_OVERWRITE);
	region_file_put(&rf, FLIGHT);
	m = source_open(rf.path, 0);
	tmp_path(out, sizeof(out), "snap.data");
	s = snapper_new(rf.path, out);
	ck_assert_int_eq(cap_snapper_copy(s, cap_source_region(m)), 0);
	ck_assert_uint_eq(cap_snapper_stats(s)->nr_rings, 1);
	ck_assert_uint_eq(cap_snapper_stats(s)->ring[0].data.records, FLIGHT);
	ck_assert_uint_eq(cap_snapper_stats(s)->ring[0].data.corrupt, 0);
	ck_assert_int_eq(cap_snapper_write(s), 0);
	ck_assert_int_eq(cap_snapper_stats(s)->fail.what, CAP_FAIL_NONE);
	ck_assert_int_eq(cap_snapper_stats(s)->have_file_tally, 1);
	ck_assert_uint_eq(file_records(out), FLIGHT);
	ck_assert_uint_eq(cap_snapper_stats(s)->host.kind, PDF_HOST_SNAPSHOT);
	cap_snapper_free(s);
	cap_source_free(m);
	unlink(out);
	region_file_free(&rf);
}
END_TEST

static void region_file_comm(struct region_file *rf)
{
	struct { uint32_t pid, tid; char comm[16]; } c = { 42, 42, "gzip" };

	ck_assert_int_eq(rs_producer_output(&rf->prod, PERF_RECORD_COMM, 0,
					    &c, sizeof(c)), 0);
}

/*
 * The descriptions an agent writes before its first timed record (COMM,
 * MMAP2 as it attaches) are filed in a snapshot under that record's time,
 * not at 0: a span read from the file starts where the ring's time does.
 */
START_TEST(snapshot_untimed_filed_under_first_time)
{
	struct cap_snapper *s;
	struct region_file rf;
	struct pdf_reader *r;
	struct pdf_event ev;
	uint64_t comm_time[3];
	unsigned comms = 0, seqs = 0;
	char out[256];
	struct cap_source *m;

	region_file_make(&rf, "untimed.region", RS_MODE_OVERWRITE);
	region_file_comm(&rf);
	region_file_comm(&rf);
	region_file_put(&rf, 1);       /* time 1000 */
	region_file_comm(&rf);
	region_file_put(&rf, 1);       /* time 1001 */
	m = source_open(rf.path, 0);
	tmp_path(out, sizeof(out), "untimed.data");
	s = snapper_new(rf.path, out);
	ck_assert_int_eq(cap_snapper_copy(s, cap_source_region(m)), 0);
	ck_assert_int_eq(cap_snapper_write(s), 0);
	ck_assert_int_eq(pdf_reader_open(&r, out), 0);
	while (pdf_reader_next(r, &ev) == 1) {
		if (ev.rec->type == PERF_RECORD_COMM && comms < 3)
			comm_time[comms++] = ev.time;
		seqs += ev.rec->type == RS_RECORD_SEQ;
	}
	pdf_reader_close(r);
	ck_assert_uint_eq(comms, 3);
	ck_assert_uint_eq(seqs, 2);
	ck_assert_uint_eq(comm_time[0], 1000);
	ck_assert_uint_eq(comm_time[1], 1000);
	ck_assert_uint_eq(comm_time[2], 1000);
	cap_snapper_free(s);
	cap_source_free(m);
	unlink(out);
	region_file_free(&rf);
}
END_TEST

/*
 * A copy in steps (the pause of `snapshot --stable`): what the file holds
 * is what the ring held at cap_snapper_take, whatever the writer adds between
 * the take and the walk (after the resume), and a normal ring's take
 * consumes nothing.
 */
START_TEST(snapshot_take_then_parse)
{
	static const uint32_t modes[] = { RS_MODE_OVERWRITE, RS_MODE_NORMAL };

	for (unsigned k = 0; k < 2; k++) {
		struct cap_snapper *s;
		struct region_file rf;
		char out[256];
		struct cap_source *m;

		region_file_make(&rf, "steps.region", modes[k]);
		region_file_put(&rf, FLIGHT);
		m = source_open(rf.path, 0);
		tmp_path(out, sizeof(out), "steps.data");
		s = snapper_new(rf.path, out);
		ck_assert_int_eq(cap_snapper_prepare(s, cap_source_region(m)), 0);
		region_file_put(&rf, 2);             /* before the pause: in */
		ck_assert_int_eq(cap_snapper_take(s, cap_source_region(m)), 0);
		ck_assert_uint_le(cap_snapper_stats(s)->take_ns, cap_snapper_stats(s)->host.end_ns);
		ck_assert_uint_eq(cap_snapper_stats(s)->take_ns, cap_snapper_stats(s)->host.end_ns - cap_snapper_stats(s)->host.start_ns);
		region_file_put(&rf, SECOND);        /* after the resume: out */
		ck_assert_uint_eq(cap_snapper_stats(s)->ring[0].data.records, 0); /* not walked yet */
		ck_assert_int_eq(cap_snapper_parse(s), 0);
		ck_assert_uint_eq(cap_snapper_stats(s)->ring[0].data.records, FLIGHT + 2);
		ck_assert_uint_eq(cap_snapper_stats(s)->ring[0].data.cut_bytes, 0);
		ck_assert_int_eq(cap_snapper_write(s), 0);
		ck_assert_uint_eq(file_records(out), FLIGHT + 2);
		cap_snapper_free(s);
		cap_source_free(m);
		unlink(out);
		region_file_free(&rf);
	}
}
END_TEST

/* A producer that publishes its head per batch and stopped between two
 * publications: its committed records past data_head are in the snapshot,
 * its published count leaves them out, and the file's host facts say how
 * many there are, so records - sealed == produced. */
START_TEST(snapshot_counts_sealed)
{
	const struct pdf_info *info;
	struct pdf_reader *rd;
	struct cap_snapper *s;
	struct region_file rf;
	char out[256];
	struct cap_source *m;

	region_file_make(&rf, "sealed.region", RS_MODE_NORMAL);
	ck_assert_int_eq(rs_producer_set_batch(&rf.prod, 16384), 0);
	region_file_put(&rf, FLIGHT);
	ck_assert_int_eq(rs_producer_flush(&rf.prod), 0);
	region_file_put(&rf, 7);             /* below a batch: not published */
	{
		struct rs_ring ring;

		ck_assert_int_eq(rs_region_ring(&rf.region, 0, &ring), 0);
		ck_assert_uint_eq(ring.ctrl->ext.produced, FLIGHT);
	}
	m = source_open(rf.path, 0);
	tmp_path(out, sizeof(out), "sealed.data");
	s = snapper_new(rf.path, out);
	ck_assert_int_eq(cap_snapper_copy(s, cap_source_region(m)), 0);
	ck_assert_uint_eq(cap_snapper_stats(s)->ring[0].data.records, FLIGHT + 7);
	ck_assert_uint_eq(cap_snapper_stats(s)->ring[0].data.sealed, 7);
	ck_assert_int_eq(cap_snapper_write(s), 0);
	ck_assert_uint_eq(file_records(out), FLIGHT + 7);
	ck_assert_int_eq(pdf_reader_open(&rd, out), 0);
	info = pdf_reader_info(rd);
	ck_assert_uint_eq(info->host.kind, PDF_HOST_SNAPSHOT);
	ck_assert_uint_eq(info->host.ring[0].sealed_records, 7);
	pdf_reader_close(rd);
	cap_snapper_free(s);
	cap_source_free(m);
	unlink(out);
	region_file_free(&rf);
}
END_TEST

/* A snapshot's output that cannot be created: the step, no file. */
START_TEST(snapshot_open_fails)
{
	struct cap_snapper *s;
	struct region_file rf;
	struct cap_source *m;

	region_file_make(&rf, "bad-out.region", RS_MODE_OVERWRITE);
	region_file_put(&rf, 3);
	m = source_open(rf.path, 0);
	s = snapper_new(rf.path, "/nonexistent-dir/snap.data");
	ck_assert_int_eq(cap_snapper_copy(s, cap_source_region(m)), 0);
	ck_assert_int_lt(cap_snapper_write(s), 0);
	ck_assert_int_eq(cap_snapper_stats(s)->fail.what, CAP_FAIL_OPEN);
	cap_snapper_free(s);
	cap_source_free(m);
	region_file_free(&rf);
}
END_TEST

/* ---- a stopped domain's flight recorder, kept (flight) ---- */

static void tmp_dir(char *buf, size_t len, const char *what)
{
	tmp_path(buf, len, what);
	ck_assert_int_eq(mkdir(buf, 0700), 0);
}

/* @dir and all it holds gone: 0, else what system() said. */
static int remove_tree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void rm_tree(const char *dir)
{
	ck_assert_int_eq(remove_tree(dir), 0);
}

static unsigned count_captures(const char *ddir)
{
	DIR *d = opendir(ddir);
	struct dirent *e;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strstr(e->d_name, CAP_FLIGHT_SUFFIX) != NULL;
	closedir(d);
	return n;
}

/* Captured whole, by the host's layout, beside nothing else; the bounds
 * keep the newest; the region file untouched. */
START_TEST(flight_captures_and_prunes)
{
	struct rs_region_params params;
	struct cap_flight_result res;
	struct region_file rf;
	char dir[256], ddir[512], first[4096];
	struct cap_flight_req q = { .domain = "web1", .keep = 2 };
	void *before;

	region_file_make(&rf, "flight.region", RS_MODE_OVERWRITE);
	region_file_put(&rf, FLIGHT);
	ck_assert_int_eq(rs_region_params_init(&params, 1, 8, 0,
					       RS_MODE_OVERWRITE,
					       RS_MODE_NORMAL), 0);
	params.trace_mask = RS_TRACE_TEST;
	tmp_dir(dir, sizeof(dir), "flight");
	snprintf(ddir, sizeof(ddir), "%s/web1", dir);
	q.region_path = rf.path;
	q.dir = dir;
	q.layout = &params;
	ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
	ck_assert_int_eq(res.damaged, 0);
	ck_assert_uint_eq(res.rings, 1);
	ck_assert_uint_eq(res.records, FLIGHT);
	ck_assert_uint_eq(file_records(res.path), FLIGHT);
	ck_assert_uint_gt(res.bytes, 0);
	ck_assert_int_eq(strncmp(res.path, ddir, strlen(ddir)), 0);
	snprintf(first, sizeof(first), "%s", res.path);
	/* three more: two kept, the oldest (the first) gone */
	for (int i = 0; i < 3; i++) {
		region_file_put(&rf, 1);
		ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
		ck_assert_int_eq(res.prune_err, 0);
	}
	ck_assert_uint_eq(count_captures(ddir), 2);
	ck_assert_int_ne(access(first, F_OK), 0);
	ck_assert_int_eq(access(res.path, F_OK), 0);
	ck_assert_uint_eq(file_records(res.path), FLIGHT + 3);
	/* a byte bound below one capture keeps the newest alone */
	before = malloc(rf.size);
	ck_assert_ptr_nonnull(before);
	memcpy(before, rf.mem, rf.size);
	q.keep = 0;
	q.keep_bytes = 1;
	ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
	ck_assert_uint_eq(res.pruned, 2);
	ck_assert_uint_eq(count_captures(ddir), 1);
	ck_assert_int_eq(access(res.path, F_OK), 0);
	/* the region is as the producer left it */
	ck_assert_int_eq(memcmp(rf.mem, before, rf.size), 0);
	free(before);
	rm_tree(dir);
	region_file_free(&rf);
}
END_TEST

/* The guest's memory for flight_reads_guest_buffers: one CPU's perf
 * buffer, its control page at KB_CTRL and KB_PAGES data pages after it. */
#define KB_MEM    (64u * 1024u)
#define KB_CTRL   0x4000u
#define KB_PAGES  2u
#define KB_ST     (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define KB_RECS   5u

static uint8_t kb_mem[KB_MEM];
static unsigned kb_peeks;

static int kb_peek(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	(void)ctx;
	kb_peeks++;
	if (gpa >= KB_MEM || len > KB_MEM - gpa)
		return -EFAULT;
	memcpy(buf, kb_mem + gpa, len);
	return 0;
}

static const char *kb_errstr(int err)
{
	return strerror(-err);
}

/* A region file of one overwrite ring whose sideband holds the agent's
 * table of one kernel buffer, and in kb_mem that buffer with KB_RECS
 * samples the agent had not forwarded (the kernel's head past its tail). */
static void region_file_kbuf(struct region_file *rf,
			     struct rs_region_params *params)
{
	uint64_t row[2 + KB_PAGES] = { 0, KB_CTRL };
	struct rs_kbuf_info info = { .nr_cpus = 1, .data_pages = KB_PAGES,
				     .sample_type = KB_ST };
	struct rs_ctrl_page *ctrl = (void *)(kb_mem + KB_CTRL);

	ck_assert_int_eq(rs_region_params_init(params, 1, 8, 0, RS_MODE_OVERWRITE,
					       RS_MODE_NORMAL), 0);
	params->trace_mask = RS_TRACE_TEST;
	params->sideband_pages = 1;
	params->sample_type = KB_ST;
	region_file_lay(rf, "kbuf.region", params);
	memset(kb_mem, 0, sizeof(kb_mem));
	for (uint32_t i = 0; i < KB_PAGES; i++)
		row[2 + i] = KB_CTRL + (uint64_t)(1 + i) * 4096u;
	ctrl->data_size = KB_PAGES * 4096u;
	ctrl->data_tail = 0;
	for (uint32_t i = 0; i < KB_RECS; i++) {
		struct { struct rs_perf_header h; uint64_t ip; uint32_t pid, tid;
			 uint64_t time; } r = {
			.h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(r) },
			.ip = 0xffffffff81000000ull + i, .pid = 7, .tid = 7,
			.time = 1000000 + i,
		};

		memcpy(kb_mem + row[2] + i * sizeof(r), &r, sizeof(r));
		ctrl->data_head += sizeof(r);
	}
	ck_assert_int_eq(rs_kbuf_publish(&rf->region, &info, row), 0);
}

/* A capture with the guest's memory at hand (the service's of a hung
 * guest) holds the samples the agent had left in the guest kernel's
 * buffer besides the rings, and says how many; without it (the hook's)
 * the rings alone.  A page bound that cannot hold the buffer whole
 * leaves it unread, counted. */
START_TEST(flight_reads_guest_buffers)
{
	struct gi_kbuf_src src = { .peek = kb_peek, .errstr = kb_errstr,
				   .ram = { { 0, KB_MEM }, { 0, 0 } } };
	struct rs_region_params params;
	struct cap_flight_result res;
	struct region_file rf;
	char dir[256];
	struct cap_flight_req q = { .domain = "web4" };

	region_file_kbuf(&rf, &params);
	region_file_put(&rf, FLIGHT);
	tmp_dir(dir, sizeof(dir), "flight-kbuf");
	q.region_path = rf.path;
	q.dir = dir;
	q.layout = &params;
	/* the hook's: the region alone */
	ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
	ck_assert_int_eq(res.kbuf_state, GI_KBUF_ABSENT);
	ck_assert_uint_eq(res.kbuf_records, 0);
	ck_assert_uint_eq(file_records(res.path), FLIGHT);
	/* the service's: the kernel's buffer too, control page and one
	 * data page read */
	q.kbuf_src = &src;
	kb_peeks = 0;
	ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
	ck_assert_int_eq(res.kbuf_state, GI_KBUF_OK);
	ck_assert_uint_eq(res.kbuf_records, KB_RECS);
	ck_assert_uint_eq(res.kbuf_cpus_unread, 0);
	ck_assert_uint_eq(kb_peeks, 2);
	ck_assert_uint_eq(file_records(res.path), FLIGHT + KB_RECS);
	/* a bound below the buffer's pages: none read, the rings kept */
	src.max_page_reads = KB_PAGES;
	kb_peeks = 0;
	ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
	ck_assert_int_eq(res.kbuf_state, GI_KBUF_OK);
	ck_assert_uint_eq(res.kbuf_records, 0);
	ck_assert_uint_eq(res.kbuf_cpus_unread, 1);
	ck_assert_uint_eq(kb_peeks, 0);
	ck_assert_uint_eq(file_records(res.path), FLIGHT);
	rm_tree(dir);
	region_file_free(&rf);
}
END_TEST

/* A header the guest scribbled on: read by the host's layout all the
 * same, and said; by its header alone it cannot be read. */
START_TEST(flight_damaged_header)
{
	struct rs_region_params params;
	struct cap_flight_result res;
	struct region_file rf;
	char dir[256];
	struct cap_flight_req q = { .domain = "web2" };

	region_file_make(&rf, "damaged.region", RS_MODE_OVERWRITE);
	region_file_put(&rf, FLIGHT);
	ck_assert_int_eq(rs_region_params_init(&params, 1, 8, 0,
					       RS_MODE_OVERWRITE,
					       RS_MODE_NORMAL), 0);
	params.trace_mask = RS_TRACE_TEST;
	((struct rs_region_header *)rf.mem)->magic = 0;
	tmp_dir(dir, sizeof(dir), "flight2");
	q.region_path = rf.path;
	q.dir = dir;
	ck_assert_int_lt(cap_flight_capture(&q, &res), 0);
	ck_assert_int_eq(res.fail.what, CAP_FAIL_COPY);
	ck_assert(cap_err_from(&res.fail.e, rs_error_str));
	q.layout = &params;
	ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_uint_eq(file_records(res.path), FLIGHT);
	rm_tree(dir);
	region_file_free(&rf);
}
END_TEST

/* No region file, no writable directory: the step and the code, and no
 * capture file left behind. */
START_TEST(flight_failures)
{
	struct cap_flight_result res;
	char dir[256], ddir[512];
	struct cap_flight_req q = { .domain = "web3", .region_path = "/nonexistent" };

	tmp_dir(dir, sizeof(dir), "flight3");
	q.dir = dir;
	ck_assert_int_eq(cap_flight_capture(&q, &res), -ENOENT);
	ck_assert_int_eq(res.fail.what, CAP_FAIL_COPY);
	snprintf(ddir, sizeof(ddir), "%s/web3", dir);
	ck_assert_uint_eq(count_captures(ddir), 0);
	/* a region no guest ever wrote to: nothing to keep, no file */
	{
		struct region_file rf;

		region_file_make(&rf, "empty.region", RS_MODE_OVERWRITE);
		q.region_path = rf.path;
		ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
		ck_assert_int_eq(res.empty, 1);
		ck_assert_uint_eq(count_captures(ddir), 0);
		region_file_put(&rf, 1);
		ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
		ck_assert_int_eq(res.empty, 0);
		ck_assert_uint_eq(count_captures(ddir), 1);
		/* a link to it: never followed */
		{
			char link_path[300];

			snprintf(link_path, sizeof(link_path), "%s/link.region", dir);
			ck_assert_int_eq(symlink(rf.path, link_path), 0);
			q.region_path = link_path;
			ck_assert_int_eq(cap_flight_capture(&q, &res), -ELOOP);
			ck_assert_int_eq(res.fail.what, CAP_FAIL_COPY);
			ck_assert_uint_eq(count_captures(ddir), 1);
			ck_assert_int_eq(unlink(link_path), 0);
		}
		region_file_free(&rf);
	}
	/* a capture directory whose parents do not exist yet: made */
	{
		struct region_file rf;
		char deep[512];

		snprintf(deep, sizeof(deep), "%s/a/b/captures", dir);
		region_file_make(&rf, "deep.region", RS_MODE_OVERWRITE);
		region_file_put(&rf, 2);
		q.region_path = rf.path;
		q.dir = deep;
		ck_assert_int_eq(cap_flight_capture(&q, &res), 0);
		ck_assert_int_eq(access(res.path, F_OK), 0);
		q.dir = dir;
		region_file_free(&rf);
	}
	q.dir = "/proc/rs-no-such-dir";
	ck_assert_int_lt(cap_flight_capture(&q, &res), 0);
	ck_assert_int_eq(res.fail.what, CAP_FAIL_OPEN);
	ck_assert_int_lt(cap_flight_capture(NULL, &res), 0);
	rm_tree(dir);
}
END_TEST

/* Name @i of a series in the directory @arg: DIR/n-I. */
static int numbered(char *buf, size_t len, unsigned i, const void *arg)
{
	return snprintf(buf, len, "%s/n-%u", (const char *)arg, i);
}

/* The first name no file has, past those taken; none free, none that
 * fits. */
START_TEST(flight_free_name)
{
	char dir[256], path[4096], tiny[8];
	FILE *f;

	tmp_dir(dir, sizeof(dir), "names");
	for (unsigned i = 0; i < 2; i++) {
		numbered(path, sizeof(path), i, dir);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
	ck_assert_int_eq(cap_flight_free_name(path, sizeof(path), 5, numbered,
					      dir), 0);
	ck_assert_str_eq(strrchr(path, '/'), "/n-2");
	ck_assert_int_eq(cap_flight_free_name(path, sizeof(path), 2, numbered,
					      dir), -EEXIST);
	ck_assert_int_eq(cap_flight_free_name(tiny, sizeof(tiny), 5, numbered,
					      dir), -ENAMETOOLONG);
	rm_tree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("capture_session");
	TCase *tc = tcase_create("session");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, record_rotates);
	tcase_add_test(tc, snapshot_flight_recorder);
	tcase_add_test(tc, snapshot_take_then_parse);
	tcase_add_test(tc, snapshot_counts_sealed);
	tcase_add_test(tc, snapshot_untimed_filed_under_first_time);
	tcase_add_test(tc, snapshot_open_fails);
	tcase_add_test(tc, flight_captures_and_prunes);
	tcase_add_test(tc, flight_damaged_header);
	tcase_add_test(tc, flight_reads_guest_buffers);
	tcase_add_test(tc, flight_failures);
	tcase_add_test(tc, flight_free_name);
	suite_add_tcase(s, tc);
	snprintf(tmp_base, sizeof(tmp_base), "%s/rs-capture-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp_base)) {
		perror("mkdtemp");
		return 1;
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (remove_tree(tmp_base) != 0)
		failed = 1;
	return failed ? 1 : 0;
}
