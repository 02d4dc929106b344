/* SPDX-License-Identifier: MIT */
/*
 * The host half of the end-to-end line: the guest agent's workload
 * (guest-agent/payload/workload.c, compiled into this program) writes the
 * rings of a region in a memfd, one host thread per "vCPU", while a live
 * consumer on the other CPU drains them.  The agent's doorbell is a word in
 * host memory here: the write costs a store, not a VM exit.
 */
#include "e2e.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent.h"
#include "host_util.h"

struct host_vcpu {
	struct agent a;
	struct rs_region region;   /* a->region: this thread's own copy */
	struct rs_guest_report rep;
	uint32_t bell;
	uint64_t ns;
	int err;
	struct host_region *hr;
	atomic_uint *go;
	atomic_uint *done;
	pthread_t th;
};

/* What agent_main does before the workload, minus the boot checks that
 * only a guest needs. */
static int open_ring(struct host_vcpu *v)
{
	struct agent *a = &v->a;
	struct rs_config cfg;
	int err;

	a->region = &v->region;
	err = rs_region_open(&v->region, v->hr->mem, v->hr->size);
	if (!err)
		err = rs_producer_init(&a->prod, a->region, a->id);
	if (!err)
		err = rs_region_ring(a->region, a->id, &a->ring);
	if (!err)
		err = rs_guest_config_read(a->region, &cfg);
	if (err)
		return err;
	a->mask = (uint32_t)cfg.trace_mask;
	a->sample_type = cfg.sample_type;
	a->aux_size = a->ring.aux_size;
	a->doorbell = &v->bell;
	return 0;
}

static void *vcpu_main(void *arg)
{
	struct host_vcpu *v = arg;
	uint64_t t0;

	while (!atomic_load(v->go))
		host_cpu_relax();
	/* 2: the setup failed, and nobody would drain. */
	if (atomic_load(v->go) == 2) {
		atomic_fetch_add(v->done, 1);
		return NULL;
	}
	/* The guest's span is first_tsc (the agent's entry) to last_tsc (its
	 * end): here the same, from the region's open to the flush. */
	t0 = host_now_ns();
	v->err = open_ring(v);
	if (!v->err)
		v->err = agent_workload(&v->a);
	v->ns = host_now_ns() - t0;
	if (!v->err)
		v->rep.phase = RS_PHASE_DONE;
	atomic_fetch_add(v->done, 1);
	return NULL;
}

static void drain_all(struct rs_consumer **cons, struct e2e_ring *rings,
		      uint32_t n, int *got)
{
	for (uint32_t r = 0; r < n; r++)
		if (rs_consumer_drain(cons[r], e2e_count, &rings[r]) > 0)
			*got = 1;
}

static void summarize(const struct e2e_cfg *cfg, struct host_vcpu *v,
		      struct e2e_result *res)
{
	double rps = 0;

	for (uint32_t i = 0; i < cfg->vcpus; i++) {
		const struct rs_guest_report *rep = &v[i].rep;

		rps += v[i].ns ? (double)cfg->records * 1e9 / (double)v[i].ns : 0;
		if (v[i].ns > res->span_ns)
			res->span_ns = v[i].ns;
		res->attempted += rep->attempted;
		res->dropped += rep->dropped;
		res->doorbells += rep->doorbells;
		res->space_waits += rep->space_waits;
		res->space_gave_up += rep->space_gave_up;
		if (rep->phase != RS_PHASE_DONE)
			res->not_done++;
		if (v[i].err && !res->why[0])
			snprintf(res->why, sizeof(res->why), "vCPU %u: %s", i,
				 rs_error_str(v[i].err));
	}
	res->rps_per_vcpu = rps / cfg->vcpus;
	res->wall_rps_per_vcpu = res->wall_ns ?
		(double)cfg->records * 1e9 / (double)res->wall_ns : 0;
}

int e2e_host(const struct e2e_cfg *cfg, struct e2e_result *res)
{
	struct rs_consumer *cons[RS_MAX_VCPUS] = { 0 };
	struct e2e_ring rings[RS_MAX_VCPUS] = { 0 };
	struct rs_region_params params;
	struct rs_boot_info boot;
	struct host_region hr = { 0 };
	struct rs_region region;
	struct host_vcpu *v;
	atomic_uint go = 0, done = 0;
	pthread_attr_t attr;
	cpu_set_t set;
	uint32_t started = 0;
	uint64_t t0;
	int rc, got, ok = 0;

	e2e_boot(cfg, &boot);
	pthread_attr_init(&attr);
	/* The region the VMM lays out (vmm/vmm.c): one ring per vCPU, no AUX. */
	rs_region_params_init(&params, cfg->vcpus, cfg->data_pages, 0,
			      RS_MODE_NORMAL, RS_MODE_NORMAL);
	params.doorbell_addr = RS_BOOT_DOORBELL_GPA;
	params.trace_mask = RS_TRACE_TEST | RS_TRACE_SAMPLES;
	params.sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TID |
			     RS_PERF_SAMPLE_TIME | RS_PERF_SAMPLE_CPU;
	v = calloc(cfg->vcpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	rc = host_region_create(&hr, "vmm-bench", &params);
	if (rc == 0)
		rc = rs_region_open(&region, hr.mem, hr.size);
	if (rc < 0) {
		snprintf(res->why, sizeof(res->why), "region: %d", rc);
		goto out;
	}
	for (uint32_t r = 0; r < cfg->vcpus; r++) {
		rings[r].id = r;
		cons[r] = rs_consumer_alloc(&region, r);
		if (!cons[r]) {
			rc = -ENOMEM;
			goto out;
		}
		/* it polls: the producers' doorbells are skipped */
		rs_consumer_awake(cons[r]);
	}
	/* The consumer moves first, and the producers start on their CPU:
	 * under chrt, a spinning producer that shared the consumer's CPU at
	 * the same priority would never let it run. */
	if (cfg->cons_cpu >= 0)
		host_pin_cpu(cfg->cons_cpu);
	if (cfg->prod_cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cfg->prod_cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	for (; started < cfg->vcpus; started++) {
		struct host_vcpu *x = &v[started];

		x->a.boot = &boot;
		x->a.rep = &x->rep;
		x->a.id = started;
		x->hr = &hr;
		x->go = &go;
		x->done = &done;
		rc = -pthread_create(&x->th, &attr, vcpu_main, x);
		if (rc < 0)
			goto out;
	}
	t0 = host_now_ns();
	atomic_store(&go, 1);
	/* A consumer that polls: the run ends when every producer ended and
	 * a last pass found nothing. */
	for (;;) {
		int finished = atomic_load(&done) == cfg->vcpus;

		got = 0;
		drain_all(cons, rings, cfg->vcpus, &got);
		if (finished && !got)
			break;
		if (!got)
			host_cpu_relax();
	}
	res->wall_ns = host_now_ns() - t0;
	for (uint32_t r = 0; r < cfg->vcpus; r++)
		res->suppressed += e2e_suppressed(&region, r);
	ok = 1;
out:
	pthread_attr_destroy(&attr);
	if (!ok)
		atomic_store(&go, 2);
	for (uint32_t i = 0; i < started; i++)
		pthread_join(v[i].th, NULL);
	if (ok) {
		summarize(cfg, v, res);
		e2e_check(res, rings, cfg->vcpus);
	}
	for (uint32_t r = 0; r < cfg->vcpus; r++)
		rs_consumer_free(cons[r]);
	host_region_destroy(&hr);
	free(v);
	if (rc < 0 && !res->why[0])
		snprintf(res->why, sizeof(res->why), "setup: %d", rc);
	return rc < 0 ? rc : 0;
}
