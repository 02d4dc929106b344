/* SPDX-License-Identifier: MIT */
/*
 * The mapping itself.  Carried records: a SAMPLE of the shared sample-id
 * fields and RAW, where RAW is the ring record byte for byte followed by
 * four zero bytes; a marker's text alone is in RAW (encode_marker).
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

/* The pid and tid a native record's trailer carries: a COMM's, an
 * MMAP2's, an ITRACE_START's own (their bodies begin with them); none for
 * the others (LOST, AUX, LOST_SAMPLES say nothing of a thread). */
static void native_thread(const struct rs_perf_header *rec, uint32_t *pid,
			  uint32_t *tid)
{
	*pid = *tid = PDF_NO_PID;
	if ((rec->type == PERF_RECORD_COMM || rec->type == PERF_RECORD_MMAP2 ||
	     rec->type == PERF_RECORD_ITRACE_START) &&
	    rec->size >= sizeof(*rec) + 8) {
		memcpy(pid, rec + 1, 4);
		memcpy(tid, (const uint8_t *)(rec + 1) + 4, 4);
	}
}

/* A carried sample: the sample-id fields, then RAW, the ring record byte
 * for byte followed by four zero bytes (perf keeps the u32 raw size and
 * the data 8-byte aligned together).  No thread: TID is PDF_NO_PID. */
static int encode_carried(const struct pdf_layout *lay, enum pdf_kind kind,
			  uint32_t ring, uint64_t time,
			  const struct rs_perf_header *rec, uint8_t *out,
			  size_t out_size)
{
	struct pdf_sample s;

	memset(&s, 0, sizeof(s));
	s.identifier = s.id = s.stream_id = lay->id[kind];
	s.pid = s.tid = PDF_NO_PID;
	s.time = time;
	s.cpu = ring;
	s.raw_size = rec->size + 4u;
	if (s.raw_size > out_size)
		return TOO_BIG;
	/* the record and its four zeros at the end of @out, moved into place
	 * by put (the fields before them end where they begin, at most) */
	memcpy(out + out_size - s.raw_size, rec, rec->size);
	memset(out + out_size - 4, 0, 4);
	s.raw = out + out_size - s.raw_size;
	return pdf_sample_put(lay->sample_type[kind], 0, &s, out, out_size);
}

/*
 * A marker as perf script prints it ("BPF string: ..."): RAW is the text
 * and the record's padding after it, then four zero bytes, so the bytes
 * are printable up to a NUL and only NULs follow; the sample's misc is
 * the marker's, TID its pid and tid (perf names the thread), ADDR its own
 * time (TIME is the time it is filed under), CPU's second word its id.
 * PERIOD is 1 when the length is the text's up to its first NUL with only
 * NULs after it (what a marker's writer makes), else the length + 2, so
 * that perf report counts one per marker and pdf_codec_decode() gives every
 * ring record back byte for byte.
 */
static int encode_marker(const struct pdf_layout *lay, uint32_t ring,
			 uint64_t time, const struct rs_perf_header *rec,
			 uint8_t *out, size_t out_size)
{
	const struct rs_rec_marker *m = (const void *)rec;
	size_t text = rec->size - sizeof(*m), i, len;
	const uint8_t *t = (const uint8_t *)(m + 1);
	struct pdf_sample s;

	memset(&s, 0, sizeof(s));
	s.identifier = s.id = s.stream_id = lay->id[PDF_KIND_MARKER];
	s.pid = m->pid;
	s.tid = m->tid;
	s.time = time;
	s.addr = m->time;
	s.cpu = ring;
	s.cpu_res = m->id;
	len = strnlen((const char *)t, text);
	for (i = len; i < text && !t[i]; i++)
		;
	s.period = len == m->len && i == text ? 1 : (uint64_t)m->len + 2;
	s.raw_size = (uint32_t)text + 4u;
	if (s.raw_size > out_size)
		return TOO_BIG;
	memcpy(out + out_size - s.raw_size, m + 1, text);
	memset(out + out_size - 4, 0, 4);
	s.raw = out + out_size - s.raw_size;
	return pdf_sample_put(lay->sample_type[PDF_KIND_MARKER], rec->misc, &s,
			      out, out_size);
}

