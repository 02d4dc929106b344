/* SPDX-License-Identifier: MIT */
/* The guest clock's sync (ringside/capture.h, cap_sync) as `record`, `run`,
 * `snapshot` and `report` say it. */
#include <inttypes.h>
#include <stdio.h>

#include "ringside/capture.h"

#include "print.h"

static uint64_t udiff(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

static void point(FILE *out, const char *label, const struct pdf_clock_point *pt)
{
	fprintf(out, "%s: host CLOCK_MONOTONIC %c %" PRIu64 " ns, error bound "
		"\u00b1%.1f \u00b5s (%u rounds", label, pt->offset_ns < 0 ? '-' : '+',
		udiff(pt->offset_ns, 0), (double)pt->bound_ns / 1000.0, pt->rounds);
	if (pt->refused)
		fprintf(out, ", %u answers refused", pt->refused);
	fputs(")\n", out);
}

static void state_line(FILE *out, const struct pdf_clock_sync *cs)
{
	if (cs->state == PDF_CLOCK_HOST) {
		fprintf(out, "guest clock: %s\n", pdf_clock_state_str(cs->state));
		return;
	}
	fprintf(out, "guest clock: %s; times are the guest's, unconverted\n",
		pdf_clock_state_str(cs->state));
}

static void drift_line(FILE *out, const struct pdf_clock_sync *cs)
{
	const struct pdf_clock_point *a = &cs->pt[0], *b = &cs->pt[1];
	double span = (double)(b->guest_ns - a->guest_ns) / 1e9;

	fprintf(out, "  drift: %+" PRId64 " ns over %.1f s (%.2f ppm), "
		"interpolated\n", b->offset_ns - a->offset_ns, span,
		span > 0 ? (double)(b->offset_ns - a->offset_ns) / span / 1e3 : 0.0);
}

void print_csync(FILE *out, const struct cap_sync *c)
{
	const struct pdf_clock_sync *cs = &c->cs;

	if (c->why_not) {
		fprintf(out, "guest clock: %s; times are the guest's, unconverted\n",
			c->why_not);
		return;
	}
	if (cs->state != PDF_CLOCK_SYNCED) {
		state_line(out, cs);
		/* what the wait cost, in attempts rather than seconds: a
		 * count that says the wait was bounded on any machine */
		if (cs->state == PDF_CLOCK_NO_ANSWER)
			fprintf(out, "  pings: %u sent, %u unanswered (at most "
				"%.1f s for a first answer)\n", c->last.pings,
				c->last.timeouts, (double)c->wait_ns / 1e9);
		return;
	}
	point(out, "guest clock", &cs->pt[0]);
	if (cs->nr == 2) {
		point(out, c->final == CAP_SYNC_FINAL_OK ? "  at the end" :
		      "  last sync", &cs->pt[1]);
		drift_line(out, cs);
	} else if (c->end_dropped) {
		fprintf(out, "  last sync: host CLOCK_MONOTONIC %c %" PRIu64 " ns "
			"implies a drift no clock has; the first sync's offset is "
			"used throughout\n", c->last.offset < 0 ? '-' : '+',
			udiff(c->last.offset, 0));
	}
	if (c->final == CAP_SYNC_FINAL_NO_AGENT)
		fputs("  at the end: no agent attached any more\n", out);
	else if (c->final == CAP_SYNC_FINAL_FAILED)
		fprintf(out, "  at the end: %s\n", c->last_ret == -rse_timeout ?
			"no time sync: the guest did not answer" :
			"no time sync: every answer of the guest was refused");
}

void print_clock_file(FILE *out, const struct pdf_info *info)
{
	const struct pdf_clock_sync *cs = &info->clock;

	if (cs->state == PDF_CLOCK_NONE) {
		fputs("guest clock: the file says nothing about it; times are as "
		      "the producer wrote them\n", out);
		return;
	}
	if (cs->state != PDF_CLOCK_SYNCED || !cs->nr) {
		state_line(out, cs);
		return;
	}
	point(out, "guest clock", &cs->pt[0]);
	if (cs->nr == 2) {
		point(out, "  at the end", &cs->pt[1]);
		drift_line(out, cs);
	}
	fprintf(out, "  times in this file are host CLOCK_MONOTONIC%s\n",
		info->have_clock_data ? " (HEADER_CLOCKID, HEADER_CLOCK_DATA)" : "");
}
