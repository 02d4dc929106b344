/* SPDX-License-Identifier: MIT */
/*
 * The guest's user symbols into a file (docs/perfdata.md, "Guest user
 * symbols"): the agent appends an entry whenever it meets a binary, so a
 * recording reads the table again now and then (and last before the file
 * is finished) and gives the writer the entries it has not had yet;
 * pdf_writer_add_ubins puts them in perf's build-id cache and names them
 * among the file's build ids.  Every entry went through gi_usyms's checks
 * first.  What the guest sent and the host refused, what did not fit the
 * guest's table, and what the cache would not take are counted for the
 * summary.
 */
#include <errno.h>
#include <string.h>

#include "cap_internal.h"

void cap_usyms_feed_restart(struct cap_usyms_feed *f)
{
	f->given = 0;
}

/* @g's bins from @from on to @w; what the writer made of them in @st. */
static void give(struct cap_usyms_feed_stats *st, const struct gi_usyms *g,
		 uint32_t from, struct pdf_writer *w)
{
	const struct pdf_writer_stats *ws;
	uint32_t i;

	for (i = from; i < g->nr; i++)
		pdf_writer_add_ubins(w, &g->bins[i].ub, 1);
	st->state = g->state;
	st->info = g->info;
	st->st = g->st;
	st->kept = g->nr;
	ws = pdf_writer_stats(w);
	st->cached = ws->ubins;
	st->failed = ws->ubins_failed;
	st->other = ws->ubins_other;
	st->err = ws->ubins_err;
}

int cap_usyms_feed_pass(struct cap_usyms_feed *f, struct cap_usyms_feed_stats *st,
			const struct rs_region *region, struct pdf_writer *w)
{
	int err;

	if (!f || !st || !region || !w)
		return -EINVAL;
	err = gi_usyms_read(&f->g, region);
	if (err)
		return err;
	st->reads++;
	if (f->g.state != GI_USYMS_OK && st->state == GI_USYMS_OK)
		return 0;          /* being written now: the last read stands */
	if (f->given > f->g.nr)
		f->given = 0;      /* a table rewritten under us: all again */
	give(st, &f->g, f->given, w);
	f->given = f->g.nr;
	return 0;
}

void cap_usyms_feed_give(struct cap_usyms_feed_stats *st,
			 const struct gi_usyms *g, struct pdf_writer *w)
{
	if (!st || !g || !w)
		return;
	give(st, g, 0, w);
}

void cap_usyms_feed_fini(struct cap_usyms_feed *f)
{
	if (!f)
		return;
	gi_usyms_fini(&f->g);
	memset(f, 0, sizeof(*f));
}
