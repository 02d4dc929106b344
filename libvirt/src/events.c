/* SPDX-License-Identifier: MIT */
/*
 * libvirt's domain events on one connection of libvirt's default event
 * loop: lifecycle, reboot, watchdog, device added and removed and
 * metadata change callbacks for every domain, a
 * keepalive so that a libvirtd that went away is noticed, and a
 * reconnect (at most one try a second) when it did.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "ringside/domain_events.h"

#include "domain_internal.h"

#define RETRY_NS    1000000000ull   /* between two connection attempts */
#define KEEPALIVE_S 5               /* libvirt's keepalive: interval, */
#define KEEPALIVE_N 3               /* and missed answers before closing */
#define NR_IDS      6               /* the callbacks registered */

struct dom_events {
	char *uri;
	virConnectPtr conn;
	int ids[NR_IDS];            /* callback ids; -1 when not registered */
	int closed;                 /* the close callback ran */
	int keep_trying;
	unsigned reconnects;
	unsigned connects;
	uint64_t last_try_ns;
	int timer;                  /* bounds the loop's wait; -1: none yet */
	struct dom_events_ops ops;
	void *arg;
};

static const char *const event_names[DOM_EV_MAX] = {
	[DOM_EV_STARTED] = "started",   [DOM_EV_STOPPED] = "stopped",
	[DOM_EV_CRASHED] = "crashed",   [DOM_EV_REBOOT] = "reboot",
	[DOM_EV_WATCHDOG] = "watchdog", [DOM_EV_SUSPENDED] = "suspended",
	[DOM_EV_RESUMED] = "resumed",   [DOM_EV_UNDEFINED] = "undefined",
	[DOM_EV_OTHER] = "other",       [DOM_EV_DEVICE_ADDED] = "device added",
	[DOM_EV_DEVICE_REMOVED] = "device removed",
	[DOM_EV_METADATA] = "metadata changed",
};

const char *dom_events_name(enum dom_event_kind kind)
{
	return kind > 0 && kind < DOM_EV_MAX ? event_names[kind] : "?";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void silent(void *arg, virErrorPtr err)
{
	(void)arg;
	(void)err;
}

static int failed(void)
{
	dom_error_detail_set(virGetLastErrorMessage());
	virResetLastError();
	return -dome_libvirt;
}

static void emit_alias(struct dom_events *e, virDomainPtr dom,
		       enum dom_event_kind kind, int detail, const char *alias)
{
	struct dom_event ev = { kind, detail, virDomainGetName(dom), alias };

	if (ev.domain && e->ops.event)
		e->ops.event(e->arg, &ev);
}

static void emit(struct dom_events *e, virDomainPtr dom,
		 enum dom_event_kind kind, int detail)
{
	emit_alias(e, dom, kind, detail, NULL);
}

static int stop_why(int detail)
{
	switch (detail) {
	case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN:  return DOM_STOP_SHUTDOWN;
	case VIR_DOMAIN_EVENT_STOPPED_DESTROYED: return DOM_STOP_DESTROYED;
	case VIR_DOMAIN_EVENT_STOPPED_CRASHED:   return DOM_STOP_CRASHED;
	case VIR_DOMAIN_EVENT_STOPPED_MIGRATED:  return DOM_STOP_MIGRATED;
	case VIR_DOMAIN_EVENT_STOPPED_SAVED:     return DOM_STOP_SAVED;
	case VIR_DOMAIN_EVENT_STOPPED_FAILED:    return DOM_STOP_FAILED;
	default:                                 return DOM_STOP_OTHER;
	}
}

/* libvirt's lifecycle events and ringside's kinds (the rest: OTHER). */
static const enum dom_event_kind lifecycle_kinds[] = {
	[VIR_DOMAIN_EVENT_STARTED] = DOM_EV_STARTED,
	[VIR_DOMAIN_EVENT_STOPPED] = DOM_EV_STOPPED,
	[VIR_DOMAIN_EVENT_CRASHED] = DOM_EV_CRASHED,
	[VIR_DOMAIN_EVENT_SUSPENDED] = DOM_EV_SUSPENDED,
	[VIR_DOMAIN_EVENT_RESUMED] = DOM_EV_RESUMED,
	[VIR_DOMAIN_EVENT_UNDEFINED] = DOM_EV_UNDEFINED,
};

static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event,
			int detail, void *opaque)
{
	enum dom_event_kind kind = DOM_EV_OTHER;

	(void)conn;
	if (event >= 0 && (size_t)event < sizeof(lifecycle_kinds) /
					  sizeof(lifecycle_kinds[0]) &&
	    lifecycle_kinds[event])
		kind = lifecycle_kinds[event];
	emit(opaque, dom, kind, kind == DOM_EV_STOPPED ? stop_why(detail) : 0);
	return 0;
}

static void on_reboot(virConnectPtr conn, virDomainPtr dom, void *opaque)
{
	(void)conn;
	emit(opaque, dom, DOM_EV_REBOOT, 0);
}

