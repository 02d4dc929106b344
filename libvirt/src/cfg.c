/* SPDX-License-Identifier: MIT */
/*
 * ringside's opt-in of a domain as values (struct dom_cfg): defaults, one
 * attribute set from its text, the sum checked and the region's size, the
 * metadata element written, and how long its rings hold.  No XML library,
 * no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/domain.h"
#include "ringside/opt.h"

static const struct {
	const char *name;
	uint64_t bit;
} trace_bits[] = {
	{ "samples", RS_TRACE_SAMPLES },
	{ "markers", RS_TRACE_MARKERS },
	{ "aux",     RS_TRACE_AUX },
	{ "test",    RS_TRACE_TEST },
};
#define NR_TRACE_BITS (sizeof(trace_bits) / sizeof(trace_bits[0]))

void dom_cfg_default(struct dom_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->data_pages = 64;
	c->mode = RS_MODE_OVERWRITE;
	c->trace_mask = RS_TRACE_SAMPLES | RS_TRACE_MARKERS;
	c->freq = 1000;
	c->sideband_pages = DOM_SIDEBAND_PAGES_DEFAULT;
}

static int parse_trace(const char *s, uint64_t *mask)
{
	uint64_t m = 0;

	if (!*s)
		return -EINVAL;   /* tracing nothing: say disable instead */
	while (*s) {
		size_t n = strcspn(s, ","), i;

		for (i = 0; i < NR_TRACE_BITS; i++)
			if (strlen(trace_bits[i].name) == n &&
			    !strncmp(s, trace_bits[i].name, n))
				break;
		if (i == NR_TRACE_BITS)
			return -EINVAL;
		m |= trace_bits[i].bit;
		s += n;
		if (*s == ',' && *++s == '\0')
			return -EINVAL;
	}
	*mask = m;
	return 0;
}

int dom_cfg_set(struct dom_cfg *c, const char *key, const char *value,
		const char **bad)
{
	uint32_t v;

	*bad = NULL;
	if (!strcmp(key, "version")) {
		if (opt_u32(value, UINT32_MAX, &v) || v != DOM_META_VERSION) {
			*bad = "version: this ringside writes and reads version 1";
			return -dome_version;
		}
		return 0;
	}
	if (!strcmp(key, "rings")) {
		if (opt_u32(value, RS_MAX_RINGS, &c->rings) || !c->rings)
			*bad = "rings: a number of rings from 1 to 1024";
	} else if (!strcmp(key, "data-pages")) {
		if (opt_u32(value, UINT32_MAX, &c->data_pages) ||
		    !rs_is_pow2(c->data_pages))
			*bad = "data-pages: a power of two >= 1 (4 KiB pages per ring)";
	} else if (!strcmp(key, "aux-pages")) {
		if (opt_u32(value, UINT32_MAX, &c->aux_pages) ||
		    (c->aux_pages && !rs_is_pow2(c->aux_pages)))
			*bad = "aux-pages: 0 or a power of two (4 KiB pages per ring)";
	} else if (!strcmp(key, "mode")) {
		if (!strcmp(value, "normal"))
			c->mode = RS_MODE_NORMAL;
		else if (!strcmp(value, "overwrite"))
			c->mode = RS_MODE_OVERWRITE;
		else
			*bad = "mode: 'normal' or 'overwrite'";
	} else if (!strcmp(key, "trace")) {
		if (parse_trace(value, &c->trace_mask))
			*bad = "trace: a comma-separated list of samples, markers, "
			       "aux, test";
	} else if (!strcmp(key, "freq")) {
		if (opt_u32(value, DOM_FREQ_MAX, &c->freq) || !c->freq)
			*bad = "freq: samples per second from 1 to 100000";
	} else if (!strcmp(key, "sideband-pages")) {
		if (opt_u32(value, DOM_SIDEBAND_PAGES_MAX, &c->sideband_pages))
			*bad = "sideband-pages: 4 KiB pages for the guest kernel's "
			       "symbols, 0 (none) to 16384";
	} else {
		*bad = "an attribute this version of ringside does not know";
	}
	return *bad ? -dome_option : 0;
}

int dom_cfg_check(struct dom_cfg *c, const char **bad)
{
	struct rs_region_params p;
	uint64_t size;

	*bad = NULL;
	if (!c->rings || c->rings > RS_MAX_RINGS)
		*bad = "rings: a number of rings from 1 to 48";
	else if (!rs_is_pow2(c->data_pages))
		*bad = "data-pages: a power of two >= 1";
	else if (c->aux_pages && !rs_is_pow2(c->aux_pages))
		*bad = "aux-pages: 0 or a power of two";
	else if (c->mode != RS_MODE_NORMAL && c->mode != RS_MODE_OVERWRITE)
		*bad = "mode: 'normal' or 'overwrite'";
	else if (!c->freq || c->freq > DOM_FREQ_MAX)
		*bad = "freq: samples per second from 1 to 100000";
	else if (c->sideband_pages > DOM_SIDEBAND_PAGES_MAX)
		*bad = "sideband-pages: 0 (none) to 16384";
	else if ((uint64_t)c->data_pages * RS_PAGE_SIZE > DOM_REGION_MAX ||
		 (uint64_t)c->aux_pages * RS_PAGE_SIZE > DOM_REGION_MAX) {
		*bad = "data-pages, aux-pages: the region would exceed 1 GiB";
		return -dome_too_big;
	}
	if (*bad)
		return -dome_option;
	dom_cfg_params(c, &p);
	if (rs_region_size(&p, &size) < 0) {
		*bad = "data-pages, aux-pages: no valid layout for these sizes";
		return -dome_option;
	}
	if (size < DOM_REGION_MIN)
		size = DOM_REGION_MIN;
	if (size > DOM_REGION_MAX) {
		*bad = "rings x (data-pages + aux-pages): the region would exceed 1 GiB";
		return -dome_too_big;
	}
	c->size = size;
	return 0;
}

