/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <string.h>

#include "ringside/capture.h"
#include "ringside/text.h"

#include "print.h"

/* Bytes of @s escaped at a time: the escapes of one byte never depend on
 * the next in terminal form, so the pieces can be cut anywhere. */
#define PIECE 256u

void print_str(FILE *f, const char *s, unsigned flags)
{
	char buf[RS_TEXT_TERM_MAX(PIECE)];
	size_t n = s ? strlen(s) : 0;

	for (size_t at = 0; at < n; at += PIECE) {
		rs_text_term(buf, sizeof(buf), s + at,
			     n - at < PIECE ? n - at : PIECE, flags);
		fputs(buf, f);
	}
}

void print_bytes(FILE *f, const void *p, size_t n)
{
	char buf[RS_TEXT_TERM_MAX(PIECE)];

	fputc('"', f);
	for (size_t at = 0; at < n; at += PIECE) {
		rs_text_term(buf, sizeof(buf), (const char *)p + at,
			     n - at < PIECE ? n - at : PIECE,
			     RS_TEXT_QUOTED | RS_TEXT_BYTES);
		fputs(buf, f);
	}
	fputc('"', f);
}

void print_json_str(FILE *f, const char *s)
{
	char buf[RS_TEXT_JSON_MAX(PIECE)];
	size_t n = s ? strlen(s) : 0;

	fputc('"', f);
	for (size_t at = 0; at < n;) {
		size_t k = n - at < PIECE ? n - at : PIECE;

		/* a piece ends before a lead byte: a character's bytes stay
		 * together (a run of more than 3 continuation bytes is no
		 * character, cut anywhere) */
		for (size_t back = 0; at + k < n && back < 3 &&
		     ((unsigned char)s[at + k] & 0xc0) == 0x80; back++)
			k--;
		rs_text_json(buf, sizeof(buf), s + at, k);
		fputs(buf, f);
		at += k;
	}
	fputc('"', f);
}

const char *print_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	v /= 1024.0;
	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

static void host_line(FILE *f, const char *indent, const struct pdf_host_ring *h,
		      uint32_t kind)
{
	fprintf(f, "%s  host: corrupt %" PRIu64 " (%" PRIu64 " impossible heads), %"
		PRIu64 " bytes discarded", indent, h->corrupt, h->bad_heads,
		h->corrupt_bytes);
	if (h->aux_size || h->aux_bytes || h->aux_bad_heads)
		fprintf(f, "; AUX %" PRIu64 " bytes taken, %" PRIu64 " stored, %"
			PRIu64 " impossible heads", h->aux_bytes, h->aux_stored,
			h->aux_bad_heads);
	if (kind == PDF_HOST_SNAPSHOT)
		fprintf(f, "; cut %" PRIu64 " bytes", h->cut_bytes);
	if (h->sealed_records)
		fprintf(f, "; %" PRIu64 " records past data_head (committed, "
			"not yet in the producer's published count)",
			h->sealed_records);
	if (h->not_written)
		fprintf(f, "; not written: %" PRIu64 " records too big for a "
			"perf record", h->not_written);
	if (h->frames_trimmed)
		fprintf(f, "; call chains: %" PRIu64 " frames cut (the guest's "
			"unwinder guessed them)", h->frames_trimmed);
	fputc('\n', f);
	if (print_early(NULL, h))
		fprintf(f, "%s  before the recording: %" PRIu64 " records (in the "
			"file), lost %" PRIu64 " in %" PRIu64 " LOST records, "
			"samples lost %" PRIu64 " in %" PRIu64 " LOST_SAMPLES (guest "
			"claims, not in the file)", indent,
			h->early_records, h->early_lost, h->early_lost_records,
			h->early_lost_samples, h->early_lost_samples_records);
	if (h->early_flagged || h->early_flagged_samples)
		fprintf(f, "; flagged, not summed: %" PRIu64 " LOST counts, %"
			PRIu64 " LOST_SAMPLES counts above %u per ns the host "
			"ran", h->early_flagged, h->early_flagged_samples,
			CAP_TALLY_LOST_PER_NS);
	if (print_early(NULL, h))
		fputc('\n', f);
}

