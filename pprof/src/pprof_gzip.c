/* SPDX-License-Identifier: MIT */
/* gzip through zlib: profile.proto's files are gzip-compressed. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include <zlib.h>

#include "ringside/pprof.h"

#define CHUNK (256u << 10)

int pprof_gzip(const void *data, size_t len, struct pdf_buf *out)
{
	uint8_t *chunk;
	z_stream z = { 0 };
	int zr, ret = 0;

	if (!out || (!data && len))
		return -EINVAL;
	if (out->err)
		return -ENOMEM;
	chunk = malloc(CHUNK);
	if (!chunk)
		return -ENOMEM;
	/* windowBits 15 + 16: a gzip header and trailer around the stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(chunk);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)data;
	do {
		int flush;

		/* zlib's avail_in is a uInt: feed a large buffer in parts */
		if (!z.avail_in && len) {
			z.avail_in = len > UINT_MAX ? UINT_MAX : (uInt)len;
			len -= z.avail_in;
		}
		flush = len ? Z_NO_FLUSH : Z_FINISH;
		z.next_out = chunk;
		z.avail_out = CHUNK;
		zr = deflate(&z, flush);
		if (zr == Z_STREAM_ERROR) {
			ret = -EIO;
			break;
		}
		pdf_buf_add(out, chunk, CHUNK - z.avail_out);
		if (out->err) {
			ret = -ENOMEM;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	free(chunk);
	return ret;
}
