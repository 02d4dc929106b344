/* SPDX-License-Identifier: MIT */
/* The hang watch over a region file's header, and the control socket. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ringside/abi.h"
#include "ringside/service.h"

#define S 1000000000ull

static char path[] = "/tmp/svc-watch-XXXXXX";
static struct rs_region_header *hdr;
static unsigned stale_calls;
static int stale_answer;
static char stale_name[64];

static void setup(void)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, RS_PAGE_SIZE), 0);
	hdr = mmap(NULL, RS_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(hdr, MAP_FAILED);
	close(fd);
	stale_calls = 0;
	stale_answer = 1;
}

static void teardown(void)
{
	munmap(hdr, RS_PAGE_SIZE);
	unlink(path);
	strcpy(path, "/tmp/svc-watch-XXXXXX");
}

static int stale(void *arg, const char *name, uint64_t secs)
{
	(void)arg;
	(void)secs;
	stale_calls++;
	snprintf(stale_name, sizeof(stale_name), "%s", name);
	return stale_answer;
}

/* An attached agent that stops beating is stale once per stall; one
 * that beats, or is not attached, never. */
START_TEST(stale_once_per_stall)
{
	struct svc_watch *w;

	ck_assert_int_eq(svc_watch_new(&w, 10), 0);
	hdr->status.attached = 1;
	hdr->status.heartbeat = 5;
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 100 * S), 0);
	ck_assert_uint_eq(svc_watch_count(w), 1);
	svc_watch_poll(w, 109 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 0);
	svc_watch_poll(w, 110 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	ck_assert_str_eq(stale_name, "d1");
	svc_watch_poll(w, 200 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);      /* said once */
	hdr->status.heartbeat++;                /* it beats again: re-armed */
	svc_watch_poll(w, 201 * S, stale, NULL);
	svc_watch_poll(w, 210 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	svc_watch_poll(w, 211 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 2);
	/* detached: no agent, no hang */
	hdr->status.attached = 0;
	hdr->status.heartbeat++;
	svc_watch_poll(w, 212 * S, stale, NULL);
	svc_watch_poll(w, 500 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 2);
	svc_watch_del(w, "d1");
	ck_assert_uint_eq(svc_watch_count(w), 0);
	svc_watch_free(w);
}
END_TEST

/* "Not a hang" (a paused domain) restarts the wait. */
START_TEST(not_a_hang_rearms)
{
	struct svc_watch *w;

	ck_assert_int_eq(svc_watch_new(&w, 10), 0);
	hdr->status.attached = 1;
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), 0);
	stale_answer = 0;
	svc_watch_poll(w, 10 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	svc_watch_poll(w, 19 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	svc_watch_poll(w, 20 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 2);
	/* adding it again replaces the watch */
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 20 * S), 0);
	ck_assert_uint_eq(svc_watch_count(w), 1);
	ck_assert_int_eq(svc_watch_add(w, "d2", "/nonexistent/region", 0), -ENOENT);
	svc_watch_free(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_watch");
	TCase *tc = tcase_create("watch");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, stale_once_per_stall);
	tcase_add_test(tc, not_a_hang_rearms);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
