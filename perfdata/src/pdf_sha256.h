/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: SHA-256 (FIPS 180-4), for build ids derived from
 * content that an untrusted guest chose: a collision-resistant hash, so no
 * guest can make two different symbol tables share one build-id cache
 * entry.
 */
#ifndef RINGSIDE_PDF_SHA256_H
#define RINGSIDE_PDF_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct pdf_sha256 {
	uint32_t h[8];
	uint64_t total;           /* bytes hashed so far */
	uint8_t block[64];
	size_t used;              /* bytes pending in @block */
};

void pdf_sha256_init(struct pdf_sha256 *s);
void pdf_sha256_add(struct pdf_sha256 *s, const void *data, size_t len);
void pdf_sha256_end(struct pdf_sha256 *s, uint8_t digest[32]);

#endif /* RINGSIDE_PDF_SHA256_H */
