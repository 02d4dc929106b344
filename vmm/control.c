// SPDX-License-Identifier: MIT
/*
 * The control socket's server side: one thread polls the listening socket
 * and its clients and answers each request in turn (protocol in
 * ringside/vmm_control.h and docs/vmm.md).  Clients are local processes of
 * the operator (the socket is 0660), but a request is still checked for
 * size, magic and version before anything acts on it.
 *
 * A layer on the public API (ringside/vmm.h) and nothing more: the VM
 * knows of it only as a destroy hook, which takes the server down with it.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ringside/vmm.h"
#include "ringside/vmm_client.h"
#include "ringside/vmm_control.h"

#define CTL_MAX_CLIENTS 8

struct ctl_client {
	int fd;
	uint32_t pauses;   /* outstanding PAUSEs, undone on disconnect */
};

struct vmm_control {
	struct vmm *vm;
	int listen_fd;
	int wake_fd;
	pthread_t thread;
	struct sockaddr_un addr;
	struct ctl_client clients[CTL_MAX_CLIENTS];
};

static int do_hello(struct vmm *vm, int fd)
{
	struct rs_ctl_hello h;
	int fds[RS_CTL_MAX_FDS];

	memset(&h, 0, sizeof(h));
	h.region_size = vmm_region_size(vm);
	h.region_gpa = RS_BOOT_REGION_GPA;
	h.nr_rings = vmm_nr_rings(vm);
	h.nr_vcpus = vmm_nr_vcpus(vm);
	h.nr_fds = 1 + (h.nr_rings < RS_CTL_BATCH ? h.nr_rings : RS_CTL_BATCH);
	h.tsc_khz = vmm_tsc_khz(vm);
	fds[0] = vmm_region_fd(vm);
	for (uint32_t i = 0; i + 1 < h.nr_fds; i++)
		fds[1 + i] = vmm_doorbell_fd(vm, i);
	return vmm_ctl_reply(fd, RS_CTL_HELLO, 0, &h, sizeof(h), fds, h.nr_fds);
}

/* The doorbells of rings @first .. in one batch. */
static int do_bells(struct vmm *vm, int fd, uint32_t first)
{
	struct rs_ctl_bells b = { .first = first };
	int fds[RS_CTL_BATCH];
	uint32_t n = vmm_nr_rings(vm);

	if (first >= n)
		return vmm_ctl_reply(fd, RS_CTL_BELLS, -ERANGE, NULL, 0, NULL, 0);
	b.count = n - first < RS_CTL_BATCH ? n - first : RS_CTL_BATCH;
	for (uint32_t i = 0; i < b.count; i++)
		fds[i] = vmm_doorbell_fd(vm, first + i);
	return vmm_ctl_reply(fd, RS_CTL_BELLS, 0, &b, sizeof(b), fds, b.count);
}

static int do_region(struct vmm *vm, int fd)
{
	struct rs_ctl_region r;
	int st = vmm_region_info(vm, &r);

	return vmm_ctl_reply(fd, RS_CTL_REGION, st, &r, st ? 0 : sizeof(r),
				NULL, 0);
}

/* One request; returns < 0 when the client should be dropped. */
static int serve(struct vmm *vm, struct ctl_client *c)
{
	struct rs_vmm_vcpu_info info;
	struct rs_ctl_msg m;
	ssize_t n;
	int st;

	n = recv(c->fd, &m, sizeof(m), MSG_TRUNC);
	if (n <= 0)
		return -1;
	if (n != sizeof(m) || m.magic != RS_CTL_MAGIC || m.version != RS_CTL_VERSION)
		return vmm_ctl_reply(c->fd, 0, -EPROTO, NULL, 0, NULL, 0);
	switch (m.op) {
	case RS_CTL_HELLO:
		return do_hello(vm, c->fd);
	case RS_CTL_PAUSE:
		st = vmm_pause(vm);
		if (!st)
			c->pauses++;
		return vmm_ctl_reply(c->fd, m.op, st, NULL, 0, NULL, 0);
	case RS_CTL_RESUME:
		st = c->pauses ? vmm_resume(vm) : -EALREADY;
		if (!st)
			c->pauses--;
		return vmm_ctl_reply(c->fd, m.op, st, NULL, 0, NULL, 0);
	case RS_CTL_STATUS:
		st = vmm_cpu_info(vm, m.arg, &info);
		return vmm_ctl_reply(c->fd, m.op, st, &info, st ? 0 : sizeof(info),
				  NULL, 0);
	case RS_CTL_REGION:
		return do_region(vm, c->fd);
	case RS_CTL_BELLS:
		return do_bells(vm, c->fd, m.arg);
	default:
		return vmm_ctl_reply(c->fd, m.op, -EOPNOTSUPP, NULL, 0, NULL, 0);
	}
}

