/* SPDX-License-Identifier: MIT */
/*
 * The service's control socket, the server's side (src/svc_ctl.c): a
 * UNIX stream socket, mode 0600, that takes "capture DOMAIN" lines and
 * answers each with one line.  Its client, the socket's default path and
 * the line's bound are ringside/service_client.h's.
 *
 * Only root (or the service's own user) may connect (SO_PEERCRED; the
 * socket is 0600 besides).  Its connections are served from the
 * service's loop, never blocking it: a client that sends its line slowly
 * or never holds one of SVC_CTL_CLIENTS slots (the oldest makes room for
 * a new one) until SVC_CTL_TIMEOUT_MS after it connected, and delays no
 * other request.
 */
#ifndef RINGSIDE_SERVICE_CTL_H
#define RINGSIDE_SERVICE_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/service_client.h"

#define SVC_CTL_CLIENTS    16u    /* connections served at once */
#define SVC_CTL_TIMEOUT_MS 2000u  /* its line read and answered by then */

/* Listen on UNIX socket @path (mode 0600; its directory made 0755 if
 * absent), non-blocking.  -EADDRINUSE when a service answers there. */
int svc_ctl_listen(const char *path, int *fdp);

/*
 * The verdict on the first @len bytes a client sent: 0 while its line is
 * not whole (and shorter than SVC_CTL_LINE_MAX), 1 for "capture DOMAIN"
 * with the name in @domain (@dlen bytes, DOM_NAME_MAX + 1 is enough),
 * -EILSEQ when DOMAIN is not a name ringside could have opted in
 * (dom_shm_name_check: nothing of it is copied, logged or echoed), -EINVAL
 * for another request, -EMSGSIZE for a line too long.
 */
int svc_ctl_parse(const char *buf, size_t len, char *domain, size_t dlen);

/* A request for domain @domain: its answer into @reply ("ok PATH" or
 * "error WHY", no newline). */
typedef void (*svc_ctl_request_fn)(void *arg, const char *domain,
				   char *reply, size_t len);

/* The connections of listening socket @lfd (made non-blocking; still the
 * caller's to close, after svc_ctl_free).  0 or -errno. */
struct svc_ctl;
int svc_ctl_new(struct svc_ctl **cp, int lfd);
void svc_ctl_free(struct svc_ctl *c);

/* A descriptor readable whenever svc_ctl_serve has work (an epoll set of
 * the listener and the connections), for poll(2) or an event loop. */
int svc_ctl_fd(const struct svc_ctl *c);

/*
 * Accept what waits, read what came, answer each whole request line
 * through @fn (others with "error WHY"), send what can be sent, and close
 * what is done or out of time at @now_ns (CLOCK_MONOTONIC), never
 * waiting.  Requests answered in this call.
 */
int svc_ctl_serve(struct svc_ctl *c, uint64_t now_ns, svc_ctl_request_fn fn,
		  void *arg);

/* Connections held now; dropped so far (out of time, closed for a newer
 * one, gone before their answer, or refused: not root). */
unsigned svc_ctl_held(const struct svc_ctl *c);
uint64_t svc_ctl_dropped(const struct svc_ctl *c);

#endif /* RINGSIDE_SERVICE_CTL_H */