int print_early(FILE *f, const struct pdf_host_ring *h)
{
	uint64_t losses = cap_tally_sat_add(h->early_lost, h->early_lost_samples);

	if (!h->early_records && !h->early_lost_records &&
	    !h->early_lost_samples_records && !h->early_flagged &&
	    !h->early_flagged_samples)
		return 0;
	if (f)
		fprintf(f, "  %" PRIu64 " records and %" PRIu64 " losses predate "
			"the recording: the records the rings held when it began "
			"are in the file, first in their rings; the losses (%"
			PRIu64 " LOST, %" PRIu64 " LOST_SAMPLES records) are "
			"counted here, not as losses of the recording%s\n",
			h->early_records, losses, h->early_lost_records,
			h->early_lost_samples_records,
			h->early_flagged || h->early_flagged_samples ?
			" (some counts flagged, not summed)" : "");
	return 1;
}

/* ", " between the parts of a line, after the first. */
static void part(FILE *f, int *n)
{
	if ((*n)++)
		fputs(", ", f);
}

static void flag_line(FILE *f, const char *indent, const struct cap_tally_ring *r,
		      const struct cap_tally_bounds *b)
{
	int n = 0;

	if (!cap_tally_flagged(r))
		return;
	fprintf(f, "%s  flagged, not summed: ", indent);
	if (r->flag_lost) {
		part(f, &n);
		fprintf(f, "%" PRIu64 " LOST counts", r->flag_lost);
	}
	if (r->flag_lost_samples) {
		part(f, &n);
		fprintf(f, "%" PRIu64 " LOST_SAMPLES counts", r->flag_lost_samples);
	}
	if (r->flag_lost || r->flag_lost_samples)
		fprintf(f, " above %u per ns of the time the ring could have run",
			CAP_TALLY_LOST_PER_NS);
	if (r->flag_aux) {
		part(f, &n);
		fprintf(f, "%" PRIu64 " AUX sizes larger than the AUX area",
			r->flag_aux);
	}
	if (r->flag_time) {
		part(f, &n);
		fprintf(f, "%" PRIu64 " times outside the %s window (+-%" PRIu64
			" us)", r->flag_time, b->kind == PDF_HOST_DRAIN ?
			"recording" : "copy", b->slack_ns / 1000);
	}
	fputc('\n', f);
}

void print_ring_lines(FILE *f, const char *label, const char *indent,
		       const struct cap_tally_ring *r, const struct pdf_host_ring *h,
		       const struct cap_tally_bounds *b)
{
	char size[32];

	fprintf(f, "%s: %" PRIu64 " records (%s)\n", label, r->records,
		print_size(size, sizeof(size), r->bytes));
	if (h)
		host_line(f, indent, h, b->kind);
	fprintf(f, "%s  guest claims%s: lost %" PRIu64 " in %" PRIu64
		" LOST records", indent, b->kind ? "" : " (not checked: no host "
		"facts)", r->lost, r->by_class[PDF_RREC_LOST] - r->flag_lost);
	if (r->by_class[PDF_RREC_LOST_SAMPLES])
		fprintf(f, ", samples lost %" PRIu64, r->lost_samples);
	if (r->by_class[PDF_RREC_AUX])
		fprintf(f, "; AUX %" PRIu64 " records (%" PRIu64 " bytes, %"
			PRIu64 " truncated)", r->by_class[PDF_RREC_AUX] -
			r->flag_aux, r->aux_bytes, r->aux_truncated);
	fputc('\n', f);
	flag_line(f, indent, r, b);
}

void print_host_total(const struct pdf_host_facts *hf, struct pdf_host_ring *sum)
{
	const uint64_t *src;
	uint64_t *dst = (uint64_t *)(void *)sum;
	uint32_t i, w;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < hf->nr_rings && i < RS_MAX_RINGS; i++) {
		src = (const uint64_t *)(const void *)&hf->ring[i];
		for (w = 0; w < PDF_HOST_RING_WORDS; w++)
			dst[w] = cap_tally_sat_add(dst[w], src[w]);
	}
}

