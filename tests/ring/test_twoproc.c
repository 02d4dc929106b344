/* SPDX-License-Identifier: MIT */
/*
 * Producer and consumer in two processes over one MAP_SHARED memfd, the way
 * a guest and the host share a region.  Counts records, never time.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

static uint64_t scaled(uint64_t n)
{
	if (RS_TEST_SANITIZED || getenv("RS_UNDER_VALGRIND"))
		return n / 10;
	return n;
}

/* Mostly small records, some large, a few near the largest. */
static uint32_t pick_fill(uint64_t *state)
{
	uint64_t r = fx_rand(state);

	if (r % 1024 == 0)
		return RS_RECORD_MAX - sizeof(struct rs_rec_seq) - (uint32_t)(r >> 10) % 64;
	if (r % 64 == 1)
		return (uint32_t)(r >> 8) % 8000;
	return (uint32_t)(r >> 8) % 300;
}

/* The AUX stream's byte at position @pos: not periodic in any ring size. */
static uint8_t pat(uint64_t pos)
{
	return (uint8_t)((pos * 2654435761u) >> 13 ^ pos >> 9);
}

/* ---- the guest side: runs in the child, reports through its exit code -- */

enum child_err { CHILD_OK, CHILD_INIT, CHILD_BUILD, CHILD_RESERVE, CHILD_WRITE,
		 CHILD_COMMIT, CHILD_FLUSH, CHILD_AUX };

static int produce_records(const struct rs_region *region, uint64_t n, int normal)
{
	static _Alignas(8) uint8_t buf[RS_RECORD_MAX];
	struct rs_producer p;
	uint64_t state = 0xabcdef;

	if (rs_producer_init(&p, region, 0))
		return CHILD_INIT;
	for (uint64_t seq = 0; seq < n; seq++) {
		struct rs_handle h;
		int size = rs_seq_build(buf, seq, seq * 3, 0, pick_fill(&state));
		int err;

		if (size <= 0)
			return CHILD_BUILD;
		err = rs_producer_reserve(&p, &h, (uint32_t)size);
		if (err == -rse_no_space && normal)
			continue;
		if (err)
			return CHILD_RESERVE;
		if (rs_producer_write(&p, &h, buf, (uint32_t)size))
			return CHILD_WRITE;
		if (rs_producer_commit(&p, &h) < 0)
			return CHILD_COMMIT;
	}
	/* the consumer keeps draining until we are gone */
	while (normal) {
		int err = rs_producer_flush_lost(&p);

		if (err >= 0)
			break;
		if (err != -rse_no_space)
			return CHILD_FLUSH;
		sched_yield();
	}
	return CHILD_OK;
}

static int produce_aux(const struct rs_region *region, struct rs_ctrl_page *ctrl,
		       uint64_t bytes)
{
	static uint8_t buf[1 << 16];
	struct rs_producer p;
	uint64_t state = 0x5eed, done = 0;

	if (rs_producer_init(&p, region, 0))
		return CHILD_INIT;
	while (done < bytes) {
		struct rs_aux_handle h;
		/* aux_head is ours: no one else writes it */
		uint64_t pos = ctrl->aux_head;
		uint64_t len = fx_rand(&state) % sizeof(buf);
		int64_t room, w;

		room = rs_aux_begin(&p, &h, len);
		if (room < 0)
			return CHILD_AUX;
		for (int64_t i = 0; i < room; i++)
			buf[i] = pat(pos + (uint64_t)i);
		w = rs_aux_write(&p, &h, buf, len);
		if (w != (len < (uint64_t)room ? (int64_t)len : room))
			return CHILD_AUX;
		/* a full data ring drops the AUX record: counted as lost */
		int end = rs_aux_end(&p, &h, 0);

		if (end < 0 && end != -rse_no_space)
			return CHILD_AUX;
		done += (uint64_t)w;
		if (!room)
			sched_yield();
	}
	while (rs_producer_flush_lost(&p) == -rse_no_space)
		sched_yield();
	return CHILD_OK;
}

struct child {
	pid_t pid;
	int status;
	int exited;
};

