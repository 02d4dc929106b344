/* SPDX-License-Identifier: MIT */
/*
 * The metrics endpoint (svc_http.c): request parsing and the answers to
 * it (200, 404, 405, 400, 431), then its bounds against clients that
 * never send, send slowly or never read: deadlines, and a flood of idle
 * connections that cannot keep a scrape from being answered, by one user
 * (its own oldest make room) or by several (the one holding the most
 * makes room).  The clock the endpoint is given stands still in the flood
 * tests: no deadline helps, only the bounds do.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ringside/service_http.h"

#define S 1000000000ull
#define MS 1000000ull
#define WAIT_ROUNDS 3000      /* x 10 ms: a hung endpoint fails in 30 s */

static unsigned pages;
static size_t big_page;       /* a page of this many bytes; 0: the small one */

static int page(void *arg, char **body, size_t *len)
{
	(void)arg;
	pages++;
	if (big_page) {
		*body = malloc(big_page);
		ck_assert_ptr_nonnull(*body);
		memset(*body, '#', big_page);
		*len = big_page;
		return 0;
	}
	*body = strdup("ringside_up 1\n");
	*len = strlen(*body);
	return 0;
}

/* A connection to @port begun (non-blocking: a full backlog must not
 * hang the test). */
static int client_nb(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ||
		  errno == EINPROGRESS);
	return fd;
}

