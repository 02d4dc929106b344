// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * QEMU's side of the PT plugin (QEMU 7.2's TCG plugin API):
 *
 *   -plugin ringside-qemu-pt.so,region=FILE[,filter=kernel|all][,psb=BYTES]
 *           [,wait=SECONDS][,truth=FILE][,truth_max=N]
 *
 * At translation each block is interned (tb.c) and gets an execution
 * callback carrying it; in test mode each traced instruction also gets one
 * that logs its address.  At execution the vCPU's flow (flow.c) turns the
 * block sequence into packets.  Nothing here may take QEMU down: a bad
 * argument refuses the plugin at load, a region it cannot use leaves the
 * vCPUs untraced, said on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "qpt.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_TB_BYTES (4096 * 2)

static struct qpt q;

static int64_t to_aux(void *arg, const void *buf, uint64_t len)
{
	struct qpt_vcpu *v = arg;

	qpt_output_wait(&q, v, len);
	return pv_aux_write(&v->aux, buf, len);
}

/* The vCPU this thread executed last: the one a translation on this
 * thread is for (MTTCG: one thread per vCPU). */
static __thread unsigned this_vcpu;

static void on_exec(unsigned int vcpu, void *udata)
{
	this_vcpu = vcpu;
	if (vcpu < q.nvcpus) {
		q.v[vcpu].blocks++;
		qpt_flow_block(&q.v[vcpu], udata, q.v[vcpu].ntruth);
	}
}

static void on_idle(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu < q.nvcpus)
		qpt_flow_idle(&q.v[vcpu]);
}

/* A watched memory access completed (a faulting one never gets here). */
static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	(void)info;
	(void)vaddr;
	if (vcpu < q.nvcpus) {
		q.v[vcpu].mem_ip = (uint64_t)(uintptr_t)udata;
		q.v[vcpu].mem_seq = q.v[vcpu].blocks;
	}
}

static void on_insn(unsigned int vcpu, void *udata)
{
	if (vcpu < q.nvcpus)
		qpt_truth_insn(&q, &q.v[vcpu], (uint64_t)(uintptr_t)udata);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	uint8_t bytes[MAX_TB_BYTES], lens[512];
	uint32_t nbytes = 0;
	struct qpt_tb *t;
	bool fresh;

	(void)id;
	/* Nothing to trace and no truth to keep: cost QEMU nothing. */
	if (!q.tracing || !n || n > sizeof(lens))
		return;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
		size_t sz = qemu_plugin_insn_size(in);

		/* A block's instructions are consecutive; anything else is
		 * not a block this plugin can describe. */
		if (!sz || sz > 15 || nbytes + sz > sizeof(bytes) ||
		    qemu_plugin_insn_vaddr(in) != start + nbytes)
			return;
		memcpy(bytes + nbytes, qemu_plugin_insn_data(in), sz);
		lens[i] = (uint8_t)sz;
		nbytes += sz;
	}
	t = qpt_tb_get(&q, start, bytes, nbytes, lens, (uint32_t)n, &fresh);
	if (!t)
		return;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS,
					     t);
	if (t->inside)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, &q.insns, n);
	for (size_t i = 0, k = 0; i < n && k < t->nmem; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_vaddr(in) != t->mem_ip[k])
			continue;
		qemu_plugin_register_vcpu_mem_cb(in, on_mem,
			QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
			(void *)(uintptr_t)t->mem_ip[k]);
		k++;
	}
	if (!q.o.truth || !t->inside)
		return;
	qpt_truth_code(&q, t, this_vcpu);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_insn_exec_cb(in, on_insn,
			QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)qemu_plugin_insn_vaddr(in));
	}
}

static void summary(void)
{
	uint64_t tot[4] = { 0 };

	for (unsigned i = 0; i < q.nvcpus; i++) {
		struct qpt_vcpu *v = &q.v[i];
		const struct pv_gen_stats *g = pv_gen_stats(v->gen);

		if (!g)
			continue;
		fprintf(stderr, "ringside-qemu-pt: vCPU %u: %" PRIu64 " packets, %"
			PRIu64 " bytes, %" PRIu64 " lost, %" PRIu64 " events (%"
			PRIu64 " exceptions, %" PRIu64 " fixed up elsewhere, %"
			PRIu64 " guessed), %" PRIu64
			" overflows, %" PRIu64 " restarts, %" PRIu64 " PSB, %" PRIu64 " enables, %"
			PRIu64 " blocks, %" PRIu64 " branches, %" PRIu64
			" errors; AUX %s, head %" PRIu64 "; %" PRIu64 " idle (%"
			PRIu64 " guessed there)", i, g->packets,
			g->bytes, g->lost, v->events, v->exceptions, v->fixups,
			v->guessed,
			v->overflows, v->restarts, g->psb, v->enables, v->blocks, g->insns,
			v->gen_errors, v->aux.snapshot ? "snapshot" : "normal",
			v->aux.head, v->idles, v->idle_guessed);
		if (q.o.wait_s)
			fprintf(stderr, "; waited for room %" PRIu64 " times, %"
				PRIu64 " ms, gave up %" PRIu64, v->waits,
				v->wait_ns / 1000000, v->wait_gaveup);
		fprintf(stderr, "\n");
		tot[0] += g->packets;
		tot[1] += g->bytes;
		tot[2] += g->lost;
		tot[3] += v->events;
	}
	fprintf(stderr, "ringside-qemu-pt: total: %" PRIu64 " packets, %" PRIu64
		" bytes, %" PRIu64 " lost, %" PRIu64 " events; %" PRIu64
		" blocks translated, ~%" PRIu64 " traced instructions\n",
		tot[0], tot[1], tot[2], tot[3], q.ntb, q.insns);
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	for (unsigned i = 0; i < q.nvcpus; i++)
		qpt_flow_finish(&q.v[i]);
	qpt_output_close(&q);
	summary();
	if (q.o.truth && qpt_truth_close(&q) < 0)
		fprintf(stderr, "ringside-qemu-pt: %s: the truth file is "
			"incomplete (write failed)\n", q.o.truth);
}

