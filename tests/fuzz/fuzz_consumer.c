/* SPDX-License-Identifier: MIT */
/*
 * Target: the consumer draining rings (data and AUX) that the guest
 * scribbles over between drains, after the host opened the region;
 * every record delivered is examined as `record` would (fuzz_record.c).
 */
#include <stdlib.h>

#include "fuzz_record.h"
#include "fuzz_region.h"

struct drain_arg {
	struct pdf_rrec_clock clk;
	uint64_t sample_type;
};

static int on_record(const struct rs_perf_header *rec, void *arg)
{
	struct drain_arg *d = arg;

	fz_record_examine(&d->clk, rec, d->sample_type);
	return 0;
}

static int on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	volatile uint8_t sink = 0;
	const uint8_t *b = chunk;

	(void)pos;
	(void)arg;
	for (uint64_t i = 0; i < len; i++)
		sink ^= b[i];
	(void)sink;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_consumer *cons[2] = { NULL, NULL };
	struct drain_arg arg[2];
	struct fz_region r;
	struct rs_region reg;
	struct fz_in in;
	uint32_t nr;

	fz_in_init(&in, data, size);
	if (fz_region_build(&r, &in) < 0)
		return 0;
	fz_region_produce(&r, &in);
	if (rs_region_open(&reg, r.mem, r.size) < 0)
		abort(); /* a region the library laid out must open */
	nr = rs_region_nr_rings(&reg);
	for (uint32_t i = 0; i < nr && i < 2; i++) {
		cons[i] = rs_consumer_alloc(&reg, i);
		arg[i].sample_type = rs_region_config(&reg)->sample_type;
		pdf_rrec_clock_init(&arg[i].clk, &reg, i);
	}
	/* Rounds of scribbling and draining: a drain meets what the guest
	 * changed since the last one, tails the consumer published included. */
	for (unsigned round = 0; round < 4; round++) {
		fz_region_scribble(&r, &in, 8);
		for (uint32_t i = 0; i < nr && i < 2; i++) {
			if (!cons[i])
				continue;
			rs_consumer_drain(cons[i], on_record, &arg[i]);
			rs_consumer_drain_aux(cons[i], on_aux, NULL);
			rs_consumer_pending(cons[i]);
			rs_consumer_stats(cons[i]);
		}
		if (!in.left)
			break;
	}
	for (uint32_t i = 0; i < 2; i++)
		rs_consumer_free(cons[i]);
	fz_region_free(&r);
	return 0;
}
