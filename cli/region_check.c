/* SPDX-License-Identifier: MIT */
/*
 * What a region opened by its host's layout says about its header: which
 * fields a guest (or a stray write) changed, which rings had to be
 * skipped, and how many writes the ringside VMM's header page guard
 * refused.  docs/cli.md, "A damaged region header".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "region_map.h"
#include "vm_conn.h"

int rmap_vm_params(const struct rs_ctl_region *r, struct rs_region_params *p)
{
	uint64_t size;

	/* A peer's answer: params_check (by way of rs_region_size) judges it. */
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->nr_rings = r->nr_rings;
	p->data_pages = r->data_pages;
	p->aux_pages = r->aux_pages;
	p->data_mode = r->data_mode;
	p->aux_mode = r->aux_mode;
	p->data_watermark = r->data_watermark;
	p->aux_watermark = r->aux_watermark;
	p->trace_mask = r->trace_mask;
	p->sample_type = r->sample_type;
	p->sample_freq = r->sample_freq;
	p->doorbell_addr = r->doorbell_addr;
	p->sideband_pages = r->sideband_pages;
	if (rs_region_size(p, &size) < 0 || size > r->region_size)
		return -EPROTO;
	return 0;
}

/* "magic (guest says 0x0, host laid out 0x...)": the fields whose values
 * are names or counts in decimal, the rest in hex. */
static int diff_text(char *buf, size_t len, const struct rs_region_diff *d)
{
	const char *name = rs_hdr_field_name(d->field);
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

int rmap_damage_report(const struct rmap *m, const char *cmd, const char *spec)
{
	const struct rs_region_damage *d = &m->damage;
	char line[4096], item[160];
	size_t used = 0;
	uint32_t i;

	if (m->have_guard && m->vm_guard.header_refused)
		cli_err(cmd, "%s: the guest tried %" PRIu64 " writes to the "
			"host's part of the region header; the VMM refused them",
			spec, m->vm_guard.header_refused);
	if (!m->damaged)
		return 0;
	line[0] = '\0';
	for (i = 0; i < d->nr_diffs; i++) {
		int n = diff_text(item, sizeof(item), &d->diff[i]);

		if (n < 0 || used + (size_t)n + 3 >= sizeof(line))
			break;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
					 i ? ", " : "", item);
	}
	if (d->nr_diffs)
		cli_err(cmd, "%s: header damaged: %s%s; the rings are read by "
			"the host's layout instead", spec, line,
			d->more_diffs ? " and more" : "");
	for (i = 0; i < m->region.nr_rings; i++)
		if (d->bad_rings & (1ull << i))
			cli_err(cmd, "%s: ring %u skipped: its control page does "
				"not match the host's layout", spec, i);
	return 1;
}

void rmap_guard_print(const struct rmap *m, FILE *f)
{
	struct rs_ctl_region r;

	if (!m->have_guard)
		return;
	if (vm_conn_region(m->vm, &r))
		r = m->vm_guard;
	if (!r.header_guarded) {
		fprintf(f, "header page: guest-writable (this KVM has no "
			"read-only memslots)\n");
		return;
	}
	fprintf(f, "header page: read-only to the guest; %" PRIu64 " guest "
		"writes to host fields refused, %" PRIu64 " to guest fields "
		"applied\n", r.header_refused, r.header_applied);
}
