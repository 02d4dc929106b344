// SPDX-License-Identifier: MIT
/*
 * A perf.data file of kernel PT as `ringside record|snapshot DOMAIN`
 * writes one, without a guest: a small code image at the kernel's
 * addresses, a scripted run of it (what the QEMU plugin would see) fed to
 * pt-virt's generator, the packets stored as ring 0's AUX by ringside's
 * writer, with a guest kallsyms and the code image put in the build-id
 * cache (pdf_writer_add_kcore).  perf_itrace_kernel.sh then has `perf
 * script --itrace` and `ringside decode` decode it.
 *
 *   pt_kernel_data OUT.data TRUTH BUILDID_DIR
 *
 * TRUTH: the address of each instruction fed to the generator, one a line
 * (hex, no 0x), in order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/perfdata.h"
#include "ringside/pt_codec.h"

#define KBASE 0xffffffff81000000ull
#define CODE_LEN 0x2000u   /* pdf_writer_code_ranges: to the map's end */

/* Position-independent code, so that it runs at KBASE as it would at 0. */
static const uint8_t code[CODE_LEN] = {
	[0x00] = 0xb9, 0x03, 0x00, 0x00, 0x00,  /* mov ecx, 3 */
	[0x05] = 0xe8, 0x06, 0x00, 0x00, 0x00,  /* call +0x10 (rs_leaf) */
	[0x0a] = 0xff, 0xc9,                    /* dec ecx */
	[0x0c] = 0x75, 0xf7,                    /* jne +0x05 */
	[0x0e] = 0xff, 0xe0,                    /* jmp rax (+0x20) */
	[0x10] = 0xc3,                          /* ret */
	[0x20] = 0xcc,                          /* int3 (handler +0x30) */
	[0x21] = 0x90,                          /* nop */
	[0x22] = 0xff, 0xd3,                    /* call rbx (+0x40) */
	[0x24] = 0x90,                          /* nop */
	[0x25] = 0xf4,                          /* hlt */
	[0x30] = 0x48, 0xcf,                    /* iretq */
	[0x40] = 0xc3,                          /* ret */
};

/* The run, as offsets from KBASE: (instruction, the next one). */
static const uint16_t script[][2] = {
	{ 0x00, 0x05 }, { 0x05, 0x10 }, { 0x10, 0x0a }, { 0x0a, 0x0c },
	{ 0x0c, 0x05 }, { 0x05, 0x10 }, { 0x10, 0x0a }, { 0x0a, 0x0c },
	{ 0x0c, 0x05 }, { 0x05, 0x10 }, { 0x10, 0x0a }, { 0x0a, 0x0c },
	{ 0x0c, 0x0e }, { 0x0e, 0x20 }, { 0x20, 0x30 }, { 0x30, 0x21 },
	{ 0x21, 0x22 }, { 0x22, 0x40 }, { 0x40, 0x24 }, { 0x24, 0x25 },
};
#define NSCRIPT (sizeof(script) / sizeof(script[0]))
#define ROUNDS 50   /* the run again and again: several PSBs */

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T rs_start\n"
	"ffffffff81000010 t rs_leaf\n"
	"ffffffff81000020 T rs_trap\n"
	"ffffffff81000030 T rs_handler\n"
	"ffffffff81000040 t rs_leaf2\n"
	"ffffffff81000041 T rs_end\n"
	"ffffffff81001000 T _etext\n";

static uint8_t trace[1 << 20];
static uint64_t trace_len;

static int64_t sink(void *arg, const void *buf, uint64_t len)
{
	(void)arg;
	if (trace_len + len > sizeof(trace))
		return 0;
	memcpy(trace + trace_len, buf, len);
	trace_len += len;
	return (int64_t)len;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "pt_kernel_data: %s: %d\n", what, err);
	return 1;
}

int main(int argc, char **argv)
{
	struct pv_gen_params gp = {
		.size = sizeof(gp), .psb_period = 256, .tsc = true, .sink = sink,
	};
	struct pdf_writer_params wp = {
		.size = sizeof(wp), .nr_rings = 1,
		.sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID |
			       RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_CPU,
		.argc = argc, .argv = argv,
		.guest_kallsyms = kallsyms, .guest_kallsyms_len = sizeof(kallsyms) - 1,
		.aux_format = PDF_AUX_INTEL_PT,
	};
	struct pdf_kcore_seg seg = { KBASE, CODE_LEN, code };
	struct pdf_code_range range;
	struct pdf_writer *w;
	struct pv_gen *g;
	uint64_t tsc = 1;
	FILE *truth;
	int err, r, i;

	if (argc != 4) {
		fprintf(stderr, "usage: pt_kernel_data OUT.data TRUTH BUILDID_DIR\n");
		return 2;
	}
	wp.buildid_dir = argv[3];
	truth = fopen(argv[2], "w");
	g = pv_gen_alloc(&gp);
	if (!truth || !g)
		return die("setup", -1);
	if ((err = pv_gen_enable(g, KBASE, tsc)))
		return die("pv_gen_enable", err);
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < (int)NSCRIPT; i++) {
			uint64_t ip = KBASE + script[i][0];
			uint64_t next = KBASE + script[i][1];
			struct pv_insn in;

			/* the last instruction of a round goes back to the start */
			if (i == (int)NSCRIPT - 1 && r + 1 < ROUNDS)
				next = KBASE;
			if ((err = pv_insn_classify(code + script[i][0], 15, ip, &in)))
				return die("pv_insn_classify", err);
			if (i == (int)NSCRIPT - 1 && r + 1 < ROUNDS) {
				/* an interrupt takes it back: FUP, TIP */
				if ((err = pv_gen_insn(g, &in, KBASE + 0x25, ++tsc)))
					return die("pv_gen_insn", err);
				if ((err = pv_gen_event(g, KBASE + 0x25, next)))
					return die("pv_gen_event", err);
			} else if ((err = pv_gen_insn(g, &in, next, ++tsc))) {
				return die("pv_gen_insn", err);
			}
			fprintf(truth, "%" PRIx64 "\n", ip);
		}
	}
	if ((err = pv_gen_disable(g, KBASE + 0x25)))
		return die("pv_gen_disable", err);
	if (pv_gen_stats(g)->lost)
		return die("trace buffer too small", 0);
	pv_gen_free(g);
	if (fclose(truth))
		return die("truth", -1);

	if ((err = pdf_writer_open(&w, argv[1], &wp)))
		return die(pdf_error_str(err), err);
	if (pdf_writer_stats(w)->ksyms_err)
		return die("kallsyms", pdf_writer_stats(w)->ksyms_err);
	/* the range ringside reads from a guest; here the image is it */
	if (pdf_writer_code_ranges(w, &range, 1) != 1 || range.start != KBASE ||
	    range.end != KBASE + CODE_LEN)
		return die("pdf_writer_code_ranges", -1);
	if ((err = pdf_writer_add_kcore(w, &seg, 1)))
		return die("pdf_writer_add_kcore", err);
	if ((err = pdf_writer_add_aux(w, 0, 0, trace, trace_len)))
		return die("pdf_writer_add_aux", err);
	if ((err = pdf_writer_finish(w)))
		return die("pdf_writer_finish", err);
	printf("%d instructions, %" PRIu64 " PT bytes\n", ROUNDS * (int)NSCRIPT,
	       trace_len);
	return 0;
}
