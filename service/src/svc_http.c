/* SPDX-License-Identifier: MIT */
/*
 * The metrics endpoint: a minimal HTTP/1.0 and 1.1 server for one page,
 * GET /metrics, on a non-blocking TCP socket the service's loop polls.
 * Nothing here ever blocks: a connection is read and written as far as
 * it goes without waiting, at most SVC_HTTP_CLIENTS at once (more wait in
 * the listen backlog), its request head bounded by SVC_HTTP_REQUEST_MAX
 * bytes and its whole life by SVC_HTTP_TIMEOUT_MS, so a slow or silent
 * client costs a slot for a while, never the service's loop.  Every
 * answer closes its connection (Connection: close).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ringside/service_metrics.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct conn {
	int fd;                   /* -1: a free slot */
	uint64_t deadline_ns;
	char req[SVC_HTTP_REQUEST_MAX];
	size_t rlen;
	char *out;                /* the answer, once the request is read */
	size_t olen, off;
	int code;                 /* of the answer */
};

struct svc_http {
	int fd;
	uint16_t port;
	struct conn c[SVC_HTTP_CLIENTS];
	uint64_t dropped;
	uint64_t answers[SVC_HTTP_ANSWERS];  /* by enum svc_http_answer */
};

int svc_http_addr(const char *spec, uint32_t *ip, uint16_t *port)
{
	const char *colon = strrchr(spec, ':');
	char host[16], *end;
	struct in_addr a;
	unsigned long p;

	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(host))
		return -EINVAL;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	if (inet_pton(AF_INET, host, &a) != 1)
		return -EINVAL;
	if (colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || p > 65535)
		return -EINVAL;
	*ip = a.s_addr;
	*port = (uint16_t)p;
	return 0;
}

int svc_http_listen(struct svc_http **hp, const char *spec)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct svc_http *h;
	uint32_t ip;
	uint16_t port;
	int one = 1, err;

	*hp = NULL;
	if (svc_http_addr(spec, &ip, &port))
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++)
		h->c[i].fd = -1;
	sa.sin_addr.s_addr = ip;
	sa.sin_port = htons(port);
	h->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (h->fd < 0 ||
	    setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(h->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(h->fd, 16) ||
	    getsockname(h->fd, (struct sockaddr *)&sa, &sl)) {
		err = -errno;
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return err;
	}
	h->port = ntohs(sa.sin_port);
	*hp = h;
	return 0;
}

uint16_t svc_http_port(const struct svc_http *h)
{
	return h->port;
}

int svc_http_fd(const struct svc_http *h)
{
	return h->fd;
}

uint64_t svc_http_dropped(const struct svc_http *h)
{
	return h ? h->dropped : 0;
}

void svc_http_answers(const struct svc_http *h,
		      uint64_t answers[SVC_HTTP_ANSWERS])
{
	for (unsigned i = 0; i < SVC_HTTP_ANSWERS; i++)
		answers[i] = h ? h->answers[i] : 0;
}

static enum svc_http_answer kind_of(int code)
{
	switch (code) {
	case 200: return SVC_HTTP_OK;
	case 400: return SVC_HTTP_BAD_REQUEST;
	case 404: return SVC_HTTP_NOT_FOUND;
	case 405: return SVC_HTTP_NOT_ALLOWED;
	case 431: return SVC_HTTP_TOO_LARGE;
	default: return SVC_HTTP_ERROR;
	}
}

static void conn_end(struct conn *c)
{
	char sink[4096];

	/* what the client sent past its request, read away first: closed
	 * with unread bytes, the socket would reset the connection and the
	 * client could lose the answer */
	for (int i = 0; i < 16 && recv(c->fd, sink, sizeof(sink), 0) > 0; i++)
		;
	close(c->fd);
	free(c->out);
	c->fd = -1;
	c->out = NULL;
	c->rlen = c->olen = c->off = 0;
}

void svc_http_close(struct svc_http *h)
{
	if (!h)
		return;
	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++)
		if (h->c[i].fd >= 0)
			conn_end(&h->c[i]);
	close(h->fd);
	free(h);
}

