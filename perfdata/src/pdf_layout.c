/* SPDX-License-Identifier: MIT */
/*
 * The events of a ringside perf.data file and their attrs.
 *
 * All events are software events.  Records ringside carries whole travel as
 * PERF_COUNT_SW_BPF_OUTPUT samples: that is perf's event for raw data that
 * did not come from a PMU, and `perf script` prints its RAW payload.  The
 * guest's own samples become cpu-clock samples whose sample_type is the
 * guest's plus IDENTIFIER/TIME/CPU; config1 keeps the guest's sample_type so
 * that a reader can take the added fields out again.  exclude_kernel is set
 * on all of them: no record in the file comes from the host's kernel.
 */
#include <string.h>

#include "pdf_format.h"

static const char *const kind_names[PDF_KIND_MAX] = {
	[PDF_KIND_SAMPLE] = "ringside:sample",
	[PDF_KIND_SEQ]    = "ringside:seq",
	[PDF_KIND_MARKER] = "ringside:marker",
	[PDF_KIND_RING]   = "ringside:ring",
};

static const char *const pdf_errors[pdfe_max] = {
	[pdfe_ok]           = "success",
	[pdfe_internal]     = "internal error in the perf.data code",
	[pdfe_invalid]      = "invalid argument",
	[pdfe_magic]        = "not a perf.data file (no PERFILE2 magic)",
	[pdfe_format]       = "malformed perf.data file",
	[pdfe_attr_size]    = "perf.data file uses an attr size this ringside does not know",
	[pdfe_not_ringside] = "perf.data file was not written by ringside",
	[pdfe_truncated]    = "perf.data file is truncated",
	[pdfe_too_big]      = "record too big for a perf record",
	[pdfe_ksyms_format] = "guest kallsyms: a line is not in /proc/kallsyms form",
	[pdfe_ksyms_range]  = "guest kallsyms: a function address outside the kernel half (kptr_restrict?)",
	[pdfe_ksyms_overlap] = "guest kallsyms: a module's symbols overlap another module or the kernel",
	[pdfe_ksyms_empty]  = "guest kallsyms: no function symbol",
	[pdfe_ksyms_size]   = "guest kallsyms: too big (PDF_KSYMS_MAX_BYTES, _LINES, _MODULES)",
};

const char *pdf_errstr(int err)
{
	int e;

	if (err < 0 && err > -PDF_ERR_BASE)
		return strerror(-err);
	e = -err - PDF_ERR_BASE;
	if (e < 0 || e >= pdfe_max)
		return "unknown perf.data error";
	return pdf_errors[e];
}

const char *pdf_kind_name(enum pdf_kind kind)
{
	return (unsigned)kind < PDF_KIND_MAX ? kind_names[kind] : "ringside:?";
}

void pdf_layout_init(struct pdf_layout *lay, uint64_t guest_sample_type)
{
	unsigned k;

	memset(lay, 0, sizeof(*lay));
	lay->guest_sample_type = guest_sample_type;
	lay->native_samples = !(guest_sample_type & ~(uint64_t)PDF_SAMPLE_KNOWN);
	for (k = 0; k < PDF_KIND_MAX; k++) {
		lay->sample_type[k] = PDF_SAMPLE_BASE | PERF_SAMPLE_RAW;
		lay->id[k] = k + 1;
	}
	lay->sample_type[PDF_KIND_SAMPLE] = PDF_SAMPLE_BASE;
	if (lay->native_samples)
		lay->sample_type[PDF_KIND_SAMPLE] |= guest_sample_type;
}

void pdf_layout_attr(const struct pdf_layout *lay, enum pdf_kind kind,
		     struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->size = PDF_ATTR_SIZE;
	attr->config = kind == PDF_KIND_SAMPLE ? PERF_COUNT_SW_CPU_CLOCK
					       : PERF_COUNT_SW_BPF_OUTPUT;
	attr->sample_period = 1;
	attr->sample_type = lay->sample_type[kind];
	attr->sample_id_all = 1;
	/* Nothing in the file comes from the host kernel; saying so keeps
	 * `perf report` from looking for host kernel maps. */
	attr->exclude_kernel = 1;
	if (kind == PDF_KIND_SAMPLE)
		attr->config1 = lay->guest_sample_type;
	if (lay->use_clockid) {   /* as perf record -k CLOCK_MONOTONIC */
		attr->use_clockid = 1;
		attr->clockid = 1;
	}
}

void pdf_layout_pt_attr(const struct pdf_layout *lay,
			struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PDF_PT_PMU_TYPE;
	attr->size = PDF_ATTR_SIZE;
	/* TSCEn (bit 10 of RTIT_CTL, as the AUXTRACE_INFO numbers it): the
	 * generator puts TSC packets in PSB+ */
	attr->config = 1ull << 10;
	attr->sample_period = 1;
	/* the fields every other event has, so that perf finds the id of
	 * any record at the same place; and IP, which perf's decoder gives
	 * its instruction samples (`perf script -F ip` checks it here) */
	attr->sample_type = PDF_SAMPLE_BASE | PERF_SAMPLE_IP;
	attr->sample_id_all = 1;
	attr->exclude_user = 0;
	if (lay->use_clockid) {
		attr->use_clockid = 1;
		attr->clockid = 1;
	}
}