int print_warn(const char *cmd, const struct pdf_host_facts *h,
		const struct cap_tally *t)
{
	struct pdf_host_ring hs = { 0 };
	struct cap_tally_ring sum;
	int said = 0;

	if (h)
		print_host_total(h, &hs);
	cap_tally_total(t, &sum);
	if (hs.corrupt || hs.aux_bad_heads) {
		fprintf(stderr, "ringside %s: warning: the source was corrupt: %"
			PRIu64 " events (%" PRIu64 " impossible heads), %" PRIu64
			" bytes discarded; AUX: %" PRIu64 " impossible heads\n",
			cmd, hs.corrupt, hs.bad_heads, hs.corrupt_bytes,
			hs.aux_bad_heads);
		said = 1;
	}
	/* the counts left out as predating the recording among them */
	sum.flag_lost = cap_tally_sat_add(sum.flag_lost, hs.early_flagged);
	sum.flag_lost_samples = cap_tally_sat_add(sum.flag_lost_samples,
					      hs.early_flagged_samples);
	if (cap_tally_flagged(&sum)) {
		fprintf(stderr, "ringside %s: warning: the guest's records make %"
			PRIu64 " implausible claims (LOST counts %" PRIu64
			", LOST_SAMPLES %" PRIu64 ", AUX sizes %" PRIu64 ", times %"
			PRIu64 "), flagged and not summed\n", cmd,
			cap_tally_flagged(&sum), sum.flag_lost, sum.flag_lost_samples,
			sum.flag_aux, sum.flag_time);
		said = 1;
	}
	return said;
}

static void class_detail(FILE *f, enum pdf_rrec_class c, const struct cap_tally_ring *r)
{
	switch (c) {
	case PDF_RREC_SEQ:
		fprintf(f, "   gaps %" PRIu64 ", out of order %" PRIu64
			", checksum errors %" PRIu64, r->seq_gaps, r->seq_back,
			r->seq_bad);
		if (r->have_seq)
			fprintf(f, ", seq %" PRIu64 "..%" PRIu64, r->seq_first,
				r->seq_last);
		break;
	case PDF_RREC_LOST:
		fprintf(f, "   records lost %" PRIu64, r->lost);
		break;
	case PDF_RREC_LOST_SAMPLES:
		fprintf(f, "   samples lost %" PRIu64, r->lost_samples);
		break;
	case PDF_RREC_AUX:
		fprintf(f, "   %" PRIu64 " bytes, truncated %" PRIu64 ", partial %"
			PRIu64 ", collision %" PRIu64, r->aux_bytes,
			r->aux_truncated, r->aux_partial, r->aux_collision);
		break;
	default:
		break;
	}
}

static void text_block(FILE *f, const char *label, const struct cap_tally_ring *r,
		       const struct pdf_host_ring *h, const struct cap_tally_bounds *b)
{
	unsigned c;

	print_ring_lines(f, label, "", r, h, b);
	for (c = 0; c < PDF_RREC_MAX; c++) {
		if (!r->by_class[c])
			continue;
		fprintf(f, "  %-13s %12" PRIu64, pdf_rrec_class_name((enum pdf_rrec_class)c),
			r->by_class[c]);
		class_detail(f, (enum pdf_rrec_class)c, r);
		fputc('\n', f);
	}
	if (r->have_time)
		fprintf(f, "  time          %" PRIu64 ".%09" PRIu64 " .. %" PRIu64
			".%09" PRIu64 " (%.6f s), %.0f records/s%s\n",
			r->first_time / 1000000000, r->first_time % 1000000000,
			r->last_time / 1000000000, r->last_time % 1000000000,
			(double)(r->last_time - r->first_time) * 1e-9,
			cap_tally_rate(r), r->flag_time ? " (times flagged left out)" : "");
	else if (r->flag_time)
		fprintf(f, "  time          none plausible\n");
}