/* Call it before allocating anything for the parent's side: a child that
 * exits with the parent's blocks unreachable is a leak to valgrind. */
static void child_start(struct child *c, int (*body)(void *), void *arg)
{
	pid_t parent = getpid();

	memset(c, 0, sizeof(*c));
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		/* a failed test must not leave a producer spinning */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(99);
		_exit(body(arg));
	}
}

static int child_done(struct child *c)
{
	if (!c->exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->exited = 1;
	return c->exited;
}

static void child_check(const struct child *c)
{
	ck_assert(c->exited);
	ck_assert_msg(WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0,
		      "producer failed: status 0x%x", c->status);
}

struct rec_job {
	struct fx_region *f;
	uint64_t n;
	int normal;
};

static int rec_job_run(void *arg)
{
	struct rec_job *j = arg;

	return produce_records(&j->f->region, j->n, j->normal);
}

/* ---- normal mode: drain everything, account for every record ---------- */

struct stream {
	uint64_t expected;
	uint64_t delivered;
	uint64_t lost;
	uint64_t lost_records;
};

static int stream_fn(const struct rs_perf_header *rec, void *arg)
{
	struct stream *s = arg;

	if (rec->type == RS_PERF_RECORD_LOST) {
		const struct rs_perf_lost *l = (const void *)rec;

		FX_CHECK(rec->size == sizeof(*l) && l->lost > 0,
			 "LOST record of size %u, count %llu", rec->size,
			 (unsigned long long)l->lost);
		s->expected += l->lost;
		s->lost += l->lost;
		s->lost_records++;
		return 0;
	}
	FX_CHECK(fx_seq_of(rec) == s->expected, "seq %llu, expected %llu",
		 (unsigned long long)fx_seq_of(rec), (unsigned long long)s->expected);
	s->expected++;
	s->delivered++;
	return 0;
}

START_TEST(twoproc_normal)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_consumer *c;
	struct stream s = { 0 };
	struct child ch;
	struct rec_job job;
	const uint64_t n = scaled(2000000);

	/* 32 pages: room for the largest record next to a LOST record */
	fx_params(&p, 32, 0);
	fx_region_init(&f, &p, 0);
	job = (struct rec_job){ &f, n, 1 };
	child_start(&ch, rec_job_run, &job);
	c = rs_consumer_alloc(&f.region, 0);
	ck_assert_ptr_nonnull(c);

	for (;;) {
		int got = rs_consumer_drain(c, stream_fn, &s);

		ck_assert_int_ge(got, 0);
		if (got)
			continue;
		/* everything the exited child published is in by now */
		if (child_done(&ch) && rs_consumer_drain(c, stream_fn, &s) == 0)
			break;
		sched_yield();
	}
	child_check(&ch);
	ck_assert_uint_eq(s.delivered + s.lost, n);
	ck_assert_uint_eq(s.expected, n);
	ck_assert_uint_eq(rs_consumer_stats(c)->corrupt, 0);
	ck_assert_uint_eq(rs_consumer_stats(c)->lost, s.lost);
	ck_assert_uint_eq(rs_consumer_stats(c)->records, s.delivered + s.lost_records);
	ck_assert_uint_eq(fx_ctrl(&f, 0)->ext.lost, s.lost);
	if (getenv("RS_TEST_VERBOSE"))
		fprintf(stderr, "normal: %llu delivered, %llu lost in %llu LOST records\n",
			(unsigned long long)s.delivered, (unsigned long long)s.lost,
			(unsigned long long)s.lost_records);
	rs_consumer_free(c);
	fx_region_fini(&f);
}
END_TEST

/* ---- overwrite mode: live snapshots while the producer runs ------------- */

