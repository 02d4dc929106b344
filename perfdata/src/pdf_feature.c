/* SPDX-License-Identifier: MIT */
/*
 * ringside writes HOSTNAME, OSRELEASE, ARCH, CPUDESC and TOTAL_MEM of the
 * guest, as its agent claimed them (none of them when it said nothing:
 * never the host's), NRCPUS (the guest's, never fewer than the rings),
 * VERSION, CMDLINE, EVENT_DESC (the event names perf shows) and
 * SAMPLE_TIME; BUILD_ID too when the writer has a guest kernel's symbols
 * (pdf_ksyms.c).  ringside's reader feature (PDF_FEAT_RS_READER): u32
 * version 1, u32 rings, then the uname nodename and release of the host
 * that read the rings, as perf strings.  perf needs none of the others to
 * open, report and script a file of software events.
 */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>

#include "pdf_clock.h"
#include "pdf_feature.h"
#include "pdf_host.h"
#include "pdf_kernel.h"

#ifndef RINGSIDE_VERSION
#define RINGSIDE_VERSION "unknown"
#endif

#define FORMAT PDF_ERR(pdfe_format)
#define RS_READER_VERSION 1u

static void add_event_desc(struct pdf_buf *b, const struct pdf_layout *lay)
{
	struct perf_event_attr attr;
	unsigned k;

	pdf_buf_add_u32(b, pdf_layout_nr_attrs(lay));
	pdf_buf_add_u32(b, PDF_ATTR_SIZE);
	for (k = 0; k < PDF_KIND_MAX; k++) {
		pdf_layout_attr(lay, (enum pdf_kind)k, &attr);
		pdf_buf_add(b, &attr, PDF_ATTR_SIZE);
		pdf_buf_add_u32(b, 1);
		pdf_buf_add_string(b, pdf_layout_kind_name((enum pdf_kind)k));
		pdf_buf_add_u64(b, lay->id[k]);
	}
	if (lay->pt) {
		pdf_layout_pt_attr(lay, &attr);
		pdf_buf_add(b, &attr, PDF_ATTR_SIZE);
		pdf_buf_add_u32(b, 1);
		pdf_buf_add_string(b, PDF_PT_NAME);
		pdf_buf_add_u64(b, PDF_PT_ID);
	}
	if (lay->host_id) {
		pdf_layout_host_attr(lay, &attr);
		pdf_buf_add(b, &attr, PDF_ATTR_SIZE);
		pdf_buf_add_u32(b, 1);
		pdf_buf_add_string(b, PDF_HOST_NAME);
		pdf_buf_add_u64(b, lay->host_id);
	}
}

