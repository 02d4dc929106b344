/* SPDX-License-Identifier: MIT */
/* domain_events.h for a ringside built without libvirt: it says so. */
#include <stddef.h>

#include "ringside/domain_events.h"

int dom_events_open(struct dom_events **ep, const char *uri,
		    const struct dom_events_ops *ops, void *arg,
		    int keep_trying)
{
	(void)uri;
	(void)ops;
	(void)arg;
	(void)keep_trying;
	*ep = NULL;
	return -dome_no_libvirt;
}

int dom_events_run(struct dom_events *e, int timeout_ms)
{
	(void)e;
	(void)timeout_ms;
	return -dome_no_libvirt;
}

int dom_events_running(struct dom_events *e, char ***names, size_t *nr)
{
	(void)e;
	*names = NULL;
	*nr = 0;
	return -dome_no_libvirt;
}

int dom_events_active(struct dom_events *e, char ***names, size_t *nr)
{
	return dom_events_running(e, names, nr);
}

int dom_events_is_running(struct dom_events *e, const char *name)
{
	(void)e;
	(void)name;
	return -dome_no_libvirt;
}

int dom_events_connected(const struct dom_events *e)
{
	(void)e;
	return 0;
}

unsigned dom_events_reconnects(const struct dom_events *e)
{
	(void)e;
	return 0;
}

void dom_events_close(struct dom_events *e)
{
	(void)e;
}

const char *dom_events_name(enum dom_event_kind kind)
{
	(void)kind;
	return "?";
}

int dom_events_wake(struct dom_events *e, int fd)
{
	(void)e;
	(void)fd;
	return -dome_no_libvirt;
}

void dom_events_unwake(struct dom_events *e, int handle)
{
	(void)e;
	(void)handle;
}