static bool number(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	*out = strtoull(s, &end, 0);
	return !*end;
}

static int parse(int argc, char **argv)
{
	q.o.psb = 4096;
	q.o.truth_max = 1u << 22;
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i], *val = eq ? eq + 1 : "";
		size_t kl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);

		if (kl == 6 && !strncmp(k, "region", 6) && *val) {
			q.o.region = val;
		} else if (kl == 6 && !strncmp(k, "filter", 6) &&
			   (!strcmp(val, "kernel") || !strcmp(val, "all"))) {
			q.o.filter_all = !strcmp(val, "all");
		} else if (kl == 3 && !strncmp(k, "psb", 3) &&
			   number(val, &q.o.psb) && q.o.psb >= 256 &&
			   q.o.psb <= (1u << 20)) {
		} else if (kl == 4 && !strncmp(k, "wait", 4) &&
			   number(val, &q.o.wait_s) && q.o.wait_s <= 3600) {
		} else if (kl == 5 && !strncmp(k, "truth", 5) && *val) {
			q.o.truth = val;
		} else if (kl == 9 && !strncmp(k, "truth_max", 9) &&
			   number(val, &q.o.truth_max) && q.o.truth_max &&
			   q.o.truth_max <= (1ull << 28)) {
		} else {
			fprintf(stderr, "ringside-qemu-pt: bad argument '%s' "
				"(region=FILE[,filter=kernel|all][,psb=256..1048576]"
				"[,wait=0..3600][,truth=FILE][,truth_max=1..2^28])\n",
				argv[i]);
			return -1;
		}
	}
	if (!q.o.region) {
		fprintf(stderr, "ringside-qemu-pt: region=FILE is required\n");
		return -1;
	}
	return 0;
}

static void setup_vcpus(void)
{
	char err[256];
	unsigned untraced = 0;

	if (qpt_output_open(&q, err, sizeof(err)) < 0) {
		fprintf(stderr, "ringside-qemu-pt: %s; nothing is traced\n", err);
		return;
	}
	for (unsigned i = 0; i < q.nvcpus; i++) {
		struct qpt_vcpu *v = &q.v[i];
		struct pv_gen_params gp = {
			.size = sizeof(gp), .psb_period = q.o.psb, .tsc = true,
			.sink = to_aux, .sink_arg = v,
		};

		err[0] = 0;
		if (qpt_output_vcpu(&q, v, err, sizeof(err)) < 0) {
			/* One line per kind of problem, not per vCPU. */
			if (!untraced++)
				fprintf(stderr, "ringside-qemu-pt: %s\n", err);
			continue;
		}
		v->gen = pv_gen_alloc(&gp);
		q.tracing |= v->gen != NULL;
	}
	if (untraced)
		fprintf(stderr, "ringside-qemu-pt: %u of %u vCPUs not traced\n",
			untraced, q.nvcpus);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "ringside-qemu-pt: only qemu-system-x86_64\n");
		return -1;
	}
	if (parse(argc, argv) < 0)
		return -1;
	q.nvcpus = info->system.max_vcpus > 0 ? (unsigned)info->system.max_vcpus : 1;
	q.v = calloc(q.nvcpus, sizeof(*q.v));
	if (!q.v || qpt_tb_init(&q) < 0) {
		fprintf(stderr, "ringside-qemu-pt: out of memory\n");
		return -1;
	}
	for (unsigned i = 0; i < q.nvcpus; i++)
		q.v[i].index = i;
	if (q.o.truth && qpt_truth_open(&q) < 0) {
		fprintf(stderr, "ringside-qemu-pt: %s: cannot write the truth "
			"file\n", q.o.truth);
		return -1;
	}
	setup_vcpus();
	q.tracing |= q.o.truth != NULL;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_vcpu_idle_cb(id, on_idle);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
