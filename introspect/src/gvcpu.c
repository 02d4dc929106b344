/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ringside/introspect.h"
#include "ringside/perf_format.h"

/* The sample fields gvcpu_sample can fill. */
#define FILLABLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

void gvcpu_init(struct gvcpu *g)
{
	memset(g, 0, sizeof(*g));
}

void gvcpu_fini(struct gvcpu *g)
{
	free(g->cpu);
	gvcpu_init(g);
}

int gvcpu_take(struct gvcpu *g, const struct gvcpu_src *src,
	       const struct pdf_ksyms *ksyms)
{
	struct gstack_src ss = { .peek = src->peek, .ctx = src->ctx,
				 .ksyms = ksyms };
	struct vcpu_regs *regs;
	char *text = NULL;
	uint32_t n, i;
	int err;

	gvcpu_fini(g);
	g->errstr = src->errstr;
	g->ksyms = ksyms;
	if (!ksyms) {
		g->state = GVCPU_NO_SYMBOLS;
		return 0;
	}
	err = src->registers(src->ctx, &text);
	if (err) {
		free(text);
		g->state = GVCPU_NO_REGISTERS;
		g->err = err;
		return 0;
	}
	regs = malloc(VCPU_REGS_MAX * sizeof(*regs));
	if (!regs) {
		free(text);
		return -ENOMEM;
	}
	err = vcpu_regs_parse(text ? text : "", regs, VCPU_REGS_MAX, &n);
	free(text);
	if (err) {
		free(regs);
		g->state = GVCPU_BAD_REGISTERS;
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
		err = gstack_walk(&ss, regs[i].rip, regs[i].rsp, &g->cpu[i].stack);
		if (err) {
			free(regs);
			return err;
		}
	}
	free(regs);
	g->nr = n;
	g->state = GVCPU_OK;
	return 0;
}

int gvcpu_sample(const struct gvcpu *g, uint32_t i, uint64_t sample_type,
		 uint64_t time, struct pdf_buf *out)
{
	const struct gvcpu_one *c = &g->cpu[i];
	struct rs_perf_header h = { .type = RS_PERF_RECORD_SAMPLE };
	size_t size;

	if (sample_type & ~(uint64_t)FILLABLE)
		return -EOPNOTSUPP;
	h.misc = c->regs.cpl == 3 ? RS_PERF_MISC_USER : RS_PERF_MISC_KERNEL;
	out->len = 0;
	pdf_buf_add(out, &h, sizeof(h));
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		pdf_buf_add_u64(out, 0);
	if (sample_type & PERF_SAMPLE_IP)
		pdf_buf_add_u64(out, c->regs.rip);
	if (sample_type & PERF_SAMPLE_TID) {
		pdf_buf_add_u32(out, UINT32_MAX);
		pdf_buf_add_u32(out, UINT32_MAX);
	}
	if (sample_type & PERF_SAMPLE_TIME)
		pdf_buf_add_u64(out, time);
	if (sample_type & PERF_SAMPLE_ADDR)
		pdf_buf_add_u64(out, 0);
	if (sample_type & PERF_SAMPLE_ID)
		pdf_buf_add_u64(out, 0);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		pdf_buf_add_u64(out, 0);
	if (sample_type & PERF_SAMPLE_CPU) {
		pdf_buf_add_u32(out, c->regs.cpu);
		pdf_buf_add_u32(out, 0);
	}
	if (sample_type & PERF_SAMPLE_PERIOD)
		pdf_buf_add_u64(out, 1);     /* weighs nothing in a report */
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		pdf_buf_add_u64(out, c->stack.nr + 1);
		pdf_buf_add_u64(out, c->regs.cpl == 3 ? PERF_CONTEXT_USER
						      : PERF_CONTEXT_KERNEL);
		pdf_buf_add(out, c->stack.ip, c->stack.nr * sizeof(uint64_t));
	}
	if (sample_type & PERF_SAMPLE_RAW) {  /* none, as the kernel writes it */
		pdf_buf_add_u32(out, 4);
		pdf_buf_add_u32(out, 0);
	}
	if (out->err)
		return out->err;
	size = out->len;
	if (size > UINT16_MAX)
		return -E2BIG;
	h.size = (uint16_t)size;
	memcpy(out->data, &h, sizeof(h));
	return 0;
}

/* @a + @b - @c, held to what a sample time may be (room for every vCPU) */
static uint64_t shift(uint64_t a, uint64_t b, uint64_t c)
{
	__int128 t = (__int128)a + (__int128)b - (__int128)c;

	if (t < 0)
		return 0;
	return t > UINT64_MAX - VCPU_REGS_MAX ? UINT64_MAX - VCPU_REGS_MAX
					      : (uint64_t)t;
}

uint64_t gvcpu_time(const struct pdf_clock_sync *cs, uint64_t host_ns,
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

