/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: AUX data as perf stores it.  PERF_RECORD_AUXTRACE_INFO
 * names the decoder once (its body: u32 type, u32 reserved, the decoder's
 * private words, tools/perf/util/auxtrace.h); each PERF_RECORD_AUXTRACE
 * (struct pdf_auxtrace) is followed by its bytes, which its header.size
 * does not count.  Shared by the ringside writer (pdf_writer.c) and the
 * intel_pt file of pt-virt (pdf_intel_pt.c).
 */
#ifndef RINGSIDE_PDF_AUXTRACE_H
#define RINGSIDE_PDF_AUXTRACE_H

#include <stdint.h>

#include "pdf_format.h"

enum {                       /* tools/perf/util/intel-pt.h */
	IPT_PMU_TYPE, IPT_TIME_SHIFT, IPT_TIME_MULT, IPT_TIME_ZERO,
	IPT_CAP_USER_TIME_ZERO, IPT_TSC_BIT, IPT_NORETCOMP_BIT,
	IPT_HAVE_SCHED_SWITCH, IPT_SNAPSHOT_MODE, IPT_PER_CPU_MMAPS,
	IPT_MTC_BIT, IPT_MTC_FREQ_BITS, IPT_TSC_CTC_N, IPT_TSC_CTC_D,
	IPT_CYC_BIT, IPT_MAX_NONTURBO_RATIO, IPT_FILTER_STR_LEN, IPT_PRIV_MAX
};

/* PERF_RECORD_AUXTRACE_INFO's body of type intel_pt. */
struct pdf_auxtrace_ipt_info {
	uint32_t type;
	uint32_t reserved;
	uint64_t priv[IPT_PRIV_MAX];
};
_Static_assert(sizeof(struct pdf_auxtrace_ipt_info) == 144, "intel_pt AUXTRACE_INFO");

/* intel_pt's info for PMU type @pmu_type: timeless decoding (TSCEn's bit
 * given, cap_user_time_zero not), the CTL bit positions of x86. */
void pdf_auxtrace_ipt_info(struct pdf_auxtrace_ipt_info *info, uint64_t pmu_type);

/* The AUXTRACE_INFO record ringside's writer puts first for @format
 * (enum pdf_aux_format, not NONE) into @b. */
void pdf_auxtrace_info_record(struct pdf_buf *b, uint32_t format);

/* The PERF_RECORD_AUXTRACE record (48 bytes) for @len bytes of ring
 * @ring at AUX position @offset; the payload is @len padded to 8. */
void pdf_auxtrace_record(struct pdf_buf *b, uint32_t ring, uint64_t offset,
			 uint64_t len);

/* The payload bytes after an AUXTRACE record of @size bytes at @rec
 * (its header's size); 0 when the record is too short to say. */
uint64_t pdf_auxtrace_payload(const void *rec, uint16_t size);

#endif /* RINGSIDE_PDF_AUXTRACE_H */
