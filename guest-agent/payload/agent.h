/* SPDX-License-Identifier: MIT */
/* The freestanding guest agent's internals. */
#ifndef RINGSIDE_AGENT_H
#define RINGSIDE_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/guest_boot.h"
#include "ringside/ring.h"
#include "ringside/shared.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

/* Everything one vCPU's agent owns; static storage, one per vCPU. */
struct agent {
	const struct rs_boot_info *boot;
	struct rs_guest_report *rep;
	uint32_t id;
	uint32_t mask;            /* config.trace_mask */
	uint64_t sample_type;
	uint64_t aux_size;        /* of this vCPU's ring */
	volatile uint32_t *doorbell;
	uint64_t aux_stream;      /* AUX bytes written so far: the pattern index */
	const struct rs_region *region; /* vCPU 0's, shared read-only */
	struct rs_producer prod;
	struct rs_ring ring;      /* this vCPU's ring (wait_space) */
	uint64_t tail_seen;       /* data_tail as wait_space last read it */
	uint32_t batch;           /* data_head published per this many bytes */
	uint64_t last_beat;       /* rdtsc() at the last heartbeat */
	_Alignas(8) uint8_t rec[4096];
};

void agent_main(const struct rs_boot_info *boot, uint64_t id,
		uint64_t region_gpa, uint64_t nr_rings);
int agent_workload(struct agent *a);
_Noreturn void agent_finish(struct agent *a);

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

#endif /* RINGSIDE_AGENT_H */
