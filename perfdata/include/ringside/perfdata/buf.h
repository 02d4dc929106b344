/* SPDX-License-Identifier: MIT */
/*
 * A growable byte buffer (perfdata/src/pdf_buf.c).
 */
#ifndef RINGSIDE_PERFDATA_BUF_H
#define RINGSIDE_PERFDATA_BUF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Caller-owned; file sections are built in it, records stashed in it. */
struct pdf_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err;          /* sticky: -ENOMEM once an append failed */
};

/* An empty buffer.  Both accept NULL; fini frees the bytes and empties @b. */
void pdf_buf_init(struct pdf_buf *b);
void pdf_buf_fini(struct pdf_buf *b);
/* Appends; on failure sets b->err and drops this and later appends. */
void pdf_buf_add(struct pdf_buf *b, const void *src, size_t len);
/* Appends @len bytes for the caller to write: where they start, or NULL
 * (b->err set, or set before). */
void *pdf_buf_extend(struct pdf_buf *b, size_t len);
void pdf_buf_add_u32(struct pdf_buf *b, uint32_t v);
void pdf_buf_add_u64(struct pdf_buf *b, uint64_t v);
/* perf's feature string: u32 length (NUL included, padded to 64), bytes. */
void pdf_buf_add_string(struct pdf_buf *b, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_BUF_H */
