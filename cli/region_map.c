/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/domain_virt.h"

#include "err.h"
#include "region_map.h"
#include "vm_conn.h"

static int parse_fd(const char *spec, int *fd)
{
	char *end;
	long v;

	if (strncmp(spec, "fd:", 3))
		return 0;
	errno = 0;
	v = strtol(spec + 3, &end, 10);
	if (errno || end == spec + 3 || *end || v < 0 || v > INT_MAX)
		return -EBADF;
	*fd = (int)v;
	return 1;
}

static int check_access(int fd, unsigned flags)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	if ((flags & RMAP_WRITE) && (fl & O_ACCMODE) != O_RDWR)
		return -EACCES;
	if ((fl & O_ACCMODE) == O_WRONLY)
		return -EACCES;
	return 0;
}

static int map_fd(struct rmap *m, unsigned flags);

int rmap_open(struct rmap *m, const char *spec, unsigned flags)
{
	int err;

	if (!m || !spec)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	err = parse_fd(spec, &m->fd);
	if (err < 0)
		return err;
	if (!err) {
		char path[PATH_MAX];

		if (dom_region_is_domain(spec)) {
			err = dom_region_path(spec, path, sizeof(path));
			if (!err && !(m->domain = strdup(spec)))
				err = -ENOMEM;
			if (err)
				return err;
			spec = path;
		}
		m->fd = open(spec, ((flags & RMAP_WRITE) ? O_RDWR : O_RDONLY) |
				   O_CLOEXEC);
		if (m->fd < 0) {
			err = -errno;
			rmap_close(m);
			return err;
		}
		m->own_fd = 1;
	} else {
		err = check_access(m->fd, flags);
		if (err)
			return err;
	}
	return map_fd(m, flags);
}

int rmap_open_vm(struct rmap *m, const char *sock_path, unsigned flags)
{
	int err;

	if (!m || !sock_path)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->vm = malloc(sizeof(*m->vm));
	if (!m->vm)
		return -ENOMEM;
	err = vm_conn_open(m->vm, sock_path);
	if (err) {
		free(m->vm);
		m->vm = NULL;
		return err;
	}
	m->fd = m->vm->region_fd;   /* closed by vm_conn_close */
	return map_fd(m, flags);
}

int rmap_pause(struct rmap *m)
{
	if (m->domain)
		return dom_region_pause(m->domain, &m->domain_paused);
	return m->vm ? vm_conn_pause(m->vm) : -EOPNOTSUPP;
}

int rmap_resume(struct rmap *m)
{
	if (m->domain) {
		if (!m->domain_paused)
			return 0;  /* it was stopped before we came */
		m->domain_paused = 0;
		return dom_region_resume(m->domain);
	}
	return m->vm ? vm_conn_resume(m->vm) : -EOPNOTSUPP;
}

/* Map and validate m->fd: the part every source shares. */
static int map_fd(struct rmap *m, unsigned flags)
{
	int prot = PROT_READ | ((flags & RMAP_WRITE) ? PROT_WRITE : 0);
	struct stat st;
	int err;

	if (fstat(m->fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -ENODEV;
		goto fail;
	}
	/* Two consumers would move one tail; the second one is refused.  A
	 * BSD lock: QEMU's own file locks are OFD locks, which do not meet it. */
	if ((flags & RMAP_EXCL) && flock(m->fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		goto fail;
	}
	m->locked = !!(flags & RMAP_EXCL);
	m->size = (uint64_t)st.st_size;
	if (m->size < sizeof(struct rs_region_header)) {
		err = err_from_ring(-rse_too_small);
		goto fail;
	}
	m->base = mmap(NULL, m->size, prot, MAP_SHARED, m->fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		err = -errno;
		goto fail;
	}
	m->abi_version = ((const struct rs_region_header *)m->base)->abi_version;
	err = err_from_ring(rs_region_open(&m->region, m->base, m->size));
	if (err)
		goto fail;
	return 0;
fail:
	rmap_close(m);
	return err;
}

int rmap_is_file(const struct rmap *m, const char *path)
{
	struct stat a, b;

	if (stat(path, &a) || fstat(m->fd, &b))
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void rmap_close(struct rmap *m)
{
	if (!m)
		return;
	if (m->base)
		munmap(m->base, m->size);
	if (m->locked)
		flock(m->fd, LOCK_UN); /* an inherited fd outlives us */
	if (m->own_fd && m->fd >= 0)
		close(m->fd);
	vm_conn_close(m->vm);
	free(m->vm);
	m->vm = NULL;
	free(m->domain);
	m->domain = NULL;
	m->base = NULL;
	m->fd = -1;
	m->own_fd = 0;
	m->locked = 0;
}
