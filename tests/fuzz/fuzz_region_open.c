/* SPDX-License-Identifier: MIT */
/*
 * Target: the host opening a region the guest has scribbled over, and
 * every read the host makes of the guest-writable parts a validated
 * region describes (status, configuration, control pages, time
 * conversion, the sideband's symbols and perf buffer table, the guest's
 * identity block).
 */
#include <stdlib.h>

#include "fuzz_region.h"

/* Rings of the region before the shape's bit (fuzz_region_table.c: past
 * the header's, so that the ring table is parsed too). */
#ifndef FZ_BASE_RINGS
#define FZ_BASE_RINGS 1u
#endif

static void read_all(const struct rs_region *reg)
{
	struct rs_guest_status status;
	struct rs_guest_info gi;
	struct rs_sideband_info info;
	struct rs_kbuf_info kinfo;
	struct rs_config cfg;
	uint64_t sb = rs_sideband_size(reg);
	uint32_t enabled;

	rs_region_status_read(reg, &status, &enabled);
	rs_guest_config_read(reg, &cfg);
	if (rs_guest_info_read(reg, &gi) == 1 && gi.magic != RS_GUEST_INFO_MAGIC)
		abort(); /* an accepted block has its magic */
	for (uint32_t i = 0; i < rs_region_nr_rings(reg); i++) {
		struct rs_ring_state st;
		struct rs_time_conv tc;
		struct rs_ring ring;

		if (rs_region_ring(reg, i, &ring) < 0)
			abort(); /* every ring of a validated region resolves */
		rs_ring_state_read(&ring, &st);
		if (rs_ring_time_read(&ring, &tc) == 1)
			rs_time_to_ns(&tc, st.data_head);
	}
	if (sb) {
		uint8_t *buf = malloc(sb);

		if (!buf)
			return;
		rs_sideband_read(reg, buf, sb, &info);
		rs_kbuf_read(reg, buf, sb, &kinfo);
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_region r;
	struct rs_region reg;
	struct fz_in in;

	fz_in_init(&in, data, size);
	if (fz_region_build_rings(&r, &in, FZ_BASE_RINGS) < 0)
		return 0;
	fz_region_produce(&r, &in);
	fz_region_scribble(&r, &in, 64);
	if (rs_region_open(&reg, r.mem, r.size) == 0)
		read_all(&reg);
	fz_region_free(&r);
	return 0;
}
