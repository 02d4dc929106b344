/* SPDX-License-Identifier: MIT */
/*
 * The mapping itself.  Carried records: a SAMPLE of IDENTIFIER, TIME, CPU
 * and RAW, where RAW is the ring record byte for byte followed by four zero
 * bytes (perf keeps the u32 raw size and the data 8-byte aligned together).
 * perf's own non-sample types that ringside knows (pdf_rrec_perf_body) keep
 * their body and get the sample_id trailer of ringside:ring; a
 * guest-written trailer is not kept.  A ring's PERF_RECORD_MMAP (type 1)
 * is carried whole: the Linux agent asks for MMAP2, and MMAP records in a
 * file are left to the host's own use (a guest kernel's maps).
 */
#include <string.h>

#include "ringside/perfdata.h"

#include "pdf_codec.h"
#include "pdf_sample.h"

#define FORMAT  PDF_ERR(pdfe_format)
#define TOO_BIG PDF_ERR(pdfe_too_big)

/* The misc bits perf reads of a carried type: a COMM's CPU mode (which
 * machine, host or guest, the thread belongs to) and whether it came from
 * an exec; an MMAP2's CPU mode (a user or a kernel map), whether it maps
 * data and whether it carries a build id.  The other types get none. */
static uint16_t native_misc(const struct rs_perf_header *rec)
{
	switch (rec->type) {
	case PERF_RECORD_COMM:
		return rec->misc & (PERF_RECORD_MISC_CPUMODE_MASK |
				    PERF_RECORD_MISC_COMM_EXEC);
	case PERF_RECORD_MMAP2:
		return rec->misc & (PERF_RECORD_MISC_CPUMODE_MASK |
				    PERF_RECORD_MISC_MMAP_DATA |
				    PERF_RECORD_MISC_MMAP_BUILD_ID);
	default:
		return 0;
	}
}

struct trailer {
	uint64_t time;
	uint32_t cpu;
	uint32_t res;
	uint64_t id;
};
_Static_assert(sizeof(struct trailer) == PDF_TRAILER_SIZE, "sample_id trailer");

/* The fixed words of a carried sample: IDENTIFIER, TIME, CPU. */
struct carried_head {
	uint64_t id;
	uint64_t time;
	uint32_t cpu;
	uint32_t res;
};

static int encode_carried(const struct pdf_layout *lay, enum pdf_kind kind,
			  uint32_t ring, uint64_t time,
			  const struct rs_perf_header *rec, uint8_t *out,
			  size_t out_size)
{
	struct carried_head head = { lay->id[kind], time, ring, 0 };
	uint32_t raw = rec->size + 4u;
	size_t size = sizeof(*rec) + sizeof(head) + sizeof(raw) + raw;
	struct rs_perf_header hdr = { RS_PERF_RECORD_SAMPLE, 0, (uint16_t)size };
	uint8_t *p = out;

	if (size > PDF_REC_MAX || size > out_size)
		return TOO_BIG;
	memcpy(p, &hdr, sizeof(hdr));
	p += sizeof(hdr);
	memcpy(p, &head, sizeof(head));
	p += sizeof(head);
	memcpy(p, &raw, sizeof(raw));
	p += sizeof(raw);
	memcpy(p, rec, rec->size);
	memset(p + rec->size, 0, 4);
	return (int)size;
}

static int encode_native(const struct pdf_layout *lay, uint32_t ring,
			 uint64_t time, const struct rs_perf_header *rec,
			 uint8_t *out, size_t out_size)
{
	size_t body = pdf_rrec_perf_body(rec);
	size_t size = sizeof(*rec) + body + PDF_TRAILER_SIZE;
	struct rs_perf_header hdr = { rec->type, native_misc(rec), (uint16_t)size };
	struct trailer tr = { time, ring, 0, lay->id[PDF_KIND_RING] };

	if (size > PDF_REC_MAX || size > out_size)
		return TOO_BIG;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr), rec + 1, body);
	if (rec->type == RS_PERF_RECORD_LOST) /* the event that lost: the ring */
		memcpy(out + sizeof(hdr), &lay->id[PDF_KIND_RING], 8);
	memcpy(out + sizeof(hdr) + body, &tr, sizeof(tr));
	return (int)size;
}

