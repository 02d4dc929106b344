/* SPDX-License-Identifier: MIT */
/* The region and hang watch over a region file's header, guest resets,
 * and the control socket. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ringside/abi.h"
#include "ringside/service.h"
#include "ringside/service_ctl.h"
#include "ringside/service_watch.h"

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

/* A live agent that beats every 2.9 s (the Linux agent's beat in normal
 * mode, carried by a watermark) is never stale, whatever the threshold
 * asked for; stale once it stops. */
START_TEST(beat_every_few_seconds)
{
	struct svc_watch *w;
	uint64_t t;

	/* 1 s asked: SVC_HANG_MIN_S it is */
	ck_assert_int_eq(svc_watch_new(&w, 1), 0);
	hdr->status.attached = 1;
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), 0);
	/* a beat every 2.9 s, looked at every half second, for 10 minutes */
	for (t = 0; t <= 600 * S; t += S / 2) {
		if (t % (29 * S / 10) < S / 2)
			hdr->status.heartbeat++;
		svc_watch_poll(w, t, stale, NULL);
	}
	ck_assert_uint_eq(stale_calls, 0);
	/* its last beat, then it stops: stale SVC_HANG_MIN_S after it, not
	 * before */
	hdr->status.heartbeat++;
	svc_watch_poll(w, t, stale, NULL);
	svc_watch_poll(w, t + (SVC_HANG_MIN_S - 1) * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 0);
	svc_watch_poll(w, t + (SVC_HANG_MIN_S + 1) * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	svc_watch_free(w);
}
END_TEST

/* The age restarts when a new agent attaches (the status says another
 * boot) and when a new region appears: no hang is counted across. */
START_TEST(age_restarts)
{
	struct svc_watch *w;

	ck_assert_int_eq(svc_watch_new(&w, 10), 0);
	hdr->boot_gen = 1;
	hdr->status.attached = 1;
	hdr->status.boot_gen = 1;
	hdr->status.heartbeat = 7;
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), 0);
	svc_watch_poll(w, 9 * S, stale, NULL);
	/* a new agent: same heartbeat, but it says the boot it is of */
	hdr->boot_gen = 2;
	hdr->status.boot_gen = 2;
	svc_watch_poll(w, 9 * S + 1, stale, NULL);
	svc_watch_poll(w, 19 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 0);
	svc_watch_poll(w, 20 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	/* the region laid out anew: watched from now */
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 30 * S), 0);
	svc_watch_poll(w, 39 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	svc_watch_poll(w, 40 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 2);
	svc_watch_free(w);
}
END_TEST

/* After a reset the status is the claim of an agent gone with its boot:
 * no hang however long the new boot takes, until its agent attaches and
 * beats; the header's boot count goes up by one.  The agent here does
 * not say which boot it is of (an older one: boot_gen 0), so only the
 * service's own note of the reset tells. */
START_TEST(reset_claim_not_a_hang)
{
	struct svc_watch *w;
	uint64_t gen;

	ck_assert_int_eq(svc_watch_new(&w, 10), 0);
	hdr->boot_gen = 1;
	hdr->status.attached = 1;
	hdr->status.boot_gen = 0;
	hdr->status.heartbeat = 76;
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), 0);
	ck_assert_int_eq(svc_watch_reset(w, "d1", 5 * S, &gen), 0);
	ck_assert_uint_eq(gen, 2);
	ck_assert_uint_eq(hdr->boot_gen, 2);
	ck_assert_int_eq(svc_watch_reset(w, "nobody", 5 * S, &gen), -ENOENT);
	svc_watch_poll(w, 300 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 0);
	/* the new boot's agent attaches and beats; then it hangs */
	hdr->status.heartbeat++;
	svc_watch_poll(w, 302 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 0);
	svc_watch_poll(w, 312 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	svc_watch_free(w);
}
END_TEST

/* A status whose boot_gen is behind the header's (a reset counted while
 * the service did not run) is not judged either; an agent that says no
 * boot (0, an older one) is, as before. */
START_TEST(stale_boot_not_judged)
{
	struct svc_watch *w;

	ck_assert_int_eq(svc_watch_new(&w, 10), 0);
	hdr->boot_gen = 3;
	hdr->status.attached = 1;
	hdr->status.boot_gen = 2;
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), 0);
	svc_watch_poll(w, 100 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 0);
	hdr->status.boot_gen = 0;
	svc_watch_poll(w, 101 * S, stale, NULL);
	svc_watch_poll(w, 111 * S, stale, NULL);
	ck_assert_uint_eq(stale_calls, 1);
	svc_watch_free(w);
}
END_TEST

static unsigned gone_calls;
static int gone_replaced;

static void gone(void *arg, const char *name, int replaced)
{
	(void)arg;
	gone_calls++;
	gone_replaced = replaced;
	snprintf(stale_name, sizeof(stale_name), "%s", name);
}

/* The region file removed (disable --live) or laid out anew under its
 * name (enable --live): the watch ends and says which; the same file
 * stays watched. */
