/* SPDX-License-Identifier: MIT */
/* A stopped vCPU's call chain from its registers and a synthesized guest
 * kernel (introspect/src/gi_vcpu_regs.c, gi_stack.c, gi_vcpu.c): QEMU's
 * register text taken apart, a panicked task's stack walked by its call
 * sites, an interrupt stack followed to the task's, and hostile stacks
 * (loops, garbage, unreadable) bounded; the samples' time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <linux/perf_event.h>

#include "ringside/introspect.h"

#define PAGE   4096u
#define TEXT   0xffffffff81001000ull   /* one page of guest kernel code */
#define TASK   0xffffc90000010000ull   /* a 16 KiB task stack, guard above */
#define IRQ    0xffffc90000020000ull   /* a 4 KiB interrupt stack, guard above */

static uint8_t text[PAGE], task[4 * PAGE], irq[PAGE];
static uint64_t peeks;

static int peek(void *ctx, uint64_t gva, void *buf, size_t len)
{
	(void)ctx;
	peeks++;
	if (gva >= TEXT && gva + len <= TEXT + PAGE)
		memcpy(buf, text + (gva - TEXT), len);
	else if (gva >= TASK && gva + len <= TASK + sizeof(task))
		memcpy(buf, task + (gva - TASK), len);
	else if (gva >= IRQ && gva + len <= IRQ + sizeof(irq))
		memcpy(buf, irq + (gva - IRQ), len);
	else
		return -EFAULT;
	return 0;
}

/* Function starts, as offsets in the code page. */
enum {
	F_DELAY = 0x000, F_UDELAY = 0x100, F_PANIC = 0x200, F_CRASH = 0x400,
	F_HANDLE = 0x500, F_COLD = 0x600, F_WRITE = 0x700, F_THUNK = 0x800,
	F_STALE = 0x900, F_IRQ = 0xa00, F_END = 0xf00,
};

static const char kallsyms[] =
	"ffffffff81001000 T delay_tsc\n"
	"ffffffff81001100 T __const_udelay\n"
	"ffffffff81001200 T panic\n"
	"ffffffff81001400 t sysrq_handle_crash\n"
	"ffffffff81001500 T __handle_sysrq\n"
	"ffffffff81001600 t __handle_sysrq.cold\n"
	"ffffffff81001700 t write_sysrq_trigger\n"
	"ffffffff81001800 T __x86_indirect_thunk_rax\n"
	"ffffffff81001900 t stale_fn\n"
	"ffffffff81001a00 T common_interrupt\n"
	"ffffffff81001f00 T _etext\n"
	"ffffffff82000000 D some_data\n";

static struct pdf_ksyms *ksyms;

/* A call rel32 at code offset @at to @to; the return address. */
static uint64_t call(uint32_t at, uint32_t to)
{
	int32_t rel = (int32_t)to - (int32_t)(at + 5);

	text[at] = 0xe8;
	memcpy(text + at + 1, &rel, 4);
	return TEXT + at + 5;
}

/* call *%rax (ff d0) at @at; the return address. */
static uint64_t call_reg(uint32_t at)
{
	text[at] = 0xff;
	text[at + 1] = 0xd0;
	return TEXT + at + 2;
}

static void put(uint8_t *stack, uint64_t base, uint64_t at, uint64_t v)
{
	memcpy(stack + (at - base), &v, 8);
}

static uint64_t ret_udelay, ret_panic, ret_crash, ret_cold, ret_write,
		ret_stale, ret_irq;

static void setup(void)
{
	memset(text, 0xcc, sizeof(text));     /* int3: no call anywhere */
	memset(task, 0, sizeof(task));
	memset(irq, 0, sizeof(irq));
	peeks = 0;
	ret_udelay = call(F_UDELAY + 0x20, F_DELAY);
	ret_panic = call(F_PANIC + 0x50, F_UDELAY);
	/* panic() does not return: its call ends sysrq_handle_crash, and
	 * the return address is the next function's first byte */
	ret_crash = call(F_HANDLE - 5, F_PANIC);
	ret_cold = call(F_COLD + 0x10, F_THUNK);   /* op->handler() */
	ret_write = call(F_WRITE + 0x30, F_HANDLE);
	ret_stale = call(F_STALE + 0x10, F_WRITE); /* nothing calls stale_fn */
	ret_irq = call_reg(F_IRQ + 0x40);
	ck_assert_int_eq(pdf_ksyms_parse(&ksyms, kallsyms, sizeof(kallsyms) - 1), 0);
}

