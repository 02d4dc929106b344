/* SPDX-License-Identifier: MIT */
/*
 * Target: the service's control socket, which root's clients reach
 * (svc_ctl.c): the request line's parser (svc_ctl_parse) on the input,
 * then the real server (svc_ctl_serve over a listening socket of its
 * own) fed the input by a client in pieces.  The parser's verdict is 0
 * until a newline or SVC_CTL_LINE_MAX bytes, then final; a request it
 * takes names a domain dom_shm_name_check accepts, exactly the bytes after
 * "capture ".  The server answers every connection with exactly one
 * line, the one the parser's verdict says, asks for a capture only for
 * a request the parser took, and keeps no connection after it.  The
 * input: a byte (the pieces' size), then what the client sends.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "ringside/domain.h"
#include "ringside/service.h"

static int lfd = -1;
static struct svc_ctl *ctl;
static struct sockaddr_un addr = { .sun_family = AF_UNIX };
static socklen_t addr_len;
static char asked[DOM_NAME_MAX + 2];
static unsigned nr_asked;

static void on_request(void *arg, const char *domain, char *reply, size_t len)
{
	(void)arg;
	nr_asked++;
	snprintf(asked, sizeof(asked), "%s", domain);
	snprintf(reply, len, "ok /c/%s", domain);
}

/* A listening socket in the abstract namespace: nothing on disk. */
static void server(void)
{
	int n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
			 "ringside-fuzz-ctl-%d", (int)getpid());

	addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			       (size_t)n);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, addr_len) ||
	    listen(lfd, 16) || svc_ctl_new(&ctl, lfd))
		abort();
}

static int parse_check(const char *buf, size_t len, char *domain)
{
	const char *nl = memchr(buf, '\n', len);
	size_t end = nl ? (size_t)(nl - buf) + 1 : len;
	int v = svc_ctl_parse(buf, len, domain, DOM_NAME_MAX + 1);

	if (v != 0 && v != 1 && v != -EINVAL && v != -EILSEQ &&
	    v != -EMSGSIZE)
		abort();
	if (v == 0 && (nl ? end <= SVC_CTL_LINE_MAX : len >= SVC_CTL_LINE_MAX))
		abort();     /* a whole line, or too long, and no verdict */
	if (v == 1 && (dom_shm_name_check(domain) || strlen(domain) + 9 != end ||
		       memcmp(buf, "capture ", 8) ||
		       memcmp(buf + 8, domain, strlen(domain))))
		abort();
	if (v != 1 && domain[0])
		abort();     /* nothing copied of a refused line */
	/* every shorter prefix: no verdict before the line's end */
	for (size_t k = 0; k < end - 1 && k < len && v; k += 1 + k / 8) {
		char d[DOM_NAME_MAX + 1];

		if (k < SVC_CTL_LINE_MAX && svc_ctl_parse(buf, k, d, sizeof(d)))
			abort();
	}
	return v;
}

/* What the server must answer for the parser's verdict @v. */
static const char *expected(int v, const char *domain, char *buf, size_t len)
{
	switch (v) {
	case 1:
		snprintf(buf, len, "ok /c/%s\n", domain);
		return buf;
	case -EILSEQ:
		return "error no such domain name\n";
	case -EMSGSIZE:
		return "error request line too long\n";
	case -EINVAL:
		return "error unknown request (capture DOMAIN)\n";
	default:
		return "error no request line\n";
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char domain[DOM_NAME_MAX + 1], want_buf[DOM_NAME_MAX + 16];
	char got[4400];
	const char *want, *in;
	size_t piece, sent = 0, n = 0, len;
	int v, fd, eof = 0, shut = 0;

	if (!size)
		return 0;
	piece = 1 + data[0] % 64;
	in = (const char *)data + 1;
	len = size - 1;
	v = parse_check(in, len, domain);
	want = expected(v, domain, want_buf, sizeof(want_buf));
	if (!ctl)
		server();
	nr_asked = 0;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, addr_len))
		abort();
	for (int round = 0; !eof; round++) {
		ssize_t r;

		if (round > 100000)
			abort();     /* no answer: the server hangs */
		if (sent < len) {
			r = send(fd, in + sent, len - sent < piece ? len - sent :
				 piece, MSG_NOSIGNAL);
			if (r > 0)
				sent += (size_t)r;
			else if (r < 0 && errno != EAGAIN)
				sent = len;   /* the server closed: it answered */
		} else if (!shut) {
			shutdown(fd, SHUT_WR);
			shut = 1;
		}
		svc_ctl_serve(ctl, 0, on_request, NULL);
		while ((r = recv(fd, got + n, sizeof(got) - 1 - n, 0)) > 0)
			n += (size_t)r;
		if (r == 0 || (r < 0 && errno != EAGAIN))
			eof = 1;
		if (n >= sizeof(got) - 1)
			abort();
	}
	got[n] = '\0';
	close(fd);
	if (strcmp(got, want) || nr_asked != (v == 1) ||
	    (v == 1 && strcmp(asked, domain)) || svc_ctl_held(ctl))
		abort();
	return 0;
}
