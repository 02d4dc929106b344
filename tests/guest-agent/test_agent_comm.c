/* SPDX-License-Identifier: MIT */
/*
 * The Linux agent's thread names (guest-agent/linux/comm.c) alone: a name
 * is read from /proc once, then kept until the kernel's COMM renames it,
 * its FORK gives the tid a new owner (named as its creator, when that is
 * known) or its LOST may have hidden either;
 * every flush still writes one COMM per thread noted, with the newest
 * name.  It links the agent's library; its ring is a stub of the test's
 * own (agent_ring_put) that keeps the records.
 */
#include <check.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"

#define MAX_RECS 64

static struct { uint32_t pid, tid; char comm[16]; } recs[MAX_RECS];
static unsigned nr_recs;

int agent_ring_put(struct agent_ring *r, uint32_t type, uint16_t misc,
		   const void *body, uint32_t len)
{
	(void)misc;
	ck_assert_uint_eq(type, PERF_RECORD_COMM);
	ck_assert_uint_ge(len, 16);
	ck_assert_uint_lt(nr_recs, MAX_RECS);
	memset(&recs[nr_recs], 0, sizeof(recs[0]));
	memcpy(&recs[nr_recs], body, len < sizeof(recs[0]) ? len : sizeof(recs[0]));
	nr_recs++;
	r->written++;
	return 0;
}

static struct agent_ring ring;
static uint32_t me, self_tid;
static char my_name[16];

/* A kernel record of @type with @body. */
static void kernel(uint32_t type, const void *body, uint32_t len)
{
	struct {
		struct rs_perf_header h;
		uint8_t body[64];
	} rec;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = type;
	rec.h.size = (uint16_t)(sizeof(rec.h) + len);
	memcpy(rec.body, body, len);
	agent_comm_kernel(&rec.h);
}

static void kernel_comm(uint32_t pid, uint32_t tid, const char *name)
{
	struct { uint32_t pid, tid; char comm[16]; } b = { pid, tid, { 0 } };

	strncpy(b.comm, name, sizeof(b.comm) - 1);
	kernel(PERF_RECORD_COMM, &b, sizeof(b));
}