static void teardown(void)
{
	pdf_ksyms_free(ksyms);
	ksyms = NULL;
}

/* The panicked task: RIP in delay_tsc; on its stack, among locals, the
 * return addresses of the crash path, one stale one, and data. */
static uint64_t panicked_task(void)
{
	uint64_t sp = TASK + 3 * PAGE + 0xf00, a = sp;

	put(task, TASK, a, 0x1234), a += 8;
	put(task, TASK, a, ret_udelay), a += 8;
	put(task, TASK, a, 0xffffffff82000010ull), a += 8;  /* data */
	put(task, TASK, a, ret_panic), a += 8;
	put(task, TASK, a, TEXT + F_PANIC + 0x30), a += 8;  /* no call */
	put(task, TASK, a, ret_stale), a += 8;
	put(task, TASK, a, ret_crash), a += 8;
	put(task, TASK, a, ret_cold), a += 8;
	put(task, TASK, a, ret_write), a += 8;
	put(task, TASK, TASK + sizeof(task) - 8, 0x2b);      /* user SS */
	return sp;
}

static const char *name_at(uint64_t ip)
{
	static struct pdf_ksym s;

	return pdf_ksyms_find(ksyms, ip, &s) ? s.name : "?";
}

START_TEST(crash_path)
{
	struct gi_stack_src src = { .peek = peek, .ksyms = ksyms };
	const char *want[] = { "delay_tsc", "__const_udelay", "panic",
			       "sysrq_handle_crash", "__handle_sysrq.cold",
			       "write_sysrq_trigger" };
	struct gi_stack st;
	uint64_t sp = panicked_task();

	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_DELAY + 0x10, sp, &st), 0);
	ck_assert_uint_eq(st.nr, 6);
	for (unsigned i = 0; i < 6; i++)
		ck_assert_str_eq(name_at(st.ip[i]), want[i]);
	ck_assert_uint_eq(st.ip[1], ret_udelay - 1);
	ck_assert_uint_eq(st.stacks, 1);
	ck_assert_uint_eq(st.candidates, 6);
	ck_assert_uint_eq(st.refused, 1);      /* the stale one */
	ck_assert_uint_eq(st.bytes, 0x100);    /* up to the guard page */
	ck_assert_int_eq(st.peek_err, 0);
}
END_TEST

/* The leaf reached by a tail call (panic() called __const_udelay, which
 * jumped on to delay_tsc): panic's call does not target the leaf, and the
 * chain is kept all the same, because the frames above it link. */
START_TEST(tail_called_leaf)
{
	struct gi_stack_src src = { .peek = peek, .ksyms = ksyms };
	const char *want[] = { "delay_tsc", "panic", "sysrq_handle_crash",
			       "__handle_sysrq.cold", "write_sysrq_trigger" };
	uint64_t sp = TASK + 3 * PAGE + 0x800, a = sp;
	struct gi_stack st;

	put(task, TASK, a, ret_panic), a += 8;
	put(task, TASK, a, 0x77), a += 8;
	put(task, TASK, a, ret_crash), a += 8;
	put(task, TASK, a, ret_cold), a += 8;
	put(task, TASK, a, ret_write);
	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_DELAY + 0x10, sp, &st), 0);
	ck_assert_uint_eq(st.nr, 5);
	for (unsigned i = 0; i < 5; i++)
		ck_assert_str_eq(name_at(st.ip[i]), want[i]);
}
END_TEST

/* An interrupt on the panicking CPU: the chain runs from the interrupt
 * stack, through the pointer saved at its top, into the task's. */
START_TEST(irq_stack)
{
	struct gi_stack_src src = { .peek = peek, .ksyms = ksyms };
	uint64_t task_sp = panicked_task(), sp = IRQ + 0xe00;
	struct gi_stack st;

	/* the interrupted task was in delay_tsc: no frame of its own */
	put(irq, IRQ, sp + 0x10, ret_irq);
	put(irq, IRQ, IRQ + PAGE - 8, task_sp);
	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_IRQ + 0x80, sp, &st), 0);
	ck_assert_uint_eq(st.stacks, 2);
	ck_assert_str_eq(name_at(st.ip[0]), "common_interrupt");
	ck_assert_str_eq(name_at(st.ip[1]), "common_interrupt");
	ck_assert_str_eq(name_at(st.ip[2]), "__const_udelay");
	ck_assert_str_eq(name_at(st.ip[st.nr - 1]), "write_sysrq_trigger");
}
END_TEST

