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

#include "ringside/domain_virt.h"
#include "ringside/vmm_client.h"

#include "cap_internal.h"

/* Host CLOCK_MONOTONIC around a pause of the writers: before the pause
 * request, at its answer (the writers stand still), before the resume
 * request, at its answer.  All 0 when nothing was paused here. */
struct pause_times {
	uint64_t request_ns;
	uint64_t paused_ns;
	uint64_t resume_ns;
	uint64_t resumed_ns;
};

struct cap_source {
	struct rs_region region;
	void *base;
	uint64_t size;
	int fd;
	int own_fd;              /* opened here (closed by cap_source_close) */
	int locked;              /* CAP_SOURCE_EXCL taken */
	uint32_t abi_version;    /* what the header claims, for messages */
	struct cap_vm *vm;       /* --vm: the VMM's control connection */
	char *domain;            /* REGION named a libvirt domain */
	int domain_paused;       /* cap_source_pause suspended it */
	struct dom_virt *dom_conn; /* the domain's connection, made before
				    * the pause and kept until the close */
	struct dom_virt *code_conn; /* the code reader's */
	struct pause_times pause; /* the last pause .. resume */
	/* A domain's or a VM's region is opened by the layout its host laid
	 * it out with, not by its guest-writable header (region_check.c). */
	int have_layout;
	struct rs_region_params layout;
	int damaged;             /* the header or a control page differs */
	struct rs_region_damage damage;
	int have_guard;          /* --vm: vm_guard is the VMM's REGION answer */
	struct rs_ctl_region vm_guard;
};

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
	if ((flags & CAP_SOURCE_WRITE) && (fl & O_ACCMODE) != O_RDWR)
		return -EACCES;
	if ((fl & O_ACCMODE) == O_WRONLY)
		return -EACCES;
	return 0;
}

static int map_fd(struct cap_source *m, unsigned flags, struct cap_err *e);

/* @m closed, ready for an open of @what.  0, or -EINVAL noted in @e. */
static int start(struct cap_source *m, const char *what, struct cap_err *e)
{
	if (!m || !what)
		return cap_err_note(e, -EINVAL, cap_err_sys);
	cap_source_close(m);
	return 0;
}

int cap_source_open(struct cap_source *m, const char *spec, unsigned flags,
		    struct cap_err *e)
{
	int err = start(m, spec, e);

	if (err)
		return err;
	err = parse_fd(spec, &m->fd);
	if (err < 0)
		return cap_err_note(e, err, cap_err_sys);
	if (!err) {
		char path[PATH_MAX];

		if (dom_region_is_domain(spec)) {
			err = dom_region_layout(spec, path, sizeof(path),
						&m->layout);
			if (err)
				return cap_err_note(e, err, dom_error_str);
			m->have_layout = 1;
			m->domain = strdup(spec);
			if (!m->domain)
				return cap_err_note(e, -ENOMEM, cap_err_sys);
			spec = path;
		}
		m->fd = open(spec, ((flags & CAP_SOURCE_WRITE) ? O_RDWR : O_RDONLY) |
				   O_CLOEXEC);
		if (m->fd < 0) {
			err = cap_err_note(e, -errno, cap_err_sys);
			cap_source_close(m);
			return err;
		}
		m->own_fd = 1;
	} else {
		err = check_access(m->fd, flags);
		if (err)
			return cap_err_note(e, err, cap_err_sys);
	}
	return map_fd(m, flags, e);
}

int cap_source_open_fd(struct cap_source *m, int fd,
		       const struct rs_region_params *layout, unsigned flags,
		       struct cap_err *e)
{
	int err = start(m, "", e);

	if (err)
		return err;
	m->fd = fd;
	if (layout) {
		m->layout = *layout;
		m->have_layout = 1;
	}
	err = check_access(fd, flags);
	if (err) {
		m->fd = -1;
		return cap_err_note(e, err, cap_err_sys);
	}
	return map_fd(m, flags, e);
}

