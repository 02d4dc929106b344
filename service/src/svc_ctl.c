/* SPDX-License-Identifier: MIT */
/*
 * The service's control socket: a UNIX stream socket, mode 0600 in a
 * directory of its own, that takes one request line per connection
 * ("capture DOMAIN") from root or the service's own user (SO_PEERCRED)
 * and answers one line ("ok PATH", "error WHY").  The client side is
 * here too, for `ringside capture`.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ringside/service.h"

#define LINE_MAX_BYTES 512u
#define IO_TIMEOUT_MS  2000

static int address(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -ENAMETOOLONG;
	strcpy(a->sun_path, path);
	return 0;
}

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
	err = address(&a, path);
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
	    chmod(path, 0600) || listen(fd, 8)) {
		err = -errno;
		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

/* One line (up to '\n', at most LINE_MAX_BYTES) from @fd within the
 * timeout.  Its length, or -errno (-ETIMEDOUT, -EMSGSIZE). */
static int read_line(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n < len - 1) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, IO_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		r = read(fd, buf + n, 1);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return r ? -errno : -ECONNRESET;
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return (int)n;
		}
		n++;
	}
	return -EMSGSIZE;
}

static void write_all(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		/* a peer that went away is an EPIPE here, never a SIGPIPE */
		ssize_t w = send(fd, s, len, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		len -= (size_t)w;
	}
}

int svc_ctl_serve(int lfd, svc_request_fn fn, void *arg)
{
	int served = 0;

	for (;;) {
		char line[LINE_MAX_BYTES], reply[4200];
		struct ucred cred;
		socklen_t clen = sizeof(cred);
		int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (cfd < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? served
								       : -errno;
		served++;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
		    (cred.uid != 0 && cred.uid != geteuid())) {
			write_all(cfd, "error only root may ask the service\n");
		} else if (read_line(cfd, line, sizeof(line)) < 0) {
			write_all(cfd, "error no request line\n");
		} else if (strncmp(line, "capture ", 8) || !line[8]) {
			write_all(cfd, "error unknown request (capture DOMAIN)\n");
		} else {
			fn(arg, line + 8, reply, sizeof(reply));
			write_all(cfd, reply);
			write_all(cfd, "\n");
		}
		close(cfd);
	}
}

int svc_ctl_request(const char *path, const char *domain, char *reply,
		    size_t len)
{
	struct sockaddr_un a;
	char line[LINE_MAX_BYTES];
	int fd, err, n;

	if (strchr(domain, '\n') || strlen(domain) > LINE_MAX_BYTES - 16)
		return -EINVAL;
	err = address(&a, path);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		err = -errno;
		close(fd);
		return err;
	}
	snprintf(line, sizeof(line), "capture %s\n", domain);
	write_all(fd, line);
	/* a capture takes as long as its copy: no timeout of ours here
	 * but the service's own */
	n = 0;
	while ((size_t)n < len - 1) {
		ssize_t r = read(fd, reply + n, len - 1 - (size_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (int)r;
	}
	close(fd);
	reply[n] = '\0';
	if (n && reply[n - 1] == '\n')
		reply[n - 1] = '\0';
	return n ? 0 : -ECONNRESET;
}
