/* SPDX-License-Identifier: MIT */
/*
 * The recording session `record` and `run` share (cli/recorder.c), set up
 * as `run` sets it up (no file or a file, --quiet, ended by its producer
 * having finished), over a region in memory: recorder_warn says what the
 * host met on stderr whatever --quiet says, and 1 only when there was
 * something to say.  A corrupt ring is made as tests/cli/producer.c's
 * --corrupt makes it: a committed record's size rewritten to 12.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ringside/ring.h"

#include "recorder.h"

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

/* recorder_run as `run` sets it up, then recorder_warn with stderr in
 * @err (NUL-terminated).  Returns recorder_warn's value. */
static int run_and_warn(struct fixture *f, const char *output, char *err,
			size_t len)
{
	struct recorder *r = malloc(sizeof(*r));
	FILE *tmp = tmpfile();
	int saved, said;
	size_t n;

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(tmp);
	recorder_init(r, "run", "payload");
	r->aux_opaque = 1;
	r->output = output;
	r->quiet = 1;
	r->finished = finished;
	ck_assert_int_eq(recorder_run(r, &f->region), 0);
	ck_assert_uint_eq(r->end, RECORDER_END_FINISHED);

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fileno(tmp), STDERR_FILENO), STDERR_FILENO);
	said = recorder_warn(r);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(err, 1, len - 1, tmp);
	err[n] = '\0';
	fclose(tmp);
	recorder_fini(r);
	free(r);
	return said;
}

static char *out_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/rs-test-recorder-%d.data",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	return buf;
}

START_TEST(recorder_warn_corrupt_no_file)
{
	struct fixture f;
	char err[1024];

	region_make(&f, 1);
	ck_assert_int_eq(run_and_warn(&f, NULL, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "ringside run: warning: the source was corrupt: "
			     "1 events (0 impossible heads)"), "stderr: %s", err);
	free(f.mem);
}
END_TEST

START_TEST(recorder_warn_corrupt_file)
{
	struct fixture f;
	char err[1024], path[256];

	region_make(&f, 1);
	ck_assert_int_eq(run_and_warn(&f, out_path(path, sizeof(path)), err,
				      sizeof(err)), 1);
	unlink(path);
	ck_assert_msg(strstr(err, "ringside run: warning: the source was corrupt: "
			     "1 events (0 impossible heads)"), "stderr: %s", err);
	free(f.mem);
}
END_TEST

START_TEST(recorder_warn_healthy)
{
	struct fixture f;
	char err[1024], path[256];

	region_make(&f, 0);
	ck_assert_int_eq(run_and_warn(&f, NULL, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	free(f.mem);
	region_make(&f, 0);
	ck_assert_int_eq(run_and_warn(&f, out_path(path, sizeof(path)), err,
				      sizeof(err)), 0);
	unlink(path);
	ck_assert_str_eq(err, "");
	free(f.mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("warn");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, recorder_warn_corrupt_no_file);
	tcase_add_test(tc, recorder_warn_corrupt_file);
	tcase_add_test(tc, recorder_warn_healthy);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
