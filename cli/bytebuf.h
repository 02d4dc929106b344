/* SPDX-License-Identifier: MIT */
/* A growable byte buffer for building file sections in memory. */
#ifndef RINGSIDE_CLI_BYTEBUF_H
#define RINGSIDE_CLI_BYTEBUF_H

#include <stddef.h>
#include <stdint.h>

struct bytebuf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err;          /* sticky: -ENOMEM once an append failed */
};

void bytebuf_init(struct bytebuf *b);
void bytebuf_fini(struct bytebuf *b);
/* Appends; on failure sets b->err and drops this and later appends. */
void bytebuf_add(struct bytebuf *b, const void *src, size_t len);
void bytebuf_add_u32(struct bytebuf *b, uint32_t v);
void bytebuf_add_u64(struct bytebuf *b, uint64_t v);
/* perf's feature string: u32 length (NUL included, padded to 64), bytes. */
void bytebuf_add_string(struct bytebuf *b, const char *s);

#endif /* RINGSIDE_CLI_BYTEBUF_H */