static int encode_native(const struct pdf_layout *lay, enum pdf_kind kind,
			 uint32_t ring, uint64_t time,
			 const struct rs_perf_header *rec, uint8_t *out,
			 size_t out_size)
{
	size_t body = pdf_rrec_perf_body(rec);
	size_t size = sizeof(*rec) + body + pdf_layout_trailer_size(lay);
	struct rs_perf_header hdr = { rec->type, native_misc(rec), (uint16_t)size };
	uint32_t pid, tid;

	/* a record perf could not take (a name it must not read): never a
	 * header without its body, which perf would complete from the next
	 * record's bytes */
	if (!body)
		return FORMAT;
	if (size > PDF_REC_MAX || size > out_size)
		return TOO_BIG;
	native_thread(rec, &pid, &tid);
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr), rec + 1, body);
	if (rec->type == RS_PERF_RECORD_LOST) /* the event that lost: the ring */
		memcpy(out + sizeof(hdr), &lay->id[PDF_KIND_RING], 8);
	pdf_layout_trailer(lay, pid, tid, time, ring, lay->id[kind],
			   out + sizeof(hdr) + body);
	return (int)size;
}

int pdf_codec_encode_host(const struct pdf_layout *lay,
			  const struct pdf_host_rec *h, void *out,
			  size_t out_size)
{
	size_t body = h && h->type == PERF_RECORD_LOST ? 16u : 0u;
	size_t trailer = lay ? pdf_layout_trailer_size(lay) : 0;
	struct rs_perf_header hdr;
	struct pdf_sample s;
	uint8_t *p = out;
	uint64_t words[2];

	if (!lay || !h || !out || !lay->host_id ||
	    (h->type != PERF_RECORD_SWITCH && h->type != PERF_RECORD_LOST &&
	     h->type != PERF_RECORD_SAMPLE))
		return PDF_ERR(pdfe_invalid);
	if (h->type == PERF_RECORD_SAMPLE) {
		memset(&s, 0, sizeof(s));
		s.identifier = s.id = s.stream_id = lay->host_id;
		s.pid = s.tid = h->tid;
		s.time = h->time;
		s.cpu = h->lane;
		s.cpu_res = h->host_cpu;
		s.raw = &h->exit;
		s.raw_size = sizeof(h->exit);
		return pdf_sample_put(lay->id_fields | PERF_SAMPLE_IP |
				      PERF_SAMPLE_RAW, 0, &s, out, out_size);
	}
	if (sizeof(hdr) + body + trailer > out_size)
		return TOO_BIG;
	hdr.type = h->type;
	hdr.misc = h->type == PERF_RECORD_SWITCH ?
		   (uint16_t)(h->misc & (PERF_RECORD_MISC_SWITCH_OUT |
					 PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)) : 0;
	hdr.size = (uint16_t)(sizeof(hdr) + body + trailer);
	memcpy(p, &hdr, sizeof(hdr));
	if (body) {           /* the event that lost, and how many */
		words[0] = lay->host_id;
		words[1] = h->lost;
		memcpy(p + sizeof(hdr), words, sizeof(words));
	}
	pdf_layout_trailer(lay, h->tid, h->tid, h->time, h->lane, lay->host_id,
			   p + sizeof(hdr) + body);
	/* the CPU word's second half (perf's res): the host CPU */
	memcpy(p + hdr.size - 12, &h->host_cpu, 4);
	return (int)hdr.size;
}

/* An exit sample of ringside:host back: header and RAW, then the host
 * CPU (as decode_host). */
