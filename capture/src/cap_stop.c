/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cap_internal.h"

/* Doorbells of every ring, a control socket, an extra descriptor. */
#define STOP_MAX_FDS 64

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

int cap_stop_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a signal cuts the sleep short */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	return 0;
}

int cap_stop_requested(void)
{
	return stop_signal;
}

/* Read what woke @f; 0, or -EPIPE when it is gone. */
static int consume(struct cap_stop_fd *f)
{
	uint64_t count = 0;
	ssize_t n;

	n = read(f->fd, &count, sizeof(count));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -EPIPE;
	if (n == 0)
		return -EPIPE;
	/* an eventfd gives its 8-byte count; anything else counts once */
	f->count += n == sizeof(count) ? count : 1;
	return 0;
}

static int wait_fds(struct cap_stop_fd *fds, unsigned n, int timeout_ms)
{
	struct pollfd p[STOP_MAX_FDS];
	unsigned i, map[STOP_MAX_FDS], np = 0;
	int fired = 0;

	for (i = 0; i < n && np < STOP_MAX_FDS; i++) {
		if (fds[i].fd < 0 || fds[i].hung_up)
			continue;
		p[np].fd = fds[i].fd;
		p[np].events = fds[i].hangup_only ? 0 : POLLIN;
		p[np].revents = 0;
		map[np++] = i;
	}
	if (poll(p, np, timeout_ms) <= 0)
		return 0;
	for (i = 0; i < np; i++) {
		struct cap_stop_fd *f = &fds[map[i]];

		if (!p[i].revents)
			continue;
		fired++;
		f->wakeups++;
		if (p[i].revents & POLLIN)
			f->hung_up = consume(f) < 0;
		else
			f->hung_up = 1;   /* POLLHUP, POLLERR or POLLNVAL */
	}
	return fired;
}

int cap_stop_wait_fds(struct cap_stop_fd *fds, unsigned n, int timeout_ms)
{
	return stop_signal ? 0 : wait_fds(fds, n, timeout_ms);
}

void cap_stop_collect_fds(struct cap_stop_fd *fds, unsigned n)
{
	wait_fds(fds, n, 0);
}
