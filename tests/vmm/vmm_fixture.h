/* SPDX-License-Identifier: MIT */
/* Shared by the vmm suite: boot the guest agent, drain and check rings. */
#ifndef RINGSIDE_TEST_VMM_FIXTURE_H
#define RINGSIDE_TEST_VMM_FIXTURE_H

#include <check.h>
#include <stdint.h>

#include "ringside/vmm.h"

/* What a consumer saw on one ring, and what was wrong with it. */
struct vt_ring {
	uint32_t id;
	uint64_t seq;            /* intact SEQ records */
	uint64_t samples;
	uint64_t aux_recs;
	uint64_t lost_recs;
	uint64_t lost;           /* sum of LOST counts */
	uint64_t other;
	uint64_t bad;            /* failed rs_seq_check or malformed sample */
	uint64_t next_seq;       /* oldest-first: expected next seq */
	uint64_t newest_seq;     /* newest-first: first seq seen */
	uint64_t skipped_seqs;   /* seqs jumped over (must be covered by lost) */
	uint64_t order_errors;   /* a seq went backwards / repeated */
	uint64_t aux_bytes;      /* AUX bytes checked */
	uint64_t aux_bad;        /* AUX bytes that broke the pattern */
	uint64_t aux_next;       /* next expected AUX position */
	uint64_t cut_bytes;      /* snapshot: cut as possibly overwritten */
	int backward;            /* snapshot of an overwrite ring */
};

struct vt {
	struct vmm *vm;
	struct vmm_params p;
	struct rs_consumer *cons[RS_MAX_RINGS];
	struct vt_ring rings[RS_MAX_RINGS];
	char log[512];
};

/* exit(77) with a reason when /dev/kvm cannot be used. */
void vt_require_kvm(void);
const char *vt_payload(void);

/* Test defaults: 1 vCPU, 4 data pages, 1000 steady records. */
void vt_params(struct vmm_params *p);
/* Create, load the guest agent, attach consumers; start if @start. */
void vt_boot(struct vt *t, int start);
void vt_fini(struct vt *t);

/* Collect doorbells and drain every normal ring once. */
void vt_drain(struct vt *t);
/* Drain on doorbells (10 ms poll) until every vCPU stopped; fails the test
 * after 90 s so a broken guest cannot hang the suite. */
void vt_run(struct vt *t, int drain);
/* Poll until vCPU @id's report reaches @phase (or the vCPU stopped). */
void vt_wait_phase(struct vt *t, uint32_t id, uint32_t phase, int drain);
void vt_wait_state(struct vt *t, uint32_t id, uint32_t state);
/* Poll until vCPU @id has attempted more than @n SEQ records (it must keep
 * running meanwhile); returns its seq_attempted. */
uint64_t vt_wait_seq(struct vt *t, uint32_t id, uint64_t n);

int vt_on_record(const struct rs_perf_header *rec, void *arg);
int vt_on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg);

/* delivered + lost == attempted for ring @id, order, checksums, AUX. */
void vt_check_accounting(struct vt *t, uint32_t id);

/* Snapshot ring @id (stable if @pause) and check it: every record intact,
 * SEQ records consecutive.  Returns the checker's view. */
struct vt_ring vt_snapshot(struct vt *t, uint32_t id, int pause);

#endif /* RINGSIDE_TEST_VMM_FIXTURE_H */