/* The answer: a status line, headers, and @body (@head_only: none). */
static void answer(struct conn *c, int code, const char *reason,
		   const char *type, const char *body, size_t blen,
		   int head_only)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n"
			 "Content-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", code, reason, type, blen);
	size_t hl = (size_t)n;

	c->code = code;
	if (head_only)
		blen = 0;
	c->out = malloc(hl + blen);
	if (!c->out) {
		c->olen = 0;
		return;
	}
	memcpy(c->out, head, hl);
	if (blen)
		memcpy(c->out + hl, body, blen);
	c->olen = hl + blen;
	c->off = 0;
}

static void answer_text(struct conn *c, int code, const char *reason,
			const char *text)
{
	answer(c, code, reason, "text/plain; charset=utf-8", text,
	       strlen(text), 0);
}

/* The end of the request head in c->req: its length, 0 if not yet. */
static size_t head_end(const struct conn *c)
{
	for (size_t i = 0; i + 1 < c->rlen; i++) {
		if (c->req[i] != '\n')
			continue;
		if (c->req[i + 1] == '\n')
			return i + 2;
		if (i + 2 < c->rlen && c->req[i + 1] == '\r' &&
		    c->req[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* Answer the complete request head in c->req. */
static void respond(struct conn *c, svc_http_page_fn page, void *arg)
{
	char *sp1, *sp2, *eol, *q, *body = NULL;
	size_t blen = 0;
	int head;

	eol = memchr(c->req, '\n', c->rlen);
	if (memchr(c->req, '\0', (size_t)(eol - c->req))) {
		answer_text(c, 400, "Bad Request", "bad request\n");
		return;
	}
	*eol = '\0';
	if (eol > c->req && eol[-1] == '\r')
		eol[-1] = '\0';
	sp1 = strchr(c->req, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strchr(sp2 + 1, ' ') ||
	    (strcmp(sp2 + 1, "HTTP/1.0") && strcmp(sp2 + 1, "HTTP/1.1")) ||
	    sp1[1] != '/') {
		answer_text(c, 400, "Bad Request", "bad request\n");
		return;
	}
	*sp1 = *sp2 = '\0';
	head = !strcmp(c->req, "HEAD");
	if (!head && strcmp(c->req, "GET")) {
		answer_text(c, 405, "Method Not Allowed", "GET only\n");
		return;
	}
	q = strchr(sp1 + 1, '?');
	if (q)
		*q = '\0';
	if (strcmp(sp1 + 1, "/metrics")) {
		answer_text(c, 404, "Not Found", "not found: try /metrics\n");
		return;
	}
	if (page(arg, &body, &blen)) {
		answer_text(c, 500, "Internal Server Error", "no metrics\n");
		return;
	}
	answer(c, 200, "OK", CONTENT_TYPE, body, blen, head);
	free(body);
}

/* Read and write @c as far as it goes; 1 when it is done with. */
static int step(struct conn *c, svc_http_page_fn page, void *arg)
{
	ssize_t n;

	while (!c->out) {
		size_t end;

		if (c->rlen == sizeof(c->req)) {
			answer_text(c, 431, "Request Header Fields Too Large",
				    "request too large\n");
			break;
		}
		n = recv(c->fd, c->req + c->rlen, sizeof(c->req) - c->rlen, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno != EAGAIN && errno != EWOULDBLOCK ? -1 : 0;
		if (n == 0)
			return -1;   /* closed before a whole request */
		c->rlen += (size_t)n;
		end = head_end(c);
		if (end)
			respond(c, page, arg);
	}
	if (!c->olen)
		return -1;   /* no memory for the answer */
	while (c->off < c->olen) {
		n = send(c->fd, c->out + c->off, c->olen - c->off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno != EAGAIN && errno != EWOULDBLOCK ? -1 : 0;
		c->off += (size_t)n;
	}
	return 1;
}

uint64_t svc_http_poll(struct svc_http *h, uint64_t now_ns,
		       svc_http_page_fn page, void *arg)
{
	uint64_t served = 0;

	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++) {
		struct conn *c = &h->c[i];

		if (c->fd >= 0)
			continue;
		c->fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c->fd < 0)
			break;
		c->deadline_ns = now_ns + SVC_HTTP_TIMEOUT_MS * 1000000ull;
	}
	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++) {
		struct conn *c = &h->c[i];
		int r;

		if (c->fd < 0)
			continue;
		r = step(c, page, arg);
		if (r == 1) {
			served++;
			h->answers[kind_of(c->code)]++;
			conn_end(c);
		} else if (r < 0 || now_ns >= c->deadline_ns) {
			h->dropped++;
			conn_end(c);
		}
	}
	return served;
}