/* Stacks that point at each other: bounded by GI_STACK_MAX_STACKS. */
START_TEST(stack_loop)
{
	struct gi_stack_src src = { .peek = peek, .ksyms = ksyms };
	struct gi_stack st;

	put(irq, IRQ, IRQ + PAGE - 8, TASK + 3 * PAGE + 0x800);
	put(task, TASK, TASK + sizeof(task) - 8, IRQ + 0x800);
	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_IRQ, IRQ + 0x800, &st), 0);
	ck_assert_uint_eq(st.stacks, GI_STACK_MAX_STACKS);
	ck_assert_uint_eq(st.nr, 1);
	/* a stack that points into itself ends there */
	put(irq, IRQ, IRQ + PAGE - 8, IRQ + 0x100);
	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_IRQ, IRQ + 0x800, &st), 0);
	ck_assert_uint_eq(st.stacks, 1);
}
END_TEST

/* A stack full of valid return addresses: the chain stops at the limit. */
START_TEST(frame_limit)
{
	struct gi_stack_src src = { .peek = peek, .ksyms = ksyms };
	struct gi_stack st;

	for (uint64_t a = TASK; a < TASK + sizeof(task); a += 8)
		put(task, TASK, a, ret_irq);
	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_IRQ, TASK, &st), 0);
	ck_assert_uint_eq(st.nr, GI_STACK_MAX_FRAMES);
}
END_TEST

START_TEST(unreadable_or_outside)
{
	struct gi_stack_src src = { .peek = peek, .ksyms = ksyms };
	struct gi_stack st;

	/* RSP in no mapped page */
	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_PANIC, 0xffffc900deadb000ull,
				       &st), 0);
	ck_assert_int_ne(st.peek_err, 0);
	ck_assert_uint_eq(st.nr, 1);
	/* RIP outside kernel text: that address alone, no read at all */
	peeks = 0;
	ck_assert_int_eq(gi_stack_walk(&src, 0x401000, panicked_task(), &st), 0);
	ck_assert_uint_eq(st.nr, 1);
	ck_assert_uint_eq(st.ip[0], 0x401000);
	ck_assert_uint_eq(peeks, 0);
	/* RIP in data */
	ck_assert_int_eq(gi_stack_walk(&src, 0xffffffff82000008ull,
				       panicked_task(), &st), 0);
	ck_assert_uint_eq(st.nr, 1);
	/* garbage: text addresses with no call before them */
	for (uint64_t a = TASK; a < TASK + sizeof(task); a += 8)
		put(task, TASK, a, TEXT + (a & 0xff8) + 1);
	ck_assert_int_eq(gi_stack_walk(&src, TEXT + F_PANIC, TASK, &st), 0);
	ck_assert_uint_eq(st.nr, 1);
	ck_assert_uint_eq(st.candidates, 0);
}
END_TEST

/* QEMU 7.2's "info registers -a" of a 2-vCPU x86-64 guest, abridged. */
static const char regs_text[] =
	"CPU#0\r\n"
	"RAX=0000000000000000 RBX=ffffffff82a13940 RCX=0000000000000000 RDX=0000000000000001\r\n"
	"RSI=0000000000000083 RDI=0000000000000000 RBP=0000000000000000 RSP=ffffffff82a03e90\r\n"
	"R8 =ffff88807dc28f20 R9 =0000000000000000 R10=0000000000000001 R11=0000000000000000\r\n"
	"RIP=ffffffff81d5a0fb RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=1\r\n"
	"ES =0000 0000000000000000 00000000 00000000\r\n"
	"CR0=80050033 CR2=00007f5ec0e5e6f0 CR3=0000000002a10000 CR4=00350ef0\r\n"
	"CPU#1\r\n"
	"RAX=000000000000002b RBX=0000000000000000 RCX=0000000000000000 RDX=0000000000000000\r\n"
	"RSI=0000000000000000 RDI=0000000000000000 RBP=00007ffd1b1fcd60 RSP=00007ffd1b1fcd48\r\n"
	"RIP=0000000000401626 RFL=00000202 [-------] CPL=3 II=0 A20=1 SMM=0 HLT=0\r\n";