static void on_watchdog(virConnectPtr conn, virDomainPtr dom, int action,
			void *opaque)
{
	(void)conn;
	emit(opaque, dom, DOM_EV_WATCHDOG, action);
}

static void on_device_added(virConnectPtr conn, virDomainPtr dom,
			    const char *alias, void *opaque)
{
	(void)conn;
	emit_alias(opaque, dom, DOM_EV_DEVICE_ADDED, 0, alias);
}

static void on_device_removed(virConnectPtr conn, virDomainPtr dom,
			      const char *alias, void *opaque)
{
	(void)conn;
	emit_alias(opaque, dom, DOM_EV_DEVICE_REMOVED, 0, alias);
}

/* Other programs' metadata is none of ringside's business. */
static void on_metadata(virConnectPtr conn, virDomainPtr dom, int type,
			const char *nsuri, void *opaque)
{
	(void)conn;
	if (type == VIR_DOMAIN_METADATA_ELEMENT && nsuri &&
	    !strcmp(nsuri, DOM_XMLNS))
		emit(opaque, dom, DOM_EV_METADATA, 0);
}

static void on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct dom_events *e = opaque;

	(void)conn;
	(void)reason;
	e->closed = 1;
}

/* Deregister the callbacks and close the connection. */
static void release(struct dom_events *e)
{
	for (unsigned i = 0; i < NR_IDS; i++) {
		if (e->ids[i] >= 0)
			virConnectDomainEventDeregisterAny(e->conn, e->ids[i]);
		e->ids[i] = -1;
	}
	virConnectUnregisterCloseCallback(e->conn, on_close);
	virConnectClose(e->conn);
	virResetLastError();
	e->conn = NULL;
}

/* Drop the connection (gone or going): no callback of it runs again. */
static void disconnect(struct dom_events *e)
{
	if (!e->conn)
		return;
	release(e);
	if (e->ops.connection)
		e->ops.connection(e->arg, 0);
}

/* The domain events registered on every connection, e->ids[] in order.
 * ringside's device plugged in or out, its metadata set or taken (enable
 * --live, disable --live): the follower looks again. */
static const struct {
	int id;
	virConnectDomainEventGenericCallback cb;
} callbacks[NR_IDS] = {
	{ VIR_DOMAIN_EVENT_ID_LIFECYCLE, VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle) },
	{ VIR_DOMAIN_EVENT_ID_REBOOT, VIR_DOMAIN_EVENT_CALLBACK(on_reboot) },
	{ VIR_DOMAIN_EVENT_ID_WATCHDOG, VIR_DOMAIN_EVENT_CALLBACK(on_watchdog) },
	{ VIR_DOMAIN_EVENT_ID_DEVICE_ADDED,
	  VIR_DOMAIN_EVENT_CALLBACK(on_device_added) },
	{ VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED,
	  VIR_DOMAIN_EVENT_CALLBACK(on_device_removed) },
	{ VIR_DOMAIN_EVENT_ID_METADATA_CHANGE,
	  VIR_DOMAIN_EVENT_CALLBACK(on_metadata) },
};

static int connect_once(struct dom_events *e)
{
	int err;

	e->last_try_ns = now_ns();
	e->closed = 0;
	e->conn = virConnectOpen(e->uri);
	if (!e->conn)
		return failed();
	/* a driver without keepalive (test:///, a local one) cannot lose
	 * its daemon that way: not a failure */
	if (virConnectSetKeepAlive(e->conn, KEEPALIVE_S, KEEPALIVE_N) < 0)
		virResetLastError();
	if (virConnectRegisterCloseCallback(e->conn, on_close, e, NULL) < 0)
		virResetLastError();
	for (unsigned k = 0; k < NR_IDS; k++) {
		e->ids[k] = virConnectDomainEventRegisterAny(e->conn, NULL,
			callbacks[k].id, callbacks[k].cb, e, NULL);
		if (e->ids[k] < 0) {
			err = failed();
			release(e);
			return err;
		}
	}
	if (e->connects++)
		e->reconnects++;
	if (e->ops.connection)
		e->ops.connection(e->arg, 1);
	return 0;
}

static int loop_ready;

int dom_events_open(struct dom_events **ep, const char *uri,
		    const struct dom_events_ops *ops, void *arg,
		    int keep_trying)
{
	struct dom_events *e;
	int err;

	*ep = NULL;
	dom_error_detail_set(NULL);
	if (virInitialize() < 0)
		return failed();
	virSetErrorFunc(NULL, silent);
	/* once per process, before the first connection */
	if (!loop_ready) {
		if (virEventRegisterDefaultImpl() < 0)
			return failed();
		loop_ready = 1;
	}
	e = calloc(1, sizeof(*e));
	if (!e || (uri && !(e->uri = strdup(uri)))) {
		free(e);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < NR_IDS; i++)
		e->ids[i] = -1;
	e->timer = -1;
	e->ops = *ops;
	e->arg = arg;
	e->keep_trying = keep_trying;
	err = connect_once(e);
	if (err && !keep_trying) {
		dom_events_close(e);
		return err;
	}
	*ep = e;
	return err;
}

