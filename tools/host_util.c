/* SPDX-License-Identifier: MIT */
#include "host_util.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int layout(struct host_region *r, const struct rs_region_params *params)
{
	int rc = rs_region_layout(r->mem, r->size, params);

	/* The host enables tracing once the layout is complete; producers
	 * attached before this would see a disabled region. */
	if (rc >= 0)
		rc = rs_region_enable(r->mem);
	if (rc < 0) {
		r->ring_err = rc;
		return -EPROTO;
	}
	return 0;
}

int host_region_create(struct host_region *r, const char *name,
		       const struct rs_region_params *params)
{
	uint64_t size;
	int rc;

	r->mem = NULL;
	r->fd = -1;
	r->ring_err = 0;
	rc = rs_region_size(params, &size);
	if (rc < 0) {
		r->ring_err = rc;
		return -EPROTO;
	}
	r->size = size;
	r->fd = memfd_create(name, MFD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (ftruncate(r->fd, (off_t)size) < 0)
		goto fail;
	r->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		goto fail;
	}
	rc = layout(r, params);
	if (rc < 0) {
		host_region_destroy(r);
		return rc;
	}
	return 0;
fail:
	rc = -errno;
	host_region_destroy(r);
	return rc;
}

int host_region_reset(struct host_region *r,
		      const struct rs_region_params *params)
{
	return layout(r, params);
}

void host_region_destroy(struct host_region *r)
{
	if (r->mem)
		munmap(r->mem, r->size);
	if (r->fd >= 0)
		close(r->fd);
	r->mem = NULL;
	r->fd = -1;
}

void host_region_prefault(const struct host_region *r)
{
	const volatile uint8_t *p = r->mem;
	uint64_t off;

	for (off = 0; off < r->size; off += 4096)
		(void)p[off];
}

void *host_shared_alloc(uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void host_shared_free(void *p, uint64_t size)
{
	if (p)
		munmap(p, size);
}

int host_cpu_ids(int *ids, int max)
{
	int cpu, n = 0;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (n < max)
			ids[n] = cpu;
		n++;
	}
	return n;
}

int host_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

uint64_t host_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void host_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], *p;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) || !(p = strchr(line, ':')))
			continue;
		p += 1 + strspn(p + 1, " \t");
		p[strcspn(p, "\n\"\\")] = '\0';
		snprintf(buf, len, "%s", p);
		break;
	}
	fclose(f);
}
