/* SPDX-License-Identifier: MIT */
/* The table `ringside run` ends with. */
#include <inttypes.h>
#include <stdio.h>

#include "cmd_run.h"
#include "print.h"

/* "-" where this process did not see the value. */
static void col(int width, int known, uint64_t v)
{
	if (known)
		printf(" %*" PRIu64, width, v);
	else
		printf(" %*s", width, "-");
}

static void headline(const struct run_opts *o, const struct cap_tally *t,
		     double seconds)
{
	struct cap_tally_ring sum;
	char size[32];

	printf("ringside run: %s on %u vCPUs, %s rings, %.1f s", o->payload,
	       o->params.nr_vcpus,
	       o->params.data_mode == RS_MODE_OVERWRITE ? "overwrite" : "normal",
	       seconds);
	if (t) {
		cap_tally_total(t, &sum);
		printf("; %" PRIu64 " records (%s)", sum.records,
		       print_size(size, sizeof(size), sum.bytes));
		if (o->output)
			printf(" written to %s", o->output);
	}
	putchar('\n');
}

/* Delivered plus lost against what each ring's guest produced; *@done:
 * the rings whose guest finished its records (the others have records in
 * flight, in no count). */
/* What ring @i delivered and lost: the file's records (LOST aside) and
 * LOST counts, with what predated the recording (kept as counts). */
static void ring_counts(const struct cap_tally *t, const struct cap_recorder *rec,
			uint32_t i, uint64_t *delivered, uint64_t *lost)
{
	const struct pdf_host_ring *h = rec && i < RS_MAX_RINGS ?
					&cap_recorder_stats(rec)->host.ring[i] :
					NULL;

	*delivered = t->ring[i].records - t->ring[i].by_class[PDF_RREC_LOST];
	*lost = t->ring[i].lost;
	if (h) {
		*delivered += h->early_lost_samples_records;
		*lost += h->early_lost;
	}
}

static uint32_t unbalanced_rings(struct vmm *vm, const struct cap_tally *t,
				 const struct cap_recorder *rec, uint32_t *done)
{
	uint64_t delivered, lost;
	struct rs_vmm_vcpu_info info;
	uint32_t n = vmm_nr_vcpus(vm), unbalanced = 0;

	*done = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (vmm_cpu_info(vm, i, &info))
			continue;
		*done += info.report.phase == RS_PHASE_DONE;
		ring_counts(t, rec, i, &delivered, &lost);
		if (delivered + lost != info.report.attempted)
			unbalanced++;
	}
	return *done < n ? 0 : unbalanced;
}

uint32_t run_balance(struct vmm *vm, const struct cap_tally *t,
		     const struct cap_recorder *rec)
{
	uint32_t done;

	return rec && t ? unbalanced_rings(vm, t, rec, &done) : 0;
}

uint32_t run_print_rings(const struct run_opts *o, struct vmm *vm,
		     const struct cap_tally *t, const struct cap_recorder *rec,
		     double seconds)
{
	struct rs_vmm_vcpu_info info;
	uint32_t n = vmm_nr_vcpus(vm), unbalanced = 0, done = 0;

	headline(o, t, seconds);
	printf("ring state      produced delivered     lost doorbells guest-bells"
	       " skipped   exits     io   mmio    hlt  kicks\n");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t delivered = 0, lost = 0;
		struct cap_rinfo ri;
		int have_ri;

		if (vmm_cpu_info(vm, i, &info))
			continue;
		if (t)
			ring_counts(t, rec, i, &delivered, &lost);
		printf("%4u %-9.9s", i, vmm_cpu_state_name(info.state));
		col(9, 1, info.report.attempted);
		col(9, t != NULL, delivered);
		col(8, t != NULL, lost);
		col(9, rec != NULL, rec ? cap_recorder_doorbells(rec, i) : 0);
		col(11, 1, info.report.doorbells);
		have_ri = !cap_rinfo_get(vmm_region(vm), i, &ri);
		col(7, have_ri, have_ri ? ri.suppressed : 0);
		col(7, 1, info.exits.total);
		col(6, 1, info.exits.io);
		col(6, 1, info.exits.mmio);
		col(6, 1, info.exits.hlt);
		col(6, 1, info.exits.kicks);
		putchar('\n');
		if (info.state == RS_VCPU_SHUTDOWN || info.state == RS_VCPU_FAILED)
			printf("     exit reason %u, error %d, rip %#" PRIx64 "\n",
			       info.exit_reason, info.error, info.rip);
		if (info.guest_error)
			printf("     the guest agent failed: error %d\n",
			       info.guest_error);
	}
	if (!rec || !t)
		return 0;
	unbalanced = unbalanced_rings(vm, t, rec, &done);
	if (done < n)
		printf("balance: not checked, the guest was stopped before it "
		       "finished its records (those in flight are in no count)\n");
	else if (unbalanced)
		printf("balance: WRONG on %u rings: delivered + lost != produced\n",
		       unbalanced);
	else
		printf("balance: delivered + lost == produced on every ring\n");
	return unbalanced;
}