static int client(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Poll until @want connections were answered (the server never
 * blocks; the kernel hands the bytes over in its own time). */
static void serve(struct svc_http *h, uint64_t now, uint64_t want)
{
	uint64_t served = 0;

	for (int i = 0; i < 20000 && served < want; i++) {
		served += svc_http_poll(h, now, page, NULL);
		if (served < want)
			usleep(100);
	}
	ck_assert_uint_eq(served, want);
}

/* Everything the server sent until it closed. */
static char *reply(int fd)
{
	static char buf[8192];
	size_t n = 0;
	ssize_t r;

	while ((r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
	return buf;
}

static char *ask(struct svc_http *h, const char *req)
{
	int fd = client(svc_http_port(h));
	size_t len = strlen(req);

	ck_assert_int_eq(write(fd, req, len), (ssize_t)len);
	serve(h, 0, 1);
	return reply(fd);
}

/* Poll the endpoint at @now until @fd (a client's connection, begun
 * with client_nb) has its whole answer; its text.  Fails when none
 * comes in WAIT_ROUNDS rounds. */
static char *scrape(struct svc_http *h, uint64_t now, int fd)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	static char buf[8192];
	size_t sent = 0, n = 0;
	int i;

	for (i = 0; i < WAIT_ROUNDS; i++) {
		struct pollfd p = { fd, (short)(sent < sizeof(req) - 1 ?
						POLLOUT : POLLIN), 0 };
		ssize_t r;

		svc_http_poll(h, now, page, NULL);
		if (poll(&p, 1, 10) <= 0)
			continue;
		if (sent < sizeof(req) - 1) {
			r = send(fd, req + sent, sizeof(req) - 1 - sent,
				 MSG_NOSIGNAL);
			if (r > 0)
				sent += (size_t)r;
			continue;
		}
		r = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	ck_assert_msg(i < WAIT_ROUNDS, "no answer to the scrape");
	buf[n] = '\0';
	close(fd);
	return buf;
}

/* 1 while the server keeps @fd open (nothing to read, no EOF). */
static int held(int fd)
{
	char b;

	return recv(fd, &b, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

START_TEST(http_requests)
{
	struct svc_http *h;
	char *r, big[SVC_HTTP_REQUEST_MAX + 100];
	uint64_t answers[SVC_HTTP_ANSWERS];

	ck_assert_int_eq(svc_http_listen(&h, "127.0.0.1:0"), 0);
	ck_assert_uint_ne(svc_http_port(h), 0);
	pages = 0;
	r = ask(h, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
	ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "%s", r);
	ck_assert(strstr(r, "\r\nContent-Type: text/plain; version=0.0.4; "
			 "charset=utf-8\r\n"));
	ck_assert(strstr(r, "\r\nContent-Length: 14\r\n"));
	ck_assert_str_eq(strstr(r, "\r\n\r\n") + 4, "ringside_up 1\n");
	r = ask(h, "GET /metrics?x=1 HTTP/1.0\n\n");
	ck_assert(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	r = ask(h, "HEAD /metrics HTTP/1.1\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17));
	ck_assert_str_eq(strstr(r, "\r\n\r\n") + 4, "");
	ck_assert_uint_eq(pages, 3);
	r = ask(h, "GET / HTTP/1.1\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 404 ", 13));
	r = ask(h, "GET /metricsx HTTP/1.1\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 404 ", 13));
	r = ask(h, "POST /metrics HTTP/1.1\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 405 ", 13));
	r = ask(h, "GET /metrics\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 400 ", 13));
	r = ask(h, "GET /metrics HTTP/2.0\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 400 ", 13));
	r = ask(h, "GET metrics HTTP/1.1\r\n\r\n");
	ck_assert(!strncmp(r, "HTTP/1.1 400 ", 13));
	/* a head that never ends within the bound */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	big[sizeof(big) - 1] = '\0';
	r = ask(h, big);
	ck_assert_msg(!strncmp(r, "HTTP/1.1 431 ", 13), "%s", r);
	ck_assert_uint_eq(pages, 3);
	ck_assert_uint_eq(svc_http_dropped(h), 0);
	/* every answer counted by its code */
	svc_http_answers(h, answers);
	ck_assert_uint_eq(answers[SVC_HTTP_OK], 3);
	ck_assert_uint_eq(answers[SVC_HTTP_NOT_FOUND], 2);
	ck_assert_uint_eq(answers[SVC_HTTP_NOT_ALLOWED], 1);
	ck_assert_uint_eq(answers[SVC_HTTP_BAD_REQUEST], 3);
	ck_assert_uint_eq(answers[SVC_HTTP_TOO_LARGE], 1);
	ck_assert_uint_eq(answers[SVC_HTTP_ERROR], 0);
	svc_http_close(h);
	svc_http_answers(NULL, answers);
	ck_assert_uint_eq(answers[SVC_HTTP_OK], 0);
}
END_TEST

/* The parser alone: a verdict once the head is whole, the same verdict
 * for every longer input. */
START_TEST(http_parse)
{
	static const struct {
		const char *req;
		int code, head;
	} cases[] = {
		{ "GET /metrics HTTP/1.1\r\n\r\n", 200, 0 },
		{ "HEAD /metrics?a=b HTTP/1.0\n\n", 200, 1 },
		{ "GET /metrics HTTP/1.1\r\nHost: a\r\nX: y\r\n\r\n", 200, 0 },
		{ "GET /metrics/ HTTP/1.1\r\n\r\n", 404, 0 },
		{ "GET /?/metrics HTTP/1.1\r\n\r\n", 404, 0 },
		{ "get /metrics HTTP/1.1\r\n\r\n", 405, 0 },
		{ "GETX /metrics HTTP/1.1\r\n\r\n", 405, 0 },
		{ "GET  /metrics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "GET /metrics  HTTP/1.1\r\n\r\n", 400, 0 },
		{ "GET /metrics HTTP/1.1 \r\n\r\n", 400, 0 },
		{ "GET /metrics HTTP/1.1\r\r\n\r\n", 400, 0 },
		{ "GET\t/metrics HTTP/1.1\r\n\r\n", 400, 0 },
		{ "\r\n\r\n", 400, 0 },
		{ "\n\n", 400, 0 },
	};
	char nul[] = "GET /me\0rics HTTP/1.1\r\n\r\n";
	char big[SVC_HTTP_REQUEST_MAX];
	int head;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].req);

		for (size_t k = 0; k < len; k++)
			ck_assert_msg(svc_http_request(cases[i].req, k,
						       &head) == 0 ||
				      k + 1 >= len, "case %zu: a verdict at %zu",
				      i, k);
		ck_assert_msg(svc_http_request(cases[i].req, len, &head) ==
			      cases[i].code, "case %zu", i);
		ck_assert_int_eq(head, cases[i].head);
	}
	ck_assert_int_eq(svc_http_request(nul, sizeof(nul) - 1, &head), 400);
	memset(big, 'a', sizeof(big));
	ck_assert_int_eq(svc_http_request(big, sizeof(big) - 1, &head), 0);
	ck_assert_int_eq(svc_http_request(big, sizeof(big), &head), 431);
}
END_TEST

