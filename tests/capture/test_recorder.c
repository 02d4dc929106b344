/* SPDX-License-Identifier: MIT */
/*
 * The record session (capture/src/cap_recorder.c), set up as `run` sets it up
 * (no file or a file, ended by its producer having finished), over a
 * region in memory: the corruption the host met is in its host facts, a
 * healthy ring leaves none, and every record is tallied.  A corrupt ring
 * is made as tests/cli/producer.c's --corrupt makes it: a committed
 * record's size rewritten to 12.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ringside/capture.h"
#include "ringside/ring.h"

#define RECORDS 10

struct fixture {
	void *mem;
	uint64_t size;
	struct rs_region region;
};

static void put_seq(struct rs_producer *p, uint64_t seq)
{
	_Alignas(8) uint8_t buf[RS_RECORD_MAX];
	int size = rs_seq_build(buf, seq, 1000 + seq, 0, 0);

	ck_assert_int_gt(size, 8);
	ck_assert_int_eq(rs_producer_output(p, RS_RECORD_SEQ, 0, buf + 8,
					    (uint32_t)size - 8), 0);
}

/* One normal ring with RECORDS sequence records, then (@corrupt) one more
 * whose header no longer frames it. */
static void region_make(struct fixture *f, int corrupt)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = 4,
		.data_mode = RS_MODE_NORMAL,
		.aux_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST,
	};
	struct rs_producer p;
	uint64_t i;

	ck_assert_int_eq(rs_region_size(&params, &f->size), 0);
	f->mem = aligned_alloc(RS_PAGE_SIZE, f->size);
	ck_assert_ptr_nonnull(f->mem);
	ck_assert_int_eq(rs_region_layout(f->mem, f->size, &params), 0);
	ck_assert_int_eq(rs_region_enable(f->mem), 0);
	ck_assert_int_eq(rs_region_open(&f->region, f->mem, f->size), 0);
	ck_assert_int_eq(rs_producer_init(&p, &f->region, 0), 0);
	for (i = 0; i < RECORDS; i++)
		put_seq(&p, i);
	if (corrupt) {
		uint64_t pos = p.head;
		struct rs_perf_header *h;

		put_seq(&p, RECORDS);
		h = (struct rs_perf_header *)(void *)
			(p.ring.data + (pos & (p.ring.data_size - 1)));
		h->size = 12;
	}
}

/* `run`'s producer: the vCPUs have stopped, one more pass and done. */
static int finished(void *arg)
{
	(void)arg;
	return 1;
}

/* What a session did. */
#define ST(r) cap_recorder_stats(r)

/* A session of @c, as its caller makes it. */
static struct cap_recorder *recorder(const struct cap_recorder_config *c)
{
	struct cap_recorder *r;

	ck_assert_int_eq(cap_recorder_new(&r, c), 0);
	return r;
}

/* cap_recorder_run as `run` sets it up; its results in @r (the caller's to
 * free: done). */
static struct cap_recorder *record(struct fixture *f, const char *output)
{
	struct cap_recorder_config c;
	struct cap_recorder *r;

	cap_recorder_config_init(&c);
	c.source = "payload";
	c.aux_opaque = 1;
	c.output = output;
	c.finished = finished;
	r = recorder(&c);
	ck_assert_int_eq(cap_recorder_run(r, &f->region), 0);
	ck_assert_uint_eq(ST(r)->end, CAP_RECORDER_END_FINISHED);
	ck_assert_int_eq(ST(r)->fail.what, CAP_FAIL_NONE);
	return r;
}

static void done(struct cap_recorder *r)
{
	cap_recorder_free(r);
}

static char *out_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/rs-test-recorder-%d.data",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	return buf;
}

