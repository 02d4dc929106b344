/* SPDX-License-Identifier: MIT */
/*
 * The caller's own descriptors in libvirt's default event loop, the one
 * dom_events_run waits in: readable, they end its wait.  Nothing runs in
 * the callback; the caller serves them after the run returns.
 */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "ringside/domain_events.h"

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