static void add_feature(struct pdf_buf *b, unsigned bit,
			const struct pdf_feat_info *info,
			const struct utsname *uts)
{
	static const struct pdf_guest_facts none;
	const struct pdf_guest_facts *g =
		info->guest && info->guest->known ? info->guest : &none;
	int known = g->known != 0;
	int i;

	switch (bit) {
	case PDF_FEAT_BUILD_ID: /* a guest kernel's (pdf_buildid.c) */
		if (info->build_id_len)
			pdf_buildid_add(b, PERF_RECORD_MISC_KERNEL, info->build_id,
					info->build_id_len, PDF_KERNEL_DSO);
		pdf_buf_add(b, info->ubids, info->ubids_len); /* pdf_uelf.c */
		break;
	case PDF_FEAT_HOSTNAME:     /* the guest's (known: see below) */
		pdf_buf_add_string(b, g->hostname);
		break;
	case PDF_FEAT_OSRELEASE:
		pdf_buf_add_string(b, g->os_release);
		break;
	case PDF_FEAT_VERSION:
		pdf_buf_add_string(b, "ringside " RINGSIDE_VERSION);
		break;
	case PDF_FEAT_ARCH:
		pdf_buf_add_string(b, g->arch);
		break;
	case PDF_FEAT_CPUDESC:
		pdf_buf_add_string(b, g->cpu_desc);
		break;
	case PDF_FEAT_TOTAL_MEM:    /* kB */
		pdf_buf_add_u64(b, g->mem_total_kib);
		break;
	case PDF_FEAT_NRCPUS:
		/* perf's order: available, then online.  A sample's CPU is
		 * its ring, so available is never fewer than the rings;
		 * an unknown guest has one CPU per ring. */
		pdf_buf_add_u32(b, known && g->nr_cpus_avail > info->nr_rings ?
				g->nr_cpus_avail : info->nr_rings);
		pdf_buf_add_u32(b, known && g->nr_cpus_online ?
				g->nr_cpus_online : info->nr_rings);
		break;
	case PDF_FEAT_RS_READER:
		pdf_buf_add_u32(b, RS_READER_VERSION);
		pdf_buf_add_u32(b, info->nr_rings);
		pdf_buf_add_string(b, uts->nodename);
		pdf_buf_add_string(b, uts->release);
		break;
	case PDF_FEAT_CMDLINE:
		pdf_buf_add_u32(b, (uint32_t)(info->argc > 0 ? info->argc : 0));
		for (i = 0; i < info->argc; i++)
			pdf_buf_add_string(b, info->argv[i]);
		break;
	case PDF_FEAT_EVENT_DESC:
		add_event_desc(b, info->lay);
		break;
	case PDF_FEAT_SAMPLE_TIME:
		pdf_buf_add_u64(b, info->first_time);
		pdf_buf_add_u64(b, info->last_time);
		break;
	case PDF_FEAT_CLOCKID:
	case PDF_FEAT_CLOCK_DATA:
	case PDF_FEAT_RS_CLOCK:
		pdf_clock_add_features(b, bit, info->clock);
		break;
	case PDF_FEAT_RS_HOST:
		pdf_host_add_feature(b, info->host);
		break;
	default:
		break;
	}
}

/* The identity features say what the guest claimed, or nothing: never
 * the host's (which is in ringside's reader feature). */
static int guest_says(const struct pdf_guest_facts *g, unsigned bit)
{
	int known = g && g->known;

	switch (bit) {
	case PDF_FEAT_HOSTNAME:
		return known && g->hostname[0];
	case PDF_FEAT_OSRELEASE:
		return known && g->os_release[0];
	case PDF_FEAT_ARCH:
		return known && g->arch[0];
	case PDF_FEAT_CPUDESC:
		return known && g->cpu_desc[0];
	case PDF_FEAT_TOTAL_MEM:
		return known && g->mem_total_kib;
	default:
		return 1;
	}
}

int pdf_feature_reader_parse(const uint8_t *sec, uint64_t len,
			     uint32_t *nr_rings, char *host, size_t host_size,
			     char *release, size_t release_size)
{
	uint32_t version;
	int n, m;

	if (len < 8)
		return FORMAT;
	memcpy(&version, sec, 4);
	if (version != RS_READER_VERSION)
		return FORMAT;
	n = pdf_feature_string_parse(sec + 8, len - 8, host, host_size);
	if (n < 0)
		return n;
	m = pdf_feature_string_parse(sec + 8 + n, len - 8 - (uint64_t)n, release,
			     release_size);
	if (m < 0)
		return m;
	memcpy(nr_rings, sec + 4, 4);
	return 0;
}

