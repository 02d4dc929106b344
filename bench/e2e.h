/* SPDX-License-Identifier: MIT */
/*
 * vmm-bench's parts: the payload's workload on host threads (e2e_host.c),
 * in the ringside VMM (e2e_guest.c), the consumer both share
 * (e2e_count.c), main and the JSON lines (vmm-bench.c).
 */
#ifndef RINGSIDE_BENCH_E2E_H
#define RINGSIDE_BENCH_E2E_H

#include <stdint.h>

#include "ringside/guest_boot.h"
#include "ringside/ring.h"

struct e2e_cfg {
	uint32_t records;      /* SEQ records per vCPU (boot.records) */
	uint32_t vcpus;
	uint32_t data_pages;
	uint32_t fill;         /* boot.fill: the record size */
	uint32_t batch;        /* boot.data_batch */
	int reps;
	int timeout_s;         /* a guest that has not ended by then fails */
	const char *payload;
	int prod_cpu;          /* -1: not pinned */
	int cons_cpu;
};

/* What the live consumer saw on one ring. */
struct e2e_ring {
	uint32_t id;
	uint64_t delivered;    /* intact SEQ records of this ring's producer */
	uint64_t lost;         /* sum of LOST counts */
	uint64_t skipped;      /* sequence numbers jumped over */
	uint64_t next_seq;
	uint64_t bad;          /* failed rs_seq_check, other producer, order */
	uint64_t other;        /* any other record type */
};

/* One repetition, summed over the vCPUs. */
struct e2e_result {
	double rps_per_vcpu;   /* records / the producer's span, mean of vCPUs */
	double wall_rps_per_vcpu; /* records / wall time from start to stop */
	uint64_t span_ns;      /* the slowest vCPU's span */
	uint64_t wall_ns;
	uint64_t attempted;
	uint64_t delivered;
	uint64_t lost;
	uint64_t dropped;      /* the producers' -rse_no_space */
	uint64_t bad;
	uint64_t doorbells;    /* the producers' doorbell writes */
	uint64_t doorbells_seen; /* guest: eventfd counts the host collected */
	uint64_t suppressed;   /* due, not rung: the consumer polls (event
				* suppression; the rings' ext.suppressed) */
	uint64_t space_waits;
	uint64_t space_gave_up;
	uint64_t exits;        /* guest: returns of KVM_RUN to user space,
				* besides the header guard's */
	uint64_t exits_header; /* guest: the header guard's (the agent's
				* heartbeat and status writes) */
	int not_done;          /* vCPUs that did not reach RS_PHASE_DONE */
	char why[256];         /* set when a call failed */
};

/* rs_record_fn over a struct e2e_ring. */
int e2e_count(const struct rs_perf_header *rec, void *arg);

/* Sum the rings into @res and say whether the accounting holds:
 * delivered + lost == attempted, lost == dropped, nothing bad. */
int e2e_check(struct e2e_result *res, const struct e2e_ring *rings,
	      uint32_t n);

/* One repetition.  0, or < 0 with res->why set. */
/* Doorbells ring @index's producer skipped (ext.suppressed, a hint). */
uint64_t e2e_suppressed(const struct rs_region *region, uint32_t index);

int e2e_host(const struct e2e_cfg *cfg, struct e2e_result *res);
int e2e_guest(const struct e2e_cfg *cfg, struct e2e_result *res);

/* The boot info both runs give the workload. */
void e2e_boot(const struct e2e_cfg *cfg, struct rs_boot_info *boot);

#endif /* RINGSIDE_BENCH_E2E_H */