/* Which window the claims were checked against, and how. */
static void window_text(FILE *f, const struct pdf_info *info,
			const struct cap_tally_bounds *b)
{
	const struct pdf_host_facts *h = &info->host;

	if (!b->kind) {
		fprintf(f, "host facts: none in this file (an older ringside): the "
			"guest's claims are shown unchecked\n");
		return;
	}
	fprintf(f, "host facts: %s from %" PRIu64 ".%09" PRIu64 " to %" PRIu64
		".%09" PRIu64 " (host CLOCK_MONOTONIC); times %s\n",
		h->kind == PDF_HOST_DRAIN ? "drained" : "copied",
		h->start_ns / 1000000000, h->start_ns % 1000000000,
		h->end_ns / 1000000000, h->end_ns % 1000000000,
		b->times_host ? "checked against it" :
		"not checked (the guest's clock, or a conversion with no "
		"measured error bound)");
}

void print_report_text(FILE *f, const char *path, const struct pdf_info *info,
		 const struct cap_tally *t)
{
	struct pdf_host_ring hs;
	struct cap_tally_ring sum;
	char label[32];
	uint32_t i;

	/* the host that read the rings (older files: their HOSTNAME); every
	 * string is the file's, escaped */
	print_str(f, path, 0);
	fputs(": written by ", f);
	print_str(f, info->version[0] ? info->version : "?", 0);
	fputs(" on ", f);
	print_str(f, info->reader_host[0] ? info->reader_host :
		  info->hostname[0] ? info->hostname : "?", 0);
	if (info->reader_host[0]) {
		fputs(" (", f);
		print_str(f, info->reader_release, 0);
		fputs("), of guest ", f);
		print_str(f, info->hostname[0] ? info->hostname : "?", 0);
		if (info->os_release[0]) {
			fputs(", release ", f);
			print_str(f, info->os_release, 0);
		}
	}
	fputc('\n', f);
	if (info->cmdline[0]) {
		fputs("command: ", f);
		print_str(f, info->cmdline, 0);
		fputc('\n', f);
	}
	if (info->clock.state == PDF_CLOCK_NONE)
		fprintf(f, "times in ns: host CLOCK_MONOTONIC where the region published its\n"
			   "guest clock's conversion (a ringside VMM), else the producer's clock\n");
	else
		print_clock_file(f, info);
	window_text(f, info, &t->bounds);
	fputc('\n', f);
	for (i = 0; i < t->nr_rings; i++) {
		snprintf(label, sizeof(label), "ring %u", i);
		text_block(f, label, &t->ring[i], info->host.kind &&
			   i < info->host.nr_rings ? &info->host.ring[i] : NULL,
			   &t->bounds);
	}
	cap_tally_total(t, &sum);
	print_host_total(&info->host, &hs);
	fputc('\n', f);
	text_block(f, "total", &sum, info->host.kind ? &hs : NULL, &t->bounds);
	if (t->state_comms || t->state_mmaps)
		fprintf(f, "\nprocess table, written by the host before the first "
			"sample (no ring's records): %" PRIu64 " COMM, %" PRIu64
			" MMAP2\n", t->state_comms, t->state_mmaps);
}

void print_usyms(FILE *f, const struct gi_symfs_summary *sum,
		       const struct gi_symfs_row *rows, int n, const char *symfs)
{
	int i;

	fprintf(f, "\nguest user samples: %" PRIu64 ", in %u mapped files; not in a "
		"mapped file: %" PRIu64 "\n", sum->samples, sum->files,
		sum->unmapped);
	if (!symfs)
		fprintf(f, "  functions not named: no --symfs (a copy of the guest's "
			"files)\n");
	else if (sum->unnamed_files)
		fprintf(f, "  functions not named in %u of them: not found, not ELF "
			"or no symbols under %s%s\n", sum->unnamed_files, symfs,
			sum->mismatched ? " (some have another build id)" : "");
	if (sum->dropped || sum->maps_dropped)
		fprintf(f, "  not counted: %" PRIu64 " samples, %" PRIu64 " mappings "
			"(over ringside's bounds)\n", sum->dropped,
			sum->maps_dropped);
	if (n <= 0)
		return;
	fprintf(f, "  %10s %6s  %-32s %s\n", "samples", "%", "function", "file");
	for (i = 0; i < n; i++) {
		/* names are the guest's and the symfs files': escaped,
		 * cut at the table's width */
		char name[RS_TEXT_TERM_MAX(256)];

		if (rows[i].function)
			rs_text_str(name, 256, rows[i].function, 0);
		else
			snprintf(name, sizeof(name), "+%#" PRIx64, rows[i].offset);
		fprintf(f, "  %10" PRIu64 " %6.2f  %-32s ", rows[i].samples,
			100.0 * (double)rows[i].samples / (double)sum->samples,
			name);
		print_str(f, rows[i].file, 0);
		fputc('\n', f);
	}
}

