/* SPDX-License-Identifier: MIT */
/*
 * The metrics endpoint: a minimal HTTP/1.0 and 1.1 server for one page,
 * GET /metrics, on a non-blocking TCP socket the service's loop polls.
 * Nothing here ever blocks: a connection is read and written as far as
 * it goes without waiting.  Any local user can connect, so no client may
 * starve another (service_metrics.h): a connection costs a slot and its
 * buffer, never the loop; one peer holds at most SVC_HTTP_PER_PEER of
 * the SVC_HTTP_CLIENTS slots; a new connection finds room by closing the
 * oldest of the peer that holds the most (its own first when it is at its
 * bound), preferring connections that have not yet sent a whole request;
 * a request head must be whole within SVC_HTTP_HEAD_MS.  A peer is the
 * local user that owns the client's socket, as the kernel's socket table
 * says (sock_diag; loopback and every other local address), or else the
 * client's address.  An epoll set of the listener and every connection
 * wakes the caller when there is work.  Every answer closes its
 * connection (Connection: close).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ringside/io.h"
#include "ringside/service_http.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define LISTENER     UINT32_MAX   /* the listener's epoll tag */

/* Who is on the other end: a local user, or an address. */
struct peer {
	int local;                /* 1: @id is the uid that owns the socket */
	uint32_t id;              /* the uid, or the IPv4 address */
};

struct conn {
	int fd;                   /* -1: a free slot */
	struct peer peer;
	uint64_t seq;             /* accept order: lower is older */
	uint64_t head_ns;         /* the request head is whole by then */
	uint64_t deadline_ns;     /* the answer is sent by then */
	char req[SVC_HTTP_REQUEST_MAX];
	size_t rlen;
	char *out;                /* the answer, once the request is read */
	size_t olen, off;
	int code;                 /* of the answer */
};

struct svc_http {
	int fd;
	int ep;                   /* epoll: the listener, every connection */
	int diag;                 /* NETLINK_SOCK_DIAG, -1 none */
	uint32_t diag_seq;
	uint16_t port;
	uint64_t seq;
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
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = LISTENER };
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
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	h->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	/* the kernel's whole backlog: the loop drains it at every poll */
	if (h->ep < 0 || h->fd < 0 ||
	    setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(h->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(h->fd, SOMAXCONN) ||
	    getsockname(h->fd, (struct sockaddr *)&sa, &sl) ||
	    epoll_ctl(h->ep, EPOLL_CTL_ADD, h->fd, &ev)) {
		err = -errno;
		if (h->fd >= 0)
			close(h->fd);
		if (h->ep >= 0)
			close(h->ep);
		free(h);
		return err;
	}
	/* without it (no netlink here) every peer is its address */
	h->diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			 NETLINK_SOCK_DIAG);
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
	return h->ep;
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

static int same_peer(const struct peer *a, const struct peer *b)
{
	return a->local == b->local && a->id == b->id;
}

/* Connections held by @p. */
static unsigned held_by(const struct svc_http *h, const struct peer *p)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++)
		n += h->c[i].fd >= 0 && same_peer(&h->c[i].peer, p);
	return n;
}

/* The connections held, and the peer that holds the most of them (NULL
 * when none is held) and how many it holds. */
static unsigned census(const struct svc_http *h, const struct peer **who,
		       unsigned *most)
{
	unsigned n = 0;

	*who = NULL;
	*most = 0;
	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++) {
		unsigned k;

		if (h->c[i].fd < 0)
			continue;
		n++;
		k = held_by(h, &h->c[i].peer);
		if (k > *most) {
			*most = k;
			*who = &h->c[i].peer;
		}
	}
	return n;
}

unsigned svc_http_held(const struct svc_http *h, unsigned *most)
{
	const struct peer *who;
	unsigned m;

	return census(h, &who, most ? most : &m);
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
	for (int i = 0; c->out && i < 16 &&
	     recv(c->fd, sink, sizeof(sink), 0) > 0; i++)
		;
	close(c->fd);    /* which takes it out of the epoll set */
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
	close(h->ep);
	if (h->diag >= 0)
		close(h->diag);
	free(h);
}

/*
 * The uid that owns the client's end of a connection from @peer to
 * @self, from the kernel's socket table: 0, or -errno (-ENOENT: not a
 * socket of this host, or one no user holds any more).
 */
