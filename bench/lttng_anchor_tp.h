/* SPDX-License-Identifier: MIT */
/* The LTTng-UST tracepoint of lttng-anchor: 64 bytes of payload. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ringside_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "lttng_anchor_tp.h"

#if !defined(RINGSIDE_LTTNG_ANCHOR_TP_H) || \
	defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define RINGSIDE_LTTNG_ANCHOR_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ringside_bench, rec,
	LTTNG_UST_TP_ARGS(const uint8_t *, buf),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_array(uint8_t, payload, buf, 64)
	)
)

#endif

#include <lttng/tracepoint-event.h>