START_TEST(region_gone_or_replaced)
{
	char tmp[64];
	struct svc_watch *w;
	int fd;

	ck_assert_int_eq(svc_watch_new(&w, 10), 0);
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), 0);
	ck_assert_int_eq(svc_watch_same(w, "d1", path), 1);
	ck_assert_int_eq(svc_watch_same(w, "d2", path), 0);
	gone_calls = 0;
	svc_watch_check(w, gone, NULL);
	ck_assert_uint_eq(gone_calls, 0);
	ck_assert_int_eq(svc_watch_has(w, "d1"), 1);
	/* a new file renamed over it, as enable --live lays one out */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, RS_PAGE_SIZE), 0);
	close(fd);
	ck_assert_int_eq(rename(tmp, path), 0);
	ck_assert_int_eq(svc_watch_same(w, "d1", path), 0);
	svc_watch_check(w, gone, NULL);
	ck_assert_uint_eq(gone_calls, 1);
	ck_assert_int_eq(gone_replaced, 1);
	ck_assert_str_eq(stale_name, "d1");
	ck_assert_uint_eq(svc_watch_count(w), 0);
	/* watched again, then removed, as disable --live does */
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), 0);
	ck_assert_int_eq(svc_watch_add(w, "d2", path, 0), 0);
	ck_assert_int_eq(unlink(path), 0);
	svc_watch_check(w, gone, NULL);
	ck_assert_uint_eq(gone_calls, 3);
	ck_assert_int_eq(gone_replaced, 0);
	ck_assert_uint_eq(svc_watch_count(w), 0);
	/* a link under the name is not followed */
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(svc_watch_add(w, "d1", path, 0), -ELOOP);
	svc_watch_free(w);
}
END_TEST

/* One reset, however many times libvirt reports it: events less than the
 * merge time after the domain's previous one are the same reset. */
START_TEST(reset_once)
{
	struct svc_resets *r;

	ck_assert_int_eq(svc_resets_new(&r, 10), 0);
	ck_assert_int_eq(svc_resets_note(r, "d1", 100 * S), 1);
	ck_assert_int_eq(svc_resets_note(r, "d1", 100 * S + 1000), 0);
	ck_assert_int_eq(svc_resets_note(r, "d1", 101 * S), 0);
	/* another domain's reset is its own */
	ck_assert_int_eq(svc_resets_note(r, "d2", 101 * S), 1);
	/* a burst stays one: 9 s after the last event */
	ck_assert_int_eq(svc_resets_note(r, "d1", 110 * S), 0);
	/* the next reset, after a quiet merge time */
	ck_assert_int_eq(svc_resets_note(r, "d1", 120 * S), 1);
	ck_assert_int_eq(svc_resets_note(r, "d2", 200 * S), 1);
	svc_resets_free(r);
	/* the default merge time */
	ck_assert_int_eq(svc_resets_new(&r, 0), 0);
	ck_assert_int_eq(svc_resets_note(r, "d1", 0), 1);
	ck_assert_int_eq(svc_resets_note(r, "d1", (SVC_RESET_MERGE_S - 1) * S), 0);
	ck_assert_int_eq(svc_resets_note(r, "d1", (2 * SVC_RESET_MERGE_S) * S), 1);
	svc_resets_free(r);
}
END_TEST

#ifdef RS_TEST_LIBVIRT
static void no_log(void *arg, int level, const char *fmt, va_list ap)
{
	(void)arg;
	(void)level;
	(void)fmt;
	(void)ap;
}

static const struct svc_env quiet = { .log = no_log };

/* The service removes its control socket when it ends, unless another
 * socket took its name meanwhile (libvirt's test driver: no libvirtd). */
START_TEST(socket_removed)
{
	char dir[] = "/tmp/svc-sock-XXXXXX", sock[128], conf[512];
	const char *why;
	struct svc_config c;
	struct svc *s;
	struct stat st;
	unsigned line;
	int lfd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof(sock), "%s/run/service.sock", dir);
	snprintf(conf, sizeof(conf), "uri = test:///default\nsocket = %s\n"
		 "metrics = none\ncapture-dir = %s\n", sock, dir);
	svc_config_default(&c);
	ck_assert_int_eq(svc_config_parse(&c, conf, strlen(conf), &line, &why), 0);
	ck_assert_int_eq(svc_open(&s, &c, &quiet), 0);
	ck_assert_int_eq(svc_run(s, 10), 0);
	ck_assert_int_eq(lstat(sock, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	svc_close(s);
	ck_assert_int_eq(lstat(sock, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	/* a socket another program made under the name stays */
	ck_assert_int_eq(svc_open(&s, &c, &quiet), 0);
	ck_assert_int_eq(unlink(sock), 0);
	ck_assert_int_eq(svc_ctl_listen(sock, &lfd), 0);
	svc_close(s);
	ck_assert_int_eq(lstat(sock, &st), 0);
	close(lfd);
	unlink(sock);
	svc_config_fini(&c);
	snprintf(conf, sizeof(conf), "%s/run", dir);
	rmdir(conf);
	rmdir(dir);
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("svc_watch");
	TCase *tc = tcase_create("watch");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, stale_once_per_stall);
	tcase_add_test(tc, not_a_hang_rearms);
	tcase_add_test(tc, beat_every_few_seconds);
	tcase_add_test(tc, age_restarts);
	tcase_add_test(tc, reset_claim_not_a_hang);
	tcase_add_test(tc, stale_boot_not_judged);
	tcase_add_test(tc, region_gone_or_replaced);
	tcase_add_test(tc, reset_once);
#ifdef RS_TEST_LIBVIRT
	tcase_add_test(tc, socket_removed);
#endif
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
