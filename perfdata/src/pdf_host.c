/* SPDX-License-Identifier: MIT */
/*
 * ringside's host feature: u32 version, u32 kind, u32 rings, u32 words per
 * ring (PDF_HOST_RING_WORDS: a later version may add words, which this
 * reader skips; the first files had 10, without frames_trimmed), u64 start_ns, u64 end_ns, then per ring its words in
 * struct pdf_host_ring's order.  perf skips the bit (far above its own).
 */
#include <string.h>

#include "pdf_host.h"

#define RS_HOST_VERSION 1u
#define HEAD_BYTES      32u
/* words per ring of the first files (no frames_trimmed) */
#define HOST_RING_WORDS_V1 10u

_Static_assert(sizeof(struct pdf_host_ring) == PDF_HOST_RING_WORDS * 8,
	       "pdf_host_ring is its words");

int pdf_host_valid(const struct pdf_host_facts *h)
{
	return h && h->kind > PDF_HOST_NONE && h->kind < PDF_HOST_KIND_MAX &&
	       h->nr_rings <= RS_MAX_RINGS;
}

void pdf_host_add_feature(struct pdf_buf *b, const struct pdf_host_facts *h)
{
	pdf_buf_add_u32(b, RS_HOST_VERSION);
	pdf_buf_add_u32(b, h->kind);
	pdf_buf_add_u32(b, h->nr_rings);
	pdf_buf_add_u32(b, PDF_HOST_RING_WORDS);
	pdf_buf_add_u64(b, h->start_ns);
	pdf_buf_add_u64(b, h->end_ns);
	pdf_buf_add(b, h->ring, h->nr_rings * sizeof(h->ring[0]));
}

int pdf_host_parse(const uint8_t *sec, uint64_t len, struct pdf_host_facts *h)
{
	uint32_t version, words, i;

	memset(h, 0, sizeof(*h));
	if (len < HEAD_BYTES)
		return PDF_ERR(pdfe_format);
	memcpy(&version, sec, 4);
	memcpy(&h->kind, sec + 4, 4);
	memcpy(&h->nr_rings, sec + 8, 4);
	memcpy(&words, sec + 12, 4);
	memcpy(&h->start_ns, sec + 16, 8);
	memcpy(&h->end_ns, sec + 24, 8);
	/* words is bounded before it multiplies anything */
	if (version != RS_HOST_VERSION || !pdf_host_valid(h) ||
	    words < HOST_RING_WORDS_V1 || words > 4096 ||
	    (len - HEAD_BYTES) / (words * 8ull) < h->nr_rings) {
		memset(h, 0, sizeof(*h));
		return PDF_ERR(pdfe_format);
	}
	/* words it does not know are skipped, words it misses stay 0 */
	for (i = 0; i < h->nr_rings; i++)
		memcpy(&h->ring[i], sec + HEAD_BYTES + (uint64_t)i * words * 8,
		       (words < PDF_HOST_RING_WORDS ? words :
			PDF_HOST_RING_WORDS) * 8);
	return 0;
}