int pdf_feature_build(const struct pdf_feat_info *info, uint64_t offset,
		       uint64_t features[PDF_FEAT_BITS / 64],
		       struct pdf_buf *out)
{
	static const unsigned bits[] = {
		PDF_FEAT_BUILD_ID, PDF_FEAT_HOSTNAME, PDF_FEAT_OSRELEASE, PDF_FEAT_VERSION,
		PDF_FEAT_ARCH, PDF_FEAT_NRCPUS, PDF_FEAT_CPUDESC,
		PDF_FEAT_TOTAL_MEM, PDF_FEAT_CMDLINE,
		PDF_FEAT_EVENT_DESC, PDF_FEAT_SAMPLE_TIME, PDF_FEAT_CLOCKID,
		PDF_FEAT_CLOCK_DATA, PDF_FEAT_RS_CLOCK, PDF_FEAT_RS_HOST,
		PDF_FEAT_RS_READER,
	};
	struct pdf_section index[sizeof(bits) / sizeof(bits[0])];
	struct pdf_buf body;
	struct utsname uts;
	unsigned i, n = 0;
	int err;

	if (uname(&uts))
		memset(&uts, 0, sizeof(uts));
	memset(features, 0, PDF_FEAT_BITS / 8);
	pdf_buf_init(&body);
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		size_t start = body.len;

		if ((bits[i] == PDF_FEAT_SAMPLE_TIME && !info->have_time) ||
		    (bits[i] == PDF_FEAT_BUILD_ID && !info->build_id_len &&
		     !info->ubids_len))
			continue;
		if ((bits[i] == PDF_FEAT_CLOCKID || bits[i] == PDF_FEAT_CLOCK_DATA) &&
		    !pdf_clock_usable(info->clock))
			continue;
		if (bits[i] == PDF_FEAT_RS_CLOCK &&
		    (!info->clock || info->clock->state == PDF_CLOCK_NONE))
			continue;
		if (bits[i] == PDF_FEAT_RS_HOST && !pdf_host_valid(info->host))
			continue;
		if (!guest_says(info->guest, bits[i]))
			continue;
		add_feature(&body, bits[i], info, &uts);
		features[bits[i] / 64] |= 1ull << (bits[i] % 64);
		index[n].offset = start; /* made absolute below */
		index[n].size = body.len - start;
		n++;
	}
	for (i = 0; i < n; i++)
		index[i].offset += offset + n * sizeof(index[0]);
	pdf_buf_add(out, index, n * sizeof(index[0]));
	pdf_buf_add(out, body.data, body.len);
	err = body.err ? body.err : out->err;
	pdf_buf_fini(&body);
	return err;
}

int pdf_feature_string_parse(const uint8_t *sec, uint64_t len, char *dst,
		     size_t dst_size)
{
	uint32_t n;
	size_t copy;

	if (len < 4)
		return FORMAT;
	memcpy(&n, sec, 4);
	if (n > len - 4 || n > INT32_MAX - 4)
		return FORMAT;
	copy = strnlen((const char *)sec + 4, n);
	if (copy >= dst_size)
		copy = dst_size - 1;
	memcpy(dst, sec + 4, copy);
	dst[copy] = 0;
	return (int)(n + 4);
}

int pdf_feature_event_desc_parse(const uint8_t *sec, uint64_t len,
			 struct pdf_event_desc *descs, unsigned max)
{
	const uint8_t *p = sec, *end = sec + len;
	uint32_t nr, attr_size, i, nr_ids;
	int used;

	if (len < 8)
		return FORMAT;
	memcpy(&nr, p, 4);
	memcpy(&attr_size, p + 4, 4);
	p += 8;
	if (nr > max || attr_size < PERF_ATTR_SIZE_VER0 || attr_size > 4096)
		return FORMAT;
	for (i = 0; i < nr; i++) {
		if ((uint64_t)(end - p) < attr_size + 4u)
			return FORMAT;
		p += attr_size;
		memcpy(&nr_ids, p, 4);
		p += 4;
		used = pdf_feature_string_parse(p, (uint64_t)(end - p), descs[i].name,
					sizeof(descs[i].name));
		if (used < 0)
			return used;
		p += used;
		if (nr_ids > (uint64_t)(end - p) / 8)
			return FORMAT;
		descs[i].id = 0;
		if (nr_ids)
			memcpy(&descs[i].id, p, 8);
		p += (size_t)nr_ids * 8;
	}
	return (int)nr;
}