static void json_ring(FILE *f, const struct cap_tally_ring *r)
{
	unsigned c;

	fprintf(f, "\"records\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"types\": {",
		r->records, r->bytes);
	for (c = 0; c < PDF_RREC_MAX; c++)
		fprintf(f, "%s\"%s\": %" PRIu64, c ? ", " : "",
			pdf_rrec_class_key((enum pdf_rrec_class)c), r->by_class[c]);
	fprintf(f, "}, \"lost\": %" PRIu64 ", \"lost_samples\": %" PRIu64
		", \"aux_bytes\": %" PRIu64 ", \"aux_truncated\": %" PRIu64
		", \"aux_partial\": %" PRIu64 ", \"aux_collision\": %" PRIu64,
		r->lost, r->lost_samples, r->aux_bytes, r->aux_truncated,
		r->aux_partial, r->aux_collision);
	fprintf(f, ", \"seq_gaps\": %" PRIu64 ", \"seq_out_of_order\": %" PRIu64
		", \"seq_bad\": %" PRIu64, r->seq_gaps, r->seq_back, r->seq_bad);
	if (r->have_seq)
		fprintf(f, ", \"seq_first\": %" PRIu64 ", \"seq_last\": %" PRIu64,
			r->seq_first, r->seq_last);
	else
		fprintf(f, ", \"seq_first\": null, \"seq_last\": null");
	fprintf(f, ", \"flagged\": {\"lost\": %" PRIu64 ", \"lost_samples\": %"
		PRIu64 ", \"aux\": %" PRIu64 ", \"time\": %" PRIu64 "}",
		r->flag_lost, r->flag_lost_samples, r->flag_aux, r->flag_time);
	if (r->have_time)
		fprintf(f, ", \"first_time\": %" PRIu64 ", \"last_time\": %" PRIu64
			", \"span_ns\": %" PRIu64 ", \"rate\": %.3f",
			r->first_time, r->last_time, r->last_time - r->first_time,
			cap_tally_rate(r));
	else
		fprintf(f, ", \"first_time\": null, \"last_time\": null, "
			"\"span_ns\": 0, \"rate\": 0");
}

/* "host": {...} of one ring, or null. */
static void json_host(FILE *f, const struct pdf_host_ring *h)
{
	if (!h) {
		fprintf(f, ", \"host\": null");
		return;
	}
	fprintf(f, ", \"host\": {\"data_size\": %" PRIu64 ", \"aux_size\": %"
		PRIu64 ", \"corrupt\": %" PRIu64 ", \"corrupt_bytes\": %" PRIu64
		", \"bad_heads\": %" PRIu64 ", \"aux_bad_heads\": %" PRIu64
		", \"aux_bytes\": %" PRIu64 ", \"aux_stored\": %" PRIu64
		", \"cut_bytes\": %" PRIu64 ", \"not_written\": %" PRIu64
		", \"frames_trimmed\": %" PRIu64 ", \"early_records\": %" PRIu64
		", \"early_lost_records\": %" PRIu64 ", \"early_lost\": %" PRIu64
		", \"early_lost_samples_records\": %" PRIu64
		", \"early_lost_samples\": %" PRIu64 ", \"early_flagged\": %"
		PRIu64 ", \"early_flagged_samples\": %" PRIu64
		", \"sealed_records\": %" PRIu64 "}",
		h->data_size, h->aux_size, h->corrupt, h->corrupt_bytes,
		h->bad_heads, h->aux_bad_heads, h->aux_bytes, h->aux_stored,
		h->cut_bytes, h->not_written, h->frames_trimmed,
		h->early_records, h->early_lost_records, h->early_lost,
		h->early_lost_samples_records, h->early_lost_samples,
		h->early_flagged, h->early_flagged_samples, h->sealed_records);
}