static void setup(void)
{
	FILE *f;

	memset(&ring, 0, sizeof(ring));
	nr_recs = 0;
	agent_comm_reset();
	me = (uint32_t)getpid();
	self_tid = (uint32_t)syscall(SYS_gettid);
	f = fopen("/proc/self/comm", "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(my_name, sizeof(my_name), f));
	fclose(f);
	my_name[strcspn(my_name, "\n")] = '\0';
}

/* Read once, then given by the cache, tick after tick, one COMM each. */
START_TEST(read_once)
{
	agent_comm_note(&ring, me, self_tid);
	agent_comm_note(&ring, me, self_tid);   /* once per tick */
	agent_comm_flush(&ring);
	agent_comm_note(&ring, me, self_tid);
	agent_comm_flush(&ring);
	ck_assert_uint_eq(nr_recs, 2);
	ck_assert_str_eq(recs[0].comm, my_name);
	ck_assert_str_eq(recs[1].comm, my_name);
	ck_assert_uint_eq(recs[1].pid, me);
	ck_assert_uint_eq(recs[1].tid, self_tid);
	ck_assert_uint_eq(agent_comm_stats()->reads, 1);
	ck_assert_uint_eq(agent_comm_stats()->hits, 1);
}
END_TEST

/* The kernel's COMM renames, even a thread noted before it in the tick;
 * /proc is not read again. */
START_TEST(kernel_renames)
{
	agent_comm_note(&ring, me, self_tid);
	kernel_comm(me, self_tid, "renamed");
	agent_comm_flush(&ring);
	agent_comm_note(&ring, me, self_tid);
	agent_comm_flush(&ring);
	ck_assert_uint_eq(nr_recs, 2);
	ck_assert_str_eq(recs[0].comm, "renamed");
	ck_assert_str_eq(recs[1].comm, "renamed");
	ck_assert_uint_eq(agent_comm_stats()->reads, 1);
	ck_assert_uint_eq(agent_comm_stats()->renamed, 1);
}
END_TEST

/* A FORK of the tid (a dead thread's tid reused) or the kernel's LOST:
 * the name is read again, and it is the thread's own. */
START_TEST(fork_and_lost_forget)
{
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fk =
		{ me, 1, self_tid, 1, 0 };
	struct { uint64_t id, lost; } lost = { 0, 3 };

	kernel_comm(me, self_tid, "stale");
	kernel(PERF_RECORD_FORK, &fk, sizeof(fk));
	agent_comm_note(&ring, me, self_tid);
	agent_comm_flush(&ring);
	ck_assert_str_eq(recs[0].comm, my_name);
	ck_assert_uint_eq(agent_comm_stats()->reads, 1);
	kernel_comm(me, self_tid, "stale");
	kernel(PERF_RECORD_LOST, &lost, sizeof(lost));
	agent_comm_note(&ring, me, self_tid);
	agent_comm_flush(&ring);
	ck_assert_str_eq(recs[1].comm, my_name);
	ck_assert_uint_eq(agent_comm_stats()->reads, 2);
	ck_assert_uint_eq(agent_comm_stats()->forgotten, 1);
	/* a new session knows no name */
	kernel_comm(me, self_tid, "stale");
	agent_comm_reset();
	agent_comm_note(&ring, me, self_tid);
	agent_comm_flush(&ring);
	ck_assert_str_eq(recs[2].comm, my_name);
	ck_assert_uint_eq(agent_comm_stats()->reads, 1);
}
END_TEST

/* A FORK gives the new process, or thread, its creator's name without a
 * read of /proc (none is there to read: the tids are past pid_max, the
 * child's in its creator's slot of the cache), until an exec renames it. */
START_TEST(fork_takes_creators_name)
{
	uint32_t child = self_tid + 4096u * 2048u, thread = child + 1u;
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; }
		fk = { child, me, child, self_tid, 0 },
		th = { me, me, thread, self_tid, 0 };

	kernel_comm(me, self_tid, "parent");
	kernel(PERF_RECORD_FORK, &th, sizeof(th));
	kernel(PERF_RECORD_FORK, &fk, sizeof(fk));  /* takes the creator's slot */
	agent_comm_note(&ring, me, thread);
	agent_comm_note(&ring, child, child);
	agent_comm_flush(&ring);
	ck_assert_uint_eq(nr_recs, 2);
	ck_assert_uint_eq(recs[0].tid, thread);
	ck_assert_str_eq(recs[0].comm, "parent");
	ck_assert_uint_eq(recs[1].pid, child);
	ck_assert_uint_eq(recs[1].tid, child);
	ck_assert_str_eq(recs[1].comm, "parent");
	ck_assert_uint_eq(agent_comm_stats()->reads, 0);
	ck_assert_uint_eq(agent_comm_stats()->inherited, 2);
	kernel_comm(child, child, "gzip");         /* its exec */
	agent_comm_note(&ring, child, child);
	agent_comm_flush(&ring);
	ck_assert_str_eq(recs[2].comm, "gzip");
	ck_assert_uint_eq(agent_comm_stats()->reads, 0);
}
END_TEST

/* A name is another pid's: not given to this one.  A thread already gone
 * gets no COMM; the idle task is swapper. */
START_TEST(other_pid_gone_idle)
{
	kernel_comm(me + 1, self_tid, "other");
	agent_comm_note(&ring, me, self_tid);
	agent_comm_note(&ring, 0x7ffffff0u, 0x7ffffff0u);   /* past pid_max */
	agent_comm_note(&ring, 0, 0);
	agent_comm_flush(&ring);
	ck_assert_uint_eq(nr_recs, 2);
	ck_assert_str_eq(recs[0].comm, my_name);
	ck_assert_str_eq(recs[1].comm, "swapper");
}
END_TEST

/* A malformed kernel record (too short) changes nothing. */
START_TEST(short_records)
{
	uint32_t two[2] = { me, self_tid };

	agent_comm_note(&ring, me, self_tid);
	agent_comm_flush(&ring);
	kernel(PERF_RECORD_COMM, two, sizeof(two));
	kernel(PERF_RECORD_FORK, two, sizeof(two));
	agent_comm_note(&ring, me, self_tid);
	agent_comm_flush(&ring);
	ck_assert_str_eq(recs[1].comm, my_name);
	ck_assert_uint_eq(agent_comm_stats()->reads, 1);
	ck_assert_uint_eq(agent_comm_stats()->renamed, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent_comm");
	TCase *tc = tcase_create("agent_comm");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, read_once);
	tcase_add_test(tc, kernel_renames);
	tcase_add_test(tc, fork_and_lost_forget);
	tcase_add_test(tc, fork_takes_creators_name);
	tcase_add_test(tc, other_pid_gone_idle);
	tcase_add_test(tc, short_records);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
