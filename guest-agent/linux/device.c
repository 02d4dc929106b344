/* SPDX-License-Identifier: MIT */
/*
 * Finding the trace region: QEMU's ivshmem-plain device (1af4:1110) shows
 * the shared file as its BAR2, which sysfs lets root map through
 * /sys/bus/pci/devices/<bdf>/resource2.  A guest may have other ivshmem
 * devices: only a BAR that validates as a ringside region is taken.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110

static long read_hex(const char *dir, const char *bdf, const char *file)
{
	char path[512], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, bdf, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 16);
}

static int is_ivshmem(const char *dir, const char *bdf)
{
	return read_hex(dir, bdf, "vendor") == IVSHMEM_VENDOR &&
	       read_hex(dir, bdf, "device") == IVSHMEM_DEVICE;
}

/* Map @bdf's BAR2 and validate it.  0, or -1 with why in @scan. */
static int try_map(struct agent_dev *d, const char *dir, const char *bdf,
		   struct agent_dev_scan *scan)
{
	char path[512];
	struct stat st;
	void *mem;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s/resource2", dir, bdf);
	snprintf(scan->last_bdf, sizeof(scan->last_bdf), "%.31s", bdf);
	scan->last_errno = scan->last_ring_err = 0;
	fd = open(path, O_RDWR | O_CLOEXEC | O_SYNC);
	if (fd < 0 || fstat(fd, &st)) {
		scan->last_errno = -errno;
		goto unmappable;
	}
	if (st.st_size < (off_t)sizeof(struct rs_region_header)) {
		close(fd);
		scan->last_ring_err = -rse_too_small;
		return -1;
	}
	mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	if (mem == MAP_FAILED) {
		scan->last_errno = -errno;
		goto unmappable;
	}
	close(fd);
	err = rs_region_open(&d->region, mem, (uint64_t)st.st_size);
	if (err) {
		munmap(mem, (size_t)st.st_size);
		scan->last_ring_err = err;
		return -1;
	}
	d->mem = mem;
	d->size = (uint64_t)st.st_size;
	snprintf(d->bdf, sizeof(d->bdf), "%.31s", bdf);
	return 0;
unmappable:
	if (fd >= 0)
		close(fd);
	scan->unmappable++;
	return -1;
}

int agent_dev_open(struct agent_dev *d, const char *sysfs, const char *bdf,
		   struct agent_dev_scan *scan)
{
	struct dirent *e;
	DIR *dir;
	int err;

	memset(d, 0, sizeof(*d));
	memset(scan, 0, sizeof(*scan));
	if (bdf) {
		if (!is_ivshmem(sysfs, bdf))
			return -ENODEV;
		scan->ivshmem = 1;
		return try_map(d, sysfs, bdf, scan) ? -ENODEV : 0;
	}
	dir = opendir(sysfs);
	if (!dir)
		return -errno;
	err = -ENODEV;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || !is_ivshmem(sysfs, e->d_name))
			continue;
		scan->ivshmem++;
		if (!try_map(d, sysfs, e->d_name, scan)) {
			err = 0;
			break;
		}
	}
	closedir(dir);
	return err;
}

void agent_dev_close(struct agent_dev *d)
{
	if (d->mem)
		munmap(d->mem, d->size);
	d->mem = NULL;
}