/* A silent client and one that sends half a head are closed at the head
 * deadline; one that never reads its answer at the connection's; none
 * delays an answer to another meanwhile. */
START_TEST(http_deadlines)
{
	struct svc_http *h;
	int silent, half, deaf;
	char *r;

	ck_assert_int_eq(svc_http_listen(&h, "127.0.0.1:0"), 0);
	silent = client(svc_http_port(h));
	half = client(svc_http_port(h));
	ck_assert_int_eq(write(half, "GET /met", 8), 8);
	/* an answer far bigger than the socket buffers: never all sent */
	deaf = client(svc_http_port(h));
	pages = 0;
	big_page = 64u << 20;
	ck_assert_int_eq(write(deaf, "GET /metrics HTTP/1.1\r\n\r\n", 25), 25);
	for (int i = 0; i < WAIT_ROUNDS && !pages; i++) {
		ck_assert_uint_eq(svc_http_poll(h, 0, page, NULL), 0);
		usleep(10000);
	}
	ck_assert_uint_eq(pages, 1);
	big_page = 0;
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(svc_http_poll(h, 0, page, NULL), 0);
	/* meanwhile another is answered at once */
	r = scrape(h, 1 * S, client_nb(svc_http_port(h)));
	ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "%s", r);
	ck_assert_uint_eq(svc_http_dropped(h), 0);
	ck_assert(held(silent));
	ck_assert(held(half));
	/* the head deadline: the silent and the half one go */
	svc_http_poll(h, SVC_HTTP_HEAD_MS * MS, page, NULL);
	ck_assert_uint_eq(svc_http_dropped(h), 2);
	ck_assert_str_eq(reply(silent), "");
	ck_assert_str_eq(reply(half), "");
	ck_assert_uint_eq(svc_http_held(h, NULL), 1);
	/* the whole life: the one that sent its request and never read */
	svc_http_poll(h, SVC_HTTP_TIMEOUT_MS * MS, page, NULL);
	ck_assert_uint_eq(svc_http_dropped(h), 3);
	ck_assert_uint_eq(svc_http_held(h, NULL), 0);
	close(deaf);
	/* and the next is answered */
	r = scrape(h, SVC_HTTP_TIMEOUT_MS * MS, client_nb(svc_http_port(h)));
	ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "%s", r);
	svc_http_close(h);
}
END_TEST

/* One user's flood of connections that never send: more than all the
 * slots, half a request on some, the clock standing still so that no
 * deadline frees a slot.  The scrape that comes after them is answered
 * while they are all still open on this side; the flood holds no more
 * than its share of the slots. */
