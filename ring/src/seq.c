/* SPDX-License-Identifier: MIT */
/*
 * RS_RECORD_SEQ: a record that proves its own delivery.  The body carries a
 * sequence number, a deterministic pattern and a checksum over both, so a
 * consumer can tell an intact record from a torn or scribbled one.
 */
#include "ring_internal.h"

#define SEQ_FILL_MAX (RS_RECORD_MAX - sizeof(struct rs_rec_seq))

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint8_t pattern_byte(uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + 1);
}

uint64_t rs_seq_checksum(const struct rs_rec_seq *rec)
{
	const uint8_t *pat;
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i, fill;

	if (!rec)
		return 0;
	pat = (const uint8_t *)(rec + 1);
	fill = rec->fill;
	h = mix(h, rec->seq);
	h = mix(h, rec->time);
	h = mix(h, ((uint64_t)rec->producer << 32) | fill);
	if (fill > SEQ_FILL_MAX)
		fill = SEQ_FILL_MAX;
	for (i = 0; i < fill; i++)
		h = mix(h, pat[i]);
	return h;
}

uint32_t rs_seq_size(uint32_t fill)
{
	return (uint32_t)rs_align_up((uint64_t)sizeof(struct rs_rec_seq) + fill,
				     RS_RECORD_ALIGN);
}

int rs_seq_build(void *buf, uint64_t seq, uint64_t time, uint32_t producer,
		 uint32_t fill)
{
	struct rs_rec_seq *rec = buf;
	uint8_t *pat = (uint8_t *)(rec + 1);
	uint32_t i, size;

	if (!buf)
		return -rse_invalid;
	if (fill > SEQ_FILL_MAX)
		return -rse_too_big;
	size = rs_seq_size(fill);
	rec->header.type = RS_RECORD_SEQ;
	rec->header.misc = 0;
	rec->header.size = (uint16_t)size;
	rec->seq = seq;
	rec->time = time;
	rec->producer = producer;
	rec->fill = fill;
	for (i = 0; i < fill; i++)
		pat[i] = pattern_byte(seq, i);
	for (; sizeof(*rec) + i < size; i++)
		pat[i] = 0;
	rec->checksum = rs_seq_checksum(rec);
	return (int)size;
}

int rs_seq_check(const struct rs_perf_header *hdr)
{
	const struct rs_rec_seq *rec = (const struct rs_rec_seq *)hdr;
	const uint8_t *pat = (const uint8_t *)(rec + 1);
	uint32_t i;

	if (!hdr || hdr->type != RS_RECORD_SEQ || hdr->size < sizeof(*rec))
		return 0;
	if (rec->fill > SEQ_FILL_MAX || hdr->size != rs_seq_size(rec->fill))
		return 0;
	for (i = 0; i < rec->fill; i++)
		if (pat[i] != pattern_byte(rec->seq, i))
			return 0;
	return rec->checksum == rs_seq_checksum(rec);
}