START_TEST(twoproc_overwrite_snapshots)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_snapshot *s;
	struct child ch;
	struct rec_job job;
	uint8_t *buf;
	uint64_t snaps = 0, records = 0, cut = 0, newest = 0;
	const uint64_t n = scaled(2000000);
	int last = 0;

	fx_params(&p, 32, 0);
	p.data_mode = RS_MODE_OVERWRITE;
	fx_region_init(&f, &p, 0);
	job = (struct rec_job){ &f, n, 0 };
	child_start(&ch, rec_job_run, &job);
	s = rs_snapshot_alloc();
	buf = malloc(fx_data_size(&f, 0));
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(buf);

	while (!last) {
		const struct rs_perf_header *rec;
		uint64_t k = 0, first = 0;

		last = child_done(&ch);
		ck_assert_int_eq(rs_snapshot_take(s, &f.region, 0, buf,
						  fx_data_size(&f, 0)), 0);
		while (rs_snapshot_next(s, &rec) == 1) {
			uint64_t seq = fx_seq_of(rec);

			if (k == 0)
				first = seq;
			/* newest first, consecutive: nothing is lost in overwrite */
			FX_CHECK(seq == first - k, "snapshot %llu: seq %llu after %llu",
				 (unsigned long long)snaps, (unsigned long long)seq,
				 (unsigned long long)(first - k + 1));
			k++;
		}
		ck_assert_uint_eq(rs_snapshot_stats(s)->corrupt, 0);
		ck_assert_uint_eq(rs_snapshot_stats(s)->records, k);
		if (k) {
			ck_assert_uint_ge(first, newest);
			newest = first;
		}
		records += k;
		cut += rs_snapshot_stats(s)->cut_bytes;
		snaps++;
	}
	child_check(&ch);
	/* the last snapshot, taken after the producer exited, ends at n - 1 */
	ck_assert_uint_eq(newest, n - 1);
	ck_assert_uint_gt(records, 0);
	ck_assert_uint_eq(rs_snapshot_stats(s)->cut_bytes, 0);
	if (getenv("RS_TEST_VERBOSE"))
		fprintf(stderr, "overwrite: %llu snapshots, %llu records, %llu bytes cut\n",
			(unsigned long long)snaps, (unsigned long long)records,
			(unsigned long long)cut);
	free(buf);
	rs_snapshot_free(s);
	fx_region_fini(&f);
}
END_TEST

/* ---- AUX normal mode: bytes in order, and in agreement with the records - */

struct aux_job {
	struct fx_region *f;
	uint64_t bytes;
};

static int aux_job_run(void *arg)
{
	struct aux_job *j = arg;

	return produce_aux(&j->f->region, fx_ctrl(j->f, 0), j->bytes);
}

struct aux_stream {
	uint64_t next;          /* AUX position expected next */
	uint64_t record_bytes;  /* sum of aux_size over AUX records */
	uint64_t truncated;
	uint64_t lost;
};

static int aux_rec_fn(const struct rs_perf_header *rec, void *arg)
{
	struct aux_stream *s = arg;

	if (rec->type == RS_PERF_RECORD_LOST) {
		s->lost += ((const struct rs_perf_lost *)rec)->lost;
		return 0;
	}
	FX_CHECK(rec->type == RS_PERF_RECORD_AUX, "record type %u", rec->type);
	s->record_bytes += ((const struct rs_perf_aux *)rec)->aux_size;
	s->truncated += !!(((const struct rs_perf_aux *)rec)->flags &
			   RS_PERF_AUX_FLAG_TRUNCATED);
	return 0;
}

static int aux_bytes_fn(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct aux_stream *s = arg;
	const uint8_t *b = chunk;

	FX_CHECK(pos == s->next, "AUX chunk at %llu, expected %llu",
		 (unsigned long long)pos, (unsigned long long)s->next);
	for (uint64_t i = 0; i < len; i++)
		if (b[i] != pat(pos + i))
			ck_abort_msg("AUX byte %llu wrong", (unsigned long long)(pos + i));
	s->next += len;
	return 0;
}

