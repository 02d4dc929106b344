/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ringside/vmm_client.h"

#include "cap_internal.h"

struct cap_vm {
	int sock;
	int region_fd;            /* an open file description of our own */
	uint32_t nr_rings;
	uint32_t nr_vcpus;
	uint32_t nr_doorbells;    /* doorbell[i] is ring i's eventfd */
	int doorbell[RS_MAX_RINGS];
	uint64_t tsc_khz;
	uint32_t pauses;          /* outstanding PAUSEs */
};

/* A VMM answers at once; a peer that says nothing is not one. */
#define VM_CONN_TIMEOUT_S 10

/*
 * The memfd arrives as the VMM's open file description, which every client
 * shares: a flock on it would not keep two consumers apart.  Opening it
 * again through /proc gives this process a description of its own.
 */
static int reopen(int fd)
{
	int nfd = cap_source_reopen(fd);

	if (nfd < 0)
		return fd;
	close(fd);
	return nfd;
}

static int set_timeout(int sock)
{
	struct timeval tv = { .tv_sec = VM_CONN_TIMEOUT_S };

	if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

/* A receive that timed out is an unanswered request. */
static int fix_err(int err)
{
	return err == -EAGAIN ? -ETIMEDOUT : err;
}

int cap_vm_open(struct cap_vm **vp, const char *path)
{
	int fds[RS_CTL_MAX_FDS];
	struct rs_ctl_hello h;
	struct cap_vm *v;
	int n, err;

	*vp = v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->sock = v->region_fd = -1;
	for (unsigned i = 0; i < RS_MAX_RINGS; i++)
		v->doorbell[i] = -1;
	v->sock = vmm_client_connect(path);
	if (v->sock < 0) {
		err = v->sock;
		v->sock = -1;
		return err;
	}
	err = set_timeout(v->sock);
	if (err)
		goto fail;
	n = vmm_client_hello(v->sock, &h, fds, RS_CTL_MAX_FDS);
	if (n < 0) {
		err = fix_err(n);
		goto fail;
	}
	if (n < 1 || h.nr_rings > RS_MAX_RINGS || h.nr_vcpus > h.nr_rings ||
	    (uint32_t)n != h.nr_fds || h.nr_fds > 1 + h.nr_rings ||
	    (h.nr_fds != 1 + h.nr_rings && h.nr_fds != RS_CTL_MAX_FDS)) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		err = -EPROTO;
		goto fail;
	}
	v->region_fd = reopen(fds[0]);
	v->nr_rings = h.nr_rings;
	v->nr_vcpus = h.nr_vcpus;
	v->tsc_khz = h.tsc_khz;
	v->nr_doorbells = (uint32_t)n - 1;
	for (uint32_t i = 0; i < v->nr_doorbells; i++)
		v->doorbell[i] = fds[1 + i];
	/* the rest of the doorbells, a batch at a time (room for them: a
	 * failure shows as the recvmsg's truncation below) */
	if (v->nr_rings > RS_CTL_BATCH)
		vmm_client_nofile(v->nr_rings + 256);
	while (v->nr_doorbells < v->nr_rings) {
		struct rs_ctl_bells b;

		n = vmm_client_bells(v->sock, v->nr_doorbells, &b, fds,
				     RS_CTL_BATCH);
		if (n <= 0 || (uint32_t)n > v->nr_rings - v->nr_doorbells) {
			for (int i = 0; i < n; i++)
				close(fds[i]);
			err = n < 0 ? fix_err(n) : -EPROTO;
			goto fail;
		}
		for (int i = 0; i < n; i++)
			v->doorbell[v->nr_doorbells++] = fds[i];
	}
	return 0;
fail:
	cap_vm_close(v);
	*vp = NULL;
	return err;
}

uint32_t cap_vm_nr_vcpus(const struct cap_vm *v)
{
	return v->nr_vcpus;
}

uint32_t cap_vm_nr_doorbells(const struct cap_vm *v)
{
	return v->nr_doorbells;
}

int cap_vm_doorbell(const struct cap_vm *v, uint32_t i)
{
	return i < v->nr_doorbells ? v->doorbell[i] : -1;
}

int cap_vm_region_fd(const struct cap_vm *v)
{
	return v->region_fd;
}

int cap_vm_socket(const struct cap_vm *v)
{
	return v->sock;
}

int cap_vm_pause(struct cap_vm *v)
{
	int err = fix_err(vmm_client_pause(v->sock));

	if (!err)
		v->pauses++;
	return err;
}

int cap_vm_resume(struct cap_vm *v)
{
	int err;

	if (!v->pauses)
		return -EALREADY;
	err = fix_err(vmm_client_resume(v->sock));
	if (!err)
		v->pauses--;
	return err;
}

int cap_vm_status(struct cap_vm *v, uint32_t id,
		  struct rs_vmm_vcpu_info *info)
{
	return fix_err(vmm_client_status(v->sock, id, info));
}

int cap_vm_region(struct cap_vm *v, struct rs_ctl_region *r)
{
	return fix_err(vmm_client_region(v->sock, r));
}

int cap_vm_stopped(struct cap_vm *v)
{
	struct rs_vmm_vcpu_info info;
	int err;

	for (uint32_t i = 0; i < v->nr_vcpus; i++) {
		err = cap_vm_status(v, i, &info);
		if (err)
			return err;
		if (info.state == RS_VCPU_RUNNING || info.state == RS_VCPU_CREATED)
			return 0;
	}
	return 1;
}

void cap_vm_close(struct cap_vm *v)
{
	if (!v)
		return;
	while (v->pauses && v->sock >= 0 && cap_vm_resume(v) == 0)
		;
	for (uint32_t i = 0; i < RS_MAX_RINGS; i++) {
		if (v->doorbell[i] >= 0)
			close(v->doorbell[i]);
		v->doorbell[i] = -1;
	}
	if (v->region_fd >= 0)
		close(v->region_fd);
	if (v->sock >= 0)
		close(v->sock);  /* the VMM undoes what is left */
	free(v);
}