START_TEST(regs_parse)
{
	struct gi_vcpu_regs r[4];
	uint32_t n;

	ck_assert_int_eq(gi_vcpu_regs_parse(regs_text, r, 4, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(r[0].cpu, 0);
	ck_assert_uint_eq(r[0].rip, 0xffffffff81d5a0fbull);
	ck_assert_uint_eq(r[0].rsp, 0xffffffff82a03e90ull);
	ck_assert_uint_eq(r[0].cpl, 0);
	ck_assert_int_eq(r[0].halted, 1);
	ck_assert_uint_eq(r[1].cpu, 1);
	ck_assert_uint_eq(r[1].rip, 0x401626);
	ck_assert_uint_eq(r[1].rbp, 0x7ffd1b1fcd60ull);
	ck_assert_uint_eq(r[1].cpl, 3);
	ck_assert_int_eq(r[1].halted, 0);
	/* only as many as asked for */
	ck_assert_int_eq(gi_vcpu_regs_parse(regs_text, r, 1, &n), 0);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(regs_hostile)
{
	struct gi_vcpu_regs r[4];
	uint32_t n;

	ck_assert_int_eq(gi_vcpu_regs_parse("", r, 4, &n), -EINVAL);
	ck_assert_int_eq(gi_vcpu_regs_parse("error: no such command", r, 4, &n),
			 -EINVAL);
	/* a 32-bit guest's names, a CPU without RSP, a huge CPU number */
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#0\nEIP=00101128 ESP=00106efc\n",
					    r, 4, &n), -EINVAL);
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#0\nRIP=1\n", r, 4, &n), -EINVAL);
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#99999\nRIP=1 RSP=2\n", r, 4, &n),
			 -EINVAL);
	/* a name inside another, more than 16 digits, no digits */
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#0\nXRIP=1 RSP=2\n", r, 4, &n),
			 -EINVAL);
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#0\nRIP=11111111111111111 RSP=2\n",
					    r, 4, &n), -EINVAL);
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#0\nRIP= RSP=2\n", r, 4, &n),
			 -EINVAL);
	/* text ending inside a value */
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#0\nRSP=2 RIP=", r, 4, &n), -EINVAL);
	ck_assert_int_eq(gi_vcpu_regs_parse("CPU#7\nRSP=2 RIP=ab", r, 4, &n), 0);
	ck_assert_uint_eq(r[0].cpu, 7);
	ck_assert_uint_eq(r[0].rip, 0xab);
}
END_TEST

static char *regs_answer;
static int regs_err;

static int registers(void *ctx, char **out)
{
	(void)ctx;
	*out = regs_answer ? strdup(regs_answer) : NULL;
	return regs_err;
}

/* Each vCPU as a sample: perf's layout, the chain under its context. */
START_TEST(vcpu_samples)
{
	const uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			      PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	struct gi_vcpu_src src = { .registers = registers, .peek = peek };
	struct pdf_sample smp;
	struct pdf_buf rec;
	struct gi_vcpu g;
	uint64_t chain[8];
	char answer[512];

	snprintf(answer, sizeof(answer), "CPU#0\nRSP=%llx\nRIP=%llx CPL=0 HLT=0\n"
		 "CPU#1\nRSP=7ffd0000\nRIP=401000 CPL=3 HLT=0\n",
		 (unsigned long long)panicked_task(),
		 (unsigned long long)(TEXT + F_DELAY + 8));
	regs_answer = answer;
	regs_err = 0;
	gi_vcpu_init(&g);
	pdf_buf_init(&rec);
	ck_assert_int_eq(gi_vcpu_take(&g, &src, ksyms), 0);
	ck_assert_int_eq(g.state, GI_VCPU_OK);
	ck_assert_uint_eq(g.nr, 2);
	ck_assert_uint_eq(g.cpu[0].stack.nr, 6);

	ck_assert_int_eq(gi_vcpu_sample(&g, 0, type, 777, &rec), 0);
	ck_assert_uint_eq(((struct rs_perf_header *)rec.data)->size, rec.len);
	ck_assert_int_eq(pdf_sample_parse(type, rec.data + 8, rec.len - 8, &smp), 0);
	ck_assert_uint_eq(smp.ip, TEXT + F_DELAY + 8);
	ck_assert_uint_eq(smp.time, 777);
	ck_assert_uint_eq(smp.pid, UINT32_MAX);
	ck_assert_uint_eq(smp.cpu, 0);
	ck_assert_uint_eq(smp.callchain_nr, 7);
	memcpy(chain, rec.data + 8 + 8 + 8 + 8 + 8 + 8 + 8, sizeof(chain[0]) * 7);
	ck_assert_uint_eq(chain[0], PERF_CONTEXT_KERNEL);
	ck_assert_str_eq(name_at(chain[6]), "write_sysrq_trigger");
	ck_assert_uint_eq(((struct rs_perf_header *)rec.data)->misc,
			  PERF_RECORD_MISC_KERNEL);

	ck_assert_int_eq(gi_vcpu_sample(&g, 1, type, 778, &rec), 0);
	ck_assert_int_eq(pdf_sample_parse(type, rec.data + 8, rec.len - 8, &smp), 0);
	ck_assert_uint_eq(smp.ip, 0x401000);
	ck_assert_uint_eq(smp.callchain_nr, 2);
	ck_assert_uint_eq(((struct rs_perf_header *)rec.data)->misc,
			  PERF_RECORD_MISC_USER);
	/* a sample_type it cannot fill */
	ck_assert_int_eq(gi_vcpu_sample(&g, 0, type | PERF_SAMPLE_READ, 1, &rec),
			 -EOPNOTSUPP);

	/* no symbols, no registers, registers of another machine */
	ck_assert_int_eq(gi_vcpu_take(&g, &src, NULL), 0);
	ck_assert_int_eq(g.state, GI_VCPU_NO_SYMBOLS);
	regs_err = -EIO;
	ck_assert_int_eq(gi_vcpu_take(&g, &src, ksyms), 0);
	ck_assert_int_eq(g.state, GI_VCPU_NO_REGISTERS);
	ck_assert_int_eq(g.err, -EIO);
	regs_err = 0;
	regs_answer = "CPU#0\nEIP=1 ESP=2\n";
	ck_assert_int_eq(gi_vcpu_take(&g, &src, ksyms), 0);
	ck_assert_int_eq(g.state, GI_VCPU_BAD_REGISTERS);
	pdf_buf_fini(&rec);
	gi_vcpu_fini(&g);
}
END_TEST

