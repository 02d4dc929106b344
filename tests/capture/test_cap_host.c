/* SPDX-License-Identifier: MIT */
/*
 * The host's view filed and read back (cap_host, pdf_writer_add_host):
 * synthetic switch and LOST records of two vCPU lanes beside a guest
 * record in a file whose guest times a time sync converts.  The host's
 * times stay as filed, the readers of the guest's records skip them, and
 * the tracks give steal, blocked and the longest preemption exactly.
 * Also the VMM's pid from a libvirt pid file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <linux/perf_event.h>

#include "ringside/capture.h"

#define OFFSET 1000        /* guest - host, ns */

static char dir[] = "/tmp/test_cap_host.XXXXXX";
static char path[256];

static struct pdf_host_rec hrec(uint32_t lane, uint32_t type, uint16_t misc,
				uint32_t cpu, uint64_t time)
{
	struct pdf_host_rec h = {
		.type = type, .misc = misc, .lane = lane, .host_cpu = cpu,
		.tid = PDF_HOST_TID(lane), .time = time,
	};

	return h;
}

#define OUT PERF_RECORD_MISC_SWITCH_OUT
#define PRE (PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)

/* lane 1: in at 10 us on CPU 3, preempted at 20 us, in on CPU 2 1 ms
 * later, blocked at 1030 us for 0.5 ms; lane 0: 7 host records lost */
static void write_file(int host_view)
{
	struct pdf_writer_params p = {
		.size = sizeof(p), .nr_rings = 2, .host_view = host_view,
	};
	struct pdf_clock_sync cs = {
		.state = PDF_CLOCK_SYNCED, .nr = 1,
		.pt[0] = { .guest_ns = 5000, .offset_ns = OFFSET, .bound_ns = 1,
			   .rounds = 1 },
	};
	struct rs_perf_lost g = {
		.header = { RS_PERF_RECORD_LOST, 0, sizeof(g) }, .lost = 3,
	};
	struct pdf_host_rec h[] = {
		hrec(1, PERF_RECORD_SWITCH, 0, 3, 10000),
		hrec(1, PERF_RECORD_SWITCH, PRE, 3, 20000),
		hrec(1, PERF_RECORD_SWITCH, 0, 2, 1020000),
		hrec(1, PERF_RECORD_SWITCH, OUT, 2, 1030000),
		hrec(1, PERF_RECORD_SWITCH, 0, 2, 1530000),
		hrec(0, PERF_RECORD_LOST, 0, 1, 2000),
		hrec(1, PERF_RECORD_SAMPLE, 0, 2, 1540000),
		hrec(1, PERF_RECORD_SAMPLE, 0, 2, 1550000),
	};
	struct pdf_host_rec bad = hrec(0, PERF_RECORD_COMM, 0, 0, 1);
	struct pdf_writer *w;
	unsigned i;

	h[5].lost = 7;
	/* an exit to the VMM (KVM_EXIT_IO), one into KVM (SVM's INTR) */
	h[6].exit.type = PDF_HOST_KVM_UEXIT;
	h[6].exit.reason = 2;
	memcpy(h[6].exit.name, "IO", 2);
	h[7].exit.type = PDF_HOST_KVM_EXIT;
	h[7].exit.isa = HV_ISA_SVM;
	h[7].exit.reason = 0x60;
	ck_assert_int_eq(pdf_writer_open(&w, path, &p), 0);
	ck_assert_int_eq(pdf_writer_add(w, 0, 5000, &g.header), 0);
	if (!host_view) {
		ck_assert_int_eq(pdf_writer_add_host(w, &h[0]),
				 PDF_ERR(pdfe_invalid));
	} else {
		for (i = 0; i < sizeof(h) / sizeof(h[0]); i++)
			ck_assert_int_eq(pdf_writer_add_host(w, &h[i]), 0);
		ck_assert_int_eq(pdf_writer_add_host(w, &bad),
				 PDF_ERR(pdfe_invalid));
		bad = hrec(RS_MAX_RINGS, PERF_RECORD_SWITCH, 0, 0, 1);
		ck_assert_int_eq(pdf_writer_add_host(w, &bad),
				 PDF_ERR(pdfe_invalid));
		ck_assert_int_eq(pdf_writer_add_host(w, NULL),
				 PDF_ERR(pdfe_invalid));
	}
	ck_assert_int_eq(pdf_writer_set_clock(w, &cs), 0);
	ck_assert_int_eq(pdf_writer_finish(w), 0);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.data", dir);
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/test_cap_host.XXXXXX");
}

