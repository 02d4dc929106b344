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

#include "ringside/capture.h"

void cap_usyms_feed_restart(struct cap_usyms_feed *f)
{
	f->given = 0;
}

static void give(struct cap_usyms_feed *f, const struct gi_usyms *g,
		 struct pdf_writer *w)
{
	const struct pdf_writer_stats *st;
	uint32_t i;

	for (i = f->given; i < g->nr; i++)
		pdf_writer_add_ubins(w, &g->bins[i].ub, 1);
	f->given = g->nr;
	f->state = g->state;
	f->info = g->info;
	f->st = g->st;
	f->kept = g->nr;
	st = pdf_writer_stats(w);
	f->cached = st->ubins;
	f->failed = st->ubins_failed;
	f->other = st->ubins_other;
	f->err = st->ubins_err;
}

int cap_usyms_feed_pass(struct cap_usyms_feed *f, const struct rs_region *region,
		    struct pdf_writer *w)
{
	int err;

	if (!f || !region || !w)
		return -EINVAL;
	err = gi_usyms_read(&f->g, region);
	if (err)
		return err;
	f->reads++;
	if (f->g.state != GI_USYMS_OK && f->state == GI_USYMS_OK)
		return 0;          /* being written now: the last read stands */
	if (f->given > f->g.nr)
		f->given = 0;      /* a table rewritten under us: all again */
	give(f, &f->g, w);
	return 0;
}

void cap_usyms_feed_give(struct cap_usyms_feed *f, const struct gi_usyms *g,
		     struct pdf_writer *w)
{
	if (!f || !g || !w)
		return;
	f->given = 0;
	give(f, g, w);
}

void cap_usyms_feed_fini(struct cap_usyms_feed *f)
{
	if (!f)
		return;
	gi_usyms_fini(&f->g);
	memset(f, 0, sizeof(*f));
}
