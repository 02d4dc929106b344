/* SPDX-License-Identifier: MIT */
/*
 * The guest half of the end-to-end line: the ringside VMM boots the
 * freestanding payload (guest-agent/payload) on every vCPU, each writes its
 * ring in the trace region with doorbells (KVM_IOEVENTFD), and this
 * process drains the rings live from the other CPU, as the host half's
 * consumer does.  The producer's span is the guest's own: first_tsc to
 * last_tsc of its report, over the TSC rate KVM gives the guest.
 */
#include "e2e.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host_util.h"
#include "ringside/vmm.h"

static void log_to(void *arg, int level, const char *fmt, va_list ap)
{
	struct e2e_result *res = arg;

	(void)level;
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
}

static int drain_all(struct vmm *vm, struct rs_consumer **cons,
		     struct e2e_ring *rings, uint32_t n)
{
	int got = 0;

	for (uint32_t r = 0; r < n; r++)
		if (rs_consumer_drain(cons[r], e2e_count, &rings[r]) > 0)
			got = 1;
	if (!got)
		/* The eventfds are read only when there is nothing to drain:
		 * a consumer that polls needs no wakeup, but the count shows
		 * that the doorbells reached the host. */
		for (uint32_t r = 0; r < n; r++)
			vmm_doorbell_collect(vm, r);
	return got;
}

static int summarize(const struct e2e_cfg *cfg, struct vmm *vm,
		     struct e2e_result *res)
{
	uint64_t khz = vmm_tsc_khz(vm);
	struct rs_vmm_vcpu_info info;
	struct rs_ctl_region region;
	double rps = 0;

	for (uint32_t i = 0; i < cfg->vcpus; i++) {
		const struct rs_guest_report *rep = &info.report;
		uint64_t ns;

		if (vmm_cpu_info(vm, i, &info) < 0)
			return -EINVAL;
		ns = khz ? (uint64_t)((double)(rep->last_tsc - rep->first_tsc) *
				      1e6 / (double)khz) : 0;
		rps += ns ? (double)cfg->records * 1e9 / (double)ns : 0;
		if (ns > res->span_ns)
			res->span_ns = ns;
		res->attempted += rep->attempted;
		res->dropped += rep->dropped;
		res->doorbells += rep->doorbells;
		res->doorbells_seen += vmm_doorbell_count(vm, i);
		res->suppressed += e2e_suppressed(vmm_region(vm), i);
		res->space_waits += rep->space_waits;
		res->space_gave_up += rep->space_gave_up;
		res->exits += info.exits.total;
		if (rep->phase != RS_PHASE_DONE) {
			res->not_done++;
			if (!res->why[0])
				snprintf(res->why, sizeof(res->why),
					 "vCPU %u: %s, phase %u, error %d", i,
					 vmm_cpu_state_name(info.state),
					 rep->phase, rep->error);
		}
	}
	if (vmm_region_info(vm, &region) == 0)
		res->exits_header = region.header_applied + region.header_refused;
	res->rps_per_vcpu = rps / cfg->vcpus;
	res->wall_rps_per_vcpu = res->wall_ns ?
		(double)cfg->records * 1e9 / (double)res->wall_ns : 0;
	return 0;
}

int e2e_guest(const struct e2e_cfg *cfg, struct e2e_result *res)
{
	struct rs_consumer *cons[RS_MAX_VCPUS] = { 0 };
	struct e2e_ring rings[RS_MAX_VCPUS] = { 0 };
	struct vmm_params p;
	struct vmm *vm = NULL;
	uint64_t t0, limit;
	int rc;

	vmm_params_init(&p);
	p.nr_vcpus = cfg->vcpus;
	p.data_pages = cfg->data_pages;
	e2e_boot(cfg, &p.boot);
	p.log = log_to;
	p.log_arg = res;
	rc = vmm_create(&vm, &p);
	if (rc == 0)
		rc = vmm_load_file(vm, cfg->payload);
	if (rc < 0)
		goto out;
	for (uint32_t r = 0; r < cfg->vcpus; r++) {
		rings[r].id = r;
		cons[r] = rs_consumer_alloc(vmm_region(vm), r);
		if (!cons[r]) {
			rc = -ENOMEM;
			goto out;
		}
		/* it polls: the payload's doorbells are skipped */
		rs_consumer_awake(cons[r]);
	}
	/* The vCPU threads inherit this thread's CPU; the consumer then
	 * moves to the other one, as in the host half. */
	if (cfg->prod_cpu >= 0)
		host_pin_cpu(cfg->prod_cpu);
	t0 = host_now_ns();
	limit = t0 + (uint64_t)cfg->timeout_s * 1000000000ull;
	rc = vmm_start(vm);
	if (cfg->cons_cpu >= 0)
		host_pin_cpu(cfg->cons_cpu);
	if (rc < 0)
		goto out;
	for (;;) {
		if (drain_all(vm, cons, rings, cfg->vcpus))
			continue;
		if (vmm_wait(vm, 0) == 0)
			break;
		if (host_now_ns() > limit) {
			snprintf(res->why, sizeof(res->why),
				 "the guest did not end in %d s", cfg->timeout_s);
			rc = -ETIMEDOUT;
			goto out;
		}
		host_cpu_relax();
	}
	res->wall_ns = host_now_ns() - t0;
	/* Stopped vCPUs write nothing more: this pass takes the rest. */
	while (drain_all(vm, cons, rings, cfg->vcpus))
		;
	rc = summarize(cfg, vm, res);
	if (rc == 0)
		e2e_check(res, rings, cfg->vcpus);
out:
	for (uint32_t r = 0; r < cfg->vcpus; r++)
		rs_consumer_free(cons[r]);
	vmm_destroy(vm);
	if (rc < 0 && !res->why[0])
		snprintf(res->why, sizeof(res->why), "%s", strerror(-rc));
	return rc < 0 ? rc : 0;
}