static int peer_uid(struct svc_http *h, const struct sockaddr_in *peer,
		    const struct sockaddr_in *self, uint32_t *uid)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} ans;
	ssize_t n;

	if (h->diag < 0)
		return -ENOTSUP;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = ++h->diag_seq;
	req.r.sdiag_family = AF_INET;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	/* the client's socket: its local end is our peer */
	req.r.id.idiag_sport = peer->sin_port;
	req.r.id.idiag_dport = self->sin_port;
	req.r.id.idiag_src[0] = peer->sin_addr.s_addr;
	req.r.id.idiag_dst[0] = self->sin_addr.s_addr;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (send(h->diag, &req, sizeof(req), MSG_NOSIGNAL) != (ssize_t)sizeof(req))
		return -errno;
	/* the kernel answers within send(); older answers are skipped */
	while ((n = recv(h->diag, &ans, sizeof(ans), MSG_DONTWAIT)) > 0) {
		const struct inet_diag_msg *m = NLMSG_DATA(&ans.nh);

		if ((size_t)n < NLMSG_HDRLEN || ans.nh.nlmsg_seq != h->diag_seq)
			continue;
		if (ans.nh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    (size_t)n < NLMSG_LENGTH(sizeof(*m)))
			return -ENOENT;
		/* a closed end (TIME_WAIT) no longer says whose it was */
		if (m->idiag_state == TCP_TIME_WAIT)
			return -ENOENT;
		*uid = m->idiag_uid;
		return 0;
	}
	return -ENOENT;
}

/* Who is at the other end of accepted connection @fd. */
static struct peer peer_of(struct svc_http *h, int fd,
			   const struct sockaddr_in *from)
{
	struct peer p = { 0, from->sin_addr.s_addr };
	struct sockaddr_in self;
	socklen_t sl = sizeof(self);
	uint32_t uid = 0;

	if (!getsockname(fd, (struct sockaddr *)&self, &sl) &&
	    self.sin_family == AF_INET && !peer_uid(h, from, &self, &uid)) {
		p.local = 1;
		p.id = uid;
	}
	return p;
}

/* The slot to close for a connection of @p: @p's oldest when it holds
 * its bound, else when no slot is free the oldest of the peer that holds
 * the most; among a peer's, those without a whole request first.  -1:
 * none (a slot is free). */
static int victim(const struct svc_http *h, const struct peer *p)
{
	const struct peer *who;
	unsigned most, used = census(h, &who, &most);
	int best = -1, best_idle = 0;

	if (held_by(h, p) >= SVC_HTTP_PER_PEER)
		who = p;
	else if (used < SVC_HTTP_CLIENTS)
		return -1;
	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++) {
		const struct conn *c = &h->c[i];
		int idle = !c->out;

		if (c->fd < 0 || !same_peer(&c->peer, who))
			continue;
		if (best < 0 || idle > best_idle ||
		    (idle == best_idle && c->seq < h->c[best].seq)) {
			best = (int)i;
			best_idle = idle;
		}
	}
	return best;
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

/* The length of the request head in @buf (up to its empty line), 0 if
 * it is not whole yet. */
static size_t head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static int is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(s, word, n);
}

int svc_http_request(const char *buf, size_t len, int *head_only)
{
	const char *sp1, *sp2, *target, *version, *q;
	size_t end = head_end(buf, len), ll, tlen, plen;
	int head;

	*head_only = 0;
	if (!end)
		return len >= SVC_HTTP_REQUEST_MAX ? 431 : 0;
	/* the request line: METHOD SP TARGET SP VERSION */
	ll = (size_t)((const char *)memchr(buf, '\n', end) - buf);
	if (ll && buf[ll - 1] == '\r')
		ll--;
	if (memchr(buf, '\0', ll))
		return 400;
	sp1 = memchr(buf, ' ', ll);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', ll - (size_t)(sp1 + 1 - buf)) : NULL;
	if (!sp2)
		return 400;
	target = sp1 + 1;
	tlen = (size_t)(sp2 - target);
	version = sp2 + 1;
	if (!is(version, ll - (size_t)(version - buf), "HTTP/1.0") &&
	    !is(version, ll - (size_t)(version - buf), "HTTP/1.1"))
		return 400;
	if (!tlen || target[0] != '/')
		return 400;
	head = is(buf, (size_t)(sp1 - buf), "HEAD");
	if (!head && !is(buf, (size_t)(sp1 - buf), "GET"))
		return 405;
	q = memchr(target, '?', tlen);
	plen = q ? (size_t)(q - target) : tlen;
	if (!is(target, plen, "/metrics"))
		return 404;
	*head_only = head;
	return 200;
}

/* Answer the whole request head in c->req. */
static void respond(struct conn *c, int code, int head,
		    svc_http_page_fn page, void *arg)
{
	char *body = NULL;
	size_t blen = 0;

	switch (code) {
	case 200:
		if (page(arg, &body, &blen)) {
			answer_text(c, 500, "Internal Server Error",
				    "no metrics\n");
			return;
		}
		answer(c, 200, "OK", CONTENT_TYPE, body, blen, head);
		free(body);
		return;
	case 404:
		answer_text(c, 404, "Not Found", "not found: try /metrics\n");
		return;
	case 405:
		answer_text(c, 405, "Method Not Allowed", "GET only\n");
		return;
	case 431:
		answer_text(c, 431, "Request Header Fields Too Large",
			    "request too large\n");
		return;
	default:
		answer_text(c, 400, "Bad Request", "bad request\n");
		return;
	}
}

