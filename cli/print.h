/* SPDX-License-Identifier: MIT */
/*
 * What the commands print of what the libraries found: tallies (the text
 * and JSON of `ringside report`, the per-ring lines record and snapshot
 * end with; print.c), what the host read of a guest (print_guest.c), the
 * guest clock (print_clock.c), a region's damaged header (print_region.c),
 * how a record or snapshot session went (print_session.c), and the
 * host's view of the vCPU threads (print_host.c).
 */
#ifndef RINGSIDE_CLI_PRINT_H
#define RINGSIDE_CLI_PRINT_H

#include <stdio.h>

#include "ringside/capture.h"
#include "ringside/introspect.h"
#include "ringside/perfdata.h"

void print_report_text(FILE *f, const char *path, const struct pdf_info *info,
		 const struct cap_tally *t);
/* @hv: the host's view read with the file (NULL or no record: none;
 * else "host": its records by type). */
void print_report_json(FILE *f, const char *path, const struct pdf_info *info,
		 const struct cap_tally *t, const struct cap_host_view *hv);

/* The guest's user samples by function (gi_symfs_top()'s @n @rows), after
 * print_report_text's tallies; @symfs as given (NULL: none). */
void print_usyms(FILE *f, const struct gi_symfs_summary *sum,
		       const struct gi_symfs_row *rows, int n, const char *symfs);

/*
 * The lines every summary gives a ring (or the total), @indent before each
 * but the first: what the host observed (@h, NULL when the file says
 * nothing), the guest's claims (@r), and the claims flagged as implausible:
 *
 *   ring 0: 123 records (4.0 KiB)
 *     host: corrupt 0 (0 impossible heads), 0 bytes discarded; AUX 512 bytes taken, 512 stored
 *     guest claims: lost 5 in 1 LOST records; AUX 2 records (512 bytes, 0 truncated)
 *     flagged, not summed: 1 LOST count above 1/ns of host uptime
 */
/* The total of what predated a recording (@h: print_host_total's sum)
 * as one line into @f (NULL: none); 1 if anything did. */
int print_early(FILE *f, const struct pdf_host_ring *h);

void print_ring_lines(FILE *f, const char *label, const char *indent,
		       const struct cap_tally_ring *r, const struct pdf_host_ring *h,
		       const struct cap_tally_bounds *b);

/* The sum of @n rings' host facts (saturating) into @sum. */
void print_host_total(const struct pdf_host_facts *hf, struct pdf_host_ring *sum);

/*
 * On stderr, whatever --quiet hides: corruption the host met (@h: every
 * ring of it; NULL: none known) and claims flagged in @t.  Returns 1 when
 * it printed anything (the command then exits CLI_EXIT_CORRUPT), else 0.
 */
int print_warn(const char *cmd, const struct pdf_host_facts *h,
		const struct cap_tally *t);

/* The host's view of the vCPU threads (print_host.c): what record filed
 * of it, and report's per-vCPU lines (running, steal, blocked, the
 * longest preemptions). */
void print_host_view(FILE *f, const struct cap_host *h);
void print_host_report(FILE *f, const struct cap_host_view *v);
/* vCPU @lane's exits by reason, to the VMM and into KVM, a line each. */
void print_host_exits(FILE *f, uint32_t lane, const struct hv_track *t);

/* Bytes in B, KiB, MiB or GiB, into @buf. */
const char *print_size(char *buf, size_t len, uint64_t bytes);

/*
 * Strings ringside did not write (a file's, a guest's, a socket's) go
 * to the terminal through these, escaped (ringside/text.h): control
 * bytes, DEL and every byte past ASCII as "\xHH", '\' as "\\", and
 * with RS_TEXT_QUOTED '"' as "\"".  print_bytes: @n bytes in quotes,
 * NULs included.  print_json_str: a JSON string, quotes included, plain
 * ASCII whatever @s holds (malformed UTF-8 as U+FFFD).
 */
void print_str(FILE *f, const char *s, unsigned flags);
void print_bytes(FILE *f, const void *p, size_t n);
void print_json_str(FILE *f, const char *s);

/* print_session.c: "  guest user symbols (guest claims): ..." line, what
 * went into the build-id cache and what did not. */
void print_guest_usyms(FILE *out, const struct cap_usyms_feed_stats *f);
/* print_guest.c: "  guest kernel symbols: ..." lines, with what the
 * writer made of them (@ws: NULL when no file was written). */
void print_gsyms(FILE *out, const struct gi_syms *g,
		 const struct pdf_writer_stats *ws);
