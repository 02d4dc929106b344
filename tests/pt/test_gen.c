// SPDX-License-Identifier: MIT
/*
 * Generator and decoder, without a VM: a hand-assembled program, a
 * scripted execution (what single-stepping would report), packets from
 * pv_gen, and libipt's instruction decoder must give back exactly the
 * scripted instructions.  Variants: frequent PSBs, no RET compression, an
 * interrupt, an overflow, decoding from the last PSB.  Also the
 * classifier and the disassembly `ringside decode` prints.
 */
#include <stdio.h>
#include <unistd.h>

#include "ringside/pt_codec.h"
#include "pt_fixture.h"

#define CODE 0x1000ull

static const uint8_t code[] = {
	[0x00] = 0xb9, 0x03, 0x00, 0x00, 0x00,  /* mov ecx, 3 */
	[0x05] = 0xe8, 0x06, 0x00, 0x00, 0x00,  /* call 0x1010 */
	[0x0a] = 0xff, 0xc9,                    /* dec ecx */
	[0x0c] = 0x75, 0xf7,                    /* jne 0x1005 */
	[0x0e] = 0xff, 0xe0,                    /* jmp rax (0x1020) */
	[0x10] = 0xc3,                          /* ret */
	[0x20] = 0xcc,                          /* int3 (handler 0x1030) */
	[0x21] = 0x90,                          /* nop */
	[0x22] = 0xff, 0xd3,                    /* call rbx (0x1040) */
	[0x24] = 0x90,                          /* nop */
	[0x25] = 0xf4,                          /* hlt */
	[0x30] = 0x48, 0xcf,                    /* iretq */
	[0x40] = 0xc3,                          /* ret */
	[0x50] = 0xeb, 0xfe,                    /* jmp . */
};

/* Code far from CODE: its addresses share no upper bits with it. */
#define FAR 0x7f0000001000ull
static const uint8_t far_code[] = { 0x90, 0x90, 0x90, 0xf4 }; /* nop x3, hlt */

/* The scripted run: pairs (ip, next). */
static const uint64_t script[][2] = {
	{ 0x1000, 0x1005 }, { 0x1005, 0x1010 }, { 0x1010, 0x100a },
	{ 0x100a, 0x100c }, { 0x100c, 0x1005 }, { 0x1005, 0x1010 },
	{ 0x1010, 0x100a }, { 0x100a, 0x100c }, { 0x100c, 0x1005 },
	{ 0x1005, 0x1010 }, { 0x1010, 0x100a }, { 0x100a, 0x100c },
	{ 0x100c, 0x100e }, { 0x100e, 0x1020 }, { 0x1020, 0x1030 },
	{ 0x1030, 0x1021 }, { 0x1021, 0x1022 }, { 0x1022, 0x1040 },
	{ 0x1040, 0x1024 }, { 0x1024, 0x1025 },
};
#define NSCRIPT (sizeof(script) / sizeof(script[0]))

static struct fx_mem mem;
static uint8_t trace[1 << 16];
static uint64_t trace_len;
static uint64_t truth[256], decoded[256];
static size_t ntruth, ndecoded, nevents[8];

static bool drop;       /* the output loses what the generator made */

static int64_t sink(void *arg, const void *buf, uint64_t len)
{
	(void)arg;
	if (drop)
		return 0;
	ck_assert_uint_le(trace_len + len, sizeof(trace));
	memcpy(trace + trace_len, buf, len);
	trace_len += len;
	return (int64_t)len;
}

static void setup(void)
{
	memset(&mem, 0, sizeof(mem));
	memcpy(fx_mem_add(&mem, CODE, 0x1000), code, sizeof(code));
	memcpy(fx_mem_add(&mem, FAR, 0x1000), far_code, sizeof(far_code));
	trace_len = ntruth = ndecoded = 0;
	drop = false;
	memset(nevents, 0, sizeof(nevents));
}

static void teardown(void)
{
	fx_mem_free(&mem);
}

static struct pv_gen *gen(uint64_t psb, bool no_retcomp)
{
	struct pv_gen_params p = {
		.size = sizeof(p), .psb_period = psb, .tsc = true,
		.no_retcomp = no_retcomp, .sink = sink,
	};
	struct pv_gen *g = pv_gen_alloc(&p);

	ck_assert_ptr_nonnull(g);
	return g;
}

static void step(struct pv_gen *g, uint64_t ip, uint64_t next)
{
	struct pv_insn in;

	ck_assert_int_eq(pv_insn_classify(code + (ip - CODE), 15, ip, &in), 0);
	ck_assert_int_eq(pv_gen_insn(g, &in, next, 1000 + ntruth), 0);
	truth[ntruth++] = ip;
}

