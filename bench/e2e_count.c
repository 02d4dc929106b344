/* SPDX-License-Identifier: MIT */
/*
 * The live consumer's side of the end-to-end line, the same for the guest
 * and the host run: every SEQ record's checksum and order, the LOST sums,
 * and the accounting at the end.
 */
#include "e2e.h"

#include <stdio.h>
#include <string.h>

void e2e_boot(const struct e2e_cfg *cfg, struct rs_boot_info *boot)
{
	memset(boot, 0, sizeof(*boot));
	boot->workload = RS_WL_STEADY;
	boot->records = cfg->records;
	boot->fill = cfg->fill;
	/* SEQ records only: one size, one count, on both sides. */
	boot->sample_every = 0;
	boot->aux_every = 0;
	boot->wait_enabled = 1;
	/* A producer that outruns its consumer drops, and dropping is cheaper
	 * than writing: waiting for room makes every figure a rate of records
	 * delivered, nothing lost. */
	boot->wait_space = 1;
	boot->data_batch = cfg->batch;
}

int e2e_count(const struct rs_perf_header *rec, void *arg)
{
	struct e2e_ring *r = arg;
	const struct rs_rec_seq *q = (const struct rs_rec_seq *)rec;

	switch (rec->type) {
	case RS_RECORD_SEQ:
		if (!rs_seq_check(rec) || q->producer != r->id ||
		    q->seq < r->next_seq) {
			r->bad++;
			break;
		}
		r->skipped += q->seq - r->next_seq;
		r->next_seq = q->seq + 1;
		r->delivered++;
		break;
	case RS_PERF_RECORD_LOST:
		r->lost += ((const struct rs_perf_lost *)rec)->lost;
		break;
	default:
		r->other++;
	}
	return 0;
}

int e2e_check(struct e2e_result *res, const struct e2e_ring *rings,
	      uint32_t n)
{
	uint64_t skipped = 0;

	res->delivered = res->lost = res->bad = 0;
	for (uint32_t i = 0; i < n; i++) {
		res->delivered += rings[i].delivered;
		res->lost += rings[i].lost;
		res->bad += rings[i].bad + rings[i].other;
		skipped += rings[i].skipped;
	}
	if (res->delivered + res->lost != res->attempted ||
	    res->lost != res->dropped || skipped > res->lost || res->bad ||
	    res->not_done) {
		if (!res->why[0])
			snprintf(res->why, sizeof(res->why),
				 "accounting: delivered %llu + lost %llu, "
				 "attempted %llu, dropped %llu, bad %llu, "
				 "vCPUs not done %d",
				 (unsigned long long)res->delivered,
				 (unsigned long long)res->lost,
				 (unsigned long long)res->attempted,
				 (unsigned long long)res->dropped,
				 (unsigned long long)res->bad, res->not_done);
		return 0;
	}
	return 1;
}

uint64_t e2e_suppressed(const struct rs_region *region, uint32_t index)
{
	struct rs_ring_state st;
	struct rs_ring ring;

	if (rs_region_ring(region, index, &ring) < 0 ||
	    rs_ring_state_read(&ring, &st) < 0)
		return 0;
	return st.suppressed;
}