/* The corruption the host met, and the records before it. */
static void assert_corrupt(const struct cap_recorder *r)
{
	const struct cap_tally *t = ST(r)->have_file_tally ? &ST(r)->file_tally :
							     &ST(r)->tally;

	ck_assert_uint_eq(ST(r)->host.nr_rings, 1);
	ck_assert_uint_eq(ST(r)->host.ring[0].corrupt, 1);
	ck_assert_uint_eq(ST(r)->host.ring[0].bad_heads, 0);
	ck_assert_uint_gt(ST(r)->host.ring[0].corrupt_bytes, 0);
	ck_assert_uint_eq(t->ring[0].records, RECORDS);
}

START_TEST(recorder_corrupt_no_file)
{
	struct fixture f;
	struct cap_recorder *r;

	region_make(&f, 1);
	r = record(&f, NULL);
	assert_corrupt(r);
	ck_assert_int_eq(ST(r)->have_file_tally, 0);
	done(r);
	free(f.mem);
}
END_TEST

START_TEST(recorder_corrupt_file)
{
	struct fixture f;
	struct cap_recorder *r;
	char path[256];

	region_make(&f, 1);
	r = record(&f, out_path(path, sizeof(path)));
	ck_assert_int_eq(ST(r)->have_file_tally, 1);
	ck_assert_int_eq(ST(r)->readback_err, 0);
	assert_corrupt(r);
	ck_assert_uint_eq(ST(r)->files, 1);
	unlink(path);
	done(r);
	free(f.mem);
}
END_TEST

START_TEST(recorder_healthy)
{
	struct fixture f;
	struct cap_tally_ring sum;
	struct cap_recorder *r;
	char path[256];

	region_make(&f, 0);
	r = record(&f, NULL);
	ck_assert_uint_eq(ST(r)->host.ring[0].corrupt, 0);
	ck_assert_uint_eq(ST(r)->tally.ring[0].records, RECORDS);
	done(r);
	free(f.mem);
	region_make(&f, 0);
	r = record(&f, out_path(path, sizeof(path)));
	ck_assert_uint_eq(ST(r)->host.ring[0].corrupt, 0);
	cap_tally_total(&ST(r)->file_tally, &sum);
	ck_assert_uint_eq(sum.records, RECORDS);
	ck_assert_uint_eq(cap_tally_flagged(&sum), 0);
	unlink(path);
	done(r);
	free(f.mem);
}
END_TEST

/* An output that cannot be created: the step and the code, no words. */
START_TEST(recorder_open_fails)
{
	struct cap_recorder_config c;
	struct cap_recorder *r;
	struct fixture f;

	region_make(&f, 0);
	cap_recorder_config_init(&c);
	c.source = "payload";
	c.output = "/nonexistent-dir/rs.data";
	c.finished = finished;
	r = recorder(&c);
	ck_assert_int_lt(cap_recorder_run(r, &f.region), 0);
	ck_assert_int_eq(ST(r)->fail.what, CAP_FAIL_OPEN);
	ck_assert(cap_err_from(&ST(r)->fail.e, pdf_error_str));
	ck_assert_int_ne(access("/nonexistent-dir/rs.data.tmp", F_OK), 0);
	done(r);
	free(f.mem);
}
END_TEST

/* ---- a source saved and restored under the recorder ----
 * The region is copied as QEMU copies a saved guest's (here before any
 * drain: the restored tail is behind everything the recorder took), the
 * source goes away, then runs again on a new mapping of that copy, where
 * its producer writes on. */
struct saved {
	struct fixture *a;
	void *copy;               /* the restored region */
	struct rs_region region;
	int finished_calls, reopen_calls;
	uint64_t file1_records;   /* the first file's, at its rotation */
	char path1[300];
};

static int saved_finished(void *arg)
{
	struct saved *sv = arg;

	/* away at once; once back, the restored source ends */
	return sv->finished_calls++ == 0 ? CAP_RECORDER_AWAY : CAP_RECORDER_GONE;
}

