/* SPDX-License-Identifier: MIT */
/*
 * A cursor over one fuzz input: the targets take their choices (sizes,
 * offsets, counts) from the front of the input and the bytes they feed
 * from the rest.  Past the end every take reads zero, so a short input is
 * as good as any other.
 */
#ifndef RINGSIDE_FUZZ_INPUT_H
#define RINGSIDE_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fz_in {
	const uint8_t *p;
	size_t left;
};

static inline void fz_in_init(struct fz_in *in, const uint8_t *data,
			      size_t size)
{
	in->p = data;
	in->left = size;
}

/* Up to @len bytes into @dst (zero-filled past the end); bytes taken. */
static inline size_t fz_take(struct fz_in *in, void *dst, size_t len)
{
	size_t n = len < in->left ? len : in->left;

	if (n)
		memcpy(dst, in->p, n);
	memset((uint8_t *)dst + n, 0, len - n);
	in->p += n;
	in->left -= n;
	return n;
}

static inline uint8_t fz_u8(struct fz_in *in)
{
	uint8_t v;

	fz_take(in, &v, sizeof(v));
	return v;
}

static inline uint16_t fz_u16(struct fz_in *in)
{
	uint16_t v;

	fz_take(in, &v, sizeof(v));
	return v;
}

static inline uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v;

	fz_take(in, &v, sizeof(v));
	return v;
}

static inline uint64_t fz_u64(struct fz_in *in)
{
	uint64_t v;

	fz_take(in, &v, sizeof(v));
	return v;
}

/* libFuzzer's entry point, which every fuzz_*.c defines and replay.c
 * calls. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* RINGSIDE_FUZZ_INPUT_H */
