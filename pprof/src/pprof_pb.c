/* SPDX-License-Identifier: MIT */
/* A minimal protobuf encoder: what profile.proto needs (varint and
 * length-delimited fields, packed repeated varints). */
#include "ringside/pprof.h"

void pprof_pb_varint(struct pdf_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	pdf_buf_add(b, tmp, n);
}

static void key(struct pdf_buf *b, uint32_t field, unsigned wire)
{
	pprof_pb_varint(b, (uint64_t)field << 3 | wire);
}

void pprof_pb_uint(struct pdf_buf *b, uint32_t field, uint64_t v)
{
	key(b, field, PPROF_PB_VARINT);
	pprof_pb_varint(b, v);
}

void pprof_pb_bytes(struct pdf_buf *b, uint32_t field, const void *data,
		    size_t len)
{
	key(b, field, PPROF_PB_LEN);
	pprof_pb_varint(b, len);
	if (len)
		pdf_buf_add(b, data, len);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >>= 7)
		n++;
	return n;
}

void pprof_pb_packed(struct pdf_buf *b, uint32_t field, const uint64_t *v,
		     size_t nr)
{
	size_t len = 0, i;

	if (!nr)
		return;
	for (i = 0; i < nr; i++)
		len += varint_len(v[i]);
	key(b, field, PPROF_PB_LEN);
	pprof_pb_varint(b, len);
	for (i = 0; i < nr; i++)
		pprof_pb_varint(b, v[i]);
}