static int saved_reopen(void *arg, const struct rs_region **region,
			void **mem, struct cap_err *e)
{
	struct saved *sv = arg;
	struct rs_producer p;
	uint64_t i;

	(void)e;
	if (sv->reopen_calls++ == 0)
		return CAP_RECORDER_AWAY;
	ck_assert_int_eq(rs_region_open(&sv->region, sv->copy, sv->a->size), 0);
	ck_assert_int_eq(rs_producer_init(&p, &sv->region, 0), 0);
	for (i = RECORDS; i < RECORDS + 5; i++)
		put_seq(&p, i);
	*region = &sv->region;
	*mem = sv->copy;
	return CAP_RECORDER_BACK;
}

static const char *saved_output(void *arg, const struct cap_recorder *r)
{
	struct saved *sv = arg;

	(void)r;
	return sv->path1;
}

static void saved_file_done(void *arg, const struct cap_recorder *r)
{
	struct saved *sv = arg;
	struct cap_tally_ring sum;

	ck_assert_int_eq(ST(r)->have_file_tally, 1);
	cap_tally_total(&ST(r)->file_tally, &sum);
	sv->file1_records = sum.records;
}

static struct cap_recorder *record_saved(struct fixture *f, struct saved *sv,
					 const char *output)
{
	struct cap_recorder_config c;
	struct cap_recorder *r;

	memset(sv, 0, sizeof(*sv));
	sv->a = f;
	if (output)
		snprintf(sv->path1, sizeof(sv->path1), "%s.1", output);
	sv->copy = aligned_alloc(RS_PAGE_SIZE, f->size);
	ck_assert_ptr_nonnull(sv->copy);
	memcpy(sv->copy, f->mem, f->size);
	cap_recorder_config_init(&c);
	c.source = "domain";
	c.aux_opaque = 1;
	c.output = output;
	c.finished = saved_finished;
	c.reopen = saved_reopen;
	c.finished_arg = sv;
	c.hooks.arg = sv;
	c.hooks.back_output = saved_output;
	c.hooks.file_done = saved_file_done;
	r = recorder(&c);
	ck_assert_int_eq(cap_recorder_run(r, &f->region), 0);
	ck_assert_uint_eq(ST(r)->end, CAP_RECORDER_END_FINISHED);
	ck_assert_int_eq(ST(r)->fail.what, CAP_FAIL_NONE);
	return r;
}

/* Every record once: the 10 before the save in the first file, the 5
 * after the restore in the second; the 10 that came back behind the
 * restored tail counted as delivered already, not delivered again. */
START_TEST(recorder_saved_restored)
{
	struct fixture f;
	struct saved sv;
	struct cap_recorder *r;
	struct cap_tally_ring sum;
	const struct rs_cons_stats *cs;
	char path[256];

	region_make(&f, 0);
	out_path(path, sizeof(path));
	r = record_saved(&f, &sv, path);
	ck_assert_uint_eq(ST(r)->aways, 1);
	ck_assert_uint_eq(ST(r)->backs, 1);
	ck_assert_int_eq(ST(r)->away, 0);
	ck_assert_int_eq(ST(r)->back_events, RS_REATTACH_TAIL_BACK);
	ck_assert_uint_eq(ST(r)->files, 2);
	ck_assert_uint_eq(sv.file1_records, RECORDS);
	cap_tally_total(&ST(r)->file_tally, &sum);
	ck_assert_uint_eq(sum.records, 5);
	ck_assert_uint_eq(ST(r)->file_tally.ring[0].seq_first, RECORDS);
	ck_assert_uint_eq(ST(r)->file_tally.ring[0].seq_last, RECORDS + 4);
	ck_assert_uint_eq(ST(r)->file_tally.ring[0].seq_gaps, 0);
	cs = cap_recorder_cons_stats(r, 0);
	ck_assert_uint_eq(cs->reattaches, 1);
	ck_assert_uint_eq(cs->skip_records, RECORDS);
	ck_assert_uint_eq(cs->unsure_records + cs->head_back, 0);
	unlink(path);
	ck_assert_int_eq(access(sv.path1, F_OK), 0);
	unlink(sv.path1);
	done(r);
	free(sv.copy);
	free(f.mem);
}
END_TEST

