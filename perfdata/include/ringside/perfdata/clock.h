/* SPDX-License-Identifier: MIT */
/*
 * The clock of a file's times (perfdata/src/pdf_clock.c): what ringside's
 * clock feature says, and guest times converted to the host's.
 */
#ifndef RINGSIDE_PERFDATA_CLOCK_H
#define RINGSIDE_PERFDATA_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a file says about its clock (ringside's clock feature). */
enum pdf_clock_state {
	PDF_CLOCK_NONE = 0,       /* nothing said: times as the producer wrote them */
	PDF_CLOCK_SYNCED,         /* guest times converted to host CLOCK_MONOTONIC */
	PDF_CLOCK_NO_ANSWER,      /* a sync was tried; the guest did not answer */
	PDF_CLOCK_REFUSED,        /* it answered; no answer was acceptable */
	PDF_CLOCK_NO_AGENT,       /* no agent attached: no sync tried */
	PDF_CLOCK_HOST,           /* times were host CLOCK_MONOTONIC already
				   * (a ringside VMM's TSC conversion) */
	PDF_CLOCK_STATE_MAX
};

/* One sync: guest time = host time + offset_ns, within +-bound_ns. */
struct pdf_clock_point {
	uint64_t guest_ns;        /* the guest's time at the sync */
	int64_t offset_ns;        /* guest - host */
	uint64_t bound_ns;
	uint32_t rounds;          /* valid rounds of the sync */
	uint32_t refused;         /* answers refused (guest claims that failed) */
};

struct pdf_clock_sync {
	uint32_t state;           /* enum pdf_clock_state */
	uint32_t nr;              /* points: 0, 1 (constant offset) or 2 (start
				   * and end: interpolated for drift) */
	struct pdf_clock_point pt[2];
	uint64_t wall_ns;         /* host CLOCK_REALTIME and CLOCK_MONOTONIC */
	uint64_t mono_ns;         /* read together (HEADER_CLOCK_DATA) */
};

/* Guest time @guest in host CLOCK_MONOTONIC ns: guest - offset, the offset
 * interpolated between two points (a line through them, also outside),
 * saturated at 0 and UINT64_MAX (never wrapped).  @guest itself when @cs
 * does not convert. */
uint64_t pdf_clock_to_host(const struct pdf_clock_sync *cs, uint64_t guest);

/* "synchronized", "no time sync: the guest did not answer", ... */
const char *pdf_clock_state_str(uint32_t state);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_CLOCK_H */
