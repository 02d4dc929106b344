/* SPDX-License-Identifier: MIT */
/*
 * Sample layout, in perf's order: IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD, (READ), CALLCHAIN, RAW.  The fields up to CPU are
 * fixed 8-byte words, which is what lets ringside insert IDENTIFIER, TIME
 * and CPU without understanding the rest.  One table says it; the parser,
 * the builder, widen and narrow all walk it.
 */
#include <stddef.h>
#include <string.h>

#include "pdf_format.h"
#include "pdf_sample.h"

#define FORMAT   PDF_ERR(pdfe_format)
#define INVALID  PDF_ERR(pdfe_invalid)
#define TOO_BIG  PDF_ERR(pdfe_too_big)

enum field_kind {
	F_WORD,       /* a u64 */
	F_PAIR,       /* two u32 in one word: TID (pid, tid), CPU (cpu, res) */
	F_CALLCHAIN,  /* u64 nr, then nr u64 entries */
	F_RAW,        /* u32 size, then the bytes: (size + 4) % 8 == 0 */
};

#define AT(m) offsetof(struct pdf_sample, m)

/* Every field of PDF_SAMPLE_KNOWN in layout order, with where struct
 * pdf_sample keeps it. */
static const struct field {
	uint64_t bit;
	enum field_kind kind;
	size_t at, at2;           /* the u64, or the two u32 of a pair */
} layout[] = {
	{ PERF_SAMPLE_IDENTIFIER, F_WORD,      AT(identifier), 0 },
	{ PERF_SAMPLE_IP,         F_WORD,      AT(ip),        0 },
	{ PERF_SAMPLE_TID,        F_PAIR,      AT(pid),       AT(tid) },
	{ PERF_SAMPLE_TIME,       F_WORD,      AT(time),      0 },
	{ PERF_SAMPLE_ADDR,       F_WORD,      AT(addr),      0 },
	{ PERF_SAMPLE_ID,         F_WORD,      AT(id),        0 },
	{ PERF_SAMPLE_STREAM_ID,  F_WORD,      AT(stream_id), 0 },
	{ PERF_SAMPLE_CPU,        F_PAIR,      AT(cpu),       AT(cpu_res) },
	{ PERF_SAMPLE_PERIOD,     F_WORD,      AT(period),    0 },
	{ PERF_SAMPLE_CALLCHAIN,  F_CALLCHAIN, 0,             0 },
	{ PERF_SAMPLE_RAW,        F_RAW,       0,             0 },
};
#define NR_FIELDS (sizeof(layout) / sizeof(layout[0]))
/* The fixed words after IDENTIFIER, IP to CPU: layout[FIXED_FIRST] to
 * layout[FIXED_END - 1] (widen and narrow move these, copy the rest). */
#define FIXED_FIRST 1u
#define FIXED_END   8u

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
	uint8_t *dst = (uint8_t *)s;
	unsigned i;

	memset(s, 0, sizeof(*s));
	if (type & ~(uint64_t)PDF_SAMPLE_KNOWN)
		return FORMAT;
	for (i = 0; i < NR_FIELDS; i++) {
		const struct field *f = &layout[i];
		uint32_t raw;

		if (!(type & f->bit))
			continue;
		switch (f->kind) {
		case F_WORD:
			if (end - p < 8)
				return FORMAT;
			memcpy(dst + f->at, p, 8);
			p += 8;
			break;
		case F_PAIR:
			if (end - p < 8)
				return FORMAT;
			memcpy(dst + f->at, p, 4);
			memcpy(dst + f->at2, p + 4, 4);
			p += 8;
			break;
		case F_CALLCHAIN:
			if (end - p < 8)
				return FORMAT;
			s->callchain_nr = get64(p);
			p += 8;
			if (s->callchain_nr > (uint64_t)(end - p) / 8)
				return FORMAT;
			s->callchain = p;
			p += s->callchain_nr * 8;
			break;
		case F_RAW:
			if (end - p < 4)
				return FORMAT;
			memcpy(&raw, p, sizeof(raw));
			p += 4;
			/* perf keeps the u32 size and the data 8-byte aligned
			 * together */
			if (raw > (size_t)(end - p) || (raw + 4) % 8)
				return FORMAT;
			s->raw_size = raw;
			s->raw = p;
			s->raw_offset = (size_t)(p - (const uint8_t *)body);
			p += raw;
			break;
		}
	}
	s->len = (size_t)(p - (const uint8_t *)body);
	return 0;
}

/* The bytes of the record pdf_sample_build and pdf_sample_put make of
 * @s, its header included, into *@size.  0, INVALID, TOO_BIG. */
static int record_size(uint64_t type, const struct pdf_sample *s,
		       uint64_t *size)
{
	unsigned i;

	*size = sizeof(struct rs_perf_header);
	for (i = 0; i < NR_FIELDS; i++) {
		if (!(type & layout[i].bit))
			continue;
		switch (layout[i].kind) {
		case F_WORD:
		case F_PAIR:
			*size += 8;
			break;
		case F_CALLCHAIN:
			if (s->callchain_nr && !s->callchain)
				return INVALID;
			if (s->callchain_nr > PDF_REC_MAX / 8)
				return TOO_BIG;
			*size += 8 + 8 * s->callchain_nr;
			break;
		case F_RAW:
			if ((s->raw_size && !s->raw) ||
			    ((uint64_t)s->raw_size + 4) % 8)
				return INVALID;
			*size += 4 + (uint64_t)s->raw_size;
			break;
		}
	}
	return *size > PDF_REC_MAX ? TOO_BIG : 0;
}

