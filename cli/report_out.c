/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <string.h>

#include "clock_sync.h"
#include "report_out.h"

const char *report_size(char *buf, size_t len, uint64_t bytes)
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

void report_ring_line(FILE *f, const char *label, const struct tally_ring *r)
{
	char size[32];

	fprintf(f, "%s: %" PRIu64 " records (%s), lost %" PRIu64, label,
		r->records, report_size(size, sizeof(size), r->bytes), r->lost);
	if (r->by_class[PDF_RREC_AUX])
		fprintf(f, ", AUX %" PRIu64 " records (%" PRIu64 " bytes, %"
			PRIu64 " truncated)", r->by_class[PDF_RREC_AUX],
			r->aux_bytes, r->aux_truncated);
	fputc('\n', f);
}

static void class_detail(FILE *f, enum pdf_rrec_class c, const struct tally_ring *r)
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

static void text_block(FILE *f, const char *label, const struct tally_ring *r)
{
	unsigned c;

	report_ring_line(f, label, r);
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
			".%09" PRIu64 " (%.6f s), %.0f records/s\n",
			r->first_time / 1000000000, r->first_time % 1000000000,
			r->last_time / 1000000000, r->last_time % 1000000000,
			(double)(r->last_time - r->first_time) * 1e-9,
			tally_rate(r));
}

void report_text(FILE *f, const char *path, const struct pdf_info *info,
		 const struct tally *t)
{
	struct tally_ring sum;
	char label[32];
	uint32_t i;

	fprintf(f, "%s: written by %s on %s\n", path,
		info->version[0] ? info->version : "?",
		info->hostname[0] ? info->hostname : "?");
	if (info->cmdline[0])
		fprintf(f, "command: %s\n", info->cmdline);
	if (info->clock.state == PDF_CLOCK_NONE)
		fprintf(f, "times in ns: host CLOCK_MONOTONIC where the region published its\n"
			   "guest clock's conversion (a ringside VMM), else the producer's clock\n");
	else
		csync_print_file(info, f);
	fputc('\n', f);
	for (i = 0; i < t->nr_rings; i++) {
		snprintf(label, sizeof(label), "ring %u", i);
		text_block(f, label, &t->ring[i]);
	}
	tally_total(t, &sum);
	fputc('\n', f);
	text_block(f, "total", &sum);
}

/* @s as printable ASCII ('?' for the rest: names are the guest's and the
 * symfs files'), cut at @len - 1 bytes. */
static const char *printable(char *buf, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

void report_usyms_text(FILE *f, const struct usyms_summary *sum,
		       const struct usyms_row *rows, int n, const char *symfs)
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
		char name[256], file[512];

		if (rows[i].function)
			printable(name, sizeof(name), rows[i].function);
		else
			snprintf(name, sizeof(name), "+%#" PRIx64, rows[i].offset);
		fprintf(f, "  %10" PRIu64 " %6.2f  %-32s %s\n", rows[i].samples,
			100.0 * (double)rows[i].samples / (double)sum->samples,
			name, printable(file, sizeof(file), rows[i].file));
	}
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_ring(FILE *f, const struct tally_ring *r)
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
	if (r->have_time)
		fprintf(f, ", \"first_time\": %" PRIu64 ", \"last_time\": %" PRIu64
			", \"span_ns\": %" PRIu64 ", \"rate\": %.3f",
			r->first_time, r->last_time, r->last_time - r->first_time,
			tally_rate(r));
	else
		fprintf(f, ", \"first_time\": null, \"last_time\": null, "
			"\"span_ns\": 0, \"rate\": 0");
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

void report_json(FILE *f, const char *path, const struct pdf_info *info,
		 const struct tally *t)
{
	struct tally_ring sum;
	uint32_t i;

	fprintf(f, "{\"file\": ");
	json_string(f, path);
	fprintf(f, ", \"version\": ");
	json_string(f, info->version);
	fprintf(f, ", \"hostname\": ");
	json_string(f, info->hostname);
	fprintf(f, ", \"cmdline\": ");
	json_string(f, info->cmdline);
	json_clock(f, &info->clock);
	fprintf(f, ", \"rings\": [");
	for (i = 0; i < t->nr_rings; i++) {
		fprintf(f, "%s\n  {\"ring\": %u, ", i ? "," : "", i);
		json_ring(f, &t->ring[i]);
		fputc('}', f);
	}
	tally_total(t, &sum);
	fprintf(f, "\n ],\n \"total\": {");
	json_ring(f, &sum);
	fprintf(f, "}}\n");
}