int pdf_encode(const struct pdf_layout *lay, uint32_t ring, uint64_t time,
	       const struct rs_perf_header *rec, void *out, size_t out_size)
{
	if (!lay || !rec || !out || rec->size < sizeof(*rec))
		return PDF_ERR(pdfe_invalid);
	switch (pdf_rrec_classify(rec, lay->guest_sample_type)) {
	case PDF_RREC_SEQ:
		return encode_carried(lay, PDF_KIND_SEQ, ring, time, rec, out, out_size);
	case PDF_RREC_MARKER:
		return encode_carried(lay, PDF_KIND_MARKER, ring, time, rec, out, out_size);
	case PDF_RREC_SAMPLE:
		if (lay->native_samples)
			return pdf_sample_widen(lay->guest_sample_type,
						lay->id[PDF_KIND_SAMPLE], ring,
						time, rec, out, out_size);
		break;
	case PDF_RREC_LOST:
	case PDF_RREC_AUX:
	case PDF_RREC_ITRACE_START:
	case PDF_RREC_LOST_SAMPLES:
	case PDF_RREC_COMM:
	case PDF_RREC_MMAP2:
		return encode_native(lay, ring, time, rec, out, out_size);
	default:
		break;
	}
	return encode_carried(lay, PDF_KIND_RING, ring, time, rec, out, out_size);
}

static int kind_of(const struct pdf_layout *lay, uint64_t id)
{
	int k;

	for (k = 0; k < PDF_KIND_MAX; k++)
		if (lay->id[k] == id)
			return k;
	return -1;
}

static int decode_carried(const struct pdf_layout *lay, enum pdf_kind kind,
			  const struct rs_perf_header *in, uint8_t *out,
			  size_t out_size, uint32_t *ring, uint64_t *time)
{
	const uint8_t *body = (const uint8_t *)(in + 1);
	struct rs_perf_header rec;
	struct pdf_sample s;
	int err;

	err = pdf_sample_parse(lay->sample_type[kind], body,
			       in->size - sizeof(*in), &s);
	if (err)
		return err;
	if (s.raw_size < sizeof(rec) + 4)
		return FORMAT;
	memcpy(&rec, body + s.raw_offset, sizeof(rec));
	/* a ring record is a multiple of 8 bytes (RS_RECORD_ALIGN); the
	 * ring's readers may rely on it */
	if (rec.size != s.raw_size - 4 || rec.size > out_size ||
	    rec.size % RS_RECORD_ALIGN)
		return FORMAT;
	if ((kind == PDF_KIND_SEQ && rec.type != RS_RECORD_SEQ) ||
	    (kind == PDF_KIND_MARKER && rec.type != RS_RECORD_MARKER))
		return FORMAT;
	memcpy(out, body + s.raw_offset, rec.size);
	*ring = s.cpu;
	*time = s.time;
	return rec.size;
}

/* Header and body back as the ring record; valid only if it is exactly
 * what encode_native() makes of one (perf's body, nothing after it). */
static int decode_native(const struct pdf_layout *lay,
			 const struct rs_perf_header *in, uint8_t *out,
			 size_t out_size, uint32_t *ring, uint64_t *time)
{
	struct rs_perf_header hdr = { in->type, in->misc, 0 };
	struct trailer tr;
	size_t body;

	if (in->size < sizeof(*in) + PDF_TRAILER_SIZE)
		return FORMAT;
	body = in->size - sizeof(*in) - PDF_TRAILER_SIZE;
	hdr.size = (uint16_t)(sizeof(hdr) + body);
	if (hdr.size > out_size)
		return FORMAT;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr), in + 1, body);
	/* every type ringside carries has a body: an empty one is no record */
	if (!body ||
	    pdf_rrec_perf_body((const struct rs_perf_header *)(void *)out) != body)
		return FORMAT;
	memcpy(&tr, (const uint8_t *)(in + 1) + body, sizeof(tr));
	if (tr.id != lay->id[PDF_KIND_RING])
		return FORMAT;
	*ring = tr.cpu;
	*time = tr.time;
	return hdr.size;
}

int pdf_decode(const struct pdf_layout *lay, const struct rs_perf_header *in,
	       void *out, size_t out_size, uint32_t *ring, uint64_t *time)
{
	uint64_t id;
	int kind;

	if (!lay || !in || !out || !ring || !time || in->size < sizeof(*in))
		return PDF_ERR(pdfe_invalid);
	/* perf's own records: a guest kernel's maps (pdf_ksyms.c) too */
	if (in->type >= PDF_USER_TYPE_START || in->type == PERF_RECORD_MMAP)
		return 0;
	/* perf pads every record to 8 bytes, and the sizes of the ring
	 * records decoded from it follow from this one */
	if (in->size % RS_RECORD_ALIGN)
		return FORMAT;
	if (in->type != RS_PERF_RECORD_SAMPLE)
		return decode_native(lay, in, out, out_size, ring, time);
	if (in->size < sizeof(*in) + 8)
		return FORMAT;
	memcpy(&id, in + 1, sizeof(id));
	kind = kind_of(lay, id);
	if (kind < 0)
		return FORMAT;
	if (kind == PDF_KIND_SAMPLE) {
		if (in->size > out_size)
			return FORMAT;
		return pdf_sample_narrow(lay->guest_sample_type,
					 lay->sample_type[kind], in, out,
					 ring, time);
	}
	return decode_carried(lay, (enum pdf_kind)kind, in, out, out_size,
			      ring, time);
}
