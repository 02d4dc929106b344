/* SPDX-License-Identifier: MIT */
/*
 * Which clock a file's times are in (issue 12).  A file whose guest clock
 * was synchronized with the host's (ring.h, rs_tsync_*) is written with
 * host CLOCK_MONOTONIC times: every record's perf TIME is the guest's time
 * minus the offset, the offset interpolated linearly between two syncs.
 * The writer files records with the guest's times as they come and
 * rewrites the TIME words in place once the syncs are known
 * (pdf_clock_rewrite), because the second sync comes after the last
 * record.  What the file says about it:
 *
 *   attrs           use_clockid = 1, clockid = CLOCK_MONOTONIC
 *   HEADER_CLOCKID  the clock's resolution in ns (perf prints it as the
 *                   "clockid frequency"): 1
 *   HEADER_CLOCK_DATA  version 1, clockid, host CLOCK_REALTIME and
 *                   CLOCK_MONOTONIC read together (perf script -F +tod)
 *   ringside's own feature (PDF_FEAT_RS_CLOCK): the state, and each sync's
 *                   guest time, offset, error bound, rounds and refusals
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "pdf_auxtrace.h"
#include "pdf_clock.h"
#include "pdf_io.h"

#define FORMAT   PDF_ERR(pdfe_format)
#define CHUNK    (1u << 20)
#define RS_CLOCK_VERSION 1u

int pdf_clock_usable(const struct pdf_clock_sync *cs)
{
	return cs && cs->state == PDF_CLOCK_SYNCED && cs->nr >= 1 && cs->nr <= 2;
}

/* The offset at guest time @g: pt[0]'s, or the line through both. */
static int64_t offset_at(const struct pdf_clock_sync *cs, uint64_t g)
{
	const struct pdf_clock_point *a = &cs->pt[0], *b = &cs->pt[1];
	__int128 d;

	if (cs->nr < 2 || b->guest_ns <= a->guest_ns)
		return a->offset_ns;
	/* 128 bits throughout: no guest-given value can overflow it */
	d = ((__int128)b->offset_ns - (__int128)a->offset_ns) *
	    (__int128)((int64_t)(g - a->guest_ns));
	d = (__int128)a->offset_ns + d / (__int128)(b->guest_ns - a->guest_ns);
	if (d > INT64_MAX)
		return INT64_MAX;
	if (d < INT64_MIN)
		return INT64_MIN;
	return (int64_t)d;
}

uint64_t pdf_clock_to_host(const struct pdf_clock_sync *cs, uint64_t guest)
{
	int64_t off;

	if (!pdf_clock_usable(cs))
		return guest;
	/* a guest time near either end must not wrap to the other: a time
	 * of 2^64-1 stays the latest there is, for report to flag */
	off = offset_at(cs, guest);
	if (off >= 0)
		return guest < (uint64_t)off ? 0 : guest - (uint64_t)off;
	return guest > UINT64_MAX - ((uint64_t)-(off + 1) + 1) ? UINT64_MAX :
	       guest + ((uint64_t)-(off + 1) + 1);
}

/* Where the perf TIME word of file record @rec is, or 0 for none. */
static size_t time_at(const struct pdf_layout *lay,
		      const struct rs_perf_header *rec)
{
	uint64_t id, type = 0;
	size_t at;
	int k;

	if (rec->type >= PDF_USER_TYPE_START)
		return 0;
	/* the host's records are host CLOCK_MONOTONIC already */
	if (rec->type != RS_PERF_RECORD_SAMPLE && lay->host_id &&
	    rec->size >= sizeof(*rec) + pdf_layout_trailer_size(lay)) {
		memcpy(&id, (const uint8_t *)rec + rec->size - 8, 8);
		if (id == lay->host_id)
			return 0;
	}
	if (rec->type != RS_PERF_RECORD_SAMPLE)
		return rec->size >= sizeof(*rec) + pdf_layout_trailer_size(lay) ?
		       rec->size - pdf_layout_trailer_size(lay) +
		       pdf_layout_trailer_time(lay) : 0;
	if (rec->size < sizeof(*rec) + 8)
		return 0;
	memcpy(&id, rec + 1, 8);
	for (k = 0; k < PDF_KIND_MAX; k++)
		if (lay->id[k] == id)
			type = lay->sample_type[k];
	if (!(type & PERF_SAMPLE_TIME))
		return 0;
	at = sizeof(*rec) + 8;      /* IDENTIFIER comes first */
	if (type & PERF_SAMPLE_IP)
		at += 8;
	if (type & PERF_SAMPLE_TID)
		at += 8;
	return at + 8 <= rec->size ? at : 0;
}

