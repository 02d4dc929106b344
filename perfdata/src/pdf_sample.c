/* SPDX-License-Identifier: MIT */
/*
 * Sample layout, in perf's order: IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD, (READ), CALLCHAIN, RAW.  The fields up to CPU are
 * fixed 8-byte words, which is what lets ringside insert IDENTIFIER, TIME
 * and CPU without understanding the rest.
 */
#include <string.h>

#include "pdf_format.h"
#include "pdf_sample.h"

#define FORMAT   PDF_ERR(pdfe_format)
#define TOO_BIG  PDF_ERR(pdfe_too_big)

/* The fixed words after IDENTIFIER, in layout order. */
static const uint64_t fixed_words[] = {
	PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
	PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
};
#define NR_FIXED (sizeof(fixed_words) / sizeof(fixed_words[0]))

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

int pdf_sample_parse(uint64_t type, const void *body, size_t len,
		     struct pdf_sample *s)
{
	const uint8_t *p = body, *end = p + len;
	unsigned i;

	memset(s, 0, sizeof(*s));
	if (type & ~(uint64_t)PDF_SAMPLE_KNOWN)
		return FORMAT;
	if (type & PERF_SAMPLE_IDENTIFIER) {
		if (end - p < 8)
			return FORMAT;
		s->identifier = get64(p);
		p += 8;
	}
	for (i = 0; i < NR_FIXED; i++) {
		uint32_t pair[2]; /* TID and CPU are two u32 in one word */
		uint64_t v;

		if (!(type & fixed_words[i]))
			continue;
		if (end - p < 8)
			return FORMAT;
		v = get64(p);
		memcpy(pair, p, sizeof(pair));
		p += 8;
		switch (fixed_words[i]) {
		case PERF_SAMPLE_IP:        s->ip = v; break;
		case PERF_SAMPLE_TID:       s->pid = pair[0];
					    s->tid = pair[1]; break;
		case PERF_SAMPLE_TIME:      s->time = v; break;
		case PERF_SAMPLE_ADDR:      s->addr = v; break;
		case PERF_SAMPLE_ID:        s->id = v; break;
		case PERF_SAMPLE_STREAM_ID: s->stream_id = v; break;
		default:                    s->cpu = pair[0];
					    s->cpu_res = pair[1]; break;
		}
	}
	if (type & PERF_SAMPLE_PERIOD) {
		if (end - p < 8)
			return FORMAT;
		s->period = get64(p);
		p += 8;
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		if (end - p < 8)
			return FORMAT;
		s->callchain_nr = get64(p);
		p += 8;
		if (s->callchain_nr > (uint64_t)(end - p) / 8)
			return FORMAT;
		p += s->callchain_nr * 8;
	}
	if (type & PERF_SAMPLE_RAW) {
		uint32_t raw;

		if (end - p < 4)
			return FORMAT;
		memcpy(&raw, p, sizeof(raw));
		p += 4;
		/* perf keeps the u32 size and the data 8-byte aligned together */
		if (raw > (size_t)(end - p) || (raw + 4) % 8)
			return FORMAT;
		s->raw_size = raw;
		s->raw_offset = (size_t)(p - (const uint8_t *)body);
		p += raw;
	}
	s->len = (size_t)(p - (const uint8_t *)body);
	return 0;
}

int pdf_sample_widen(uint64_t guest_type, uint64_t id, uint32_t ring,
		     uint64_t time, const struct rs_perf_header *in,
		     void *out, size_t out_size)
{
	const uint8_t *src = (const uint8_t *)(in + 1);
	const uint8_t *end = (const uint8_t *)in + in->size;
	uint8_t *dst = (uint8_t *)out + sizeof(*in);
	struct rs_perf_header hdr;
	struct pdf_sample s;
	size_t size;
	unsigned i;
	int err;

	if (in->size < sizeof(*in))
		return FORMAT;
	err = pdf_sample_parse(guest_type, src, (size_t)(end - src), &s);
	if (err)
		return err;
	size = in->size + 8;
	if (guest_type & PERF_SAMPLE_IDENTIFIER)
		size -= 8;
	if (!(guest_type & PERF_SAMPLE_TIME))
		size += 8;
	if (!(guest_type & PERF_SAMPLE_CPU))
		size += 8;
	if (size > PDF_REC_MAX || size > out_size)
		return TOO_BIG;

	put64(dst, id);
	dst += 8;
	if (guest_type & PERF_SAMPLE_IDENTIFIER)
		src += 8;
	for (i = 0; i < NR_FIXED; i++) {
		uint64_t bit = fixed_words[i], have = guest_type & bit;

		if (bit == PERF_SAMPLE_TIME) {
			put64(dst, time);
			src += have ? 8 : 0;
		} else if (bit == PERF_SAMPLE_CPU) {
			uint32_t cpu[2] = { ring, s.cpu_res };

			memcpy(dst, cpu, sizeof(cpu));
			src += have ? 8 : 0;
		} else if (have) {
			memcpy(dst, src, 8);
			src += 8;
		} else {
			continue;
		}
		dst += 8;
	}
	memcpy(dst, src, (size_t)(end - src));
	hdr.type = RS_PERF_RECORD_SAMPLE;
	hdr.misc = in->misc;
	hdr.size = (uint16_t)size;
	memcpy(out, &hdr, sizeof(hdr));
	return (int)size;
}

int pdf_sample_narrow(uint64_t guest_type, uint64_t file_type,
		      const struct rs_perf_header *in, void *out,
		      uint32_t *ring, uint64_t *time)
{
	const uint8_t *src = (const uint8_t *)(in + 1);
	const uint8_t *end = (const uint8_t *)in + in->size;
	uint8_t *dst = (uint8_t *)out + sizeof(*in);
	struct rs_perf_header hdr;
	struct pdf_sample s;
	unsigned i;
	int err;

	if (in->size < sizeof(*in) || (file_type & PDF_SAMPLE_BASE) != PDF_SAMPLE_BASE ||
	    (file_type & ~(uint64_t)PDF_SAMPLE_BASE) != (guest_type & ~(uint64_t)PDF_SAMPLE_BASE))
		return FORMAT;
	err = pdf_sample_parse(file_type, src, (size_t)(end - src), &s);
	if (err)
		return err;
	*ring = s.cpu;
	*time = s.time;
	if (guest_type & PERF_SAMPLE_IDENTIFIER) {
		memcpy(dst, src, 8);
		dst += 8;
	}
	src += 8;
	for (i = 0; i < NR_FIXED; i++) {
		if (!(file_type & fixed_words[i]))
			continue;
		if (guest_type & fixed_words[i]) {
			memcpy(dst, src, 8);
			dst += 8;
		}
		src += 8;
	}
	memcpy(dst, src, (size_t)(end - src));
	dst += end - src;
	hdr.type = RS_PERF_RECORD_SAMPLE;
	hdr.misc = in->misc;
	hdr.size = (uint16_t)(dst - (uint8_t *)out);
	memcpy(out, &hdr, sizeof(hdr));
	return hdr.size;
}