/* "  guest identity (guest claims): ..." and "  guest sampling ..." lines
 * of who the guest says it is; @late: it said so after the file was
 * opened. */
void print_gfacts(FILE *out, const struct cap_guest_facts *g, int late);
/* "  guest names: ..." where the writer of @output put the guest's
 * symbols (its own build-id cache, never perf's) and the perf command
 * line that reads them, when @ws says it put any there (@ubins: user
 * binaries it cached). */
void print_names_hint(FILE *out, const char *output,
		      const struct pdf_writer_stats *ws, uint32_t ubins);
/* "  guest kernel code: ...", when it was asked for. */
void print_gkcode(FILE *out, const struct gi_kcode *g);
/* "guest perf buffers: ..." lines; @why (NULL: none) says why nothing
 * could be read (the source could not be reached); @refused: records the
 * writer refused. */
void print_gkbuf(FILE *out, const struct gi_kbuf *g, const char *why,
		 uint64_t refused);
/* "vCPU stacks: ..." lines, each chain's first frames named. */
void print_gvcpu(FILE *out, const struct gi_vcpu *g);

/* print_clock.c: "guest clock: host CLOCK_MONOTONIC + X ns, error bound
 * ..." lines of a recording's or snapshot's sync. */
void print_csync(FILE *out, const struct cap_sync *c);
/* The same for a file's clock feature (report). */
void print_clock_file(FILE *out, const struct pdf_info *info);

/* print_region.c: the damage cap_source_open found and, for --vm, the header
 * page guard's count, on stderr as @cmd's messages about @spec (nothing
 * when the region is whole and the guard refused nothing).  Returns 1
 * when the header was damaged. */
int print_source_damage(const char *cmd, const struct cap_source *m,
			const char *spec);
/* --vm: one line on the header page guard, with the VMM's counts as of
 * now.  Nothing for other sources. */
void print_source_guard(FILE *f, const struct cap_source *m);

/* print_session.c: a recording's config with the command's line and
 * hooks (the progress line unless @quiet or stderr is no terminal, the
 * doorbell that hung up, the kernel's code once cached unless @quiet);
 * then cap_recorder_run with its words on a failure or a file that
 * cannot be read back.  An enum cli_exit value. */
void print_recorder_config(const char *cmd, struct cap_recorder_config *c,
			   int quiet);
int print_recorder_run(const char *cmd, struct cap_recorder *r,
		       const struct rs_region *region);
/* cap_snapper_copy (or its steps) and cap_snapper_write, likewise. */
int print_snapper_prepare(const char *cmd, struct cap_snapper *s,
			  const struct rs_region *region);
int print_snapper_take(const char *cmd, struct cap_snapper *s,
		       const struct rs_region *region);
int print_snapper_parse(const char *cmd, struct cap_snapper *s);
int print_snapper_copy(const char *cmd, struct cap_snapper *s,
		       const struct rs_region *region);
int print_snapper_write(const char *cmd, struct cap_snapper *s);
/* Where a @session ("recording", "snapshot of") of @source into @output
 * failed (@f), as @cmd's message on stderr. */
void print_cap_fail(const char *cmd, const char *session, const char *source,
		    const char *output, const struct cap_failure *f);
/* The progress line on stderr (the recorder's progress hook; @arg
 * unused). */
void print_progress(void *arg, const struct cap_recorder *r, int final);
/* What was copied, cut and lost, per ring, on stdout. */
void print_snapper(const char *cmd, const struct cap_snapper *s);
/* The writer's call chain frames cut (pdf_writer_stats), a line when
 * there were any; NULL: nothing written. */
void print_chains_cut(FILE *f, const struct pdf_writer_stats *ws);

/* The guest's process table and what @output (NULL: no file) got of it. */
void print_gpstate(FILE *out, const struct gi_pstate *g, const char *output,
		   int no_pstate, const struct cap_pstate_filed *c);
/* Corruption and flagged claims on stderr (print_warn); 1 when there
 * were any: the command exits CLI_EXIT_CORRUPT. */
int print_recorder_warn(const char *cmd, const struct cap_recorder *r);

/* What reattaching ring @ring to a restored region found (the consumer's
 * counts so far); nothing when it found its tails where it left them. */
void print_reattach(FILE *f, uint32_t ring, const struct rs_cons_stats *cs);

/* A recording that outlived saves: how often, how many files, and what
 * each ring's reattaches found. */
void print_reattach_total(FILE *f, const struct cap_recorder *r);
int print_snapper_warn(const char *cmd, const struct cap_snapper *s);

#endif /* RINGSIDE_CLI_PRINT_H */