int dom_cfg_fit(struct dom_cfg *c, uint64_t budget, const char **bad)
{
	int err;

	/* the most data pages up to the default that fit: halving them
	 * halves the region's larger part, so few steps */
	for (;;) {
		err = dom_cfg_check(c, bad);
		if (err && err != -dome_too_big)
			return err;
		if (!err && c->size <= budget)
			return 0;
		if (c->data_pages == 1)
			break;
		c->data_pages /= 2;
	}
	*bad = "memory: too small for one data page per ring with these "
	       "AUX and sideband pages";
	return -dome_too_big;
}

void dom_cfg_params(const struct dom_cfg *c, struct rs_region_params *p)
{
	/* dom_cfg_check() judges the values (rs_region_size refuses them) */
	rs_region_params_init(p, c->rings, c->data_pages, c->aux_pages,
			      c->mode, c->mode);
	p->trace_mask = c->trace_mask;
	p->sample_type = DOM_SAMPLE_TYPE;
	p->sample_freq = c->freq;
	p->sideband_pages = c->sideband_pages;
}

const char *dom_cfg_trace_names(uint64_t mask, char *buf, size_t len)
{
	size_t i, used = 0;

	if (!len)
		return "";
	buf[0] = '\0';
	for (i = 0; i < NR_TRACE_BITS; i++) {
		int n;

		if (!(mask & trace_bits[i].bit))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
			     trace_bits[i].name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

int dom_cfg_format(const struct dom_cfg *c, char *buf, size_t len)
{
	char trace[64];
	int n;

	n = snprintf(buf, len, "<%s version='%u' rings='%u' data-pages='%u' "
		     "aux-pages='%u' mode='%s' trace='%s' freq='%u' "
		     "sideband-pages='%u'/>",
		     DOM_META_ELEMENT, DOM_META_VERSION, c->rings, c->data_pages,
		     c->aux_pages, c->mode == RS_MODE_OVERWRITE ? "overwrite" : "normal",
		     dom_cfg_trace_names(c->trace_mask, trace, sizeof(trace)), c->freq,
		     c->sideband_pages);
	if (n < 0 || (size_t)n >= len)
		return -dome_invalid;
	return n;
}

uint32_t dom_cfg_sample_bytes(uint32_t frames)
{
	/* header, ip, pid/tid, time, cpu/res, period; chain nr and its
	 * entries (the frames and two context markers); raw's size word,
	 * padded */
	return 8 + 5 * 8 + 8 + 8 * (frames + 2) + 8;
}

static uint64_t hold_us(uint64_t ring_bytes, uint32_t freq, uint32_t bytes)
{
	return ring_bytes * 1000000u / ((uint64_t)freq * bytes);
}

void dom_cfg_hold(const struct dom_cfg *c, uint32_t stall_ms,
		  struct dom_hold *h)
{
	uint64_t need_bytes;
	uint32_t pages = 1;

	memset(h, 0, sizeof(*h));
	if (!stall_ms)
		stall_ms = DOM_STALL_MS_DEFAULT;
	h->ring_bytes = (uint64_t)c->data_pages * RS_PAGE_SIZE;
	h->freq = c->freq ? c->freq : 1;
	h->bytes_typical = dom_cfg_sample_bytes(DOM_CHAIN_FRAMES_TYPICAL);
	h->bytes_max = dom_cfg_sample_bytes(DOM_CHAIN_FRAMES_MAX);
	h->hold_us_typical = hold_us(h->ring_bytes, h->freq, h->bytes_typical);
	h->hold_us_max = hold_us(h->ring_bytes, h->freq, h->bytes_max);
	h->need_ms = DOM_HOLD_MS + stall_ms;
	h->short_of = c->mode == RS_MODE_NORMAL &&
		      h->hold_us_max < (uint64_t)h->need_ms * 1000u;
	/* bytes the largest samples take in need_ms, rounded up */
	need_bytes = ((uint64_t)h->freq * h->bytes_max * h->need_ms + 999u) / 1000u;
	while ((uint64_t)pages * RS_PAGE_SIZE < need_bytes && pages < (1u << 30))
		pages <<= 1;
	h->pages_needed = pages;
}
