/* SPDX-License-Identifier: MIT */
/*
 * Target: what the host reads of the guest kernel through the sideband:
 * its kallsyms (gi_syms_read) and the table of its own perf buffers, whose
 * control and data pages the host then reads out of guest memory
 * (gi_kbuf_recover, introspect/src/gi_kbuf.c).  The input: a shape byte, the table's
 * rows (page numbers into guest memory), the kallsyms text, patches over
 * the sideband area, then guest memory itself (16 pages from address 0).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "fuzz_record.h"
#include "ringside/introspect.h"

#define GUEST_PAGES 16u
#define TYPE (RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID | RS_PERF_SAMPLE_TIME)

static uint8_t guest[GUEST_PAGES * RS_PAGE_SIZE];

static int peek(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	(void)ctx;
	if (gpa > sizeof(guest) || len > sizeof(guest) - gpa)
		return -EFAULT;
	memcpy(buf, guest + gpa, len);
	return 0;
}

static const char *peek_err(int err)
{
	return err == -EFAULT ? "outside guest memory" : "?";
}

/* Guest side: the table, then the kallsyms below it, as the agent does. */
static void publish(const struct rs_region *reg, struct fz_in *in,
		    uint8_t shape)
{
	struct rs_kbuf_info info = {
		.nr_cpus = 1 + ((shape >> 1) & 3),
		.data_pages = 1u << ((shape >> 3) & 1),
		.sample_type = TYPE,
	};
	uint64_t rows[4 * RS_KBUF_ROW_WORDS(2)];
	struct rs_sideband_writer w;
	uint64_t words = RS_KBUF_ROW_WORDS(info.data_pages);
	uint8_t text[256];
	size_t len;

	for (uint32_t i = 0; i < info.nr_cpus; i++) {
		rows[i * words] = (shape & 0x20) ? fz_u8(in) : i;
		for (uint64_t j = 1; j < words; j++)
			rows[i * words + j] = (uint64_t)(fz_u8(in) % (GUEST_PAGES + 1)) *
					      RS_PAGE_SIZE;
	}
	if (rs_kbuf_publish(reg, &info, rows) < 0)
		info.table_offset = rs_sideband_size(reg);
	if (rs_sideband_begin(reg, &w) < 0)
		return;
	rs_sideband_limit(&w, info.table_offset);
	len = fz_take(in, text, fz_u8(in));
	rs_sideband_append(&w, text, len);
	rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS);
}

static void scribble(const struct rs_region *reg, struct fz_in *in)
{
	uint8_t *area = reg->base + reg->sideband_offset;
	unsigned nr = fz_u8(in) & 7;

	for (unsigned i = 0; i < nr; i++) {
		uint64_t off = fz_u16(in) % reg->sideband_size;
		uint8_t len = 1 + (fz_u8(in) & 7);

		if (off + len > reg->sideband_size)
			len = (uint8_t)(reg->sideband_size - off);
		fz_take(in, area + off, len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_region_params p;
	struct pdf_rrec_clock clk = { 0 };
	struct gi_kbuf_src src = { .peek = peek, .errstr = peek_err };
	struct rs_region reg;
	struct gi_syms gs = { 0 };
	struct gi_kbuf g;
	struct fz_in in;
	uint64_t rsize;
	uint8_t *mem, shape;

	fz_in_init(&in, data, size);
	shape = fz_u8(&in);
	rs_region_params_init(&p, 1, 1, 0, RS_MODE_OVERWRITE, RS_MODE_NORMAL);
	p.sample_type = TYPE;
	p.sideband_pages = 1 + (shape & 1);
	if (rs_region_size(&p, &rsize) < 0 ||
	    !(mem = aligned_alloc(RS_PAGE_SIZE, rsize)))
		return 0;
	if (rs_region_layout(mem, rsize, &p) < 0 ||
	    rs_region_open(&reg, mem, rsize) < 0)
		abort();
	publish(&reg, &in, shape);
	scribble(&reg, &in);
	memset(guest, 0, sizeof(guest));
	fz_take(&in, guest, in.left < sizeof(guest) ? in.left : sizeof(guest));
	src.ram[0][1] = sizeof(guest);

	if (gi_syms_read(&gs, &reg, 0) == 0 && gs.state == GI_SYMS_OK &&
	    gs.functions && !gs.text)
		abort();   /* symbols counted from a text it did not keep */
	gi_syms_fini(&gs);
	gi_kbuf_init(&g);
	if (gi_kbuf_recover(&g, &reg, &src, TYPE) == 0) {
		for (size_t i = 0; i < gi_kbuf_count(&g); i++) {
			uint32_t cpu;

			fz_record_examine(&clk, gi_kbuf_record(&g, i, &cpu), TYPE);
		}
		for (size_t i = 0; i < gi_kbuf_fork_count(&g); i++) {
			struct gi_kbuf_fork f;

			/* a new process's birth: another process's child */
			if (gi_kbuf_fork_get(&g, i, &f) || !f.pid || !f.ppid ||
			    f.pid == f.ppid || f.pid == UINT32_MAX ||
			    f.ppid == UINT32_MAX || f.cpu >= RS_KBUF_MAX_CPUS)
				abort();
		}
		if (gi_kbuf_fork_count(&g) != g.forks)
			abort();
	}
	gi_kbuf_fini(&g);
	free(mem);
	return 0;
}
