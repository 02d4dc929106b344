/* SPDX-License-Identifier: MIT */
/*
 * The KVM half of the pt suite: boot the PT payload under the ringside VMM
 * with a tracer attached, collect its AUX data (drained, or snapshotted),
 * decode it with libipt and compare with the single-step ground truth.
 * PT_DEBUG=1 in the environment prints the tracer's counters per run and
 * the tail of the ground truth when a decode falls short.
 */
#ifndef PT_TRACE_FIXTURE_H
#define PT_TRACE_FIXTURE_H

#include "ringside/pt_guest.h"
#include "ringside/pt_tracer.h"
#include "ringside/ring.h"
#include "ringside/vmm.h"

struct tr {
	struct vmm *vm;
	struct pv_trace *t;
	struct rs_consumer *cons;
	uint8_t *aux;              /* AUX bytes, in stream order */
	uint64_t aux_len, aux_pos; /* ... and the position of aux[0] */
	uint64_t aux_recs, aux_truncated, aux_partial;
	uint64_t *decoded;
	uint64_t ndecoded, decoded_cap;
	uint64_t dec_kinds[8];
	struct pv_decode_stats dec;
	char log[512];
};

struct tr_opts {
	uint32_t workload;
	uint32_t iterations;
	uint32_t aux_pages;
	uint32_t aux_mode;         /* RS_MODE_NORMAL or RS_MODE_OVERWRITE */
	int drain;                 /* drain while the guest runs (normal);
				    * always once after it stopped */
	struct pv_trace_params tp; /* size and workload filled in */
};

void tr_require_kvm(void);
void tr_opts(struct tr_opts *o, uint32_t workload, uint32_t iterations);
/* Boot, trace until the guest stops, collect the AUX data. */
void tr_run(struct tr *x, const struct tr_opts *o);
/* Decode x->aux (from its last PSB if @last_psb) into x->decoded. */
void tr_decode(struct tr *x, int last_psb);
/* Decoded == ground truth, instruction for instruction. */
void tr_check_equal(struct tr *x);
/* Decoded is a non-empty prefix / suffix of the ground truth. */
void tr_check_prefix(struct tr *x);
void tr_check_suffix(struct tr *x);
void tr_fini(struct tr *x);

#endif /* PT_TRACE_FIXTURE_H */
