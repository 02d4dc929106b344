/* SPDX-License-Identifier: MIT */
/*
 * Private to perfdata/: one ring record <-> one perf.data record, per the
 * mapping in pdf_format.h.
 */
#ifndef RINGSIDE_PDF_CODEC_H
#define RINGSIDE_PDF_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "pdf_format.h"

/* Largest encoded record, and the buffer either direction needs. */
#define PDF_CODEC_BUF (PDF_REC_MAX + 1u)

/*
 * Encode ring record @rec of ring @ring, filed at @time, into @out (at most
 * @out_size bytes).  Returns the size.  PDF_ERR(pdfe_too_big) when the
 * record cannot be carried in a perf record (u16 size),
 * PDF_ERR(pdfe_invalid) for a record shorter than its header.
 */
int pdf_codec_encode(const struct pdf_layout *lay, uint32_t ring, uint64_t time,
	       const struct rs_perf_header *rec, void *out, size_t out_size);

/*
 * Encode a COMM or MMAP2 record the host wrote (ringside:state's), filed
 * at @time on @ring's CPU, as pdf_codec_encode does.  PDF_ERR(pdfe_invalid)
 * for another type, PDF_ERR(pdfe_format) for one pdf_rrec_perf_body()
 * refuses (nothing encoded).
 */
int pdf_codec_encode_state(const struct pdf_layout *lay, uint32_t ring,
		     uint64_t time, const struct rs_perf_header *rec,
		     void *out, size_t out_size);

/*
 * Encode host record @h (ringside:host's: a SWITCH or a LOST with the
 * trailer, the host CPU in the CPU word's second half) into @out.
 * PDF_ERR(pdfe_invalid) for another type.
 */
struct pdf_host_rec;
int pdf_codec_encode_host(const struct pdf_layout *lay,
			  const struct pdf_host_rec *h, void *out,
			  size_t out_size);

/* *ring of pdf_codec_decode() for a record ringside:host owns: its lane
 * ORed with this; the decoded record (its perf header and body) is
 * followed by 8 bytes: the host CPU (u32) and 0 (u32). */
#define PDF_RING_HOST 0x80000000u

/* *ring of pdf_codec_decode() for a record ringside:state owns: the host's, in
 * no ring. */
#define PDF_RING_STATE UINT32_MAX

/*
 * Decode file record @in (already bounded: in->size bytes readable) back to
 * the ring record in @out (at most @out_size bytes) with its ring and time.
 * Returns the size, or 0 for a record that is no ring record (perf's own
 * synthesized records); *ring is PDF_RING_STATE for ringside:state's
 * records.  PDF_ERR(pdfe_format) for a record that does
 * not follow the mapping, among them any whose size, or the ring record
 * it carries, is not a multiple of 8.
 */
int pdf_codec_decode(const struct pdf_layout *lay, const struct rs_perf_header *in,
	       void *out, size_t out_size, uint32_t *ring, uint64_t *time);

#endif /* RINGSIDE_PDF_CODEC_H */
