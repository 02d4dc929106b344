/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/perfdata.h"

#include "pdf_format.h"

void pdf_buf_init(struct pdf_buf *b)
{
	if (b)
		memset(b, 0, sizeof(*b));
}

void pdf_buf_fini(struct pdf_buf *b)
{
	if (!b)
		return;
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static int reserve(struct pdf_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->err)
		return b->err;
	if (more > SIZE_MAX / 2 - b->len) {
		b->err = -ENOMEM;
		return b->err;
	}
	while (cap < b->len + more)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = realloc(b->data, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void *pdf_buf_extend(struct pdf_buf *b, size_t len)
{
	uint8_t *p;

	if (reserve(b, len))
		return NULL;
	p = b->data + b->len;
	b->len += len;
	return p;
}

void pdf_buf_add(struct pdf_buf *b, const void *src, size_t len)
{
	void *p = len ? pdf_buf_extend(b, len) : NULL;

	if (p)
		memcpy(p, src, len);
}

void pdf_buf_add_u32(struct pdf_buf *b, uint32_t v)
{
	pdf_buf_add(b, &v, sizeof(v));
}

void pdf_buf_add_u64(struct pdf_buf *b, uint64_t v)
{
	pdf_buf_add(b, &v, sizeof(v));
}

void pdf_buf_add_string(struct pdf_buf *b, const char *s)
{
	static const uint8_t zeros[PDF_NAME_ALIGN];
	size_t n = strlen(s) + 1;
	size_t padded = (n + PDF_NAME_ALIGN - 1) / PDF_NAME_ALIGN * PDF_NAME_ALIGN;

	if (padded > UINT32_MAX) {
		b->err = -ENOMEM;
		return;
	}
	pdf_buf_add_u32(b, (uint32_t)padded);
	pdf_buf_add(b, s, n);
	pdf_buf_add(b, zeros, padded - n);
}
