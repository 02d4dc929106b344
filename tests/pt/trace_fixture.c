// SPDX-License-Identifier: MIT
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_fixture.h"

#define FX_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

void tr_require_kvm(void)
{
	if (access("/dev/kvm", R_OK | W_OK) != 0) {
		fprintf(stderr, "SKIP: /dev/kvm is not usable here\n");
		exit(77);
	}
}

static void on_log(void *arg, int level, const char *fmt, va_list ap)
{
	struct tr *x = arg;

	(void)level;
	vsnprintf(x->log, sizeof(x->log), fmt, ap);
}

void tr_opts(struct tr_opts *o, uint32_t workload, uint32_t iterations)
{
	memset(o, 0, sizeof(*o));
	o->workload = workload;
	o->iterations = iterations;
	o->aux_pages = 64;
	o->aux_mode = RS_MODE_NORMAL;
	o->drain = 1;
	o->tp.size = sizeof(o->tp);
}

static int on_record(const struct rs_perf_header *rec, void *arg)
{
	struct tr *x = arg;
	struct rs_perf_aux a;

	if (rec->type != RS_PERF_RECORD_AUX)
		return 0;
	memcpy(&a, rec, sizeof(a));
	x->aux_recs++;
	if (a.flags & RS_PERF_AUX_FLAG_TRUNCATED)
		x->aux_truncated++;
	if (a.flags & RS_PERF_AUX_FLAG_PARTIAL)
		x->aux_partial++;
	return 0;
}

static int on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct tr *x = arg;

	if (!x->aux_len)
		x->aux_pos = pos;
	x->aux = realloc(x->aux, x->aux_len + len);
	ck_assert_ptr_nonnull(x->aux);
	memcpy(x->aux + x->aux_len, chunk, len);
	x->aux_len += len;
	return 0;
}

static void drain(struct tr *x)
{
	ck_assert_int_ge(rs_consumer_drain(x->cons, on_record, x), 0);
	ck_assert_int_ge(rs_consumer_drain_aux(x->cons, on_aux, x), 0);
}

void tr_run(struct tr *x, const struct tr_opts *o)
{
	struct pv_trace_params tp = o->tp;
	struct vmm_params p;
	const char *payload = getenv("RS_PT_PAYLOAD");
	int polls = 0;

	memset(x, 0, sizeof(*x));
	ck_assert_msg(payload != NULL, "RS_PT_PAYLOAD not set");
	vmm_params_init(&p);
	p.nr_vcpus = 1;
	p.data_pages = 16;
	p.aux_pages = o->aux_pages;
	p.aux_mode = o->aux_mode;
	p.aux_watermark = o->aux_pages * 4096 / 2;
	p.log = on_log;
	p.log_arg = x;
	ck_assert_msg(vmm_create(&x->vm, &p) == 0, "create: %s", x->log);
	ck_assert_msg(vmm_load_file(x->vm, payload) == 0, "load: %s", x->log);
	tp.size = sizeof(tp);
	tp.workload = o->workload;
	tp.iterations = o->iterations;
	ck_assert_msg(pv_trace_attach(&x->t, x->vm, &tp) == 0, "attach: %s",
		      x->log);
	if (o->aux_mode == RS_MODE_NORMAL) {
		x->cons = rs_consumer_alloc(vmm_region(x->vm), 0);
		ck_assert_ptr_nonnull(x->cons);
	}
	ck_assert_int_eq(vmm_start(x->vm), 0);
	/* Counted polls, not time: a hung guest fails after ~50 s. */
	while (vmm_wait(x->vm, 10) == -ETIMEDOUT) {
		if (o->drain && x->cons)
			drain(x);
		FX_CHECK(++polls < 5000, "guest did not finish");
	}
	if (getenv("PT_DEBUG")) {
		const struct pv_trace_stats *st = pv_trace_stats(x->t);
		struct rs_vmm_vcpu_info vi;
		uint64_t n;
		const uint64_t *tr = pv_trace_truth(x->t, &n);

		vmm_cpu_info(x->vm, 0, &vi);
		fprintf(stderr, "vcpu state %s err %d rip %#llx exit %u | steps %llu insns %llu async %llu bp %llu irq %llu en %llu dis %llu hlt %llu err %d | last %#llx\n",
			vmm_cpu_state_name(vi.state), vi.error,
			(unsigned long long)vi.rip, vi.exit_reason,
			(unsigned long long)st->steps, (unsigned long long)st->insns,
			(unsigned long long)st->async, (unsigned long long)st->breakpoints,
			(unsigned long long)st->irqs, (unsigned long long)st->enables,
			(unsigned long long)st->disables, (unsigned long long)st->hlt_stops,
			st->error, (unsigned long long)(n ? tr[n - 1] : 0));
		fprintf(stderr, "  bytes %llu packets %llu psb %llu tip %llu tnt %llu\n",
			(unsigned long long)pv_trace_gen_stats(x->t)->bytes,
			(unsigned long long)pv_trace_gen_stats(x->t)->packets,
			(unsigned long long)pv_trace_gen_stats(x->t)->psb,
			(unsigned long long)pv_trace_gen_stats(x->t)->tip,
			(unsigned long long)pv_trace_gen_stats(x->t)->tnt);
	}
	ck_assert_int_eq(pv_trace_finish(x->t), 0);
	/* Without draining during the run, the ring holds what fit. */
	if (x->cons)
		drain(x);
}

