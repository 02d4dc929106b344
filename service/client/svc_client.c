/* SPDX-License-Identifier: MIT */
/* The control socket's client (ringside/service_client.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ringside/io.h"
#include "ringside/service_client.h"

int svc_client_address(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -ENAMETOOLONG;
	strcpy(a->sun_path, path);
	return 0;
}

int svc_client_request(const char *path, const char *domain, char *reply_buf,
		       size_t len)
{
	struct sockaddr_un a;
	char line[SVC_CTL_LINE_MAX];
	int fd, err, n;

	if (strchr(domain, '\n') || strlen(domain) > SVC_CTL_LINE_MAX - 16)
		return -EINVAL;
	err = svc_client_address(&a, path);
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
	/* a peer that went away is an EPIPE here, never a SIGPIPE; its
	 * answer, if any, is read all the same */
	(void)rs_io_send_all(fd, line, strlen(line));
	/* a capture takes as long as its copy: no timeout of ours here
	 * but the service's own */
	n = 0;
	while ((size_t)n < len - 1) {
		ssize_t r = read(fd, reply_buf + n, len - 1 - (size_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (int)r;
	}
	close(fd);
	reply_buf[n] = '\0';
	if (n && reply_buf[n - 1] == '\n')
		reply_buf[n - 1] = '\0';
	return n ? 0 : -ECONNRESET;
}