START_TEST(http_flood)
{
	enum { IDLE = 4 * SVC_HTTP_CLIENTS, SLOW = SVC_HTTP_CLIENTS };
	int idle[IDLE], slow[SLOW];
	struct svc_http *h;
	unsigned most;
	char *r;

	ck_assert_int_eq(svc_http_listen(&h, "127.0.0.1:0"), 0);
	for (int i = 0; i < IDLE; i++) {
		idle[i] = client_nb(svc_http_port(h));
		if (i % 16 == 0)
			svc_http_poll(h, 0, page, NULL);
	}
	for (int i = 0; i < SLOW; i++) {
		struct pollfd p;

		slow[i] = client_nb(svc_http_port(h));
		svc_http_poll(h, 0, page, NULL);
		p = (struct pollfd){ slow[i], POLLOUT, 0 };
		if (poll(&p, 1, 1000) == 1)
			ck_assert_int_eq(send(slow[i], "GET /met", 8,
					      MSG_NOSIGNAL), 8);
	}
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(svc_http_poll(h, 0, page, NULL), 0);
	ck_assert_uint_le(svc_http_held(h, &most), SVC_HTTP_CLIENTS);
	ck_assert_uint_le(most, SVC_HTTP_PER_PEER);
	pages = 0;
	r = scrape(h, 0, client_nb(svc_http_port(h)));
	ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "%s", r);
	ck_assert_str_eq(strstr(r, "\r\n\r\n") + 4, "ringside_up 1\n");
	ck_assert_uint_eq(pages, 1);
	/* and again: the flood made no lasting damage */
	r = scrape(h, 0, client_nb(svc_http_port(h)));
	ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "%s", r);
	for (int i = 0; i < IDLE; i++)
		close(idle[i]);
	for (int i = 0; i < SLOW; i++)
		close(slow[i]);
	svc_http_close(h);
}
END_TEST

/* @n connections to @port owned by user @uid (a socket belongs to the
 * effective user that made it). */
static void open_as(uid_t uid, uint16_t port, int *fd, int n)
{
	ck_assert_int_eq(seteuid(uid), 0);
	for (int i = 0; i < n; i++)
		fd[i] = client_nb(port);
	ck_assert_int_eq(seteuid(0), 0);
}

/* Peers are users: another user's flood closes its own connections, not
 * root's; a flood by several users fills every slot and the next
 * connection still gets one, from the user holding the most. */
START_TEST(http_peers)
{
	enum { MINE = 4, THEIRS = SVC_HTTP_CLIENTS + 8 };
	int mine[MINE], theirs[4][THEIRS];
	struct svc_http *h;
	unsigned most;
	char *r;

	if (geteuid() != 0)
		return;   /* sockets of other users need root */
	ck_assert_int_eq(svc_http_listen(&h, "127.0.0.1:0"), 0);
	for (int i = 0; i < MINE; i++) {
		mine[i] = client_nb(svc_http_port(h));
		svc_http_poll(h, 0, page, NULL);
	}
	/* nobody floods: it holds its share, root keeps its connections */
	open_as(65534, svc_http_port(h), theirs[0], THEIRS);
	for (int i = 0; i < 100; i++)
		svc_http_poll(h, 0, page, NULL);
	ck_assert_uint_eq(svc_http_held(h, &most), MINE + SVC_HTTP_PER_PEER);
	ck_assert_uint_eq(most, SVC_HTTP_PER_PEER);
	for (int i = 0; i < MINE; i++)
		ck_assert_msg(held(mine[i]), "root's connection %d closed", i);
	/* three more users: every slot taken */
	for (int u = 1; u < 4; u++)
		open_as((uid_t)(65534 - u), svc_http_port(h), theirs[u],
			SVC_HTTP_PER_PEER);
	for (int i = 0; i < 100; i++)
		svc_http_poll(h, 0, page, NULL);
	ck_assert_uint_eq(svc_http_held(h, &most), SVC_HTTP_CLIENTS);
	r = scrape(h, 0, client_nb(svc_http_port(h)));
	ck_assert_msg(!strncmp(r, "HTTP/1.1 200 OK\r\n", 17), "%s", r);
	for (int i = 0; i < MINE; i++)
		ck_assert_msg(held(mine[i]), "root's connection %d closed", i);
	for (int i = 0; i < MINE; i++)
		close(mine[i]);
	for (int u = 0; u < 4; u++)
		for (int i = 0; i < (u ? (int)SVC_HTTP_PER_PEER : THEIRS); i++)
			close(theirs[u][i]);
	svc_http_close(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_http");
	TCase *tc = tcase_create("http");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, http_requests);
	tcase_add_test(tc, http_parse);
	tcase_add_test(tc, http_deadlines);
	tcase_add_test(tc, http_flood);
	tcase_add_test(tc, http_peers);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
