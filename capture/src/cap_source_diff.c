/* SPDX-License-Identifier: MIT */
/*
 * What a region opened by its host's layout says about its header: each
 * field a guest (or a stray write) changed, as text.  docs/cli.md, "A
 * damaged region header".
 */
#include <inttypes.h>
#include <stdio.h>

#include "cap_internal.h"

/* "magic (guest says 0x0, host laid out 0x...)": the fields whose values
 * are names or counts in decimal, the rest in hex. */
int cap_source_diff_text(char *buf, size_t len, const struct rs_region_diff *d)
{
	const char *name = rs_region_field_name(d->field);
	int hex = d->field == rs_hf_magic || d->field >= rs_hf_ctrl_offset ||
		  d->field == rs_hf_sideband_offset ||
		  d->field == rs_hf_region_size ||
		  d->field == rs_hf_trace_mask || d->field == rs_hf_sample_type ||
		  d->field == rs_hf_doorbell_addr;

	if (d->field >= rs_hf_ctrl_offset)
		return snprintf(buf, len, "rings[%u].%s (guest says %#" PRIx64
				", host laid out %#" PRIx64 ")", d->ring, name,
				d->seen, d->laid_out);
	if (hex)
		return snprintf(buf, len, "%s (guest says %#" PRIx64 ", host "
				"laid out %#" PRIx64 ")", name, d->seen,
				d->laid_out);
	return snprintf(buf, len, "%s (guest says %" PRIu64 ", host laid out %"
			PRIu64 ")", name, d->seen, d->laid_out);
}
