/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/vmm_client.h"

#include "cap_internal.h"


int cap_source_new(struct cap_source **sp)
{
	*sp = calloc(1, sizeof(**sp));
	if (!*sp)
		return -ENOMEM;
	(*sp)->fd = -1;
	return 0;
}

void cap_source_free(struct cap_source *s)
{
	cap_source_close(s);
	free(s);
}



int cap_source_access(int fd, unsigned flags)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	if ((flags & CAP_SOURCE_WRITE) && (fl & O_ACCMODE) != O_RDWR)
		return -EACCES;
	if ((fl & O_ACCMODE) == O_WRONLY)
		return -EACCES;
	return 0;
}

int cap_source_start(struct cap_source *m, const char *what, struct cap_err *e)
{
	if (!m || !what)
		return cap_err_note(e, -EINVAL, cap_err_sys);
	cap_source_close(m);
	return 0;
}


int cap_source_open_fd(struct cap_source *m, int fd,
		       const struct rs_region_params *layout, unsigned flags,
		       struct cap_err *e)
{
	int err = cap_source_start(m, "", e);

	if (err)
		return err;
	m->fd = fd;
	if (layout) {
		m->layout = *layout;
		m->have_layout = 1;
	}
	err = cap_source_access(fd, flags);
	if (err) {
		m->fd = -1;
		return cap_err_note(e, err, cap_err_sys);
	}
	return cap_source_map_fd(m, flags, e);
}

int cap_source_open_vm(struct cap_source *m, const char *sock_path,
		       unsigned flags, struct cap_err *e)
{
	int err = cap_source_start(m, sock_path, e);

	if (err)
		return err;
	err = cap_vm_open(&m->vm, sock_path);
	if (err)
		return cap_err_note(e, err, cap_err_sys);
	m->fd = cap_vm_region_fd(m->vm);   /* closed by cap_vm_close */
	/* A VMM older than REGION: the header is all there is to go by. */
	err = cap_vm_region(m->vm, &m->vm_guard);
	if (!err) {
		m->have_guard = 1;
		err = vmm_ctl_region_to_params(&m->vm_guard, &m->layout);
		if (err) {
			cap_source_close(m);
			return cap_err_note(e, err, cap_err_sys);
		}
		m->have_layout = 1;
	} else if (err != -EOPNOTSUPP) {
		cap_source_close(m);
		return cap_err_note(e, err, cap_err_sys);
	}
	return cap_source_map_fd(m, flags, e);
}



int cap_source_pause(struct cap_source *m, struct cap_err *e)
{
	int err;

	memset(&m->pause, 0, sizeof(m->pause));
	if (m->dom)
		return cap_err_note(e, m->dom->pause(m), dom_error_str);
	if (!m->vm)
		return cap_err_note(e, -EOPNOTSUPP, cap_err_sys);
	m->pause.request_ns = cap_time_now_ns();
	err = cap_vm_pause(m->vm);
	m->pause.paused_ns = cap_time_now_ns();
	if (err)
		memset(&m->pause, 0, sizeof(m->pause));
	return cap_err_note(e, err, cap_err_sys);
}

int cap_source_resume(struct cap_source *m, struct cap_err *e)
{
	int err;

	if (m->dom && !m->domain_paused)
		return 0;  /* it was stopped before we came */
	if (!m->dom && !m->vm)
		return cap_err_note(e, -EOPNOTSUPP, cap_err_sys);
	m->pause.resume_ns = cap_time_now_ns();
	if (m->dom) {
		m->domain_paused = 0;
		err = m->dom->resume(m);
	} else {
		err = cap_vm_resume(m->vm);
	}
	m->pause.resumed_ns = cap_time_now_ns();
	return cap_err_note(e, err, m->dom ? dom_error_str : cap_err_sys);
}

