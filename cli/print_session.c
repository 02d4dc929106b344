/* SPDX-License-Identifier: MIT */
/*
 * How a record or snapshot session (ringside/capture.h) went, in the
 * words of `record`, `snapshot` and `run`: the progress line, failures,
 * the snapshot's summary, corruption and flagged claims.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "ringside/capture.h"

#include "cli.h"
#include "print.h"

/* The states of a table the guest publishes in the sideband, which the
 * gi_*_state enums of the user symbols and the process state share. */
enum table_state {
	TABLE_ABSENT,
	TABLE_NONE,
	TABLE_BUSY,
	TABLE_CORRUPT,
	TABLE_READ,
};
#define TABLE_STATES(p) \
	((int)p##_ABSENT == TABLE_ABSENT && (int)p##_NONE == TABLE_NONE && \
	 (int)p##_BUSY == TABLE_BUSY && (int)p##_CORRUPT == TABLE_CORRUPT && \
	 (int)p##_OK == TABLE_READ)
_Static_assert(TABLE_STATES(GI_USYMS), "gi_usyms_state: a table_state");
_Static_assert(TABLE_STATES(GI_PSTATE), "gi_pstate_state: a table_state");

/*
 * "  @what (guest claims): " and, for a table that was not read, why, to
 * the end of the line: 1.  0 when it was read: the line goes on.  @busy:
 * what the guest was still doing; @corrupt: what is implausible.
 */
static int claims_start(FILE *out, const char *what, enum table_state state,
			const char *busy, const char *corrupt)
{
	fprintf(out, "  %s (guest claims): ", what);
	switch (state) {
	case TABLE_ABSENT:
		fprintf(out, "none (the region has no sideband area)\n");
		return 1;
	case TABLE_NONE:
		fprintf(out, "none (the guest agent has published no table)\n");
		return 1;
	case TABLE_BUSY:
		fprintf(out, "none (the guest was %s)\n", busy);
		return 1;
	case TABLE_CORRUPT:
		fprintf(out, "refused: the guest's %s is implausible\n", corrupt);
		return 1;
	case TABLE_READ:
		break;
	}
	return 0;
}

void print_guest_usyms(FILE *out, const struct cap_usyms_feed_stats *f)
{
	if (claims_start(out, "guest user symbols", (enum table_state)f->state,
			 "still writing them", "table descriptor"))
		return;
	fprintf(out, "%u binaries (%" PRIu64 " functions) in the build-id "
		"cache", f->cached, f->st.symbols);
	if (f->st.refused)
		fprintf(out, "; refused %u of the %u entries sent (%s)",
			f->st.refused, f->st.claimed, gi_usyms_why_str(f->st.why));
	if (f->st.over)
		fprintf(out, "; %u past the %u taken", f->st.over,
			GI_USYMS_MAX_BINS);
	if (f->failed)
		fprintf(out, "; %u not cached: %s", f->failed,
			pdf_error_str(f->err));
	if (f->other)
		fprintf(out, "; %u kept out: the cache holds other symbols "
			"under their build ids", f->other);
	if (f->info.flags & RS_USYMS_TRUNCATED)
		fprintf(out, "; truncated: %" PRIu64 " of %" PRIu64 " bytes fit "
			"the guest's table (ringside-agent --user-symbols, "
			"--sideband-pages)", f->info.length, f->info.wanted);
	if (f->st.cut)
		fprintf(out, "; %u with symbols the guest left out", f->st.cut);
	fputc('\n', out);
}

/* The guest's process state table, as a file got it at its head. */
void print_gpstate(FILE *out, const struct gi_pstate *g, const char *output,
		   int no_pstate, const struct cap_pstate_filed *c)
{
	const struct rs_pstate_copy *h = &g->info.head;

	if (claims_start(out, "process state", (enum table_state)g->state,
			 "writing its first copy", "table"))
		return;
	fprintf(out, "%u processes", g->nr_procs);
	if (g->st.ended)          /* kept while the rings may hold them */
		fprintf(out, " (%u ended)", g->st.ended);
	fprintf(out, ", %u mappings", g->nr_maps);
	if (output && no_pstate)
		fprintf(out, ", not filed (--no-process-state)");
	else if (output && (c->comms || c->refused))
		fprintf(out, " filed before the first sample (%" PRIu64 " COMM, %"
			PRIu64 " MMAP2)", c->comms, c->mmaps);
	else if (output && g->nr_procs)
		fprintf(out, ", not filed (the file has no timed record)");
	if (c->born)
		fprintf(out, "; %" PRIu64 " processes born after the agent's "
			"last read filed as their parents", c->born);
	if (c->refused)
		fprintf(out, "; %" PRIu64 " records refused by the writer",
			c->refused);
	if (g->st.refused)
		fprintf(out, "; refused %u of the %u processes sent (%s)",
			g->st.refused, g->st.claimed, gi_pstate_why_str(g->st.why));
	if (g->st.names_refused)
		fprintf(out, "; left out %u mappings (%s)", g->st.names_refused,
			gi_pstate_why_str(GI_PSTATE_WHY_NAME));
	if (h->flags & RS_PSTATE_TRUNCATED)
		fprintf(out, "; truncated: %u processes, %u mappings did not fit "
			"the guest's table (ringside-agent --process-state, "
			"--sideband-pages)", h->procs_left_out, h->maps_left_out);
	if (g->info.bad_copies)
		fprintf(out, "; the other copy refused");
	fputc('\n', out);
}

void print_cap_fail(const char *cmd, const char *session, const char *source,
		    const char *output, const struct cap_failure *f)
{
	const char *why = cap_err_str(&f->e);

	switch (f->what) {
	case CAP_FAIL_OPEN:
		cli_err(cmd, "cannot create %s" PDF_ASIDE_SUFFIX ": %s; choose "
			"a writable -o path", output, why);
		break;
	case CAP_FAIL_ATTACH:
		if (cap_err_is(&f->e, rs_error_str, -rse_mode))
			cli_err(cmd, "%s holds overwrite-mode (flight recorder) "
				"rings, which have no tail to drain: 'ringside "
				"snapshot %s' takes what they hold now.  To record "
				"continuously, put a libvirt domain's rings in normal "
				"mode: while it runs with 'ringside disable DOMAIN "
				"--live' then 'ringside enable DOMAIN --live --mode "
				"normal' (what the rings hold goes with the old "
				"region: snapshot it first), or from its next start "
				"with 'ringside enable DOMAIN --mode normal'",
				source, source);
		else
			cli_err(cmd, "cannot attach to %s: %s", source, why);
		break;
	case CAP_FAIL_DRAIN:
		cli_err(cmd, "draining %s failed: %s; nothing was kept",
			source, why);
		break;
	case CAP_FAIL_WRITE:
		cli_err(cmd, "writing %s failed: %s; nothing was kept",
			f->path, why);
		break;
	case CAP_FAIL_FINISH:
		cli_err(cmd, "completing %s failed: %s; nothing was kept",
			output, why);
		break;
	case CAP_FAIL_COPY:
		cli_err(cmd, "copying ring %u of %s: %s; nothing was kept",
			f->ring, source, why);
		break;
	case CAP_FAIL_KCODE:
		cli_err(cmd, "out of memory");
		break;
	case CAP_FAIL_RING:
		cli_err(cmd, "ring %u into %s" PDF_ASIDE_SUFFIX ": %s; nothing "
			"was kept", f->ring, output, why);
		break;
	case CAP_FAIL_VCPUS:
		cli_err(cmd, "vCPU stacks into %s" PDF_ASIDE_SUFFIX ": %s; "
			"nothing was kept", output, why);
		break;
	default:
		cli_err(cmd, "%s %s failed: %s", session, source, why);
		break;
	}
}

/* A file ringside wrote and cannot read back is a failure, not a
 * poorer summary: its readers (report, dump, perf) would fail on it too.
 * 1 when it could not. */
static int readback(const char *cmd, const char *output, int err,
		    uint64_t at)
{
	if (err)
		cli_err(cmd, "reading %s back failed at offset %" PRIu64 ": %s; "
			"the file is kept but its readers will refuse it",
			output, at, pdf_error_str(err));
	return err != 0;
}

void print_progress(void *arg, const struct cap_recorder *r, int final)
{
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	const struct cap_tally *t = &st->tally;
	struct cap_tally_ring sum;
	char size[32];
	uint32_t i;

	(void)arg;
	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	cap_tally_total(t, &sum);
	fprintf(stderr, "\r\033[K%s: %" PRIu64 " records, %s, lost %" PRIu64,
		st->output ? "recording" : "draining", sum.records,
		print_size(size, sizeof(size), sum.bytes), sum.lost);
	for (i = 0; i < st->nr_rings && i < 8; i++)
		fprintf(stderr, " | %u: %" PRIu64 "/%" PRIu64, i,
			t->ring[i].records, t->ring[i].lost);
	if (st->nr_rings > 8)
		fprintf(stderr, " | ...");
	fflush(stderr);
}

int print_recorder_warn(const char *cmd, const struct cap_recorder *r)
{
	const struct cap_recorder_stats *st = cap_recorder_stats(r);

	return print_warn(cmd, &st->host,
			  st->have_file_tally ? &st->file_tally : &st->tally);
}

void print_chains_cut(FILE *f, const struct pdf_writer_stats *ws)
{
	if (!ws || !ws->frames_trimmed)
		return;
	fprintf(f, "  call chains: %" PRIu64 " frames cut from %" PRIu64
		" samples (trailing frames the guest's unwinder guessed: 0, or "
		"an address no map holds)\n", ws->frames_trimmed,
		ws->chains_trimmed);
}

/* How long a stable copy stopped the guest (docs/cli.md, "snapshot"). */
static void print_pause(FILE *f, const struct cap_snapper_stats *st)
{
	if (!st->pause_ns) {
		fprintf(f, "  the guest was stopped already: copied as it is, "
			"left stopped\n");
		return;
	}
	fprintf(f, "  paused the guest %.3f ms (from the pause request to "
		"the resume's answer; %.3f ms between the two answers, "
		"%.3f ms of it copying the rings)\n", st->pause_ns / 1e6,
		st->pause_inner_ns / 1e6, st->take_ns / 1e6);
}

void print_snapper(const char *cmd, const struct cap_snapper *s)
{
	const struct cap_snapper_config *c = cap_snapper_config(s);
	const struct cap_snapper_stats *st = cap_snapper_stats(s);
	const struct cap_tally *t = st->have_file_tally ? &st->file_tally :
							  &st->tally;
	struct cap_tally_ring sum;
	char label[32], size[32];
	uint32_t i;

	cap_tally_total(t, &sum);
	printf("ringside %s: %s copy of %u rings: %" PRIu64 " records (%s)",
	       cmd, c->stable ? "stable (vCPUs paused)" : "live", st->nr_rings,
	       sum.records, print_size(size, sizeof(size), sum.bytes));
	if (c->output)
		printf(" written to %s", c->output);
	putchar('\n');
	if (c->stable)
		print_pause(stdout, st);
	if (c->syms)
		print_gsyms(stdout, c->syms, c->output ? &st->wstats : NULL);
	if (c->usyms && c->output)
		print_guest_usyms(stdout, &st->usyms);
	print_gpstate(stdout, cap_snapper_pstate(s), c->output, c->no_pstate,
		      &st->pstate_out);
	print_gfacts(stdout, &st->guest, 0);
	print_chains_cut(stdout, c->output ? &st->wstats : NULL);
	if (c->kcode && c->kcode->state != GI_KCODE_ABSENT)
		print_gkcode(stdout, c->kcode);
	for (i = 0; i < st->nr_rings; i++) {
		const struct cap_snapper_ring *sr = &st->ring[i];
		const struct rs_snap_stats *ds = &sr->data;

		snprintf(label, sizeof(label), "  ring %u", i);
		print_ring_lines(stdout, label, "  ", &t->ring[i], &st->host.ring[i],
				  &t->bounds);
		printf("    cut %" PRIu64 " bytes%s, oldest record %s, corrupt %"
		       PRIu64 "\n", ds->cut_bytes, !ds->cut_bytes ? "" : c->stable ?
		       " (a record was being written when the vCPU paused)" :
		       " (overwritten during the copy)",
		       ds->overwritten ? "partly overwritten (dropped)" : "intact",
		       ds->corrupt);
		if (sr->data_mode == RS_MODE_OVERWRITE && sr->produced >= ds->records)
			printf("    holds the newest %" PRIu64 " of the %" PRIu64
			       " records the producer says it wrote; %" PRIu64
			       " older ones were overwritten\n", ds->records,
			       sr->produced, sr->produced - ds->records);
		if (sr->has_aux)
			printf("    AUX: %" PRIu64 " bytes valid, cut %" PRIu64
			       ", overwritten %" PRIu64 "; %" PRIu64 " stored\n",
			       sr->aux.len, sr->aux.cut_bytes, sr->aux.overwritten,
			       sr->aux_stored);
	}
}

int print_snapper_warn(const char *cmd, const struct cap_snapper *s)
{
	const struct cap_snapper_stats *st = cap_snapper_stats(s);

	return print_warn(cmd, &st->host,
			  st->have_file_tally ? &st->file_tally : &st->tally);
}

/* The hooks' words are the one command's that runs the recorder. */
static const char *hook_cmd;

static void doorbell_lost(void *arg, const struct cap_recorder *r, int fd)
{
	(void)arg;
	cli_err(hook_cmd, "doorbell fd %d hung up; polling every %u ms", fd,
		cap_recorder_config(r)->interval_ms);
}

static void kcode_cached(void *arg, const struct cap_recorder *r,
			 const struct gi_kcode *k)
{
	(void)arg;
	(void)r;
	printf("ringside %s:", hook_cmd);
	print_gkcode(stdout, k);   /* "  guest kernel code: ..." */
	fflush(stdout);
}

void print_recorder_config(const char *cmd, struct cap_recorder_config *c,
			   int quiet)
{
	hook_cmd = cmd;
	c->argc = cli_argc();
	c->argv = cli_argv();
	c->hooks.doorbell_lost = doorbell_lost;
	if (!quiet) {
		c->hooks.kcode_cached = kcode_cached;
		if (isatty(STDERR_FILENO))
			c->hooks.progress = print_progress;
	}
}

int print_recorder_run(const char *cmd, struct cap_recorder *r,
		       const struct rs_region *region)
{
	const struct cap_recorder_config *c = cap_recorder_config(r);
	const struct cap_recorder_stats *st = cap_recorder_stats(r);

	if (cap_recorder_run(r, region)) {
		print_cap_fail(cmd, "recording", c->source, st->output, &st->fail);
		return CLI_EXIT_FAIL;
	}
	return readback(cmd, st->output, st->readback_err, st->readback_at) ?
	       CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* A snapshot session's step: 0, or CLI_EXIT_FAIL after its words. */
static int step(const char *cmd, const struct cap_snapper *s, int err)
{
	const struct cap_snapper_config *c = cap_snapper_config(s);

	if (!err)
		return CLI_EXIT_OK;
	print_cap_fail(cmd, "snapshot of", c->source, c->output,
		       &cap_snapper_stats(s)->fail);
	return CLI_EXIT_FAIL;
}

int print_snapper_prepare(const char *cmd, struct cap_snapper *s,
			  const struct rs_region *region)
{
	return step(cmd, s, cap_snapper_prepare(s, region));
}

int print_snapper_take(const char *cmd, struct cap_snapper *s,
		       const struct rs_region *region)
{
	return step(cmd, s, cap_snapper_take(s, region));
}

int print_snapper_parse(const char *cmd, struct cap_snapper *s)
{
	return step(cmd, s, cap_snapper_parse(s));
}

int print_snapper_copy(const char *cmd, struct cap_snapper *s,
		       const struct rs_region *region)
{
	return step(cmd, s, cap_snapper_copy(s, region));
}

int print_snapper_write(const char *cmd, struct cap_snapper *s)
{
	const struct cap_snapper_stats *st = cap_snapper_stats(s);
	int ret = step(cmd, s, cap_snapper_write(s));

	if (ret == CLI_EXIT_OK &&
	    readback(cmd, cap_snapper_config(s)->output, st->readback_err,
		     st->readback_at))
		ret = CLI_EXIT_FAIL;
	return ret;
}

void print_reattach(FILE *f, uint32_t ring, const struct rs_cons_stats *cs)
{
	char a[32], b[32], c[32];

	if (cs->skip_bytes)
		fprintf(f, "  ring %u: %" PRIu64 " records (%s) came back behind "
			"what was taken: delivered already, not taken again\n",
			ring, cs->skip_records,
			print_size(a, sizeof(a), cs->skip_bytes));
	if (cs->skip_unframed)
		fprintf(f, "  ring %u: of them, %s the guest changed since: "
			"not framed as records\n", ring,
			print_size(a, sizeof(a), cs->skip_unframed));
	if (cs->head_back)
		fprintf(f, "  ring %u: the restored head was %s behind what was "
			"taken (a region laid out anew, or an older copy): "
			"%" PRIu64 " records (%s) it held were taken, which may "
			"repeat earlier ones\n", ring,
			print_size(a, sizeof(a), cs->head_back_bytes),
			cs->unsure_records,
			print_size(b, sizeof(b), cs->unsure_bytes));
	if (cs->tail_ahead)
		fprintf(f, "  ring %u: the restored tail was %s ahead of what "
			"was taken: never read here\n", ring,
			print_size(a, sizeof(a), cs->tail_ahead_bytes));
	if (cs->aux_skip_bytes || cs->aux_unsure_bytes ||
	    cs->aux_tail_ahead_bytes)
		fprintf(f, "  ring %u: AUX: %s delivered already, %s that may "
			"repeat, %s never read here\n", ring,
			print_size(a, sizeof(a), cs->aux_skip_bytes),
			print_size(b, sizeof(b), cs->aux_unsure_bytes),
			print_size(c, sizeof(c), cs->aux_tail_ahead_bytes));
}

void print_reattach_total(FILE *f, const struct cap_recorder *r)
{
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	uint32_t i;

	fprintf(f, "across the recording: saved %u times, ran again %u times, "
		"%u files%s\n", st->aways, st->backs, st->files,
		st->away ? " (it ended while the domain was saved)" : "");
	for (i = 0; i < st->nr_rings; i++)
		print_reattach(f, i, cap_recorder_cons_stats(r, i));
}