/* "window": {"kind", "start_ns", "end_ns", "times_checked", "slack_ns"},
 * or null. */
static void json_window(FILE *f, const struct pdf_info *info,
			const struct cap_tally_bounds *b)
{
	if (!b->kind) {
		fprintf(f, ", \"window\": null");
		return;
	}
	fprintf(f, ", \"window\": {\"kind\": \"%s\", \"start_ns\": %" PRIu64
		", \"end_ns\": %" PRIu64 ", \"times_checked\": %s, \"slack_ns\": %"
		PRIu64 "}", b->kind == PDF_HOST_DRAIN ? "record" : "snapshot",
		info->host.start_ns, info->host.end_ns,
		b->times_host ? "true" : "false", b->slack_ns);
}

/* "clock": {"state": ..., "points": [{"guest_ns", "offset_ns",
 * "bound_ns", "rounds", "refused"}, ...]} */
static void json_clock(FILE *f, const struct pdf_clock_sync *cs)
{
	static const char *const names[PDF_CLOCK_STATE_MAX] = {
		"none", "synced", "no_answer", "refused", "no_agent", "host",
	};
	uint32_t i;

	fprintf(f, ", \"clock\": {\"state\": \"%s\", \"points\": [",
		cs->state < PDF_CLOCK_STATE_MAX ? names[cs->state] : "none");
	for (i = 0; i < cs->nr && i < 2; i++)
		fprintf(f, "%s{\"guest_ns\": %" PRIu64 ", \"offset_ns\": %" PRId64
			", \"bound_ns\": %" PRIu64 ", \"rounds\": %u, "
			"\"refused\": %u}", i ? ", " : "", cs->pt[i].guest_ns,
			cs->pt[i].offset_ns, cs->pt[i].bound_ns, cs->pt[i].rounds,
			cs->pt[i].refused);
	fprintf(f, "]}");
}

void print_report_json(FILE *f, const char *path, const struct pdf_info *info,
		 const struct cap_tally *t, const struct cap_host_view *hv)
{
	struct pdf_host_ring hs;
	struct cap_tally_ring sum;
	uint32_t i;

	fprintf(f, "{\"file\": ");
	print_json_str(f, path);
	fprintf(f, ", \"version\": ");
	print_json_str(f, info->version);
	fprintf(f, ", \"hostname\": ");
	print_json_str(f, info->hostname);
	fprintf(f, ", \"cmdline\": ");
	print_json_str(f, info->cmdline);
	json_clock(f, &info->clock);
	json_window(f, info, &t->bounds);
	fprintf(f, ", \"rings\": [");
	for (i = 0; i < t->nr_rings; i++) {
		fprintf(f, "%s\n  {\"ring\": %u, ", i ? "," : "", i);
		json_ring(f, &t->ring[i]);
		json_host(f, info->host.kind && i < info->host.nr_rings ?
			  &info->host.ring[i] : NULL);
		fputc('}', f);
	}
	cap_tally_total(t, &sum);
	print_host_total(&info->host, &hs);
	fprintf(f, "\n ],\n \"total\": {");
	json_ring(f, &sum);
	json_host(f, info->host.kind ? &hs : NULL);
	fprintf(f, "},\n \"state\": {\"comm\": %" PRIu64 ", \"mmap2\": %" PRIu64
		"}", t->state_comms, t->state_mmaps);
	if (hv && hv->records)
		fprintf(f, ",\n \"host\": {\"records\": %" PRIu64 ", \"switches\": %"
			PRIu64 ", \"exits\": %" PRIu64 ", \"lost_records\": %" PRIu64
			", \"lost\": %" PRIu64 "}", hv->records, hv->switches,
			hv->exits, hv->lost_records, hv->lost);
	fprintf(f, "}\n");
}
