/* SPDX-License-Identifier: MIT */
/* What the host's layout found wrong with a region's header, and the
 * ringside VMM's header page guard, as the commands say it
 * (docs/cli.md, "A damaged region header"). */
#include <inttypes.h>
#include <stdio.h>

#include "ringside/cap_source.h"

#include "cli.h"
#include "print.h"

int print_source_damage(const char *cmd, const struct cap_source *m,
			const char *spec)
{
	const struct rs_region_damage *d = cap_source_damage(m);
	struct rs_ctl_region g;
	char line[4096], item[160];
	size_t used = 0;
	uint32_t i, shown;

	if (cap_source_guard(m, 0, &g) && g.header_refused)
		cli_err(cmd, "%s: the guest tried %" PRIu64 " writes to the "
			"host's part of the region header; the VMM refused them",
			spec, g.header_refused);
	if (!d)
		return 0;
	line[0] = '\0';
	for (i = 0; i < d->nr_diffs; i++) {
		int n = cap_source_diff_text(item, sizeof(item), &d->diff[i]);

		if (n < 0 || used + (size_t)n + 3 >= sizeof(line))
			break;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
					 i ? ", " : "", item);
	}
	if (d->nr_diffs)
		cli_err(cmd, "%s: header damaged: %s%s; the rings are read by "
			"the host's layout instead", spec, line,
			d->more_diffs ? " and more" : "");
	for (i = 0, shown = 0; i < cap_source_region(m)->nr_rings; i++) {
		if (!rs_region_damage_bad_ring(d, i))
			continue;
		if (shown++ == 8) {
			cli_err(cmd, "%s: %u more rings skipped", spec,
				d->nr_bad_rings - 8);
			break;
		}
		cli_err(cmd, "%s: ring %u skipped: its control page does "
			"not match the host's layout", spec, i);
	}
	return 1;
}

void print_source_guard(FILE *f, const struct cap_source *m)
{
	struct rs_ctl_region r;

	if (!cap_source_guard(m, 1, &r))
		return;
	if (!r.header_guarded) {
		fprintf(f, "header page: guest-writable (this KVM has no "
			"read-only memslots)\n");
		return;
	}
	fprintf(f, "header page: read-only to the guest; %" PRIu64 " guest "
		"writes to host fields refused, %" PRIu64 " to guest fields "
		"applied\n", r.header_refused, r.header_applied);
}
