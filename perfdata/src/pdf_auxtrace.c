/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "pdf_auxtrace.h"

/* The PMU type ringside's files name in intel_pt's info: perf decodes the
 * AUXTRACE data only for events of that type, and a ringside file has
 * none (docs/perfdata.md, "AUX data").  PT: any type that is not one of
 * perf's built-in ones, as pdf_intel_pt.c's; opaque bytes: one no PMU
 * has, so that no event can ever select them for decoding. */
#define RS_PT_PMU_TYPE     PDF_PT_PMU_TYPE
#define RS_OPAQUE_PMU_TYPE 0xffffffffu

void pdf_auxtrace_ipt_info(struct pdf_auxtrace_ipt_info *info, uint64_t pmu_type)
{
	memset(info, 0, sizeof(*info));
	info->type = PDF_AUXTRACE_INTEL_PT;
	info->priv[IPT_PMU_TYPE] = pmu_type;
	info->priv[IPT_TIME_MULT] = 1;
	info->priv[IPT_TSC_BIT] = 10;          /* CTL bit positions */
	info->priv[IPT_NORETCOMP_BIT] = 11;
	info->priv[IPT_MTC_BIT] = 9;
	info->priv[IPT_MTC_FREQ_BITS] = 14;
	info->priv[IPT_TSC_CTC_N] = 1;
	info->priv[IPT_TSC_CTC_D] = 1;
	info->priv[IPT_CYC_BIT] = 1;
}

void pdf_auxtrace_info_record(struct pdf_buf *b, uint32_t format)
{
	struct rs_perf_header h = { PDF_RECORD_AUXTRACE_INFO, 0, 0 };
	struct pdf_auxtrace_ipt_info info;

	pdf_auxtrace_ipt_info(&info, format == PDF_AUX_INTEL_PT ? RS_PT_PMU_TYPE :
			    RS_OPAQUE_PMU_TYPE);
	info.priv[IPT_PER_CPU_MMAPS] = 1;      /* one queue per ring */
	h.size = (uint16_t)(sizeof(h) + sizeof(info));
	pdf_buf_add(b, &h, sizeof(h));
	pdf_buf_add(b, &info, sizeof(info));
}

void pdf_auxtrace_record(struct pdf_buf *b, uint32_t ring, uint64_t offset,
			 uint64_t len)
{
	struct rs_perf_header h = { PDF_RECORD_AUXTRACE, 0,
				    sizeof(h) + sizeof(struct pdf_auxtrace) };
	struct pdf_auxtrace ax;

	memset(&ax, 0, sizeof(ax));
	ax.size = (len + 7) & ~7ull;
	ax.offset = offset;
	ax.reference = offset;
	ax.idx = ring;
	ax.tid = UINT32_MAX;   /* -1: per-CPU, no thread */
	ax.cpu = ring;
	pdf_buf_add(b, &h, sizeof(h));
	pdf_buf_add(b, &ax, sizeof(ax));
}

uint64_t pdf_auxtrace_payload(const void *rec, uint16_t size)
{
	uint64_t n;

	if (size < sizeof(struct rs_perf_header) + sizeof(uint64_t))
		return 0;
	memcpy(&n, (const uint8_t *)rec + sizeof(struct rs_perf_header), 8);
	return n;
}