START_TEST(host_records_skipped_unless_asked)
{
	struct pdf_reader *r;
	struct pdf_event ev;
	int n, seen = 0;

	write_file(1);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_int_eq(pdf_reader_has_host(r), 1);
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		ck_assert_int_eq(ev.host, 0);
		ck_assert_uint_eq(ev.rec->type, RS_PERF_RECORD_LOST);
		/* the guest's time converted by the sync */
		ck_assert_uint_eq(ev.time, 5000 - OFFSET);
		seen++;
	}
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(seen, 1);
	ck_assert_uint_ge(pdf_reader_skipped(r), 8);
	pdf_reader_close(r);
}
END_TEST

START_TEST(host_times_stay_and_tracks_exact)
{
	static const uint64_t want[] = {
		10000, 20000, 1020000, 1030000, 1530000,
	};
	struct cap_host_view *v = calloc(1, sizeof(*v));
	struct pdf_reader *r;
	struct pdf_event ev;
	struct hv_ev hev;
	const struct hv_track *t;
	unsigned lane1 = 0, lost = 0, exits = 0;
	int n;

	ck_assert_ptr_nonnull(v);
	write_file(1);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	pdf_reader_want_host(r, 1);
	cap_host_view_init(v);
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		if (!ev.host) {
			ck_assert_int_eq(cap_host_ev(&ev, &hev), -EINVAL);
			continue;
		}
		ck_assert_int_eq(cap_host_ev(&ev, &hev), 0);
		if (ev.ring == 1 && ev.rec->type == PERF_RECORD_SAMPLE) {
			/* host times, the host CPU, the exit as filed */
			ck_assert_uint_eq(ev.time, exits ? 1550000 : 1540000);
			ck_assert_uint_eq(ev.host_cpu, 2);
			ck_assert_uint_eq(hev.type, exits ? HV_EV_KVM_EXIT :
							    HV_EV_KVM_UEXIT);
			ck_assert_uint_eq(hev.isa, exits ? HV_ISA_SVM : 0);
			ck_assert_uint_eq(hev.reason, exits ? 0x60 : 2);
			exits++;
		} else if (ev.ring == 1) {
			ck_assert_uint_lt(lane1, 5);
			/* host CLOCK_MONOTONIC: never converted */
			ck_assert_uint_eq(ev.time, want[lane1]);
			ck_assert_uint_eq(hev.cpu, lane1 < 2 ? 3 : 2);
			ck_assert_uint_eq(hev.tid, PDF_HOST_TID(1));
			lane1++;
		} else {
			ck_assert_uint_eq(ev.ring, 0);
			ck_assert_uint_eq(hev.type, HV_EV_LOST);
			ck_assert_uint_eq(hev.count, 7);
			ck_assert_uint_eq(ev.time, 2000);
			lost++;
		}
		ck_assert_int_eq(cap_host_view_feed(v, &ev), 0);
	}
	ck_assert_int_eq(n, 0);
	ck_assert_uint_eq(lane1, 5);
	ck_assert_uint_eq(lost, 1);
	ck_assert_uint_eq(exits, 2);
	cap_host_view_finish(v);
	ck_assert_uint_eq(v->records, 8);
	ck_assert_uint_eq(v->first, 2000);
	ck_assert_uint_eq(v->last, 1550000);
	t = v->track[1];
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(hv_track_steal(t), 1000000);
	/* running to the last event, the exits' */
	ck_assert_uint_eq(t->state_ns[HV_ST_RUNNING], 40000);
	ck_assert_uint_eq(t->state_ns[HV_ST_BLOCKED], 500000);
	ck_assert_uint_eq(t->preempts, 1);
	ck_assert_uint_eq(t->blocks, 1);
	ck_assert_uint_eq(t->migrations, 1);
	ck_assert_uint_eq(t->ntop, 1);
	ck_assert_uint_eq(t->top[0].start, 20000);
	ck_assert_uint_eq(t->top[0].ns, 1000000);
	ck_assert_uint_eq(t->top[0].cpu_out, 3);
	ck_assert_uint_eq(t->top[0].cpu_in, 2);
	ck_assert_uint_eq(t->uexits, 1);
	ck_assert_uint_eq(t->exits, 1);
	ck_assert_uint_eq(t->nreasons, 2);
	ck_assert_ptr_nonnull(v->track[0]);
	ck_assert_uint_eq(v->track[0]->lost, 7);
	{       /* the guest's records around the preemption: the gap */
		static const uint64_t at[] = { 1100000, 15000, 500000,
					       1025000, 9000 };
		struct pdf_event g = { .ring = 1 };
		unsigned k;

		for (k = 0; k < 5; k++) {
			g.time = at[k];
			cap_host_view_guest(v, &g);
		}
		g.time = 19000;        /* the host's own: not the guest's */
		g.host = 1;
		cap_host_view_guest(v, &g);
		ck_assert_uint_eq(v->guest_before[1][0], 15000);
		ck_assert_uint_eq(v->guest_after[1][0], 1025000);
		ck_assert_uint_eq(v->guest_before[0][0], 0);
	}
	ck_assert_ptr_null(v->track[2]);
	cap_host_view_fini(v);
	free(v);
	pdf_reader_close(r);
}
END_TEST