static int decode_host_sample(const struct pdf_layout *lay,
			      const struct rs_perf_header *in, uint8_t *out,
			      size_t out_size, uint32_t *ring, uint64_t *time)
{
	struct rs_perf_header hdr = { in->type, in->misc, 0 };
	struct pdf_sample s;
	uint32_t zero = 0;

	if (pdf_sample_parse(lay->id_fields | PERF_SAMPLE_IP | PERF_SAMPLE_RAW,
			     in + 1, in->size - sizeof(*in), &s) ||
	    s.len != in->size - sizeof(*in) ||
	    s.raw_size != sizeof(struct pdf_host_exit) || s.cpu >= RS_MAX_RINGS)
		return FORMAT;
	hdr.size = (uint16_t)(sizeof(hdr) + s.raw_size);
	if (hdr.size + 8u > out_size)
		return FORMAT;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr), s.raw, s.raw_size);
	memcpy(out + hdr.size, &s.cpu_res, 4);
	memcpy(out + hdr.size + 4, &zero, 4);
	*ring = PDF_RING_HOST | s.cpu;
	*time = s.time;
	return hdr.size;
}

/* A record ringside:host owns back: 0 when it is not one. */
static int decode_host(const struct pdf_layout *lay,
		       const struct rs_perf_header *in, uint8_t *out,
		       size_t out_size, uint32_t *ring, uint64_t *time)
{
	size_t trailer = pdf_layout_trailer_size(lay), body;
	uint32_t lane, host_cpu, zero = 0;
	struct rs_perf_header hdr = { in->type, in->misc, 0 };
	uint64_t id;

	if (!lay->host_id || in->size < sizeof(*in) + trailer)
		return 0;
	memcpy(&id, (const uint8_t *)in + in->size - 8, 8);
	if (id != lay->host_id)
		return 0;
	body = in->size - sizeof(*in) - trailer;
	if ((in->type == PERF_RECORD_SWITCH && body) ||
	    (in->type == PERF_RECORD_LOST && body != 16) ||
	    (in->type != PERF_RECORD_SWITCH && in->type != PERF_RECORD_LOST))
		return FORMAT;
	hdr.size = (uint16_t)(sizeof(hdr) + body);
	if (hdr.size + 8u > out_size)
		return FORMAT;
	pdf_layout_trailer_read(lay, (const uint8_t *)(in + 1) + body, time,
				&lane, &id);
	memcpy(&host_cpu, (const uint8_t *)in + in->size - 12, 4);
	if (lane >= RS_MAX_RINGS)
		return FORMAT;
	*ring = PDF_RING_HOST | lane;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr), in + 1, body);
	memcpy(out + hdr.size, &host_cpu, 4);
	memcpy(out + hdr.size + 4, &zero, 4);
	return hdr.size;
}

int pdf_codec_encode_state(const struct pdf_layout *lay, uint32_t ring,
		     uint64_t time, const struct rs_perf_header *rec,
		     void *out, size_t out_size)
{
	if (!lay || !rec || !out || rec->size < sizeof(*rec) ||
	    (rec->type != PERF_RECORD_COMM &&
	     rec->type != PERF_RECORD_MMAP2))
		return PDF_ERR(pdfe_invalid);
	return encode_native(lay, PDF_KIND_STATE, ring, time, rec, out,
			     out_size);
}