uint64_t cap_source_paused_ns(const struct cap_source *m, int inner)
{
	const struct pause_times *p = &m->pause;

	if (!p->request_ns || !p->resumed_ns)
		return 0;
	return inner ? p->resume_ns - p->paused_ns :
		       p->resumed_ns - p->request_ns;
}

/* Map and validate m->fd: the part every source shares. */
int cap_source_map_fd(struct cap_source *m, unsigned flags, struct cap_err *e)
{
	int prot = PROT_READ | ((flags & CAP_SOURCE_WRITE) ? PROT_WRITE : 0);
	uint32_t version;
	struct stat st;
	int err;

	if (fstat(m->fd, &st)) {
		err = cap_err_note(e, -errno, cap_err_sys);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = cap_err_note(e, S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV,
				   cap_err_sys);
		goto fail;
	}
	/* Two consumers would move one tail; the second one is refused.  A
	 * BSD lock: QEMU's own file locks are OFD locks, which do not meet it. */
	if ((flags & CAP_SOURCE_EXCL) && flock(m->fd, LOCK_EX | LOCK_NB)) {
		err = cap_err_note(e, -errno, cap_err_sys);
		goto fail;
	}
	m->locked = !!(flags & CAP_SOURCE_EXCL);
	m->size = (uint64_t)st.st_size;
	if (m->size < sizeof(struct rs_region_header)) {
		err = cap_err_note(e, -rse_too_small, rs_error_str);
		goto fail;
	}
	m->base = mmap(NULL, m->size, prot, MAP_SHARED, m->fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		err = cap_err_note(e, -errno, cap_err_sys);
		goto fail;
	}
	m->abi_version = ((const struct rs_region_header *)m->base)->abi_version;
	if (m->have_layout) {
		err = rs_region_open_layout(&m->region, m->base, m->size,
					    &m->layout, &m->damage);
		m->damaged = err > 0;
		err = cap_err_note(e, err < 0 ? err : 0, rs_error_str);
	} else {
		err = cap_err_note(e, rs_region_open(&m->region, m->base, m->size),
				   rs_error_str);
	}
	if (err)
		goto fail;
	return 0;
fail:
	version = m->abi_version;   /* for the caller's words */
	cap_source_close(m);
	m->abi_version = version;
	return err;
}

int cap_source_is_file(const struct cap_source *m, const char *path)
{
	struct stat a, b;

	if (stat(path, &a) || fstat(m->fd, &b))
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void cap_source_close(struct cap_source *m)
{
	if (!m)
		return;
	if (m->base)
		munmap(m->base, m->size);
	if (m->locked)
		flock(m->fd, LOCK_UN); /* an inherited fd outlives us */
	if (m->own_fd && m->fd >= 0)
		close(m->fd);
	cap_vm_close(m->vm);
	if (m->dom)
		m->dom->close(m);
	free(m->domain);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

const struct rs_region *cap_source_region(const struct cap_source *m)
{
	return &m->region;
}

void *cap_source_mem(const struct cap_source *m)
{
	return m->base;
}

uint64_t cap_source_size(const struct cap_source *m)
{
	return m->size;
}

int cap_source_fd(const struct cap_source *m)
{
	return m->fd;
}

const char *cap_source_domain(const struct cap_source *m)
{
	return m->domain;
}

struct cap_vm *cap_source_vm(const struct cap_source *m)
{
	return m->vm;
}

uint32_t cap_source_abi_version(const struct cap_source *m)
{
	return m->abi_version;
}

const struct rs_region_damage *cap_source_damage(const struct cap_source *m)
{
	return m->damaged ? &m->damage : NULL;
}

int cap_source_guard(const struct cap_source *m, int now,
		     struct rs_ctl_region *g)
{
	if (!m->have_guard)
		return 0;
	if (!now || cap_vm_region(m->vm, g))
		*g = m->vm_guard;
	return 1;
}

int cap_source_reopen(int fd)
{
	char path[64];
	int nfd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, O_RDWR | O_CLOEXEC);
	return nfd < 0 ? -errno : nfd;
}