/* Without a file: the same counts. */
START_TEST(recorder_saved_no_file)
{
	struct fixture f;
	struct saved sv;
	struct cap_recorder *r;

	region_make(&f, 0);
	r = record_saved(&f, &sv, NULL);
	ck_assert_uint_eq(ST(r)->backs, 1);
	ck_assert_uint_eq(ST(r)->files, 1);
	ck_assert_uint_eq(ST(r)->tally.ring[0].records, RECORDS + 5);
	ck_assert_uint_eq(ST(r)->tally.ring[0].seq_back, 0);
	done(r);
	free(sv.copy);
	free(f.mem);
}
END_TEST

/* A file but nowhere to put what comes after: away is the end. */
START_TEST(recorder_saved_no_next_file)
{
	struct fixture f;
	struct cap_recorder_config c;
	struct cap_recorder *r;
	struct saved sv = { 0 };
	char path[256];

	region_make(&f, 0);
	sv.a = &f;
	cap_recorder_config_init(&c);
	c.source = "domain";
	c.output = out_path(path, sizeof(path));
	c.finished = saved_finished;
	c.reopen = saved_reopen;
	c.finished_arg = &sv;
	r = recorder(&c);
	ck_assert_int_eq(cap_recorder_run(r, &f.region), 0);
	ck_assert_uint_eq(ST(r)->end, CAP_RECORDER_END_FINISHED);
	ck_assert_uint_eq(ST(r)->aways, 0);
	ck_assert_int_eq(sv.reopen_calls, 0);
	ck_assert_uint_eq(ST(r)->file_tally.ring[0].records, RECORDS);
	unlink(path);
	done(r);
	free(f.mem);
}
END_TEST

static void never(void *arg, const struct cap_recorder *r, int final)
{
	(void)arg;
	(void)r;
	(void)final;
	ck_abort_msg("a hook past the caller's config size was called");
}

/* A config is the caller's struct as far as its size says: what lies past
 * it (a caller built against an older header) is 0, never read; too small
 * a size, or none, is refused. */
START_TEST(recorder_config_size)
{
	struct cap_recorder_config c;
	struct cap_recorder *r;
	struct fixture f;

	ck_assert_int_eq(cap_recorder_new(&r, NULL), -EINVAL);
	ck_assert_ptr_null(r);
	cap_recorder_config_init(&c);
	c.size = sizeof(c.size);
	ck_assert_int_eq(cap_recorder_new(&r, &c), -EINVAL);
	ck_assert_ptr_null(r);
	region_make(&f, 0);
	cap_recorder_config_init(&c);
	c.source = "payload";
	c.duration = 0.05;
	c.interval_ms = 0;        /* the default */
	c.hooks.progress = never; /* past the size: never called */
	c.finished = (int (*)(void *))(uintptr_t)1;
	c.size = offsetof(struct cap_recorder_config, hooks);
	r = recorder(&c);
	ck_assert_uint_eq(cap_recorder_config(r)->size, sizeof(c));
	ck_assert_uint_eq(cap_recorder_config(r)->interval_ms, 10);
	ck_assert_ptr_null(cap_recorder_config(r)->finished);
	ck_assert_int_eq(cap_recorder_run(r, &f.region), 0);
	ck_assert_uint_eq(ST(r)->end, CAP_RECORDER_END_DURATION);
	ck_assert_uint_eq(ST(r)->tally.ring[0].records, RECORDS);
	done(r);
	free(f.mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("session");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, recorder_corrupt_no_file);
	tcase_add_test(tc, recorder_corrupt_file);
	tcase_add_test(tc, recorder_healthy);
	tcase_add_test(tc, recorder_open_fails);
	tcase_add_test(tc, recorder_saved_restored);
	tcase_add_test(tc, recorder_saved_no_file);
	tcase_add_test(tc, recorder_saved_no_next_file);
	tcase_add_test(tc, recorder_config_size);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