/* Wait for room to write @c's answer, no longer for its bytes. */
static void want_write(struct svc_http *h, struct conn *c, unsigned slot)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.u32 = slot };

	epoll_ctl(h->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Read and write @c as far as it goes; 1 when it is done with, -1 when
 * it failed, 0 when it waits. */
static int step(struct svc_http *h, unsigned slot, svc_http_page_fn page,
		void *arg)
{
	struct conn *c = &h->c[slot];
	ssize_t n;

	while (!c->out) {
		int code, head;

		n = rs_io_recv_some(c->fd, c->req + c->rlen,
				    sizeof(c->req) - c->rlen);
		if (n < 0)
			return n == -EAGAIN ? 0 : -1;
		if (n == 0)
			return -1;   /* closed before a whole request */
		c->rlen += (size_t)n;
		code = svc_http_request(c->req, c->rlen, &head);
		if (code) {
			respond(c, code, head, page, arg);
			if (!c->out)
				return -1;   /* no memory for the answer */
			want_write(h, c, slot);
		}
	}
	n = rs_io_send_some(c->fd, c->out, c->olen, &c->off);
	return !n ? 1 : n == -EAGAIN ? 0 : -1;
}

/* Step @slot and end it when it is done with or failed; 1 if answered. */
static int serve(struct svc_http *h, unsigned slot, svc_http_page_fn page,
		 void *arg)
{
	struct conn *c = &h->c[slot];
	int r = step(h, slot, page, arg);

	if (r == 1) {
		h->answers[kind_of(c->code)]++;
		conn_end(c);
	} else if (r < 0) {
		h->dropped++;
		conn_end(c);
	}
	return r == 1;
}

/* Accept one connection into a slot (room made if need be): the slot,
 * or -1 when none waits. */
static int take(struct svc_http *h, uint64_t now_ns)
{
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	struct epoll_event ev = { .events = EPOLLIN };
	struct peer p;
	int fd, v, slot = -1;

	fd = accept4(h->fd, (struct sockaddr *)&from, &fl,
		     SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -1;
	memset(&p, 0, sizeof(p));
	if (fl >= sizeof(from) && from.sin_family == AF_INET)
		p = peer_of(h, fd, &from);
	v = victim(h, &p);
	if (v >= 0) {
		h->dropped++;
		conn_end(&h->c[v]);
	}
	for (unsigned i = 0; i < SVC_HTTP_CLIENTS && slot < 0; i++)
		if (h->c[i].fd < 0)
			slot = (int)i;
	ev.data.u32 = (uint32_t)slot;
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		h->dropped++;
		return -2;
	}
	h->c[slot].fd = fd;
	h->c[slot].peer = p;
	h->c[slot].seq = ++h->seq;
	h->c[slot].head_ns = now_ns + SVC_HTTP_HEAD_MS * 1000000ull;
	h->c[slot].deadline_ns = now_ns + SVC_HTTP_TIMEOUT_MS * 1000000ull;
	return slot;
}

uint64_t svc_http_poll(struct svc_http *h, uint64_t now_ns,
		       svc_http_page_fn page, void *arg)
{
	struct epoll_event ev[SVC_HTTP_CLIENTS + 1];
	uint64_t served = 0;
	int n;

	/* what the kernel has queued, taken now: a request that came with
	 * its connection is answered before later connections can make
	 * room by closing it */
	for (unsigned i = 0; i < SVC_HTTP_ACCEPTS; i++) {
		int slot = take(h, now_ns);

		if (slot == -1)
			break;
		if (slot >= 0)
			served += (uint64_t)serve(h, (unsigned)slot, page, arg);
	}
	n = epoll_wait(h->ep, ev, SVC_HTTP_CLIENTS + 1, 0);
	for (int i = 0; i < n; i++) {
		uint32_t slot = ev[i].data.u32;

		if (slot < SVC_HTTP_CLIENTS && h->c[slot].fd >= 0)
			served += (uint64_t)serve(h, slot, page, arg);
	}
	for (unsigned i = 0; i < SVC_HTTP_CLIENTS; i++) {
		struct conn *c = &h->c[i];

		if (c->fd >= 0 && (now_ns >= c->deadline_ns ||
				   (!c->out && now_ns >= c->head_ns))) {
			h->dropped++;
			conn_end(c);
		}
	}
	return served;
}