/* The vCPU samples' time: when the host had read everything, in the
 * guest's clock by the time sync, whatever time a record claimed; only
 * without a sync after the newest record. */
START_TEST(vcpu_time)
{
	struct pdf_clock_sync cs = { .state = PDF_CLOCK_SYNCED, .nr = 1 };
	const uint64_t host = 100000000000ull;   /* 100 s */
	uint64_t t;

	/* guest CLOCK_MONOTONIC 5 s ahead of the host's */
	cs.pt[0] = (struct pdf_clock_point){ .guest_ns = 90000000000ull,
					     .offset_ns = 5000000000ll,
					     .bound_ns = 1000 };
	ck_assert_uint_eq(gi_vcpu_time(&cs, host, 97000000000ull), 105000000000ull);
	/* a record stamped far in the future drags nothing along */
	ck_assert_uint_eq(gi_vcpu_time(&cs, host, UINT64_MAX), 105000000000ull);
	ck_assert_uint_eq(gi_vcpu_time(&cs, host, 0), 105000000000ull);
	/* two syncs, 10 us of drift over 10 s: back to @host within 1 ns */
	cs.nr = 2;
	cs.pt[1] = (struct pdf_clock_point){ .guest_ns = 100000000000ull,
					     .offset_ns = 5000010000ll,
					     .bound_ns = 1000 };
	t = gi_vcpu_time(&cs, host, UINT64_MAX);
	ck_assert_uint_ge(pdf_clock_to_host(&cs, t) + 1, host);
	ck_assert_uint_le(pdf_clock_to_host(&cs, t), host + 1);
	ck_assert_uint_gt(t, 105000000000ull);
	/* a guest clock behind the host's by more than the host ran: 0 */
	cs.nr = 1;
	cs.pt[0].offset_ns = -200000000000ll;
	ck_assert_uint_eq(gi_vcpu_time(&cs, host, 5), 0);
	/* no sync: the records' clock, just after the newest */
	cs.state = PDF_CLOCK_NO_ANSWER;
	ck_assert_uint_eq(gi_vcpu_time(&cs, host, 5), 6);
	ck_assert_uint_eq(gi_vcpu_time(NULL, host, 5), 6);
	ck_assert_uint_eq(gi_vcpu_time(&cs, host, UINT64_MAX),
			  UINT64_MAX - GI_VCPU_REGS_MAX);
	/* a sync but no end of the reading known: likewise */
	cs.state = PDF_CLOCK_SYNCED;
	ck_assert_uint_eq(gi_vcpu_time(&cs, 0, 5), 6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcpu_stack");
	TCase *tc = tcase_create("walk");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, crash_path);
	tcase_add_test(tc, tail_called_leaf);
	tcase_add_test(tc, irq_stack);
	tcase_add_test(tc, stack_loop);
	tcase_add_test(tc, frame_limit);
	tcase_add_test(tc, unreadable_or_outside);
	tcase_add_test(tc, regs_parse);
	tcase_add_test(tc, regs_hostile);
	tcase_add_test(tc, vcpu_samples);
	tcase_add_test(tc, vcpu_time);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