static int on_item(void *arg, const struct pv_decode_item *it)
{
	(void)arg;
	if (it->kind == PV_DEC_INSN)
		decoded[ndecoded++] = it->ip;
	if (it->kind < 8)
		nevents[it->kind]++;
	return 0;
}

static struct pv_decode_stats decode(bool last_psb)
{
	struct pv_decode_params p = {
		.size = sizeof(p), .from_last_psb = last_psb, .trace = trace,
		.len = trace_len, .code = fx_pv_mem(&mem), .fn = on_item,
	};
	struct pv_decode_stats st;

	ck_assert_int_eq(pv_decode_run(&p, &st), 0);
	return st;
}

static void same(size_t from)
{
	ck_assert_uint_eq(ndecoded, ntruth - from);
	for (size_t i = 0; i < ndecoded; i++)
		ck_assert_msg(decoded[i] == truth[from + i],
			      "insn %zu: decoded %#llx, ran %#llx", i,
			      (unsigned long long)decoded[i],
			      (unsigned long long)truth[from + i]);
}

static void run_script(uint64_t psb, bool no_retcomp)
{
	struct pv_gen *g = gen(psb, no_retcomp);
	struct pv_decode_stats st;

	ck_assert_int_eq(pv_gen_enable(g, 0x1000, 1), 0);
	for (size_t i = 0; i < NSCRIPT; i++)
		step(g, script[i][0], script[i][1]);
	ck_assert_int_eq(pv_gen_disable(g, 0x1025), 0);
	st = decode(false);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_uint_eq(st.enabled, 1);
	ck_assert_uint_eq(st.disabled, 1);
	same(0);
	ck_assert_uint_eq(pv_gen_stats(g)->insns, NSCRIPT);
	ck_assert_uint_eq(pv_gen_stats(g)->bytes, trace_len);
	pv_gen_free(g);
}

START_TEST(roundtrip_plain)
{
	run_script(4096, false);
	/* 3 compressed rets of 4 (the 4th, via call rbx, too): TNT only. */
	ck_assert_uint_eq(nevents[PV_DEC_SYNC], 1);
}
END_TEST

START_TEST(roundtrip_psb_every_few_bytes)
{
	run_script(4, false);
	ck_assert_uint_gt(nevents[PV_DEC_SYNC], 0);
}
END_TEST

START_TEST(roundtrip_no_retcomp)
{
	run_script(4096, true);
}
END_TEST

START_TEST(roundtrip_interrupt)
{
	struct pv_gen *g = gen(4096, false);
	struct pv_decode_stats st;

	ck_assert_int_eq(pv_gen_enable(g, 0x1000, 1), 0);
	for (size_t i = 0; i < NSCRIPT; i++) {
		if (i == 6) {
			/* Interrupted before 0x1010, handler is the iretq. */
			ck_assert_int_eq(pv_gen_event(g, 0x1010, 0x1030), 0);
			step(g, 0x1030, 0x1010);
		}
		step(g, script[i][0], script[i][1]);
	}
	ck_assert_int_eq(pv_gen_disable(g, 0x1025), 0);
	st = decode(false);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_uint_eq(st.interrupts, 1);
	same(0);
	pv_gen_free(g);
}
END_TEST

/* The QEMU plugin's filter: a branch out of it is TIP.PGD with its
 * target (pv_gen_leave), coming back is TIP.PGE alone (pv_gen_reenable). */
START_TEST(roundtrip_leave_and_reenable)
{
	struct pv_gen *g = gen(4096, false);
	struct pv_decode_stats st;
	struct pv_insn in;
	uint64_t pge = 0;

	ck_assert_int_eq(pv_gen_enable(g, 0x1000, 1), 0);
	step(g, 0x1000, 0x1005);
	step(g, 0x1005, 0x1010);
	step(g, 0x1010, 0x100a);
	step(g, 0x100a, 0x100c);
	step(g, 0x100c, 0x100e);
	/* jmp rax to 0x1020, outside the filter */
	ck_assert_int_eq(pv_insn_classify(code + 0xe, 15, 0x100e, &in), 0);
	ck_assert_int_eq(pv_gen_leave(g, &in, 0x1020), 0);
	truth[ntruth++] = 0x100e;
	ck_assert_int_eq(pv_gen_leave(g, &in, 0x1020), 0);   /* off: nothing */
	pge = pv_gen_stats(g)->psb;
	ck_assert_int_eq(pv_gen_reenable(g, 0x1021), 0);
	ck_assert_uint_eq(pv_gen_stats(g)->psb, pge);          /* no PSB+ */
	step(g, 0x1021, 0x1022);
	step(g, 0x1022, 0x1040);
	step(g, 0x1040, 0x1024);
	step(g, 0x1024, 0x1025);
	ck_assert_int_eq(pv_gen_disable(g, 0x1025), 0);
	st = decode(false);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_uint_eq(st.enabled, 2);
	ck_assert_uint_eq(st.disabled, 2);
	same(0);
	ck_assert_uint_eq(pv_gen_stats(g)->pgd, 2);
	ck_assert_uint_eq(pv_gen_stats(g)->pge, 2);
	pv_gen_free(g);
}
END_TEST

