/* SPDX-License-Identifier: MIT */
/*
 * The service's control socket: a UNIX stream socket, mode 0600 in a
 * directory of its own, that takes one request line per connection
 * ("capture DOMAIN") from root or the service's own user (SO_PEERCRED)
 * and answers one line ("ok PATH", "error WHY").  The connections are
 * served from the service's loop without ever blocking it: each is read
 * and written as far as it goes, into a buffer of its own, under a
 * deadline; a client that sends its line a byte at a time, or never,
 * holds a slot until its deadline and delays nobody.  The client's side
 * is a library of its own (service/client/, ringside/service_client.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ringside/domain.h"
#include "ringside/io.h"
#include "ringside/service_ctl.h"

#define LISTENER UINT32_MAX        /* the listener's epoll tag */
#define REPLY_MAX 4200u

struct ctl_conn {
	int fd;                    /* -1: a free slot */
	uint64_t seq;              /* accept order: lower is older */
	uint64_t deadline_ns;      /* its line read and its answer sent by */
	char line[SVC_CTL_LINE_MAX];
	size_t len;
	char out[REPLY_MAX + 1];   /* the answer line, once there is one */
	size_t olen, off;          /* olen 0: no answer yet */
};

struct svc_ctl {
	int lfd;                   /* the caller's listening socket */
	uint64_t now_ns;           /* of this svc_ctl_serve */
	int ep;                    /* epoll: the listener, every connection */
	uint64_t seq;
	uint64_t dropped;
	struct ctl_conn c[SVC_CTL_CLIENTS];
};

/* The directory of @path, made 0755 if absent (its parents exist). */
static int parent_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return mkdir(dir, 0755) && errno != EEXIST ? -errno : 0;
}

int svc_ctl_listen(const char *path, int *fdp)
{
	struct sockaddr_un a;
	int fd, err;

	*fdp = -1;
	err = svc_client_address(&a, path);
	if (!err)
		err = parent_dir(path);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* a socket left by a service that died; a live one answers */
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(fd);
		return -EADDRINUSE;
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    chmod(path, 0600) || listen(fd, SOMAXCONN)) {
		err = -errno;
		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

int svc_ctl_parse(const char *buf, size_t len, char *domain, size_t dlen)
{
	const char *nl = memchr(buf, '\n', len < SVC_CTL_LINE_MAX ? len :
				SVC_CTL_LINE_MAX);
	size_t n;

	if (dlen)
		domain[0] = '\0';
	if (!nl)
		return len >= SVC_CTL_LINE_MAX ? -EMSGSIZE : 0;
	n = (size_t)(nl - buf);
	if (n < 8 || memcmp(buf, "capture ", 8))
		return -EINVAL;
	n -= 8;
	if (!n)
		return -EINVAL;
	/* a name ringside could have opted in, or nothing is said of it
	 * (a NUL would cut it short: "capture web1\0...\n" is no request
	 * for web1) */
	if (n > DOM_NAME_MAX || n >= dlen || memchr(buf + 8, '\0', n))
		return -EILSEQ;
	memcpy(domain, buf + 8, n);
	domain[n] = '\0';
	if (dom_shm_name_check(domain)) {
		domain[0] = '\0';
		return -EILSEQ;
	}
	return 1;
}

int svc_ctl_new(struct svc_ctl **cp, int lfd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = LISTENER };
	struct svc_ctl *c;
	int err, fl;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (unsigned i = 0; i < SVC_CTL_CLIENTS; i++)
		c->c[i].fd = -1;
	c->lfd = lfd;
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	fl = fcntl(lfd, F_GETFL);
	if (c->ep < 0 || fl < 0 || fcntl(lfd, F_SETFL, fl | O_NONBLOCK) ||
	    epoll_ctl(c->ep, EPOLL_CTL_ADD, lfd, &ev)) {
		err = -errno;
		if (c->ep >= 0)
			close(c->ep);
		free(c);
		return err;
	}
	*cp = c;
	return 0;
}

int svc_ctl_fd(const struct svc_ctl *c)
{
	return c->ep;
}

uint64_t svc_ctl_dropped(const struct svc_ctl *c)
{
	return c ? c->dropped : 0;
}

unsigned svc_ctl_held(const struct svc_ctl *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SVC_CTL_CLIENTS; i++)
		n += c->c[i].fd >= 0;
	return n;
}

static void conn_end(struct ctl_conn *k)
{
	close(k->fd);    /* which takes it out of the epoll set */
	k->fd = -1;
	k->len = k->olen = k->off = 0;
}

void svc_ctl_free(struct svc_ctl *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < SVC_CTL_CLIENTS; i++)
		if (c->c[i].fd >= 0)
			conn_end(&c->c[i]);
	close(c->ep);
	free(c);
}

