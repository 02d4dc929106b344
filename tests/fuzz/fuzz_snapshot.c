/* SPDX-License-Identifier: MIT */
/*
 * Target: snapshots of rings the guest scribbled over, in both
 * directions (normal rings read forward from the tail, overwrite rings
 * backward from the head: the shape's mode bits choose), and of their AUX
 * areas; every record returned is examined as `snapshot` would.
 */
#include <stdlib.h>

#include "fuzz_record.h"
#include "fuzz_region.h"

static void snap_ring(const struct rs_region *reg, uint32_t index,
		      struct rs_snapshot *s)
{
	const struct rs_perf_header *rec;
	struct rs_aux_snapshot as;
	struct pdf_rrec_clock clk;
	uint64_t type = rs_region_config(reg)->sample_type;
	struct rs_ring ring;
	uint8_t *buf;

	if (rs_region_ring(reg, index, &ring) < 0)
		abort();
	pdf_rrec_clock_init(&clk, reg, index);
	buf = malloc(ring.data_size);
	if (buf && rs_snapshot_take(s, reg, index, buf, ring.data_size) == 0)
		while (rs_snapshot_next(s, &rec) == 1)
			fz_record_examine(&clk, rec, type);
	rs_snapshot_stats(s);
	free(buf);
	if (!ring.aux_size)
		return;
	buf = malloc(ring.aux_size);
	if (buf && rs_snapshot_aux(&as, reg, index, buf, ring.aux_size) == 0 &&
	    as.len > ring.aux_size)
		abort(); /* more valid bytes than the area holds */
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_snapshot *s;
	struct fz_region r;
	struct rs_region reg;
	struct fz_in in;

	fz_in_init(&in, data, size);
	if (fz_region_build(&r, &in) < 0)
		return 0;
	fz_region_produce(&r, &in);
	if (rs_region_open(&reg, r.mem, r.size) < 0)
		abort();
	fz_region_scribble(&r, &in, 32);
	s = rs_snapshot_alloc();
	for (uint32_t i = 0; s && i < rs_region_nr_rings(&reg); i++)
		snap_ring(&reg, i, s);
	rs_snapshot_free(s);
	fz_region_free(&r);
	return 0;
}