START_TEST(roundtrip_overflow)
{
	struct pv_gen *g = gen(4096, false);
	struct pv_decode_stats st;

	ck_assert_int_eq(pv_gen_enable(g, 0x1000, 1), 0);
	for (size_t i = 0; i < NSCRIPT; i++) {
		if (i == 13) {
			/* Lost: the jne at 0x100c and the jmp; resume at 0x1020. */
			ck_assert_int_eq(pv_gen_overflow(g, 0x1020), 0);
			ntruth -= 1;    /* the jne's bit went with the OVF */
			i++;
			continue;
		}
		step(g, script[i][0], script[i][1]);
	}
	ck_assert_int_eq(pv_gen_disable(g, 0x1025), 0);
	st = decode(false);
	ck_assert_uint_eq(st.overflows, 1);
	ck_assert_uint_eq(pv_gen_stats(g)->ovf, 1);
	/* Everything before the lost TNT bits and everything after. */
	ck_assert_uint_ge(ndecoded, NSCRIPT - 8);
	ck_assert_uint_eq(decoded[ndecoded - 1], 0x1024);
	pv_gen_free(g);
}
END_TEST

/*
 * Packets the generator made and the output dropped (a full ToPA) moved
 * the generator's last IP where the decoder's never went: the FUP after
 * the OVF must not be compressed against it.  Here the lost TIP went far
 * away, and the trace resumes next to it.
 */
START_TEST(overflow_after_dropped_packets)
{
	struct pv_gen *g = gen(4096, false);
	struct pv_insn in;
	struct pv_decode_stats st;

	ck_assert_int_eq(pv_gen_enable(g, 0x1000, 1), 0);
	for (size_t i = 0; i < 13; i++)
		step(g, script[i][0], script[i][1]);
	ck_assert_int_eq(pv_gen_flush(g), 0);
	drop = true;
	/* jmp rax to FAR: its TIP is lost */
	ck_assert_int_eq(pv_insn_classify(code + 0x0e, 15, 0x100e, &in), 0);
	ck_assert_int_eq(pv_gen_insn(g, &in, FAR, 2000), 0);
	ck_assert_int_eq(pv_gen_flush(g), 0);
	ck_assert_uint_gt(pv_gen_stats(g)->lost, 0);
	drop = false;
	ck_assert_int_eq(pv_gen_overflow(g, FAR + 1), 0);
	ck_assert_int_eq(pv_insn_classify(far_code + 1, 3, FAR + 1, &in), 0);
	ck_assert_int_eq(pv_gen_insn(g, &in, FAR + 2, 2001), 0);
	ck_assert_int_eq(pv_gen_disable(g, FAR + 2), 0);
	st = decode(false);
	ck_assert_uint_eq(st.overflows, 1);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_uint_gt(ndecoded, 1);
	ck_assert_msg(decoded[ndecoded - 1] == FAR + 1,
		      "the last decoded instruction is %#llx, not FAR + 1",
		      (unsigned long long)decoded[ndecoded - 1]);
	pv_gen_free(g);
}
END_TEST

static uint64_t nstall, stall_errors;
static int32_t stall_code;

static int count_item(void *arg, const struct pv_decode_item *it)
{
	(void)arg;
	nstall += it->kind == PV_DEC_INSN;
	if (it->kind == PV_DEC_ERROR) {
		stall_errors++;
		stall_code = it->code;
	}
	return 0;
}

/* Code that needs no packet and never ends (jmp .): the decoder stops it
 * after PV_DEC_STALL instructions instead of looping for ever. */
