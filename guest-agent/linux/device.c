/* SPDX-License-Identifier: MIT */
/*
 * Finding the trace region: QEMU's ivshmem-plain device (1af4:1110) shows
 * the shared file as its BAR2, which sysfs lets root map through
 * /sys/bus/pci/devices/<bdf>/resource2.  A guest may have other ivshmem
 * devices: only a BAR that validates as a ringside region is taken.
 *
 * The device can go while the agent runs (PCI hot-unplug, `ringside
 * disable --live`): the guest kernel removes it whatever maps its BAR,
 * and revokes the sysfs mapping, so the next access to it is a SIGBUS.
 * agent_device_guard()'s handler turns that into a flag: for a fault inside
 * the mapping of the device in use it puts anonymous pages in the
 * mapping's place, so that the interrupted access completes into nothing,
 * and the agent learns at the end of its pass that the device is gone
 * (agent_device_gone, which also notices the sysfs entry gone between two
 * accesses).  Any other SIGBUS kills as before.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110

/* The mapping the SIGBUS handler may replace: one device at a time. */
static void *volatile guard_mem;
static volatile size_t guard_size;
static volatile sig_atomic_t guard_lost;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	char *mem = guard_mem, *at = si->si_addr;
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	(void)ctx;
	if (mem && at >= mem && at < mem + guard_size &&
	    mmap(mem, guard_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
		guard_lost = 1;
		return;   /* the access is made again, on the new pages */
	}
	/* not ours: returning makes the same fault again, and it kills */
	sigaction(sig, &dfl, NULL);
}

int agent_device_guard(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) ? -errno : 0;
}

static void guard_set(void *mem, size_t size)
{
	guard_lost = 0;
	guard_size = size;
	guard_mem = mem;
}

static void guard_clear(void)
{
	guard_mem = NULL;
	guard_size = 0;
	guard_lost = 0;
}

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

/* The inode of @bdf's sysfs directory: a device removed and another
 * plugged in at the same address has another.  0: none. */
static uint64_t dev_ino(const char *dir, const char *bdf)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, bdf);
	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
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
	/* a device that goes while we look at it is a SIGBUS like any */
	guard_set(mem, (size_t)st.st_size);
	err = rs_region_open(&d->region, mem, (uint64_t)st.st_size);
	if (!err && guard_lost)
		err = -rse_magic;   /* it read the pages put in its place */
	if (err) {
		guard_clear();
		munmap(mem, (size_t)st.st_size);
		scan->last_ring_err = err;
		return -1;
	}
	d->mem = mem;
	d->size = (uint64_t)st.st_size;
	snprintf(d->bdf, sizeof(d->bdf), "%.31s", bdf);
	d->ino = dev_ino(dir, bdf);
	return 0;
unmappable:
	if (fd >= 0)
		close(fd);
	scan->unmappable++;
	return -1;
}

int agent_device_open(struct agent_dev *d, const char *sysfs, const char *bdf,
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

int agent_device_gone(const struct agent_dev *d, const char *sysfs)
{
	if (!d->mem)
		return 0;
	if (guard_lost)
		return AGENT_DEV_FAULTED;
	if (!sysfs)
		return 0;
	return dev_ino(sysfs, d->bdf) != d->ino ? AGENT_DEV_REMOVED : 0;
}

void agent_device_close(struct agent_dev *d)
{
	if (d->mem) {
		guard_clear();
		munmap(d->mem, d->size);
	}
	d->mem = NULL;
}
