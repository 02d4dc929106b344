/* SPDX-License-Identifier: MIT */
/*
 * A source opened by its name as the command line gives it (REGION, fd:N,
 * DOMAIN).  Apart from the other opens because a DOMAIN brings the
 * libvirt calls (cap_source_domain.c) with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/domain_virt.h"

#include "cap_internal.h"

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

int cap_source_open(struct cap_source *m, const char *spec, unsigned flags,
		    struct cap_err *e)
{
	int err = cap_source_start(m, spec, e);

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
			m->dom = &cap_source_domain_ops;
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
		err = cap_source_access(m->fd, flags);
		if (err)
			return cap_err_note(e, err, cap_err_sys);
	}
	return cap_source_map_fd(m, flags, e);
}