START_TEST(decode_endless_loop_stops)
{
	struct pv_gen *g = gen(4096, false);
	struct pv_decode_params p = {
		.size = sizeof(p), .trace = trace, .code = fx_pv_mem(&mem),
		.fn = count_item,
	};
	struct pv_decode_stats st;

	ck_assert_int_eq(pv_gen_enable(g, 0x1050, 1), 0);
	ck_assert_int_eq(pv_gen_flush(g), 0);
	p.len = trace_len;
	nstall = stall_errors = 0;
	ck_assert_int_eq(pv_decode_run(&p, &st), 0);
	ck_assert_uint_eq(stall_errors, 1);
	ck_assert_int_eq(stall_code, PV_DEC_ERR_STALL);
	ck_assert_uint_eq(nstall, PV_DEC_STALL);
	pv_gen_free(g);
}
END_TEST

START_TEST(decode_from_last_psb)
{
	struct pv_gen *g = gen(4, false);
	struct pv_decode_stats st;
	size_t skip;

	ck_assert_int_eq(pv_gen_enable(g, 0x1000, 1), 0);
	for (size_t i = 0; i < NSCRIPT; i++)
		step(g, script[i][0], script[i][1]);
	ck_assert_int_eq(pv_gen_disable(g, 0x1025), 0);
	ck_assert_uint_gt(pv_gen_stats(g)->psb, 2);
	st = decode(true);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_uint_gt(st.first_sync, 0);
	/* A suffix of the run, ending where it ended. */
	ck_assert_uint_gt(ndecoded, 0);
	ck_assert_uint_lt(ndecoded, ntruth);
	skip = ntruth - ndecoded;
	same(skip);
	pv_gen_free(g);
}
END_TEST

START_TEST(classify_classes)
{
	struct pv_insn in;

	ck_assert_int_eq(pv_insn_classify(code + 0x0c, 2, 0x100c, &in), 0);
	ck_assert_int_eq(in.iclass, PV_INSN_JCC);
	ck_assert_uint_eq(in.target, 0x1005);
	ck_assert_int_eq(pv_insn_classify(code + 0x05, 5, 0x1005, &in), 0);
	ck_assert_int_eq(in.iclass, PV_INSN_CALL);
	ck_assert_uint_eq(in.target, 0x1010);
	ck_assert_int_eq(pv_insn_classify(code + 0x0e, 2, 0x100e, &in), 0);
	ck_assert_int_eq(in.iclass, PV_INSN_JMP_IND);
	ck_assert_int_eq(pv_insn_classify(code + 0x22, 2, 0x1022, &in), 0);
	ck_assert_int_eq(in.iclass, PV_INSN_CALL_IND);
	ck_assert_int_eq(pv_insn_classify(code + 0x10, 1, 0x1010, &in), 0);
	ck_assert_int_eq(in.iclass, PV_INSN_RET);
	ck_assert_int_eq(pv_insn_classify(code + 0x20, 1, 0x1020, &in), 0);
	ck_assert_int_eq(in.iclass, PV_INSN_FAR);
	ck_assert_int_eq(pv_insn_classify(code + 0x30, 2, 0x1030, &in), 0);
	ck_assert_int_eq(in.iclass, PV_INSN_FAR);
	ck_assert_int_eq(pv_insn_classify(code + 0x25, 1, 0x1025, &in), 0);
	ck_assert(in.hlt);
	ck_assert_int_eq(pv_insn_classify(code + 0x05, 2, 0x1005, &in), -pve_insn);
	ck_assert_int_eq(pv_insn_classify(NULL, 2, 0, &in), -pve_invalid);
	/* memory it accesses, off the stack: what a fault can be fixed up in */
	{
		static const uint8_t load[] = { 0x48, 0x8b, 0x10 };  /* mov (%rax),%rdx */
		static const uint8_t nopl[] = { 0x0f, 0x1f, 0x00 };  /* nopl (%rax) */
		static const uint8_t lea[] = { 0x48, 0x8d, 0x10 };   /* lea (%rax),%rdx */
		static const uint8_t reg[] = { 0x48, 0x89, 0xc2 };   /* mov %rax,%rdx */
		static const uint8_t stk[] = { 0x48, 0x89, 0x04, 0x24 }; /* mov %rax,(%rsp) */

		ck_assert_int_eq(pv_insn_classify(load, 3, 0, &in), 0);
		ck_assert(in.mem);
		ck_assert_int_eq(pv_insn_classify(nopl, 3, 0, &in), 0);
		ck_assert(!in.mem);
		ck_assert_int_eq(pv_insn_classify(lea, 3, 0, &in), 0);
		ck_assert(!in.mem);
		ck_assert_int_eq(pv_insn_classify(reg, 3, 0, &in), 0);
		ck_assert(!in.mem);
		ck_assert_int_eq(pv_insn_classify(stk, 4, 0, &in), 0);
		ck_assert(!in.mem);
	}
}
END_TEST