int pdf_clock_rewrite(int fd, uint64_t data_offset, uint64_t data_size,
		      const struct pdf_layout *lay,
		      const struct pdf_clock_sync *cs, uint8_t *buf)
{
	uint64_t pos = 0, skip = 0;
	int err;

	if (!pdf_clock_usable(cs))
		return 0;
	while (pos < data_size) {
		uint64_t want, done = 0;

		/* an AUXTRACE payload has no times: stepped over unread */
		if (skip) {
			if (skip > data_size - pos)
				return PDF_ERR(pdfe_internal);
			pos += skip;
			skip = 0;
			continue;
		}
		want = data_size - pos < CHUNK ? data_size - pos : CHUNK;
		err = rs_io_pread_all(fd, buf, (size_t)want, data_offset + pos);
		if (err)
			return err;
		for (;;) {
			struct rs_perf_header h;
			uint64_t t;
			size_t at;

			if (want - done < sizeof(h))
				break;
			memcpy(&h, buf + done, sizeof(h));
			if (h.size < sizeof(h))
				return PDF_ERR(pdfe_internal);
			if (h.size > want - done)
				break;
			at = time_at(lay, (const struct rs_perf_header *)
				     (const void *)(buf + done));
			if (at) {
				memcpy(&t, buf + done + at, 8);
				t = pdf_clock_to_host(cs, t);
				memcpy(buf + done + at, &t, 8);
			}
			done += h.size;
			if (h.type == PDF_RECORD_AUXTRACE) {
				skip = pdf_auxtrace_payload(buf + done - h.size,
							    h.size);
				break;
			}
		}
		if (!done)
			return PDF_ERR(pdfe_internal);
		err = rs_io_pwrite_all(fd, buf, (size_t)done, data_offset + pos);
		if (err)
			return err;
		pos += done;
	}
	return 0;
}

void pdf_clock_add_features(struct pdf_buf *b, unsigned bit,
			    const struct pdf_clock_sync *cs)
{
	uint32_t i;

	switch (bit) {
	case PDF_FEAT_CLOCKID:
		pdf_buf_add_u64(b, 1);     /* resolution, ns */
		break;
	case PDF_FEAT_CLOCK_DATA:
		pdf_buf_add_u32(b, 1);     /* version */
		pdf_buf_add_u32(b, PDF_CLOCKID_MONOTONIC);
		pdf_buf_add_u64(b, cs->wall_ns);
		pdf_buf_add_u64(b, cs->mono_ns);
		break;
	case PDF_FEAT_RS_CLOCK:
		pdf_buf_add_u32(b, RS_CLOCK_VERSION);
		pdf_buf_add_u32(b, cs->state);
		pdf_buf_add_u32(b, cs->nr);
		pdf_buf_add_u32(b, PDF_CLOCKID_MONOTONIC);
		for (i = 0; i < cs->nr && i < 2; i++) {
			pdf_buf_add_u64(b, cs->pt[i].guest_ns);
			pdf_buf_add_u64(b, (uint64_t)cs->pt[i].offset_ns);
			pdf_buf_add_u64(b, cs->pt[i].bound_ns);
			pdf_buf_add_u32(b, cs->pt[i].rounds);
			pdf_buf_add_u32(b, cs->pt[i].refused);
		}
		break;
	default:
		break;
	}
}

int pdf_clock_parse(const uint8_t *sec, uint64_t len, struct pdf_clock_sync *cs)
{
	uint32_t version, clockid, i;

	memset(cs, 0, sizeof(*cs));
	if (len < 16)
		return FORMAT;
	memcpy(&version, sec, 4);
	memcpy(&cs->state, sec + 4, 4);
	memcpy(&cs->nr, sec + 8, 4);
	memcpy(&clockid, sec + 12, 4);
	if (version != RS_CLOCK_VERSION || cs->nr > 2 ||
	    cs->state >= PDF_CLOCK_STATE_MAX || len < 16 + cs->nr * 32ull) {
		memset(cs, 0, sizeof(*cs));
		return FORMAT;
	}
	for (i = 0; i < cs->nr; i++) {
		const uint8_t *p = sec + 16 + i * 32;

		memcpy(&cs->pt[i].guest_ns, p, 8);
		memcpy(&cs->pt[i].offset_ns, p + 8, 8);
		memcpy(&cs->pt[i].bound_ns, p + 16, 8);
		memcpy(&cs->pt[i].rounds, p + 24, 4);
		memcpy(&cs->pt[i].refused, p + 28, 4);
	}
	return 0;
}

const char *pdf_clock_state_str(uint32_t state)
{
	switch (state) {
	case PDF_CLOCK_SYNCED:
		return "synchronized";
	case PDF_CLOCK_NO_ANSWER:
		return "no time sync: the guest did not answer";
	case PDF_CLOCK_REFUSED:
		return "no time sync: every answer of the guest was refused";
	case PDF_CLOCK_NO_AGENT:
		return "no time sync: no agent attached to the region";
	case PDF_CLOCK_HOST:
		return "times are host CLOCK_MONOTONIC already (the VMM's TSC conversion)";
	default:
		return "no time sync";
	}
}
