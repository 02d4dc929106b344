/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "guest_syms.h"

#define BUSY_TRIES 20      /* x 50 ms: a guest writing its symbols */

int gsyms_pending(const struct gsyms *g)
{
	return g->state == GSYMS_NONE || g->state == GSYMS_BUSY;
}

int gsyms_read(struct gsyms *g, const struct rs_region *region, int wait)
{
	uint64_t size = rs_sideband_size(region);
	const struct pdf_ksyms_stats *ks;
	uint8_t *text = g->text;
	struct pdf_ksyms *k;
	int ret = -rse_busy, i;

	memset(g, 0, sizeof(*g));
	g->text = text;
	if (!size) {
		g->state = GSYMS_ABSENT;
		return 0;
	}
	if (!g->text)
		g->text = malloc(size);
	if (!g->text)
		return -ENOMEM;
	for (i = 0; i < (wait ? BUSY_TRIES : 1); i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		ret = rs_sideband_read(region, g->text, size, &g->info);
		if (ret != -rse_busy || !wait)
			break;
		nanosleep(&ts, NULL);
	}
	if (ret <= 0) {
		g->state = ret == 0 ? GSYMS_NONE : ret == -rse_busy ? GSYMS_BUSY :
			   GSYMS_CORRUPT;
		return 0;
	}
	if (g->info.kind != RS_SIDEBAND_KALLSYMS) {
		g->state = GSYMS_OTHER;
		return 0;
	}
	/* Checked here for the summary; the writer checks it again. */
	g->parse_err = pdf_ksyms_parse(&k, g->text, g->info.length);
	if (g->parse_err == -ENOMEM)
		return -ENOMEM;
	if (g->parse_err) {
		g->state = GSYMS_REFUSED;
		return 0;
	}
	ks = pdf_ksyms_stats(k);
	g->functions = ks->symbols;
	g->modules = ks->modules;
	pdf_ksyms_free(k);
	g->state = GSYMS_OK;
	return 0;
}

void gsyms_writer_params(const struct gsyms *g, struct pdf_writer_params *wp)
{
	if (g->state != GSYMS_OK)
		return;
	wp->guest_kallsyms = g->text;
	wp->guest_kallsyms_len = g->info.length;
	wp->guest_build_id = g->info.build_id_len ? g->info.build_id : NULL;
	wp->guest_build_id_len = g->info.build_id_len;
}

static const char *hex(char *buf, const uint8_t *id, uint32_t len)
{
	uint32_t i;

	if (!len)
		return "none";
	for (i = 0; i < len; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	return buf;
}

void gsyms_summary(FILE *out, const struct gsyms *g,
		   const struct pdf_writer_stats *ws)
{
	char id[2 * RS_SIDEBAND_BUILD_ID_MAX + 1];

	switch (g->state) {
	case GSYMS_ABSENT:
		fprintf(out, "  guest kernel symbols: none (the region has no "
			"sideband area; 'ringside enable --sideband-pages N')\n");
		return;
	case GSYMS_NONE:
		fprintf(out, "  guest kernel symbols: none (the guest agent has not "
			"published them)\n");
		return;
	case GSYMS_BUSY:
		fprintf(out, "  guest kernel symbols: none (the guest was still "
			"writing them)\n");
		return;
	case GSYMS_CORRUPT:
		fprintf(out, "  guest kernel symbols: refused: the guest's sideband "
			"descriptor is implausible (lengths beyond the area, or "
			"flags no agent writes)\n");
		return;
	case GSYMS_OTHER:
		fprintf(out, "  guest kernel symbols: none (the sideband holds "
			"content of kind %u)\n", g->info.kind);
		return;
	case GSYMS_REFUSED:
		fprintf(out, "  guest kernel symbols: refused: %s; kernel samples "
			"are not named\n", pdf_errstr(g->parse_err));
		break;
	case GSYMS_OK:
		if (ws && ws->ksyms_err) {
			fprintf(out, "  guest kernel symbols: %" PRIu64 " functions, "
				"not used: %s; kernel samples are not named\n",
				g->functions, pdf_errstr(ws->ksyms_err));
			break;
		}
		fprintf(out, "  guest kernel symbols: %" PRIu64 " functions",
			g->functions);
		if (g->modules)
			fprintf(out, " (%u modules)", g->modules);
		if (ws && ws->build_id_len) {
			fprintf(out, ", build id %s", hex(id, ws->build_id,
							  ws->build_id_len));
			if (!g->info.build_id_len)
				fprintf(out, " (of the table: the guest gave none)");
			else if (ws->build_id_len != g->info.build_id_len ||
				 memcmp(ws->build_id, g->info.build_id,
					ws->build_id_len))
				fprintf(out, " (of the table: the guest's own, %s, "
					"is the host's or names another table in the "
					"cache, e.g. of another boot)",
					hex(id, g->info.build_id, g->info.build_id_len));
			fputc('\n', out);
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

void gsyms_fini(struct gsyms *g)
{
	free(g->text);
	g->text = NULL;
}