static int on_item(void *arg, const struct pv_decode_item *it)
{
	struct tr *x = arg;

	if (it->kind < 8)
		x->dec_kinds[it->kind]++;
	if (it->kind != PV_DEC_INSN)
		return 0;
	if (x->ndecoded == x->decoded_cap) {
		x->decoded_cap = x->decoded_cap ? 2 * x->decoded_cap : 4096;
		x->decoded = realloc(x->decoded, x->decoded_cap * sizeof(uint64_t));
		ck_assert_ptr_nonnull(x->decoded);
	}
	x->decoded[x->ndecoded++] = it->ip;
	return 0;
}

static void *vm_ptr(void *arg, uint64_t gpa, uint64_t len)
{
	return vmm_mem_guest_ptr(arg, gpa, len);
}

void tr_decode(struct tr *x, int last_psb)
{
	struct pv_decode_params p = {
		.size = sizeof(p), .from_last_psb = last_psb, .trace = x->aux,
		.len = x->aux_len, .code = { vm_ptr, x->vm }, .fn = on_item,
		.arg = x,
	};

	x->ndecoded = 0;
	memset(x->dec_kinds, 0, sizeof(x->dec_kinds));
	ck_assert_int_eq(pv_decode_run(&p, &x->dec), 0);
}

static void compare(struct tr *x, uint64_t from)
{
	uint64_t n;
	const uint64_t *truth = pv_trace_truth(x->t, &n);

	for (uint64_t i = 0; i < x->ndecoded; i++)
		FX_CHECK(from + i < n && x->decoded[i] == truth[from + i],
			 "instruction %llu: decoded %#llx, ground truth %#llx",
			 (unsigned long long)i,
			 (unsigned long long)x->decoded[i],
			 (unsigned long long)(from + i < n ? truth[from + i] : 0));
}

void tr_check_equal(struct tr *x)
{
	uint64_t n;

	pv_trace_truth(x->t, &n);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(x->dec.errors, 0);
	compare(x, 0);
	if (getenv("PT_DEBUG") && x->ndecoded != n) {
		const uint64_t *tr = pv_trace_truth(x->t, &n);

		for (uint64_t i = x->ndecoded > 3 ? x->ndecoded - 3 : 0; i < n; i++)
			fprintf(stderr, "truth[%llu] %#llx %s\n", (unsigned long long)i,
				(unsigned long long)tr[i], i < x->ndecoded ? "decoded" : "");
	}
	ck_assert_uint_eq(x->ndecoded, n);
}

void tr_check_prefix(struct tr *x)
{
	ck_assert_uint_gt(x->ndecoded, 0);
	compare(x, 0);
}

void tr_check_suffix(struct tr *x)
{
	uint64_t n;

	pv_trace_truth(x->t, &n);
	ck_assert_uint_gt(x->ndecoded, 0);
	ck_assert_uint_le(x->ndecoded, n);
	compare(x, n - x->ndecoded);
}

void tr_fini(struct tr *x)
{
	rs_consumer_free(x->cons);
	pv_trace_free(x->t);
	vmm_destroy(x->vm);
	free(x->aux);
	free(x->decoded);
	memset(x, 0, sizeof(*x));
}
