/* SPDX-License-Identifier: MIT */
/*
 * Host-side plumbing shared by ring-demo and ring-bench: a trace region in
 * a memfd that forked processes share, CPU pinning, a monotonic clock.
 * Functions that wrap syscalls return 0 or -errno; none of them prints.
 */
#ifndef RINGSIDE_HOST_UTIL_H
#define RINGSIDE_HOST_UTIL_H

#include <stdint.h>

#include "ringside/ring.h"

/* A region laid out in a MAP_SHARED memfd mapping. */
struct host_region {
	void *mem;
	uint64_t size;
	int fd;
	int ring_err;   /* the ring library's error when create returned -EPROTO */
};

/*
 * Create a memfd of rs_region_size(@params) bytes, map it shared, lay the
 * region out and enable tracing.  Children forked afterwards share it.
 * -errno of memfd_create/ftruncate/mmap, or -EPROTO with @r->ring_err set
 * when the ring library rejects @params.
 */
int host_region_create(struct host_region *r, const char *name,
		       const struct rs_region_params *params);

/* Lay the same region out again (everything zeroed, enabled).  -EPROTO. */
int host_region_reset(struct host_region *r,
		      const struct rs_region_params *params);

/* Unmap and close; accepts a zeroed or destroyed @r. */
void host_region_destroy(struct host_region *r);

/*
 * Touch every page of @r's mapping in the calling process.  A forked child
 * does not inherit the page tables of a shared mapping: its first pass
 * over the region would take a page fault per page while the other side
 * runs at full speed.  A consumer that lives on (ringside record) pays that
 * once; a benchmark that forks one per repetition calls this first.
 */
void host_region_prefault(const struct host_region *r);

/* A MAP_SHARED anonymous mapping of @size bytes (zeroed) that forked
 * children share; NULL on failure (errno set).  Free with host_shared_free. */
void *host_shared_alloc(uint64_t size);
void host_shared_free(void *p, uint64_t size);

/* CPUs this process may run on: their count, and the first @max ids in
 * @ids. */
int host_cpu_ids(int *ids, int max);

/* Pin the calling process to @cpu.  -errno of sched_setaffinity. */
int host_pin_cpu(int cpu);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t host_now_ns(void);

/* /proc/cpuinfo's first "model name", without quotes or backslashes (it
 * goes into JSON), or "unknown". */
void host_cpu_model(char *buf, size_t len);

/* Spin-wait hint. */
static inline void host_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

#endif /* RINGSIDE_HOST_UTIL_H */
