/* SPDX-License-Identifier: MIT */
/*
 * What the host read of a guest (ringside/introspect.h), in the words
 * `snapshot`, `stat` and `record` print: one function per module, each
 * on @out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ringside/introspect.h"
#include "ringside/text.h"

#include "print.h"

/* Frames of each vCPU's chain on its summary line. */
#define SUMMARY_FRAMES 8u

static const char *hex(char *buf, const uint8_t *id, uint32_t len)
{
	uint32_t i;

	if (!len)
		return "none";
	for (i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	return buf;
}

void print_gsyms(FILE *out, const struct gi_syms *g,
		   const struct pdf_writer_stats *ws)
{
	char id[2 * RS_SIDEBAND_BUILD_ID_MAX + 1];

	fprintf(out, "  guest kernel symbols: ");
	switch (g->state) {
	case GI_SYMS_ABSENT:
		fprintf(out, "none (the region has no sideband area; 'ringside "
			"enable --sideband-pages N')\n");
		return;
	case GI_SYMS_NONE:
		fprintf(out, "none (the guest agent has not published them)\n");
		return;
	case GI_SYMS_BUSY:
		fprintf(out, "none (the guest was still writing them)\n");
		return;
	case GI_SYMS_CORRUPT:
		fprintf(out, "refused: the guest's sideband descriptor is "
			"implausible (lengths beyond the area, or flags no "
			"agent writes)\n");
		return;
	case GI_SYMS_OTHER:
		fprintf(out, "none (the sideband holds content of kind %u)\n",
			g->info.kind);
		return;
	case GI_SYMS_REFUSED:
		fprintf(out, "refused: %s; kernel samples are not named\n",
			pdf_error_str(g->parse_err));
		break;
	case GI_SYMS_OK:
		if (ws && ws->ksyms_err) {
			fprintf(out, "%" PRIu64 " functions, not used: %s; "
				"kernel samples are not named\n", g->functions,
				pdf_error_str(ws->ksyms_err));
			break;
		}
		fprintf(out, "%" PRIu64 " functions", g->functions);
		if (g->modules)
			fprintf(out, " (%u modules)", g->modules);
		/* the guest's table, in part: the rest still names samples */
		if (g->modules_refused)
			fprintf(out, ", %u modules refused (%" PRIu64
				" functions: %s; their samples are not named)",
				g->modules_refused, g->refused,
				pdf_error_str(PDF_ERR(pdfe_ksyms_overlap)));
		if (ws && ws->build_id_len) {
			/* the table's content id, never the guest's own: a
			 * reader running that kernel would name the samples
			 * from its own /proc/kallsyms.  Files of one boot
			 * share the entry. */
			fprintf(out, ", filed under build id %s\n",
				hex(id, ws->build_id, ws->build_id_len));
		} else {
			fprintf(out, ", build id %s\n", hex(id, g->info.build_id,
							    g->info.build_id_len));
		}
		break;
	}
	if (g->info.flags & RS_SIDEBAND_TRUNCATED)
		fprintf(out, "  guest kernel symbols truncated: %" PRIu64 " of %"
			PRIu64 " bytes (the guest's count); 'ringside enable "
			"--sideband-pages N' makes room\n", g->info.length,
			g->info.wanted);
}

/* The guest's sampling event, in perf's words where they are known. */
static void event_name(char *buf, size_t len, uint32_t type, uint64_t config)
{
	static const char *const hw[] = { "cycles", "instructions",
		"cache-references", "cache-misses", "branches", "branch-misses",
		"bus-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock",
		"page-faults", "context-switches", "cpu-migrations" };

	if (type == 0 && config < sizeof(hw) / sizeof(hw[0]))
		snprintf(buf, len, "%s", hw[config]);
	else if (type == 1 && config < sizeof(sw) / sizeof(sw[0]))
		snprintf(buf, len, "%s", sw[config]);
	else
		snprintf(buf, len, "type %u config %#" PRIx64, type, config);
}

/* A guest string quoted (escaped: a '"' in it cannot end the quotes),
 * or unknown when it said none. */
static const char *quoted(char *buf, size_t len, const char *s)
{
	if (!*s)
		return "unknown";
	buf[0] = '"';
	rs_text_term(buf + 1, len - 2, s, strlen(s), RS_TEXT_QUOTED);
	strcat(buf, "\"");
	return buf;
}

void print_gfacts(FILE *out, const struct cap_guest_facts *g, int late)
{
	const struct pdf_guest_facts *f = &g->facts;
	char size[32], ev[64], q[4][RS_TEXT_TERM_MAX(sizeof(f->cpu_desc)) + 2];

	switch (g->state) {
	case CAP_GUEST_FACTS_NONE:
		fprintf(out, "  guest identity: none (the guest agent has not "
			"published it: a file names no machine)\n");
		return;
	case CAP_GUEST_FACTS_BUSY:
		fprintf(out, "  guest identity: none (the guest was still "
			"writing it)\n");
		return;
	case CAP_GUEST_FACTS_CORRUPT:
		fprintf(out, "  guest identity: refused: the guest's identity "
			"block has no agent's magic\n");
		return;
	case CAP_GUEST_FACTS_OK:
		break;
	}
	/* every string is printable ASCII (cap_guest_facts cleaned it), '"'
	 * and '\\' escaped in the quotes */
	fprintf(out, "  guest identity (guest claims%s): host %s, release %s, "
		"arch %s, CPUs %u online of %u, memory %s, CPU %s\n",
		late ? ", published after the file was opened" : "",
		quoted(q[0], sizeof(q[0]), f->hostname),
		quoted(q[1], sizeof(q[1]), f->os_release),
		quoted(q[2], sizeof(q[2]), f->arch), f->nr_cpus_online,
		f->nr_cpus_avail, f->mem_total_kib ? print_size(size, sizeof(size),
		f->mem_total_kib * 1024) : "unknown",
		quoted(q[3], sizeof(q[3]), f->cpu_desc));
	if (f->sample_period) {
		event_name(ev, sizeof(ev), f->sample_type_id, f->sample_config);
		fprintf(out, "  guest sampling (guest claims): %s, %s %" PRIu64
			"%s%s\n", ev, f->sample_flags & RS_SAMPLE_FREQ ?
			"frequency" : "period", f->sample_period,
			f->sample_flags & RS_SAMPLE_FREQ ? " Hz" : "",
			f->sample_flags & RS_SAMPLE_EXCLUDE_KERNEL ? ", user only" :
			f->sample_flags & RS_SAMPLE_EXCLUDE_USER ? ", kernel only" :
			", user and kernel");
	} else {
		fprintf(out, "  guest sampling (guest claims): not said\n");
	}
	if (g->left_out || g->replaced)
		fprintf(out, "  guest identity flagged: %u implausible numbers "
			"left out, %u bytes replaced by '?'\n", g->left_out,
			g->replaced);
}

void print_names_hint(FILE *out, const char *output,
		      const struct pdf_writer_stats *ws, uint32_t ubins)
{
	char dir[4096];

	if (!output || !ws || (!ubins && (!ws->build_id_len || ws->ksyms_err)) ||
	    pdf_cache_dir_of(output, dir, sizeof(dir)))
		return;
	fprintf(out, "  guest names: in %s (ringside's build-id cache, not "
		"perf's): perf --buildid-dir %s report -i %s\n", dir, dir,
		output);
}

void print_gkcode(FILE *out, const struct gi_kcode *g)
{
	switch (g->state) {
	case GI_KCODE_ABSENT:
		break;
	case GI_KCODE_NO_SYMBOLS:
		fprintf(out, "  guest kernel code: not read (no guest kernel symbols "
			"in the build-id cache: perf cannot decode the PT)\n");
		break;
	case GI_KCODE_UNREADABLE:
		fprintf(out, "  guest kernel code: unreadable (%s): perf cannot "
			"decode the PT\n", g->errstr ? g->errstr(g->err) : "?");
		break;
	case GI_KCODE_UNREADABLE_CACHED:
		fprintf(out, "  guest kernel code: unreadable (%s); the build-id "
			"cache holds this kernel's from an earlier read: perf "
			"decodes with it\n", g->errstr ? g->errstr(g->err) : "?");
		break;
	case GI_KCODE_FAILED:
		fprintf(out, "  guest kernel code: read, not cached (%s)\n",
			pdf_error_str(g->err));
		break;
	case GI_KCODE_KEPT:
	case GI_KCODE_OK:
		fprintf(out, "  guest kernel code: %" PRIu64 " of %" PRIu64
			" bytes in %u segments%s, kcore in the build-id cache%s%s\n",
			g->bytes, g->wanted, g->segments,
			g->pages_unread ? " (unreadable pages as INT3s)" : "",
			g->state == GI_KCODE_KEPT ? " (the one there was kept)" : "",
			g->early ? " (read as the recording began)" : "");
		break;
	}
}

void print_gkbuf(FILE *out, const struct gi_kbuf *g, const char *why,
		   uint64_t refused)
{
	static const char *const state[] = {
		[GI_KBUF_ABSENT] = "not read: the region has no sideband area",
		[GI_KBUF_NONE] = "not read: the agent published no table",
		[GI_KBUF_BUSY] = "not read: the agent was writing the table",
		[GI_KBUF_CORRUPT] = "not read: a table no agent writes (corrupt)",
		[GI_KBUF_MISMATCH] = "not read: their sample_type is not the region's",
	};

	if (why) {
		fprintf(out, "guest perf buffers: not read: %s\n", why);
		return;
	}
	if (g->state != GI_KBUF_OK) {
		fprintf(out, "guest perf buffers: %s\n", state[g->state]);
		return;
	}
	fprintf(out, "guest perf buffers: %" PRIu64 " records recovered from %u "
		"CPUs in guest memory (written by the guest kernel, not yet "
		"forwarded by the agent)",
		g->records - g->duplicates - refused, g->cpus_recovered);
	if (g->records - g->duplicates - refused == 0)
		fprintf(out, "; the agent had forwarded everything");
	fprintf(out, "\n    %u buffers read, %" PRIu64 " corrupt, %" PRIu64
		" already in the rings, %" PRIu64 " of other types, %" PRIu64
		" refused by the writer\n", g->cpus, g->corrupt, g->duplicates,
		g->other, refused);
	if (g->bad_rows)
		fprintf(out, "    %u buffers refused: an address outside guest "
			"RAM or not page-aligned (corrupt)\n", g->bad_rows);
	if (g->bad_pages)
		fprintf(out, "    %u buffers refused: head, tail or size out of "
			"bounds (corrupt)\n", g->bad_pages);
	if (g->peek_failed)
		fprintf(out, "    %u buffers unread: reading guest memory failed: "
			"%s\n", g->peek_failed, g->peek_err && g->errstr ?
			g->errstr(g->peek_err) : "error");
}

static void frame(FILE *out, const struct pdf_ksyms *k, uint64_t ip)
{
	struct pdf_ksym s;

	if (k && pdf_ksyms_find(k, ip, &s)) {
		print_str(out, s.name, 0);   /* the guest's name */
		fprintf(out, "+%#" PRIx64, ip - s.addr);
	} else
		fprintf(out, "%#" PRIx64, ip);
}

void print_gvcpu(FILE *out, const struct gi_vcpu *g)
{
	uint32_t i, f;

	switch (g->state) {
	case GI_VCPU_ABSENT:
		return;
	case GI_VCPU_NO_SYMBOLS:
		fprintf(out, "vCPU stacks: not read: no guest kernel symbols to "
			"check them with\n");
		return;
	case GI_VCPU_NO_REGISTERS:
		fprintf(out, "vCPU stacks: not read: the registers: %s\n",
			g->errstr ? g->errstr(g->err) : "error");
		return;
	case GI_VCPU_BAD_REGISTERS:
		fprintf(out, "vCPU stacks: not read: the monitor's registers are "
			"not an x86-64 guest's\n");
		return;
	case GI_VCPU_OK:
		break;
	}
	fprintf(out, "vCPU stacks: %u vCPUs, one sample each after the newest "
		"record%s\n", g->nr, g->refused ? " (some refused by the writer)" : "");
	for (i = 0; i < g->nr; i++) {
		const struct gi_vcpu_one *c = &g->cpu[i];

		fprintf(out, "    vCPU %u (%s%s): ", c->regs.cpu,
			c->regs.cpl == 3 ? "user" : "kernel",
			c->regs.halted ? ", halted" : "");
		for (f = 0; f < c->stack.nr && f < SUMMARY_FRAMES; f++) {
			if (f)
				fputs(" <- ", out);
			frame(out, g->ksyms, c->stack.ip[f]);
		}
		if (c->stack.nr > SUMMARY_FRAMES)
			fprintf(out, " <- ... (%u frames)", c->stack.nr);
		if (c->stack.peek_err)
			fputs(" (its stack could not be read)", out);
		fputc('\n', out);
	}
}
