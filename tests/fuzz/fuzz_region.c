/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "fuzz_region.h"

int fz_region_build(struct fz_region *r, struct fz_in *in)
{
	return fz_region_build_rings(r, in, 1);
}

int fz_region_build_rings(struct fz_region *r, struct fz_in *in,
			  uint32_t base)
{
	uint8_t shape = fz_u8(in);
	uint64_t size = 0;

	memset(r, 0, sizeof(*r));
	/* Small shapes only: every byte of the region stays within reach of
	 * a patch, and an iteration stays fast. */
	if (rs_region_params_init(&r->params, base + (shape & 1),
				  1u << ((shape >> 1) & 1),
				  (shape >> 2) & 1,
				  (shape >> 3) & 1, (shape >> 4) & 1) < 0)
		return -1;
	r->params.trace_mask = RS_TRACE_TEST;
	r->params.sideband_pages = (shape >> 5) & 1;
	if (shape & 0x40)
		r->params.data_watermark = 8;
	if (shape & 0x80)
		r->params.sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID |
					RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_PERIOD;
	if (rs_region_size(&r->params, &size) < 0)
		return -1;
	r->mem = aligned_alloc(RS_PAGE_SIZE, size);
	if (!r->mem)
		return -1;
	r->size = size;
	if (rs_region_layout(r->mem, size, &r->params) < 0) {
		fz_region_free(r);
		return -1;
	}
	return 0;
}

static void produce_ring(const struct rs_region *reg, uint32_t index,
			 struct fz_in *in)
{
	_Alignas(8) uint8_t buf[512];
	struct rs_producer p;
	unsigned nr = fz_u8(in) & 0x3f;

	if (rs_producer_init(&p, reg, index) < 0)
		return;
	for (unsigned i = 0; i < nr && in->left; i++) {
		uint8_t what = fz_u8(in);
		int size;

		if ((what & 3) == 3 && reg->rings[index].aux_size) {
			struct rs_aux_handle h;
			uint8_t bytes[256];
			size_t len = fz_take(in, bytes, fz_u8(in));

			if (rs_aux_begin(&p, &h, len) >= 0) {
				rs_aux_write(&p, &h, bytes, len);
				rs_aux_end(&p, &h, 0);
			}
			continue;
		}
		if ((what & 3) == 2) {
			/* Any record type, any body: samples, markers, LOST
			 * claims, perf's own types. */
			uint8_t type = fz_u8(in);
			size_t len = fz_take(in, buf, what >> 2);

			rs_producer_output(&p, type, 0, buf, (uint32_t)len & ~7u);
			continue;
		}
		size = rs_seq_build(buf, i, fz_u32(in), index, what >> 2);
		if (size > 0)
			rs_producer_output(&p, RS_RECORD_SEQ, 0,
					   buf + sizeof(struct rs_perf_header),
					   (uint32_t)size - sizeof(struct rs_perf_header));
	}
	rs_producer_flush_lost(&p);
}

static void produce_sideband(const struct rs_region *reg, struct fz_in *in)
{
	struct rs_sideband_writer w;
	uint8_t text[128];
	size_t len;

	if (!rs_sideband_size(reg) || rs_sideband_begin(reg, &w) < 0)
		return;
	len = fz_take(in, text, fz_u8(in) & 0x7f);
	rs_sideband_append(&w, text, len);
	rs_sideband_commit(&w, 1 + (fz_u8(in) & 1));
	if (fz_u8(in) & 1) {
		struct rs_kbuf_info info = { .nr_cpus = 1, .data_pages = 1 };
		uint64_t rows[64];

		fz_take(in, rows, sizeof(rows));
		rs_kbuf_publish(reg, &info, rows);
	}
}

void fz_region_produce(struct fz_region *r, struct fz_in *in)
{
	struct rs_region reg;

	if (rs_region_open(&reg, r->mem, r->size) < 0)
		return;
	for (uint32_t i = 0; i < reg.nr_rings; i++)
		produce_ring(&reg, i, in);
	produce_sideband(&reg, in);
}

void fz_region_scribble(struct fz_region *r, struct fz_in *in, unsigned max)
{
	for (unsigned i = 0; i < max && in->left; i++) {
		uint32_t at = fz_u32(in);
		uint8_t len = 1 + (fz_u8(in) & 15);
		uint64_t off;

		/* Half the patches land in the first pages (header, config,
		 * control pages), as a guest aiming at the host would. */
		if (at & 1)
			off = (at >> 1) % (r->size < 4 * RS_PAGE_SIZE ?
					    r->size : 4 * RS_PAGE_SIZE);
		else
			off = (at >> 1) % r->size;
		if (off + len > r->size)
			len = (uint8_t)(r->size - off);
		fz_take(in, r->mem + off, len);
	}
}

void fz_region_free(struct fz_region *r)
{
	free(r->mem);
	r->mem = NULL;
}