START_TEST(no_host_view_no_host_event)
{
	struct pdf_reader *r;
	struct pdf_event ev;
	int n;

	write_file(0);
	ck_assert_int_eq(pdf_reader_open(&r, path), 0);
	ck_assert_int_eq(pdf_reader_has_host(r), 0);
	pdf_reader_want_host(r, 1);
	while ((n = pdf_reader_next(r, &ev)) == 1)
		ck_assert_int_eq(ev.host, 0);
	ck_assert_int_eq(n, 0);
	pdf_reader_close(r);
}
END_TEST

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void put(const char *name, const char *text)
{
	char p[300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(domain_pid_from_pid_file)
{
	char me[32];
	int32_t pid = 0;
	pthread_t t;

	snprintf(me, sizeof(me), "%d\n", (int)getpid());
	put("web.pid", me);
	put("junk.pid", "x12\n");
	put("dead.pid", "2147483647\n");
	ck_assert_int_eq(cap_host_domain_pid("none", dir, &pid), -ENOENT);
	ck_assert_int_eq(cap_host_domain_pid("../web", dir, &pid), -EINVAL);
	ck_assert_int_eq(cap_host_domain_pid("", dir, &pid), -EINVAL);
	ck_assert_int_eq(cap_host_domain_pid("junk", dir, &pid), -ESRCH);
	ck_assert_int_eq(cap_host_domain_pid("dead", dir, &pid), -ESRCH);
	/* a process with no vCPU thread is no VMM */
	ck_assert_int_eq(cap_host_domain_pid("web", dir, &pid), -ESRCH);
	ck_assert_int_eq(pthread_create(&t, NULL, idle, NULL), 0);
	ck_assert_int_eq(pthread_setname_np(t, "CPU 0/TCG"), 0);
	ck_assert_int_eq(cap_host_domain_pid("web", dir, &pid), 0);
	ck_assert_int_eq(pid, getpid());
	pthread_cancel(t);
	pthread_join(t, NULL);
	ck_assert_int_eq(cap_host_socket_pid(-1, &pid), -EINVAL);
}
END_TEST

START_TEST(open_refuses)
{
	struct cap_host_config c = { .pid = getpid(), .nr_lanes = 2 };
	struct cap_host *h = (struct cap_host *)&c;

	ck_assert_int_eq(cap_host_open(NULL, &c), -EINVAL);
	ck_assert_int_eq(cap_host_open(&h, NULL), -EINVAL);
	c.nr_lanes = 0;
	ck_assert_int_eq(cap_host_open(&h, &c), -EINVAL);
	c.nr_lanes = RS_MAX_RINGS + 1;
	ck_assert_int_eq(cap_host_open(&h, &c), -EINVAL);
	/* no vCPU thread: nothing to follow */
	c.nr_lanes = 2;
	ck_assert_int_eq(cap_host_open(&h, &c), -ENOENT);
	ck_assert_ptr_null(h);
	ck_assert_int_eq(cap_host_file(NULL, NULL), -EINVAL);
	ck_assert_ptr_null(cap_host_stats(NULL));
	cap_host_free(NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cap_host");
	TCase *c = tcase_create("cap_host");

	tcase_add_checked_fixture(c, setup, teardown);
	tcase_add_test(c, host_records_skipped_unless_asked);
	tcase_add_test(c, host_times_stay_and_tracks_exact);
	tcase_add_test(c, no_host_view_no_host_event);
	tcase_add_test(c, domain_pid_from_pid_file);
	tcase_add_test(c, open_refuses);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
