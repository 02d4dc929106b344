/* SPDX-License-Identifier: MIT */
/*
 * The control socket (svc_ctl.c): requests answered and refused, the
 * request line's parser, and clients that send a byte at a time or
 * nothing at all: they hold a slot until their deadline and delay no
 * other request meanwhile (the serving side never waits for them).  The
 * clock the socket is given stands still where no deadline may help.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ringside/domain.h"
#include "ringside/service.h"

#define MS 1000000ull
#define WAIT_ROUNDS 3000      /* x 10 ms: a hung socket fails in 30 s */

static unsigned asked;
static char last[DOM_NAME_MAX + 1];

static void answer(void *arg, const char *domain, char *reply, size_t len)
{
	(void)arg;
	asked++;
	snprintf(last, sizeof(last), "%s", domain);
	snprintf(reply, len, "ok /captures/%s.data", domain);
}

static char dir[32], sock[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/svc-ctl-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof(sock), "%s/run/service.sock", dir);
	asked = 0;
}

static void teardown(void)
{
	char run[128];

	unlink(sock);
	snprintf(run, sizeof(run), "%s/run", dir);
	rmdir(run);
	rmdir(dir);
}

/* A connection to the socket, non-blocking. */
static int client(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void say(int fd, const char *s)
{
	ck_assert_int_eq(send(fd, s, strlen(s), MSG_NOSIGNAL),
			 (ssize_t)strlen(s));
}

/* Serve at @now until @fd has its whole answer (the server closes
 * after it); the answer.  Fails when none comes in WAIT_ROUNDS rounds. */
static char *answer_of(struct svc_ctl *c, uint64_t now, int fd)
{
	static char buf[4400];
	size_t n = 0;
	int i;

	for (i = 0; i < WAIT_ROUNDS; i++) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		svc_ctl_serve(c, now, answer, NULL);
		if (poll(&p, 1, 10) <= 0)
			continue;
		r = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	ck_assert_msg(i < WAIT_ROUNDS, "no answer");
	buf[n] = '\0';
	close(fd);
	return buf;
}

/* 1 while the server keeps @fd open and has said nothing. */
static int held(int fd)
{
	char b;

	return recv(fd, &b, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

START_TEST(ctl_parse)
{
	static const struct {
		const char *line;
		int verdict;
		const char *domain;
	} cases[] = {
		{ "capture web1\n", 1, "web1" },
		{ "capture a.b_c+d-1\nmore", 1, "a.b_c+d-1" },
		{ "capture \n", -EINVAL, "" },
		{ "capture\n", -EINVAL, "" },
		{ "capturex web1\n", -EINVAL, "" },
		{ "CAPTURE web1\n", -EINVAL, "" },
		{ "\n", -EINVAL, "" },
		{ "capture web 1\n", -EILSEQ, "" },
		{ "capture web1\r\n", -EILSEQ, "" },
		{ "capture -web1\n", -EILSEQ, "" },
		{ "capture .web1\n", -EILSEQ, "" },
		{ "capture ../etc\n", -EILSEQ, "" },
		{ "capture a/b\n", -EILSEQ, "" },
		/* a title for the log's terminal: refused, never copied */
		{ "capture \033]0;owned\007\n", -EILSEQ, "" },
		{ "capture w\xc3\xa9\n", -EILSEQ, "" },
	};
	char domain[DOM_NAME_MAX + 1], line[SVC_CTL_LINE_MAX + 8];
	static const char nul[] = "capture web1\0web2\n";

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *l = cases[i].line;
		size_t len = strlen(l), nl = (size_t)(strchr(l, '\n') - l);

		for (size_t k = 0; k <= nl; k++)
			ck_assert_msg(!svc_ctl_parse(l, k, domain,
						     sizeof(domain)),
				      "case %zu: a verdict at %zu", i, k);
		memset(domain, 'x', sizeof(domain));
		ck_assert_msg(svc_ctl_parse(l, len, domain, sizeof(domain)) ==
			      cases[i].verdict, "case %zu", i);
		ck_assert_str_eq(domain, cases[i].domain);
	}
	/* a NUL in the name: not a request for what comes before it */
	ck_assert_int_eq(svc_ctl_parse(nul, sizeof(nul) - 1, domain,
				       sizeof(domain)), -EILSEQ);
	ck_assert_str_eq(domain, "");
	/* the longest name, one more; a line that never ends */
	memset(line, 'a', sizeof(line));
	memcpy(line, "capture ", 8);
	line[8 + DOM_NAME_MAX] = '\n';
	ck_assert_int_eq(svc_ctl_parse(line, 9 + DOM_NAME_MAX, domain,
				       sizeof(domain)), 1);
	ck_assert_uint_eq(strlen(domain), DOM_NAME_MAX);
	ck_assert_int_eq(svc_ctl_parse(line, 9 + DOM_NAME_MAX, domain, 16),
			 -EILSEQ);
	line[8 + DOM_NAME_MAX] = 'a';
	line[9 + DOM_NAME_MAX] = '\n';
	ck_assert_int_eq(svc_ctl_parse(line, 10 + DOM_NAME_MAX, domain,
				       sizeof(domain)), -EILSEQ);
	memset(line, 'a', sizeof(line));
	ck_assert_int_eq(svc_ctl_parse(line, SVC_CTL_LINE_MAX - 1, domain,
				       sizeof(domain)), 0);
	ck_assert_int_eq(svc_ctl_parse(line, SVC_CTL_LINE_MAX, domain,
				       sizeof(domain)), -EMSGSIZE);
	ck_assert_int_eq(svc_ctl_parse(line, sizeof(line), domain,
				       sizeof(domain)), -EMSGSIZE);
}
END_TEST

/* The client's requests answered by a server in another process; a bad
 * request line refused; a second service on the same socket refused
 * while the first answers; no service: the client says so. */
START_TEST(ctl_requests)
{
	char reply[256];
	int lfd, lfd2, st;
	pid_t pid;

	ck_assert_int_eq(svc_ctl_listen(sock, &lfd), 0);
	ck_assert_int_eq(svc_ctl_listen(sock, &lfd2), -EADDRINUSE);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* the service side: three requests; the probe of the second
		 * listen (closed at once) is no request */
		struct svc_ctl *c;
		int served = 0;

		if (svc_ctl_new(&c, lfd))
			_exit(1);
		for (int i = 0; i < 30000 && served < 3; i++) {
			struct pollfd p = { svc_ctl_fd(c), POLLIN, 0 };

			poll(&p, 1, 1);
			served += svc_ctl_serve(c, 0, answer, NULL);
		}
		svc_ctl_free(c);
		_exit(served == 3 && asked == 1 ? 0 : 2);
	}
	ck_assert_int_eq(svc_client_request(sock, "web1", reply, sizeof(reply)), 0);
	ck_assert_str_eq(reply, "ok /captures/web1.data");
	ck_assert_int_eq(svc_client_request(sock, "", reply, sizeof(reply)), 0);
	ck_assert_str_eq(reply, "error unknown request (capture DOMAIN)");
	ck_assert_int_eq(svc_client_request(sock, "a\033[2Jb", reply,
					 sizeof(reply)), 0);
	ck_assert_str_eq(reply, "error no such domain name");
	ck_assert_int_eq(svc_client_request(sock, "a\nb", reply, sizeof(reply)),
			 -EINVAL);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(lfd);
	/* nobody listens now: the client says so */
	ck_assert_int_eq(svc_client_request(sock, "web1", reply, sizeof(reply)),
			 -ECONNREFUSED);
}
END_TEST

/* Clients that trickle their line a byte at a time, or send half of it
 * and stop, or nothing: every other request is answered meanwhile, at
 * once; the slow ones are answered when their line is whole and closed
 * when their time is up. */
START_TEST(ctl_slow_clients)
{
	static const char line[] = "capture slow1\n";
	struct svc_ctl *c;
	int lfd, trickle, half, silent;
	char *r;

	ck_assert_int_eq(svc_ctl_listen(sock, &lfd), 0);
	ck_assert_int_eq(svc_ctl_new(&c, lfd), 0);
	trickle = client();
	half = client();
	silent = client();
	say(half, "capt");
	/* a byte of the trickle, then a whole request of another client,
	 * which must not wait for the trickle's line */
	for (size_t i = 0; i + 1 < sizeof(line) - 1; i++) {
		char b[2] = { line[i], '\0' };

		int fd;

		say(trickle, b);
		fd = client();
		say(fd, "capture web2\n");
		r = answer_of(c, 0, fd);
		ck_assert_str_eq(r, "ok /captures/web2.data\n");
		ck_assert_int_eq(svc_ctl_held(c), 3);
		ck_assert(held(trickle) && held(half) && held(silent));
	}
	ck_assert_str_eq(last, "web2");
	/* the trickle's last byte: it is answered */
	say(trickle, "\n");
	r = answer_of(c, 0, trickle);
	ck_assert_str_eq(r, "ok /captures/slow1.data\n");
	ck_assert_uint_eq(asked, sizeof(line) - 2 + 1);
	ck_assert_str_eq(last, "slow1");
	/* time's up for the others: told so, and closed */
	ck_assert_int_eq(svc_ctl_held(c), 2);
	svc_ctl_serve(c, SVC_CTL_TIMEOUT_MS * MS, answer, NULL);
	ck_assert_int_eq(svc_ctl_held(c), 0);
	r = answer_of(c, SVC_CTL_TIMEOUT_MS * MS, half);
	ck_assert_str_eq(r, "error no request line\n");
	r = answer_of(c, SVC_CTL_TIMEOUT_MS * MS, silent);
	ck_assert_str_eq(r, "error no request line\n");
	svc_ctl_free(c);
	close(lfd);
}
END_TEST

/* More silent clients than slots: the oldest make room, a request still
 * gets through while they all stay connected. */
START_TEST(ctl_flood)
{
	enum { N = 4 * SVC_CTL_CLIENTS };
	struct svc_ctl *c;
	int lfd, fd[N], last_fd;
	char *r;

	ck_assert_int_eq(svc_ctl_listen(sock, &lfd), 0);
	ck_assert_int_eq(svc_ctl_new(&c, lfd), 0);
	for (int i = 0; i < N; i++) {
		fd[i] = client();
		svc_ctl_serve(c, 0, answer, NULL);
	}
	ck_assert_int_le(svc_ctl_held(c), SVC_CTL_CLIENTS);
	last_fd = client();
	say(last_fd, "capture web3\n");
	r = answer_of(c, 0, last_fd);
	ck_assert_str_eq(r, "ok /captures/web3.data\n");
	for (int i = 0; i < N; i++)
		close(fd[i]);
	svc_ctl_free(c);
	close(lfd);
}
END_TEST

/* Another user who can connect (a socket made reachable by mistake) is
 * refused at once, never read. */
START_TEST(ctl_not_root)
{
	struct svc_ctl *c;
	int lfd, fd;
	char *r;

	if (geteuid() != 0)
		return;   /* another user's socket needs root */
	ck_assert_int_eq(svc_ctl_listen(sock, &lfd), 0);
	ck_assert_int_eq(svc_ctl_new(&c, lfd), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chmod(sock, 0666), 0);
	ck_assert_int_eq(seteuid(65534), 0);
	fd = client();
	ck_assert_int_eq(seteuid(0), 0);
	say(fd, "capture web1\n");
	r = answer_of(c, 0, fd);
	ck_assert_str_eq(r, "error only root may ask the service\n");
	ck_assert_uint_eq(asked, 0);
	svc_ctl_free(c);
	close(lfd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_ctl");
	TCase *tc = tcase_create("ctl");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ctl_parse);
	tcase_add_test(tc, ctl_requests);
	tcase_add_test(tc, ctl_slow_clients);
	tcase_add_test(tc, ctl_flood);
	tcase_add_test(tc, ctl_not_root);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