/* The record of @size bytes at @p: the header, then @s's fields.  s->raw
 * may lie in the record itself, at or after where the RAW bytes go. */
static void record_put(uint8_t *p, uint64_t size, uint64_t type,
		       uint16_t misc, const struct pdf_sample *s)
{
	struct rs_perf_header h = { RS_PERF_RECORD_SAMPLE, misc, (uint16_t)size };
	const uint8_t *src = (const uint8_t *)s;
	unsigned i;

	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	for (i = 0; i < NR_FIELDS; i++) {
		const struct field *f = &layout[i];

		if (!(type & f->bit))
			continue;
		switch (f->kind) {
		case F_WORD:
			memcpy(p, src + f->at, 8);
			p += 8;
			break;
		case F_PAIR:
			memcpy(p, src + f->at, 4);
			memcpy(p + 4, src + f->at2, 4);
			p += 8;
			break;
		case F_CALLCHAIN:
			put64(p, s->callchain_nr);
			if (s->callchain_nr)
				memcpy(p + 8, s->callchain, 8 * s->callchain_nr);
			p += 8 + 8 * s->callchain_nr;
			break;
		case F_RAW:
			memcpy(p, &s->raw_size, 4);
			if (s->raw_size)
				memmove(p + 4, s->raw, s->raw_size);
			p += 4 + s->raw_size;
			break;
		}
	}
}

int pdf_sample_build(uint64_t type, uint16_t misc, const struct pdf_sample *s,
		     struct pdf_buf *out)
{
	uint64_t size;
	uint8_t *p;
	int err;

	if (!s || !out || (type & ~(uint64_t)PDF_SAMPLE_KNOWN))
		return INVALID;
	if (out->err)
		return out->err;
	err = record_size(type, s, &size);
	if (err)
		return err;
	p = pdf_buf_extend(out, (size_t)size);
	if (!p)
		return out->err;
	record_put(p, size, type, misc, s);
	return 0;
}

int pdf_sample_widen(uint64_t guest_type, uint64_t base, uint64_t id,
		     uint32_t ring, uint64_t time,
		     const struct rs_perf_header *in, void *out,
		     size_t out_size)
{
	const uint8_t *src = (const uint8_t *)(in + 1);
	const uint8_t *end = (const uint8_t *)in + in->size;
	uint8_t *dst = (uint8_t *)out + sizeof(*in);
	uint64_t file_type = guest_type | base;
	struct rs_perf_header hdr;
	struct pdf_sample s;
	size_t size;
	unsigned i;
	int err;

	if (in->size < sizeof(*in) || !(base & PERF_SAMPLE_IDENTIFIER) ||
	    !(base & PERF_SAMPLE_TIME) || !(base & PERF_SAMPLE_CPU) ||
	    (base & ~(uint64_t)PDF_SAMPLE_ID_ALL))
		return FORMAT;
	err = pdf_sample_parse(guest_type, src, (size_t)(end - src), &s);
	if (err)
		return err;
	size = in->size + 8 * (size_t)__builtin_popcountll(base & ~guest_type);
	if (size > PDF_REC_MAX || size > out_size)
		return TOO_BIG;

	put64(dst, id);
	dst += 8;
	if (guest_type & PERF_SAMPLE_IDENTIFIER)
		src += 8;
	for (i = FIXED_FIRST; i < FIXED_END; i++) {
		uint64_t bit = layout[i].bit, have = guest_type & bit;

		if (!(file_type & bit))
			continue;
		if (bit == PERF_SAMPLE_TIME) {
			put64(dst, time);
		} else if (bit == PERF_SAMPLE_CPU) {
			uint32_t cpu[2] = { ring, s.cpu_res };

			memcpy(dst, cpu, sizeof(cpu));
		} else if (have) {
			memcpy(dst, src, 8);
		} else {       /* a TID the guest did not give: no thread */
			uint32_t none[2] = { PDF_NO_PID, PDF_NO_PID };

			memcpy(dst, none, sizeof(none));
		}
		src += have ? 8 : 0;
		dst += 8;
	}
	memcpy(dst, src, (size_t)(end - src));
	hdr.type = RS_PERF_RECORD_SAMPLE;
	hdr.misc = in->misc;
	hdr.size = (uint16_t)size;
	memcpy(out, &hdr, sizeof(hdr));
	return (int)size;
}

int pdf_sample_narrow(uint64_t guest_type, uint64_t base, uint64_t file_type,
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

	if (in->size < sizeof(*in) || (file_type & base) != base ||
	    (file_type & ~base) != (guest_type & ~base) ||
	    !(base & PERF_SAMPLE_IDENTIFIER))
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
	for (i = FIXED_FIRST; i < FIXED_END; i++) {
		if (!(file_type & layout[i].bit))
			continue;
		if (guest_type & layout[i].bit) {
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

int pdf_sample_put(uint64_t type, uint16_t misc, const struct pdf_sample *s,
		   void *out, size_t out_size)
{
	uint64_t size;
	int err;

	if (type & ~(uint64_t)(PDF_SAMPLE_KNOWN & ~PERF_SAMPLE_CALLCHAIN))
		return INVALID;
	err = record_size(type, s, &size);
	if (err)
		return err;
	if (size > out_size)
		return TOO_BIG;
	record_put(out, size, type, misc, s);
	return (int)size;
}