int cap_source_open_vm(struct cap_source *m, const char *sock_path,
		       unsigned flags, struct cap_err *e)
{
	int err = start(m, sock_path, e);

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
	return map_fd(m, flags, e);
}

/* The domain's connection in *@conn, made if it is not yet.  0, or
 * libvirt's code; -EOPNOTSUPP: no domain. */
static int dom_connect(const struct cap_source *m, struct dom_virt **conn)
{
	if (!m->domain)
		return -EOPNOTSUPP;
	return *conn ? 0 : dom_virt_open(conn, NULL, m->domain, 0);
}

/* The domain's connection first, so that the pause covers only the
 * suspend request and what follows it. */
static int dom_pause(struct cap_source *m)
{
	int err = dom_connect(m, &m->dom_conn);

	if (err)
		return err;
	err = dom_virt_can_suspend(m->dom_conn);
	if (err <= 0)
		return err;     /* 0: stopped already, left so */
	m->pause.request_ns = cap_time_now_ns();
	err = dom_virt_suspend_now(m->dom_conn);
	m->pause.paused_ns = cap_time_now_ns();
	if (err < 0)
		return err;
	m->domain_paused = 1;
	return 0;
}

int cap_source_pause(struct cap_source *m, struct cap_err *e)
{
	int err;

	memset(&m->pause, 0, sizeof(m->pause));
	if (m->domain)
		return cap_err_note(e, dom_pause(m), dom_error_str);
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

	if (m->domain && !m->domain_paused)
		return 0;  /* it was stopped before we came */
	if (!m->domain && !m->vm)
		return cap_err_note(e, -EOPNOTSUPP, cap_err_sys);
	m->pause.resume_ns = cap_time_now_ns();
	if (m->domain) {
		m->domain_paused = 0;
		err = dom_virt_resume(m->dom_conn);
	} else {
		err = cap_vm_resume(m->vm);
	}
	m->pause.resumed_ns = cap_time_now_ns();
	return cap_err_note(e, err, m->domain ? dom_error_str : cap_err_sys);
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
static int map_fd(struct cap_source *m, unsigned flags, struct cap_err *e)
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
	dom_virt_close(m->dom_conn);
	dom_virt_close(m->code_conn);
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

static int peek_virt(void *ctx, uint64_t gva, void *buf, size_t len)
{
	return dom_virt_peek_virt(ctx, gva, len, buf);
}

static int peek_phys(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	return dom_virt_peek_phys(ctx, gpa, len, buf);
}

static int registers(void *ctx, char **text)
{
	return dom_virt_vcpu_registers(ctx, text);
}

int cap_source_kcode_src(struct cap_source *m, struct gi_kcode_src *src)
{
	int err = dom_connect(m, &m->code_conn);

	if (err)
		return err;
	*src = (struct gi_kcode_src){ .peek = peek_virt, .ctx = m->code_conn,
				      .errstr = dom_error_str,
				      .chunk = DOM_PEEK_MAX };
	return 0;
}

int cap_source_kbuf_src(struct cap_source *m, struct gi_kbuf_src *src)
{
	unsigned long long ram;
	int err = dom_connect(m, &m->dom_conn);

	if (!err)
		err = dom_virt_ram_bytes(m->dom_conn, &ram);
	if (err)
		return err;
	*src = (struct gi_kbuf_src){ .peek = peek_phys, .ctx = m->dom_conn,
				     .errstr = dom_error_str };
	gi_kbuf_x86_ram(src->ram, ram);
	return 0;
}

int cap_source_vcpu_src(struct cap_source *m, struct gi_vcpu_src *src)
{
	int err = dom_connect(m, &m->dom_conn);

	if (err)
		return err;
	*src = (struct gi_vcpu_src){ .registers = registers, .peek = peek_virt,
				     .ctx = m->dom_conn, .errstr = dom_error_str };
	return 0;
}