int pdf_codec_encode(const struct pdf_layout *lay, uint32_t ring, uint64_t time,
	       const struct rs_perf_header *rec, void *out, size_t out_size)
{
	if (!lay || !rec || !out || rec->size < sizeof(*rec))
		return PDF_ERR(pdfe_invalid);
	switch (pdf_rrec_classify(rec, lay->guest_sample_type)) {
	case PDF_RREC_SEQ:
		return encode_carried(lay, PDF_KIND_SEQ, ring, time, rec, out, out_size);
	case PDF_RREC_MARKER:
		if (lay->marker_text)
			return encode_marker(lay, ring, time, rec, out, out_size);
		return encode_carried(lay, PDF_KIND_MARKER, ring, time, rec, out, out_size);
	case PDF_RREC_SAMPLE:
		if (lay->native_samples)
			return pdf_sample_widen(lay->guest_sample_type,
						lay->id_fields,
						lay->id[PDF_KIND_SAMPLE], ring,
						time, rec, out, out_size);
		break;
	case PDF_RREC_LOST:
	case PDF_RREC_AUX:
	case PDF_RREC_ITRACE_START:
	case PDF_RREC_LOST_SAMPLES:
	case PDF_RREC_COMM:
	case PDF_RREC_MMAP2:
		return encode_native(lay, PDF_KIND_RING, ring, time, rec, out,
				     out_size);
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

/* A marker of encode_marker() back: header, its fields, the RAW bytes
 * but the four zeros perf's alignment added. */
static int decode_marker(const struct pdf_sample *s, uint16_t misc,
			 uint8_t *out, size_t out_size)
{
	struct rs_rec_marker m;
	size_t size, text;

	if (s->raw_size < 4)
		return FORMAT;
	text = s->raw_size - 4;
	size = sizeof(m) + text;
	if (size > out_size || size > PDF_REC_MAX || !s->period ||
	    (s->period > 1 && s->period - 2 > text))
		return FORMAT;
	m.header.type = RS_RECORD_MARKER;
	m.header.misc = misc;
	m.header.size = (uint16_t)size;
	m.time = s->addr;
	m.pid = s->pid;
	m.tid = s->tid;
	m.id = s->cpu_res;
	m.len = (uint32_t)(s->period == 1 ? strnlen(s->raw, text) :
			   s->period - 2);
	memcpy(out, &m, sizeof(m));
	memcpy(out + sizeof(m), s->raw, text);
	return (int)size;
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
	*ring = s.cpu;
	*time = s.time;
	if (kind == PDF_KIND_MARKER && lay->marker_text)
		return decode_marker(&s, in->misc, out, out_size);
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
	return rec.size;
}

/* Header and body back as the ring record; valid only if it is exactly
 * what encode_native() makes of one (perf's body, nothing after it). */
static int decode_native(const struct pdf_layout *lay,
			 const struct rs_perf_header *in, uint8_t *out,
			 size_t out_size, uint32_t *ring, uint64_t *time)
{
	struct rs_perf_header hdr = { in->type, in->misc, 0 };
	size_t body, trailer = pdf_layout_trailer_size(lay);
	uint64_t id;

	if (in->size < sizeof(*in) + trailer)
		return FORMAT;
	body = in->size - sizeof(*in) - trailer;
	hdr.size = (uint16_t)(sizeof(hdr) + body);
	if (hdr.size > out_size)
		return FORMAT;
	memcpy(out, &hdr, sizeof(hdr));
	memcpy(out + sizeof(hdr), in + 1, body);
	/* every type ringside carries has a body: an empty one is no record */
	if (!body ||
	    pdf_rrec_perf_body((const struct rs_perf_header *)(void *)out) != body)
		return FORMAT;
	pdf_layout_trailer_read(lay, (const uint8_t *)(in + 1) + body, time,
				ring, &id);
	/* the host's: only what it writes of the process table */
	if (id && id == lay->id[PDF_KIND_STATE] &&
	    (hdr.type == PERF_RECORD_COMM || hdr.type == PERF_RECORD_MMAP2)) {
		*ring = PDF_RING_STATE;
		return hdr.size;
	}
	if (id != lay->id[PDF_KIND_RING])
		return FORMAT;
	return hdr.size;
}

int pdf_codec_decode(const struct pdf_layout *lay, const struct rs_perf_header *in,
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
	if (in->type != RS_PERF_RECORD_SAMPLE) {
		int n = decode_host(lay, in, out, out_size, ring, time);

		return n ? n : decode_native(lay, in, out, out_size, ring,
					     time);
	}
	if (in->size < sizeof(*in) + 8)
		return FORMAT;
	memcpy(&id, in + 1, sizeof(id));
	if (lay->host_id && id == lay->host_id)
		return decode_host_sample(lay, in, out, out_size, ring, time);
	kind = kind_of(lay, id);
	if (kind < 0)
		return FORMAT;
	if (kind == PDF_KIND_SAMPLE) {
		if (in->size > out_size)
			return FORMAT;
		return pdf_sample_narrow(lay->guest_sample_type,
					 lay->id_fields,
					 lay->sample_type[kind], in, out,
					 ring, time);
	}
	return decode_carried(lay, (enum pdf_kind)kind, in, out, out_size,
			      ring, time);
}
