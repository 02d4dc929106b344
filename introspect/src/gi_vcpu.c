/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ringside/gi_vcpu.h"
#include "ringside/perf_format.h"

/* The sample fields gi_vcpu_sample can fill. */
#define FILLABLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

void gi_vcpu_init(struct gi_vcpu *g)
{
	memset(g, 0, sizeof(*g));
}

void gi_vcpu_fini(struct gi_vcpu *g)
{
	free(g->cpu);
	gi_vcpu_init(g);
}

int gi_vcpu_take(struct gi_vcpu *g, const struct gi_vcpu_src *src,
		 const struct pdf_ksyms *ksyms)
{
	struct gi_stack_src ss = { .peek = src->peek, .ctx = src->ctx,
				 .ksyms = ksyms };
	struct gi_vcpu_regs *regs;
	char *text = NULL;
	uint32_t n, i;
	int err;

	gi_vcpu_fini(g);
	g->errstr = src->errstr;
	g->ksyms = ksyms;
	if (!ksyms) {
		g->state = GI_VCPU_NO_SYMBOLS;
		return 0;
	}
	err = src->registers(src->ctx, &text);
	if (err) {
		free(text);
		g->state = GI_VCPU_NO_REGISTERS;
		g->err = err;
		return 0;
	}
	regs = malloc(GI_VCPU_REGS_MAX * sizeof(*regs));
	if (!regs) {
		free(text);
		return -ENOMEM;
	}
	err = gi_vcpu_regs_parse(text ? text : "", regs, GI_VCPU_REGS_MAX, &n);
	free(text);
	if (err) {
		free(regs);
		g->state = GI_VCPU_BAD_REGISTERS;
		return 0;
	}
	g->cpu = calloc(n, sizeof(*g->cpu));
	if (!g->cpu) {
		free(regs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		g->cpu[i].regs = regs[i];
		/* a user-mode vCPU: its kernel stack holds nothing now */
		if (regs[i].cpl == 3) {
			g->cpu[i].stack.ip[0] = regs[i].rip;
			g->cpu[i].stack.nr = 1;
			continue;
		}
		err = gi_stack_walk(&ss, regs[i].rip, regs[i].rsp, &g->cpu[i].stack);
		if (err) {
			free(regs);
			return err;
		}
	}
	free(regs);
	g->nr = n;
	g->state = GI_VCPU_OK;
	return 0;
}

int gi_vcpu_sample(const struct gi_vcpu *g, uint32_t i, uint64_t sample_type,
		   uint64_t time, struct pdf_buf *out)
{
	const struct gi_vcpu_one *c = &g->cpu[i];
	uint64_t chain[1 + GI_STACK_MAX_FRAMES];
	static const uint8_t no_raw[4];   /* none, as the kernel writes it */
	struct pdf_sample smp = {
		.ip = c->regs.rip,
		.pid = UINT32_MAX,
		.tid = UINT32_MAX,
		.time = time,
		.cpu = c->regs.cpu,
		.period = 1,                  /* weighs nothing in a report */
		.callchain_nr = 1 + c->stack.nr,
		.callchain = chain,
		.raw_size = sizeof(no_raw),
		.raw = no_raw,
	};
	int err;

	if (sample_type & ~(uint64_t)FILLABLE)
		return -EOPNOTSUPP;
	chain[0] = c->regs.cpl == 3 ? PERF_CONTEXT_USER : PERF_CONTEXT_KERNEL;
	memcpy(chain + 1, c->stack.ip, c->stack.nr * sizeof(uint64_t));
	out->len = 0;
	err = pdf_sample_build(sample_type, c->regs.cpl == 3 ?
			       RS_PERF_MISC_USER : RS_PERF_MISC_KERNEL, &smp, out);
	if (err == PDF_ERR(pdfe_too_big))
		return -E2BIG;
	return err == PDF_ERR(pdfe_invalid) ? -EOPNOTSUPP : err;
}

/* @a + @b - @c, held to what a sample time may be (room for every vCPU) */
static uint64_t shift(uint64_t a, uint64_t b, uint64_t c)
{
	__int128 t = (__int128)a + (__int128)b - (__int128)c;

	if (t < 0)
		return 0;
	return t > UINT64_MAX - GI_VCPU_REGS_MAX ? UINT64_MAX - GI_VCPU_REGS_MAX
					      : (uint64_t)t;
}

uint64_t gi_vcpu_time(const struct pdf_clock_sync *cs, uint64_t host_ns,
		      uint64_t newest)
{
	uint64_t g;

	/* what converts a file's times (pdf_writer_set_clock) */
	if (!cs || cs->state != PDF_CLOCK_SYNCED || !cs->nr || cs->nr > 2 ||
	    !host_ns)
		return shift(newest, 1, 0);
	/* the sync converts guest to host; its inverse at @host_ns by two
	 * steps: the offset hardly changes (a clock's drift) between them */
	g = shift(host_ns, host_ns, pdf_clock_to_host(cs, host_ns));
	return shift(host_ns, g, pdf_clock_to_host(cs, g));
}

