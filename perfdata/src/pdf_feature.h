/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: the feature sections of a perf.data file: which ringside writes, and
 * reading the few it needs back.
 */
#ifndef RINGSIDE_PDF_FEATURE_H
#define RINGSIDE_PDF_FEATURE_H

#include <stdint.h>

#include "pdf_format.h"

/* What goes into the features of one file. */
struct pdf_feat_info {
	const struct pdf_layout *lay;
	uint32_t nr_rings;
	int argc;                 /* HEADER_CMDLINE */
	char *const *argv;
	int have_time;            /* HEADER_SAMPLE_TIME only when set */
	uint64_t first_time;
	uint64_t last_time;
	const uint8_t *build_id;  /* HEADER_BUILD_ID of the kernel when set */
	uint32_t build_id_len;
	const uint8_t *ubids;     /* HEADER_BUILD_ID entries of user binaries */
	size_t ubids_len;
	const struct pdf_clock_sync *clock; /* NULL or state NONE: nothing said */
	const struct pdf_host_facts *host;  /* NULL or kind NONE: nothing said */
	const struct pdf_guest_facts *guest; /* NULL or known 0: unknown */
};

/*
 * Build the feature index and sections for a file whose features start at
 * @offset: @out receives the bytes to write there, @features the header's
 * bitmap.  0, or -ENOMEM.
 */
int pdf_feature_build(const struct pdf_feat_info *info, uint64_t offset,
		       uint64_t features[PDF_FEAT_BITS / 64],
		       struct pdf_buf *out);

/* One event as HEADER_EVENT_DESC describes it. */
struct pdf_event_desc {
	char name[64];
	uint64_t id;              /* its first id, 0 if none */
};

/*
 * Parse HEADER_EVENT_DESC from @len bytes at @sec into at most @max
 * entries.  Returns the number of events.  PDF_ERR(pdfe_format).
 */
int pdf_feature_event_desc_parse(const uint8_t *sec, uint64_t len,
			 struct pdf_event_desc *descs, unsigned max);

/* ringside's reader feature back: the ring count and the host's uname
 * nodename and release.  PDF_ERR(pdfe_format). */
int pdf_feature_reader_parse(const uint8_t *sec, uint64_t len,
			     uint32_t *nr_rings, char *host, size_t host_size,
			     char *release, size_t release_size);

/*
 * A perf feature string at @sec (@len bytes) into @dst (NUL-terminated,
 * truncated to @dst_size).  Returns bytes consumed, PDF_ERR(pdfe_format).
 */
int pdf_feature_string_parse(const uint8_t *sec, uint64_t len, char *dst,
		     size_t dst_size);

#endif /* RINGSIDE_PDF_FEATURE_H */
