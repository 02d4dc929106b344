/* SPDX-License-Identifier: MIT */
/*
 * The service's control socket, the client's side: one request line per
 * connection, "capture DOMAIN\n", and one answer line, "ok PATH" or
 * "error WHY" (docs/service.md).  Only root (or the service's own user)
 * may connect.  The server's side is the service's (ringside/service_ctl.h).
 */
#ifndef RINGSIDE_SERVICE_CLIENT_H
#define RINGSIDE_SERVICE_CLIENT_H

#include <stddef.h>
#include <sys/un.h>

#define SVC_SOCKET_PATH "/run/ringside/service.sock"
#define SVC_CTL_LINE_MAX   512u   /* a request line, its newline included */

/* Ask the service at @path to capture @domain; its answer line (no
 * newline) in @reply.  0 or -errno (-ENOENT, -ECONNREFUSED: no service;
 * -EINVAL: a name no request can carry; -ECONNRESET: no answer). */
int svc_client_request(const char *path, const char *domain, char *reply,
		       size_t len);

/* @path as a UNIX socket's address into @a: 0, -ENAMETOOLONG. */
int svc_client_address(struct sockaddr_un *a, const char *path);

#endif /* RINGSIDE_SERVICE_CLIENT_H */