START_TEST(disasm_att)
{
	char text[PV_INSN_TEXT];

	ck_assert_int_eq(pv_insn_disasm(code + 0x05, 5, 0x1005, text,
					sizeof(text)), 23);
	ck_assert_str_eq(text, "call 0x0000000000001010");
	ck_assert_int_eq(pv_insn_disasm(code + 0x0e, 2, 0x100e, text,
					sizeof(text)), 8);
	ck_assert_str_eq(text, "jmp %rax");
	/* Too small a buffer: truncated, the full length returned. */
	ck_assert_int_eq(pv_insn_disasm(code + 0x0e, 2, 0x100e, text, 4), 8);
	ck_assert_str_eq(text, "jmp");
	ck_assert_int_eq(pv_insn_disasm(code + 0x05, 2, 0x1005, text,
					sizeof(text)), -pve_insn);
}
END_TEST

START_TEST(disasm_null)
{
	char text[PV_INSN_TEXT];

	ck_assert_int_eq(pv_insn_disasm(NULL, 2, 0, text, sizeof(text)),
			 -pve_invalid);
	ck_assert_int_eq(pv_insn_disasm(code, 2, 0, NULL, sizeof(text)),
			 -pve_invalid);
	ck_assert_int_eq(pv_insn_disasm(code, 2, 0, text, 0), -pve_invalid);
}
END_TEST

START_TEST(capture_roundtrip_and_hostile)
{
	struct pv_gen *g = gen(4096, false);
	struct pv_capture c = { 0 }, r;
	char path[] = "/tmp/pt-capXXXXXX";
	struct pv_mem m;
	FILE *f;
	int fd;

	ck_assert_int_eq(pv_gen_enable(g, 0x1000, 1), 0);
	for (size_t i = 0; i < NSCRIPT; i++)
		step(g, script[i][0], script[i][1]);
	ck_assert_int_eq(pv_gen_disable(g, 0x1025), 0);
	ck_assert_int_eq(pv_capture_add(&c, PV_CAP_MEM, CODE, code, sizeof(code)), 0);
	ck_assert_int_eq(pv_capture_add(&c, PV_CAP_TRACE, 0, trace, trace_len), 0);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pv_capture_write(&c, fd), 0);
	close(fd);
	ck_assert_int_eq(pv_capture_read(&r, path), 0);
	ck_assert_uint_eq(r.nr, 2);
	ck_assert_uint_eq(pv_capture_find(&r, PV_CAP_TRACE)->len, trace_len);
	m = pv_capture_mem(&r);
	ck_assert_ptr_nonnull(m.ptr(m.arg, 0x1000, 5));
	ck_assert_ptr_null(m.ptr(m.arg, 0x1000, sizeof(code) + 1));
	ck_assert_ptr_null(pv_capture_find(&r, PV_CAP_TRUTH));
	pv_capture_fini(&r);
	/* Cut the file short: every cut is refused, never read past. */
	for (long cut = 0; cut < 64; cut += 7) {
		ck_assert_int_eq(truncate(path, cut), 0);
		ck_assert_int_eq(pv_capture_read(&r, path), -pve_format);
	}
	f = fopen(path, "wb");
	fwrite("RSPTCAP1\1\0\0\0\xff\xff\xff\xff", 16, 1, f);
	fclose(f);
	ck_assert_int_eq(pv_capture_read(&r, path), -pve_format);
	ck_assert_int_eq(pv_capture_read(&r, "/nonexistent/x"), -pve_io);
	unlink(path);
	pv_capture_fini(&c);
	pv_gen_free(g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt-gen");
	TCase *t = tcase_create("gen");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, classify_classes);
	tcase_add_test(t, disasm_att);
	tcase_add_test(t, disasm_null);
	tcase_add_test(t, roundtrip_plain);
	tcase_add_test(t, roundtrip_psb_every_few_bytes);
	tcase_add_test(t, roundtrip_no_retcomp);
	tcase_add_test(t, roundtrip_interrupt);
	tcase_add_test(t, roundtrip_overflow);
	tcase_add_test(t, roundtrip_leave_and_reenable);
	tcase_add_test(t, decode_from_last_psb);
	tcase_add_test(t, overflow_after_dropped_packets);
	tcase_add_test(t, decode_endless_loop_stops);
	tcase_add_test(t, capture_roundtrip_and_hostile);
	suite_add_tcase(s, t);
	return fx_run(s);
}
