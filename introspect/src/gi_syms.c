/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ringside/gi_syms.h"

#define BUSY_TRIES 20      /* x 50 ms: a guest writing its symbols */

int gi_syms_pending(const struct gi_syms *g)
{
	return g->state == GI_SYMS_NONE || g->state == GI_SYMS_BUSY;
}

int gi_syms_read(struct gi_syms *g, const struct rs_region *region, int wait)
{
	uint64_t size = rs_sideband_size(region);
	const struct pdf_ksyms_stats *ks;
	uint8_t *text = g->text;
	struct pdf_ksyms *k;
	int ret = -rse_busy, i;

	memset(g, 0, sizeof(*g));
	g->text = text;
	if (!size) {
		g->state = GI_SYMS_ABSENT;
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
		g->state = ret == 0 ? GI_SYMS_NONE : ret == -rse_busy ? GI_SYMS_BUSY :
			   GI_SYMS_CORRUPT;
		return 0;
	}
	if (g->info.kind != RS_SIDEBAND_KALLSYMS) {
		g->state = GI_SYMS_OTHER;
		return 0;
	}
	/* Checked here for the summary; the writer checks it again. */
	g->parse_err = pdf_ksyms_parse(&k, g->text, g->info.length);
	if (g->parse_err == -ENOMEM)
		return -ENOMEM;
	if (g->parse_err) {
		g->state = GI_SYMS_REFUSED;
		return 0;
	}
	ks = pdf_ksyms_stats(k);
	g->functions = ks->symbols;
	g->modules = ks->modules;
	g->modules_refused = ks->modules_refused;
	g->refused = ks->refused;
	pdf_ksyms_free(k);
	g->state = GI_SYMS_OK;
	return 0;
}

void gi_syms_writer_params(const struct gi_syms *g, struct pdf_writer_params *wp)
{
	if (g->state != GI_SYMS_OK)
		return;
	wp->guest_kallsyms = g->text;
	wp->guest_kallsyms_len = g->info.length;
	wp->guest_build_id = g->info.build_id_len ? g->info.build_id : NULL;
	wp->guest_build_id_len = g->info.build_id_len;
}

void gi_syms_fini(struct gi_syms *g)
{
	free(g->text);
	g->text = NULL;
}