START_TEST(twoproc_aux_normal)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_consumer *c;
	struct aux_stream s = { 0 };
	struct aux_job job;
	struct child ch;

	fx_params(&p, 4, 16);
	fx_region_init(&f, &p, 0);
	job = (struct aux_job){ &f, scaled(1ull << 29) };
	child_start(&ch, aux_job_run, &job);
	c = rs_consumer_alloc(&f.region, 0);
	ck_assert_ptr_nonnull(c);

	for (;;) {
		int got = rs_consumer_drain(c, aux_rec_fn, &s);
		int64_t bytes = rs_consumer_drain_aux(c, aux_bytes_fn, &s);

		ck_assert_int_ge(got, 0);
		ck_assert_int_ge(bytes, 0);
		if (got || bytes)
			continue;
		if (child_done(&ch) && rs_consumer_drain(c, aux_rec_fn, &s) == 0 &&
		    rs_consumer_drain_aux(c, aux_bytes_fn, &s) == 0)
			break;
		sched_yield();
	}
	child_check(&ch);
	ck_assert_uint_eq(s.next, fx_ctrl(&f, 0)->aux_head);
	ck_assert_uint_eq(rs_consumer_stats(c)->aux_bytes, s.next);
	ck_assert_uint_eq(rs_consumer_stats(c)->aux_truncated, s.truncated);
	/* bytes whose AUX record was dropped are counted as lost records */
	if (!s.lost)
		ck_assert_uint_eq(s.record_bytes, s.next);
	ck_assert_uint_le(s.record_bytes, s.next);
	ck_assert_uint_eq(rs_consumer_stats(c)->corrupt, 0);
	ck_assert_uint_eq(rs_consumer_stats(c)->aux_corrupt, 0);
	if (getenv("RS_TEST_VERBOSE"))
		fprintf(stderr, "aux normal: %llu bytes, %llu truncated outputs, %llu lost\n",
			(unsigned long long)s.next, (unsigned long long)s.truncated,
			(unsigned long long)s.lost);
	rs_consumer_free(c);
	fx_region_fini(&f);
}
END_TEST

/* ---- AUX snapshot mode: live copies while the writer overwrites -------- */

START_TEST(twoproc_aux_snapshots)
{
	struct rs_region_params p;
	struct fx_region f;
	struct rs_consumer *c;
	struct aux_stream s = { 0 };
	struct aux_job job;
	struct child ch;
	uint8_t *buf;
	uint64_t snaps = 0, valid = 0;
	int last = 0;

	fx_params(&p, 4, 4);
	p.aux_mode = RS_MODE_OVERWRITE;
	fx_region_init(&f, &p, 0);
	job = (struct aux_job){ &f, scaled(1ull << 28) };
	child_start(&ch, aux_job_run, &job);
	c = rs_consumer_alloc(&f.region, 0);
	ck_assert_ptr_nonnull(c);
	buf = malloc(fx_aux_size(&f, 0));
	ck_assert_ptr_nonnull(buf);

	while (!last) {
		struct rs_aux_snapshot a;

		last = child_done(&ch);
		ck_assert_int_eq(rs_snapshot_aux(&a, &f.region, 0, buf,
						 fx_aux_size(&f, 0)), 0);
		ck_assert_uint_le(a.len, fx_aux_size(&f, 0));
		ck_assert_uint_eq(a.start + a.len, a.head);
		for (uint64_t i = 0; i < a.len; i++)
			if (buf[i] != pat(a.start + i))
				ck_abort_msg("snapshot %llu: AUX byte %llu of %llu wrong",
					     (unsigned long long)snaps,
					     (unsigned long long)i,
					     (unsigned long long)a.len);
		valid += a.len;
		snaps++;
		/* keep the data ring (AUX records) from filling */
		ck_assert_int_ge(rs_consumer_drain(c, aux_rec_fn, &s), 0);
	}
	child_check(&ch);
	ck_assert_uint_gt(valid, 0);
	if (getenv("RS_TEST_VERBOSE"))
		fprintf(stderr, "aux snapshots: %llu snapshots, %llu valid bytes\n",
			(unsigned long long)snaps, (unsigned long long)valid);
	rs_consumer_free(c);
	free(buf);
	fx_region_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("twoproc");

	/* one case each, so that CK_RUN_CASE can pick one */
	tcase_add_test(fx_tcase(s, "normal"), twoproc_normal);
	tcase_add_test(fx_tcase(s, "overwrite"), twoproc_overwrite_snapshots);
	tcase_add_test(fx_tcase(s, "aux_normal"), twoproc_aux_normal);
	tcase_add_test(fx_tcase(s, "aux_snapshots"), twoproc_aux_snapshots);
	return fx_run(s);
}
