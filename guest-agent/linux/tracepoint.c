/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint names to perf config ids, from tracefs.  A minimal guest (an
 * initramfs) may not have tracefs mounted: it is mounted where the kernel
 * expects it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "agent.h"

static const char *const roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static int read_id(const char *root, const char *sys, const char *name,
		   uint64_t *id)
{
	char path[512], buf[32], *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*id = strtoull(buf, &end, 10);
	return end == buf ? -EIO : 0;
}

int agent_tracepoint_id(const char *spec, uint64_t *id)
{
	char sys[128], name[128];
	const char *colon = strchr(spec, ':');
	size_t i;
	int err = -ENOENT;

	if (!colon || colon == spec || !colon[1] ||
	    (size_t)(colon - spec) >= sizeof(sys) || strlen(colon + 1) >= sizeof(name) ||
	    strchr(spec, '/') || strchr(colon + 1, ':'))
		return -EINVAL;
	memcpy(sys, spec, (size_t)(colon - spec));
	sys[colon - spec] = '\0';
	strcpy(name, colon + 1);
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		err = read_id(roots[i], sys, name, id);
		if (!err)
			return 0;
	}
	/* Not mounted?  Mount it once and look again. */
	if (access("/sys/kernel/tracing/events", F_OK) &&
	    !mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		err = read_id(roots[0], sys, name, id);
	return err == -ENOENT || err == -ENOTDIR ? -ENOENT : err;
}