static void drop(struct vmm *vm, struct ctl_client *c)
{
	while (c->pauses) {
		vmm_resume(vm);
		c->pauses--;
	}
	close(c->fd);
	c->fd = -1;
}

static void accept_client(struct vmm_control *ctl)
{
	int fd = accept4(ctl->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++) {
		if (ctl->clients[i].fd < 0) {
			ctl->clients[i].fd = fd;
			ctl->clients[i].pauses = 0;
			return;
		}
	}
	close(fd);   /* full: the client sees EOF */
}

static void *control_thread(void *arg)
{
	struct vmm_control *ctl = arg;
	struct vmm *vm = ctl->vm;
	struct pollfd pfd[2 + CTL_MAX_CLIENTS];

	for (;;) {
		pfd[0] = (struct pollfd){ .fd = ctl->wake_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = ctl->listen_fd, .events = POLLIN };
		for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++)
			pfd[2 + i] = (struct pollfd){ .fd = ctl->clients[i].fd,
						      .events = POLLIN };
		if (poll(pfd, 2 + CTL_MAX_CLIENTS, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & POLLIN)
			accept_client(ctl);
		for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++) {
			struct ctl_client *c = &ctl->clients[i];

			if (c->fd >= 0 && pfd[2 + i].revents && serve(vm, c) < 0)
				drop(vm, c);
		}
	}
	return NULL;
}

static void control_free(struct vmm_control *ctl)
{
	if (ctl->listen_fd >= 0)
		close(ctl->listen_fd);
	if (ctl->wake_fd >= 0)
		close(ctl->wake_fd);
	free(ctl);
}

/* The destroy hook: the thread ends, the clients' pauses are undone,
 * the socket goes. */
static void control_destroy(struct vmm *vm, void *arg)
{
	struct vmm_control *ctl = arg;
	uint64_t one = 1;

	if (write(ctl->wake_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(ctl->thread, NULL);
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++)
		if (ctl->clients[i].fd >= 0)
			drop(vm, &ctl->clients[i]);
	unlink(ctl->addr.sun_path);
	control_free(ctl);
}

int vmm_control_listen(struct vmm *vm, const char *path)
{
	struct vmm_control *ctl;
	struct stat st;
	int ret;

	if (!vm || !path)
		return -EINVAL;
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	ctl->vm = vm;
	ctl->wake_fd = ctl->listen_fd = -1;
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++)
		ctl->clients[i].fd = -1;
	/* One server per VM: its hook says it is there (-EBUSY). */
	ret = vmm_destroy_hook(vm, control_destroy, ctl);
	if (ret) {
		free(ctl);
		return ret;
	}
	if (strlen(path) >= sizeof(ctl->addr.sun_path)) {
		vmm_log(vm, "control socket path too long");
		ret = -ENAMETOOLONG;
		goto unhook;
	}
	ctl->addr.sun_family = AF_UNIX;
	strcpy(ctl->addr.sun_path, path);
	ctl->wake_fd = eventfd(0, EFD_CLOEXEC);
	ctl->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ctl->wake_fd < 0 || ctl->listen_fd < 0)
		goto fail_errno;
	/* A stale socket from a previous run; never remove anything else. */
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	if (bind(ctl->listen_fd, (struct sockaddr *)&ctl->addr,
		 sizeof(ctl->addr)) < 0)
		goto fail_errno;
	/* Connecting needs write permission: owner and group only. */
	if (chmod(path, 0660) < 0 || listen(ctl->listen_fd, 4) < 0) {
		ret = -errno;
		unlink(path);
		goto fail;
	}
	ret = -pthread_create(&ctl->thread, NULL, control_thread, ctl);
	if (ret) {
		unlink(path);
		goto fail;
	}
	return 0;
fail_errno:
	ret = -errno;
fail:
	vmm_log(vm, "control socket %s: %s", path, strerror(-ret));
unhook:
	vmm_destroy_unhook(vm, control_destroy);
	control_free(ctl);
	return ret;
}