static void tick(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
}

int dom_events_run(struct dom_events *e, int timeout_ms)
{
	struct timespec ts;
	int err = 0;

	if (e->conn && (e->closed || virConnectIsAlive(e->conn) != 1))
		disconnect(e);
	if (!e->conn) {
		uint64_t wait_ns = (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) *
				   1000000ull;
		uint64_t since = now_ns() - e->last_try_ns;

		if (since >= RETRY_NS) {
			err = connect_once(e);
			if (!err)
				return 0;
		}
		if (wait_ns > RETRY_NS)
			wait_ns = RETRY_NS;
		ts.tv_sec = (time_t)(wait_ns / 1000000000ull);
		ts.tv_nsec = (long)(wait_ns % 1000000000ull);
		nanosleep(&ts, NULL);
		return err;
	}
	/* the loop returns after one dispatch: this timer bounds the wait.
	 * One timer, kept and re-armed: a timer added and removed at each
	 * call made libvirt's loop dispatch the removal at the next one
	 * at once, never waiting (the service polled without a pause: a
	 * third of a CPU, idle). */
	if (e->timer < 0)
		e->timer = virEventAddTimeout(timeout_ms > 0 ? timeout_ms : 0,
					      tick, NULL, NULL);
	else
		virEventUpdateTimeout(e->timer, timeout_ms > 0 ? timeout_ms : 0);
	if (virEventRunDefaultImpl() < 0)
		err = failed();
	return err;
}

static int list(struct dom_events *e, unsigned flags, char ***names,
		size_t *nr)
{
	virDomainPtr *doms = NULL;
	char **out;
	int n, i, err = 0;

	*names = NULL;
	*nr = 0;
	if (!e->conn || e->closed)
		return -dome_libvirt;
	n = virConnectListAllDomains(e->conn, &doms, flags);
	if (n < 0)
		return failed();
	out = calloc((size_t)n + 1, sizeof(*out));
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (out && name && !(out[*nr] = strdup(name)))
			err = -ENOMEM;
		else if (out && name)
			++*nr;
		virDomainFree(doms[i]);
	}
	free(doms);
	if (!out)
		return -ENOMEM;
	if (err) {
		for (size_t k = 0; k < *nr; k++)
			free(out[k]);
		free(out);
		*nr = 0;
		return err;
	}
	*names = out;
	return 0;
}

int dom_events_running(struct dom_events *e, char ***names, size_t *nr)
{
	return list(e, VIR_CONNECT_LIST_DOMAINS_RUNNING, names, nr);
}

int dom_events_active(struct dom_events *e, char ***names, size_t *nr)
{
	return list(e, VIR_CONNECT_LIST_DOMAINS_ACTIVE, names, nr);
}

int dom_events_is_running(struct dom_events *e, const char *name)
{
	virDomainPtr dom;
	int state, reason, r;

	if (!e->conn || e->closed)
		return -dome_libvirt;
	dom = virDomainLookupByName(e->conn, name);
	if (!dom) {
		int code = virGetLastErrorCode();

		virResetLastError();
		return code == VIR_ERR_NO_DOMAIN ? 0 : -dome_libvirt;
	}
	r = virDomainGetState(dom, &state, &reason, 0) < 0 ? failed() :
	    state == VIR_DOMAIN_RUNNING || state == VIR_DOMAIN_BLOCKED;
	virDomainFree(dom);
	return r;
}

int dom_events_connected(const struct dom_events *e)
{
	return e && e->conn && !e->closed;
}

unsigned dom_events_reconnects(const struct dom_events *e)
{
	return e ? e->reconnects : 0;
}

void dom_events_close(struct dom_events *e)
{
	if (!e)
		return;
	e->ops.connection = NULL;
	disconnect(e);
	if (e->timer >= 0)
		virEventRemoveTimeout(e->timer);
	free(e->uri);
	free(e);
}

/* The caller's own descriptors in the loop dom_events_run waits in:
 * readable, they end its wait.  Nothing runs in the callback; the caller
 * serves them after the run returns. */

static void woken(int watch, int fd, int events, void *opaque)
{
	(void)watch;
	(void)fd;
	(void)events;
	(void)opaque;
}

int dom_events_wake(struct dom_events *e, int fd)
{
	int h;

	/* the loop is libvirt's default one, registered by dom_events_open */
	if (!e || fd < 0)
		return -dome_libvirt;
	h = virEventAddHandle(fd, VIR_EVENT_HANDLE_READABLE, woken, NULL, NULL);
	if (h < 0) {
		virResetLastError();
		return -dome_libvirt;
	}
	return h;
}

void dom_events_unwake(struct dom_events *e, int handle)
{
	(void)e;
	if (handle >= 0 && virEventRemoveHandle(handle) < 0)
		virResetLastError();
}