/* @k's answer is @text (a newline added); wait for room to send it. */
static void reply(struct svc_ctl *c, struct ctl_conn *k, unsigned slot,
		  const char *text)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.u32 = slot };
	int n = snprintf(k->out, sizeof(k->out), "%s\n", text);

	k->olen = n < 0 ? 0 : (size_t)n < sizeof(k->out) ? (size_t)n :
		  sizeof(k->out) - 1;
	if (k->olen && k->out[k->olen - 1] != '\n')
		k->out[k->olen - 1] = '\n';
	k->off = 0;
	/* its time to be sent starts now (a capture takes its own) */
	k->deadline_ns = c->now_ns + SVC_CTL_TIMEOUT_MS * 1000000ull;
	epoll_ctl(c->ep, EPOLL_CTL_MOD, k->fd, &ev);
}

/* Read and write @slot as far as it goes: 1 when answered whole, -1 when
 * it failed, 0 when it waits. */
static int step(struct svc_ctl *c, unsigned slot, svc_ctl_request_fn fn,
		void *arg)
{
	struct ctl_conn *k = &c->c[slot];
	ssize_t n;

	while (!k->olen) {
		char domain[DOM_NAME_MAX + 1], text[REPLY_MAX];
		int r;

		n = rs_io_recv_some(k->fd, k->line + k->len,
				    sizeof(k->line) - k->len);
		if (n < 0)
			return n == -EAGAIN ? 0 : -1;
		if (n == 0) {
			reply(c, k, slot, "error no request line");
			break;
		}
		k->len += (size_t)n;
		r = svc_ctl_parse(k->line, k->len, domain, sizeof(domain));
		if (r == 1) {
			text[0] = '\0';
			fn(arg, domain, text, sizeof(text));
			reply(c, k, slot, text[0] ? text : "error no answer");
		} else if (r == -EILSEQ) {
			reply(c, k, slot, "error no such domain name");
		} else if (r == -EMSGSIZE) {
			reply(c, k, slot, "error request line too long");
		} else if (r) {
			reply(c, k, slot, "error unknown request (capture "
			      "DOMAIN)");
		}
	}
	/* a peer that went away is an EPIPE here, never a SIGPIPE */
	n = rs_io_send_some(k->fd, k->out, k->olen, &k->off);
	return !n ? 1 : n == -EAGAIN ? 0 : -1;
}

static int serve(struct svc_ctl *c, unsigned slot, svc_ctl_request_fn fn,
		 void *arg)
{
	int r = step(c, slot, fn, arg);

	if (r < 0)
		c->dropped++;
	if (r)
		conn_end(&c->c[slot]);
	return r == 1;
}

/* Accept one connection into a slot (the oldest closed when none is
 * free): the slot, -1 when none waits, -2 when it was refused. */
static int take(struct svc_ctl *c, uint64_t now_ns)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int fd, slot = -1;

	fd = accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		static const char no[] = "error only root may ask the service\n";

		/* one try: the line fits any socket buffer */
		if (send(fd, no, sizeof(no) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) !=
		    (ssize_t)sizeof(no) - 1)
			c->dropped++;
		close(fd);
		return -2;
	}
	for (unsigned i = 0; i < SVC_CTL_CLIENTS; i++) {
		if (c->c[i].fd < 0) {
			slot = (int)i;
			break;
		}
		if (slot < 0 || c->c[i].seq < c->c[slot].seq)
			slot = (int)i;
	}
	if (c->c[slot].fd >= 0) {
		c->dropped++;
		conn_end(&c->c[slot]);
	}
	ev.data.u32 = (uint32_t)slot;
	if (epoll_ctl(c->ep, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		c->dropped++;
		return -2;
	}
	c->c[slot].fd = fd;
	c->c[slot].seq = ++c->seq;
	c->c[slot].deadline_ns = now_ns + SVC_CTL_TIMEOUT_MS * 1000000ull;
	return slot;
}

int svc_ctl_serve(struct svc_ctl *c, uint64_t now_ns, svc_ctl_request_fn fn,
		  void *arg)
{
	struct epoll_event ev[SVC_CTL_CLIENTS + 1];
	int served = 0, n;

	c->now_ns = now_ns;
	for (unsigned i = 0; i < 4 * SVC_CTL_CLIENTS; i++) {
		int slot = take(c, now_ns);

		if (slot == -1)
			break;
		if (slot >= 0)
			served += serve(c, (unsigned)slot, fn, arg);
	}
	n = epoll_wait(c->ep, ev, SVC_CTL_CLIENTS + 1, 0);
	for (int i = 0; i < n; i++) {
		uint32_t slot = ev[i].data.u32;

		if (slot < SVC_CTL_CLIENTS && c->c[slot].fd >= 0)
			served += serve(c, slot, fn, arg);
	}
	for (unsigned i = 0; i < SVC_CTL_CLIENTS; i++) {
		struct ctl_conn *k = &c->c[i];

		if (k->fd < 0 || now_ns < k->deadline_ns)
			continue;
		/* out of time: said so if the line never came whole */
		if (!k->olen)
			send(k->fd, "error no request line\n", 22,
			     MSG_NOSIGNAL | MSG_DONTWAIT);
		c->dropped++;
		conn_end(k);
	}
	return served;
}
