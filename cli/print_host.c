/* SPDX-License-Identifier: MIT */
/*
 * The host's view of the vCPU threads: what record filed of it, and, in
 * `ringside report`, per vCPU its time running, runnable and not running
 * (steal), blocked, and its longest preemptions.
 */
#include <inttypes.h>
#include <stdio.h>

#include "print.h"

void print_host_view(FILE *f, const struct cap_host *h)
{
	const struct cap_host_stats *st = cap_host_stats(h);
	struct hv_rec_totals tot;

	cap_host_totals(h, &tot);
	fprintf(f, "  host view: %" PRIu64 " context switches of %u vCPU "
		"threads filed; lost %" PRIu64 " in %" PRIu64 " LOST records, "
		"%" PRIu64 " corrupt; %" PRIu64 " threads gone%s\n",
		st->filed, st->vcpus, st->lost, st->lost_records, tot.corrupt,
		tot.gone, st->process_gone ? " (the VMM ended)" : "");
	if (st->exits)
		fprintf(f, "  host view: %" PRIu64 " exits filed\n", st->exits);
	if (st->off_lane)
		fprintf(f, "  host view: %u events of vCPUs past the last ring "
			"not filed\n", st->off_lane);
}

static double sec(uint64_t ns)
{
	return (double)ns / 1e9;
}

void print_host_exits(FILE *f, uint32_t lane, const struct hv_track *t)
{
	static const uint32_t types[2] = { HV_EV_KVM_UEXIT, HV_EV_KVM_EXIT };
	uint32_t k, i;

	for (k = 0; k < 2; k++) {
		int n = 0;

		if (!(k ? t->exits : t->uexits))
			continue;
		fprintf(f, "    vCPU %u exits %s: %" PRIu64 ":", lane,
			k ? "into KVM" : "to the VMM", k ? t->exits : t->uexits);
		for (i = 0; i < t->nreasons; i++) {
			const struct hv_reason_count *r = &t->reasons[i];
			const char *name;

			if (r->type != types[k])
				continue;
			name = hv_name_exit(r->type, r->isa, r->reason);
			if (name)
				fprintf(f, "%s %s %" PRIu64, n++ ? "," : "", name,
					r->count);
			else
				fprintf(f, "%s %u %" PRIu64, n++ ? "," : "",
					r->reason, r->count);
		}
		if (k && t->reasons_other)
			fprintf(f, ", others %" PRIu64, t->reasons_other);
		fputc('\n', f);
	}
}

/* The guest's records on the vCPU around preemption @p: the gap the
 * host explains. */
static void guest_around(FILE *f, uint64_t before, uint64_t after,
			 const struct hv_preempt *p)
{
	fprintf(f, "; the guest's records: ");
	if (before)
		fprintf(f, "last %.6f s before", sec(p->start - before));
	else
		fprintf(f, "none before");
	if (after)
		fprintf(f, ", first %.6f s after",
			sec(after - (p->start + p->ns)));
	else
		fprintf(f, ", none after");
}

void print_host_report(FILE *f, const struct cap_host_view *v)
{
	uint32_t i, k;

	if (!v->records) {
		fprintf(f, "host view: none in this file (recorded without it, "
			"or the host did not allow it)\n");
		return;
	}
	fprintf(f, "host view: %" PRIu64 " records, host CLOCK_MONOTONIC "
		"%.6f .. %.6f s\n", v->records, sec(v->first), sec(v->last));
	for (i = 0; i < RS_MAX_RINGS; i++) {
		const struct hv_track *t = v->track[i];

		if (!t)
			continue;
		fprintf(f, "  vCPU %u: running %.6f s, steal (runnable, not "
			"running) %.6f s, blocked %.6f s, unknown %.6f s; %"
			PRIu64 " preemptions, %" PRIu64 " blocks, %" PRIu64
			" migrations, %" PRIu64 " lost\n", i,
			sec(t->state_ns[HV_ST_RUNNING]), sec(hv_track_steal(t)),
			sec(t->state_ns[HV_ST_BLOCKED]),
			sec(t->state_ns[HV_ST_UNKNOWN]), t->preempts, t->blocks,
			t->migrations, t->lost);
		print_host_exits(f, i, t);
		for (k = 0; k < t->ntop; k++) {
			const struct hv_preempt *p = &t->top[k];

			fprintf(f, "    vCPU %u steal %.6f s from %.6f s "
				"(preempted on host CPU %u, ", i, sec(p->ns),
				sec(p->start), p->cpu_out);
			if (p->cpu_in == UINT32_MAX)
				fprintf(f, "not seen to run again: the end, or a loss)");
			else
				fprintf(f, "ran again on %u)", p->cpu_in);
			guest_around(f, v->guest_before[i][k],
				     v->guest_after[i][k], p);
			fputc('\n', f);
		}
	}
}
