/* SPDX-License-Identifier: MIT */
/*
 * The guest's word on who it is, made fit for a perf.data header: the
 * ring library copies the block once and checks its frame; here every
 * field is bounded as a guest claim.  A string ends at its first NUL or
 * its field's end; a byte outside printable ASCII becomes '?'.  A number
 * no real guest reports is left out (0), never clamped into a plausible
 * lie.
 */
#include <string.h>

#include "cap_internal.h"

_Static_assert(sizeof(((struct pdf_guest_facts *)0)->hostname) ==
	       sizeof(((struct rs_guest_info *)0)->hostname) + 1, "hostname");
_Static_assert(sizeof(((struct pdf_guest_facts *)0)->os_release) ==
	       sizeof(((struct rs_guest_info *)0)->os_release) + 1, "release");
_Static_assert(sizeof(((struct pdf_guest_facts *)0)->arch) ==
	       sizeof(((struct rs_guest_info *)0)->arch) + 1, "arch");
_Static_assert(sizeof(((struct pdf_guest_facts *)0)->cpu_desc) ==
	       sizeof(((struct rs_guest_info *)0)->cpu_desc) + 1, "cpu_desc");

#define SAMPLE_FLAGS_KNOWN (RS_SAMPLE_FREQ | RS_SAMPLE_EXCLUDE_USER | \
			    RS_SAMPLE_EXCLUDE_KERNEL)

/* @len bytes of @src (NUL-padded, maybe unterminated) into @dst, which
 * has room for @len + 1.  Returns the bytes replaced. */
static uint32_t clean(char *dst, const char *src, size_t len)
{
	uint32_t replaced = 0;
	size_t i;

	for (i = 0; i < len && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c < 0x20 || c > 0x7e) {
			c = '?';
			replaced++;
		}
		dst[i] = (char)c;
	}
	memset(dst + i, 0, len + 1 - i);
	return replaced;
}

/* @v when it is at most @max, else 0 and one more left out. */
static uint64_t bound(struct cap_guest_facts *g, uint64_t v, uint64_t max)
{
	if (v <= max)
		return v;
	g->left_out++;
	return 0;
}

/* The sampling event: all of it or nothing (period 0: not said). */
static void event(struct cap_guest_facts *g, const struct rs_guest_info *in)
{
	struct pdf_guest_facts *f = &g->facts;
	uint32_t flags = in->sample_flags;
	uint64_t max = (flags & RS_SAMPLE_FREQ) ? CAP_GUEST_FACTS_MAX_FREQ :
						  INT64_MAX;

	if (!in->sample_period && !flags && !in->sample_type_id &&
	    !in->sample_config)
		return;     /* not said */
	if (!in->sample_period || in->sample_period > max ||
	    (flags & ~(uint32_t)SAMPLE_FLAGS_KNOWN) ||
	    in->sample_type_id > CAP_GUEST_FACTS_MAX_TYPE ||
	    ((flags & RS_SAMPLE_EXCLUDE_USER) &&
	     (flags & RS_SAMPLE_EXCLUDE_KERNEL))) {
		g->left_out++;
		return;
	}
	f->sample_period = in->sample_period;
	f->sample_flags = flags;
	f->sample_type_id = in->sample_type_id;
	f->sample_config = in->sample_config;
}

void cap_guest_facts_from(struct cap_guest_facts *g, const struct rs_guest_info *in)
{
	struct pdf_guest_facts *f = &g->facts;

	memset(g, 0, sizeof(*g));
	g->state = CAP_GUEST_FACTS_OK;
	f->known = 1;
	f->nr_cpus_online = (uint32_t)bound(g, in->nr_cpus_online,
					    CAP_GUEST_FACTS_MAX_CPUS);
	f->nr_cpus_avail = (uint32_t)bound(g, in->nr_cpus_avail,
					   CAP_GUEST_FACTS_MAX_CPUS);
	/* more online than there are: the count of those there is unknown */
	if (f->nr_cpus_avail && f->nr_cpus_online > f->nr_cpus_avail) {
		f->nr_cpus_avail = 0;
		g->left_out++;
	}
	f->mem_total_kib = bound(g, in->mem_total_kib, CAP_GUEST_FACTS_MAX_KIB);
	event(g, in);
	g->replaced += clean(f->hostname, in->hostname, sizeof(in->hostname));
	g->replaced += clean(f->os_release, in->os_release,
			     sizeof(in->os_release));
	g->replaced += clean(f->arch, in->arch, sizeof(in->arch));
	g->replaced += clean(f->cpu_desc, in->cpu_desc, sizeof(in->cpu_desc));
}

int cap_guest_facts_read(struct cap_guest_facts *g, const struct rs_region *region)
{
	struct rs_guest_info in;
	int ret;

	if (!g || !region)
		return -rse_invalid;
	memset(g, 0, sizeof(*g));
	ret = rs_guest_info_read(region, &in);
	if (ret == 1)
		cap_guest_facts_from(g, &in);
	else if (ret == -rse_busy)
		g->state = CAP_GUEST_FACTS_BUSY;
	else if (ret == -rse_corrupt)
		g->state = CAP_GUEST_FACTS_CORRUPT;
	else if (ret < 0)
		return ret;
	return g->state;
}
