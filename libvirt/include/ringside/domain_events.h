/* SPDX-License-Identifier: MIT */
/*
 * libvirt's domain events, followed: one connection that reports what
 * happens to every domain (started, stopped, crashed, rebooted, a watchdog
 * fired, a device plugged in or out, ringside's metadata changed),
 * survives a libvirtd restart by reconnecting, and says when it lost and
 * regained the daemon so that a follower can catch up.  The
 * callbacks run inside dom_events_run(), never from another thread; they
 * should note what happened and return (a call into libvirt from there
 * waits on the same loop).
 */
#ifndef RINGSIDE_DOMAIN_EVENTS_H
#define RINGSIDE_DOMAIN_EVENTS_H

#include <stddef.h>

#include "ringside/domain.h"

enum dom_event_kind {
	DOM_EV_STARTED = 1,   /* started, restored or migrated in */
	DOM_EV_STOPPED,       /* shut off: detail says why */
	DOM_EV_CRASHED,       /* the guest panicked (pvpanic, hyperv) */
	DOM_EV_REBOOT,        /* the guest reset itself (or libvirt did) */
	DOM_EV_WATCHDOG,      /* the guest's watchdog fired */
	DOM_EV_SUSPENDED,
	DOM_EV_RESUMED,
	DOM_EV_UNDEFINED,     /* its definition went */
	DOM_EV_OTHER,
	DOM_EV_DEVICE_ADDED,  /* a device was hot-plugged (any: alias in
			       * dom_event.alias) */
	DOM_EV_DEVICE_REMOVED, /* one was unplugged (QEMU let it go) */
	DOM_EV_METADATA,      /* ringside's <metadata> element changed (in
			       * the running domain or its definition) */
	DOM_EV_MAX
};

/* DOM_EV_STOPPED's detail (others: 0). */
enum dom_stop_why {
	DOM_STOP_SHUTDOWN = 1, DOM_STOP_DESTROYED, DOM_STOP_CRASHED,
	DOM_STOP_MIGRATED, DOM_STOP_SAVED, DOM_STOP_FAILED, DOM_STOP_OTHER,
};

struct dom_event {
	enum dom_event_kind kind;
	int detail;                   /* enum dom_stop_why for STOPPED */
	const char *domain;           /* valid during the callback */
	const char *alias;            /* DEVICE_*: the device's alias (valid
				       * during the callback); else NULL */
};

struct dom_events_ops {
	/* A domain event. */
	void (*event)(void *arg, const struct dom_event *ev);
	/* The connection to libvirtd is up (first time, and after every
	 * reconnect: events in between were missed, catch up) or down. */
	void (*connection)(void *arg, int up);
};

struct dom_events;

/*
 * Follow the events of @uri (NULL: libvirt's default, qemu:///system as
 * root).  The first connection is tried at once; a failure is returned
 * (-dome_libvirt, with libvirt's words in dom_detail()) but the follower
 * is kept and retries in dom_events_run() when @keep_trying.  0 or
 * -dome_libvirt, -ENOMEM.
 */
int dom_events_open(struct dom_events **ep, const char *uri,
		    const struct dom_events_ops *ops, void *arg,
		    int keep_trying);

/*
 * Wait up to @timeout_ms for events (their callbacks run in here) and
 * reconnect when the connection went.  0 or -dome_libvirt.
 */
int dom_events_run(struct dom_events *e, int timeout_ms);

/*
 * The names of the domains running now (not paused), on the follower's
 * own connection, malloc'ed (free each and the array).  0, -dome_libvirt
 * (also when not connected), -ENOMEM.
 */
int dom_events_running(struct dom_events *e, char ***names, size_t *nr);

/* The same for the domains running or paused (libvirt's active ones). */
int dom_events_active(struct dom_events *e, char ***names, size_t *nr);

/* 1 if domain @name runs (its vCPUs do), 0 if not (paused, shut off,
 * gone), -dome_libvirt. */
int dom_events_is_running(struct dom_events *e, const char *name);

/* 1 while connected. */
int dom_events_connected(const struct dom_events *e);

/* Reconnects made so far. */
unsigned dom_events_reconnects(const struct dom_events *e);

void dom_events_close(struct dom_events *e);

/* "crashed", "stopped", ... */
const char *dom_events_name(enum dom_event_kind kind);

/*
 * Have dom_events_run return as soon as @fd is readable (a socket of the
 * caller's, or an epoll set of them), not only at its timeout: the
 * caller's own sockets served from the same loop.  Level-triggered: the
 * caller takes what made it readable before the next run.  While libvirtd
 * is away the wait is a sleep that @fd does not cut short.  A handle for
 * dom_events_unwake (before @fd is closed), or -dome_libvirt.
 */
int dom_events_wake(struct dom_events *e, int fd);
void dom_events_unwake(struct dom_events *e, int handle);

#endif /* RINGSIDE_DOMAIN_EVENTS_H */
