/* SPDX-License-Identifier: MIT */
/*
 * What goes into a ringside file's data section (pdf_writer.c opens and
 * completes the file): the guest's records, encoded (pdf_codec.c) with
 * their call chains cut (pdf_trim.c), its AUX data, and the kernel's
 * symbols and code and the user binaries' symbols beside the file, in
 * ringside's build-id cache.
 */
#include <errno.h>
#include <string.h>

#include "pdf_auxtrace.h"
#include "pdf_kernel.h"
#include "pdf_writer.h"

/* @time into the span [*@first, *@last]; *@have: the span holds one. */
static void span_add(int *have, uint64_t *first, uint64_t *last, uint64_t time)
{
	if (!*have || time < *first)
		*first = time;
	if (!*have || time > *last)
		*last = time;
	*have = 1;
}

/* The maps carry time 0, which perf delivers where it meets them instead
 * of queueing them with the samples (ordered_events__queue refuses a zero
 * timestamp), and ringside writes no FINISHED_ROUND before the end: so
 * perf has the kernel's maps before it delivers any sample, wherever in
 * the data section they are. */
int pdf_writer_add_ksyms(struct pdf_writer *w,
			 const struct pdf_writer_params *params)
{
	int err;

	if (!w || !params || params->size < sizeof(struct pdf_writer_params) ||
	    !params->guest_kallsyms)
		return PDF_ERR(pdfe_invalid);
	if (w->have_ksyms)
		return -EALREADY;
	w->have_ksyms = 1;
	err = pdf_writer_ksyms(w, params);
	if (!err)
		pdf_writer_mark(w);
	return err;
}

/*
 * Before a guest record is encoded: remember its maps, cut its call
 * chain's trailing bad frames (pdf_trim.c; *@rec then points at the cut
 * copy, w->trim_buf), note a sample's time.  0 or a negative code.
 */
static int trim(struct pdf_writer *w, uint32_t ring, uint64_t time,
		const struct rs_perf_header **rec)
{
	uint32_t frames;
	int n;

	switch (pdf_rrec_classify(*rec, w->lay.guest_sample_type)) {
	case PDF_RREC_MMAP2:
		pdf_trim_mmap2(&w->trim, *rec);
		return 0;
	case PDF_RREC_SAMPLE:
		break;
	default:
		return 0;
	}
	if (!w->lay.kernel_seen &&
	    (((*rec)->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
	     PERF_RECORD_MISC_KERNEL ||
	     ((*rec)->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
	     PERF_RECORD_MISC_GUEST_KERNEL)) {
		w->lay.kernel_seen = 1;   /* the attrs say so at finish */
		w->attrs_stale = 1;
	}
	span_add(&w->have_sample_time, &w->first_sample, &w->last_sample, time);
	if (!w->lay.native_samples)
		return 0;
	n = pdf_trim_sample(&w->trim, w->lay.guest_sample_type, *rec,
			    w->trim_buf, sizeof(w->trim_buf), &frames);
	if (n <= 0)
		return n == PDF_ERR(pdfe_format) ? 0 : n;
	if (frames) {
		w->stats.frames_trimmed += frames;
		w->stats.chains_trimmed++;
		if (ring < RS_MAX_RINGS)
			w->trimmed[ring] += frames;
	}
	*rec = (const struct rs_perf_header *)(const void *)w->trim_buf;
	return 0;
}

int pdf_writer_add(struct pdf_writer *w, uint32_t ring, uint64_t time,
		   const struct rs_perf_header *rec)
{
	int n, err;

	if (!w || !rec)
		return PDF_ERR(pdfe_invalid);
	n = trim(w, ring, time, &rec);
	if (n < 0)
		return n;
	if (rec->type == PERF_RECORD_MMAP2 && rec->size >= 8 + 64 + 7 &&
	    !memcmp((const uint8_t *)(rec + 1) + 64, "[vdso]", 7))
		w->maps_vdso = 1;
	n = pdf_codec_encode(&w->lay, ring, time, rec, w->enc, sizeof(w->enc));
	if (n < 0)
		return n;
	err = pdf_writer_append(w, w->enc, (size_t)n);
	if (err)
		return err;
	w->stats.records++;
	if (rec->type == RS_PERF_RECORD_LOST &&
	    rec->size >= sizeof(struct rs_perf_lost)) {
		w->lost_records++;
		w->lost += ((const struct rs_perf_lost *)(const void *)rec)->lost;
	}
	span_add(&w->have_time, &w->first_time, &w->last_time, time);
	pdf_writer_mark(w);
	return 0;
}

int pdf_writer_add_state(struct pdf_writer *w, uint32_t ring, uint64_t time,
			 const struct rs_perf_header *rec)
{
	int n;

	if (!w || !rec || ring >= RS_MAX_RINGS)
		return PDF_ERR(pdfe_invalid);
	n = pdf_codec_encode_state(&w->lay, ring, time, rec, w->enc, sizeof(w->enc));
	if (n < 0)
		return n;
	return pdf_writer_append(w, w->enc, (size_t)n);
}

/* @len bytes at @data into the output in pieces it takes, read once. */
static int append_payload(struct pdf_writer *w, const void *data, uint64_t len)
{
	const uint8_t *p = data;
	int err = 0;

	while (!err && len) {
		size_t n = len < PDF_WRITER_OUT_BUF ? (size_t)len : PDF_WRITER_OUT_BUF;

		err = pdf_writer_append(w, p, n);
		p += n;
		len -= n;
	}
	return err;
}

int pdf_writer_add_aux2(struct pdf_writer *w, uint32_t ring, uint64_t offset,
			const void *data, uint64_t len, const void *data2,
			uint64_t len2)
{
	static const uint8_t zero[8];
	uint64_t total = len + len2;
	struct pdf_buf b;
	int err;

	if (!w || !w->aux_format || ring >= RS_MAX_RINGS || (!data && len) ||
	    (!data2 && len2) || total < len)
		return PDF_ERR(pdfe_invalid);
	if (!total)
		return 0;
	pdf_buf_init(&b);
	pdf_auxtrace_record(&b, ring, offset, total);
	err = b.err ? b.err : pdf_writer_append(w, b.data, b.len);
	pdf_buf_fini(&b);
	if (!err)
		err = append_payload(w, data, len);
	if (!err)
		err = append_payload(w, data2, len2);
	if (!err && total % 8)
		err = pdf_writer_append(w, zero, 8 - total % 8);
	if (!err) {
		w->stats.aux_bytes += total;
		pdf_writer_mark(w);
	}
	return err;
}

int pdf_writer_add_aux(struct pdf_writer *w, uint32_t ring, uint64_t offset,
		       const void *data, uint64_t len)
{
	return pdf_writer_add_aux2(w, ring, offset, data, len, NULL, 0);
}

/* "modules" first: perf uses a kcore only with it, so a kcore never
 * stands alone half-checked. */
int pdf_writer_add_kcore(struct pdf_writer *w, const struct pdf_kcore_seg *segs,
			 uint32_t nr)
{
	struct pdf_buf mods, image;
	int err;

	if (!w || !segs || !nr)
		return PDF_ERR(pdfe_invalid);
	if (!w->ksyms || !w->ksyms_cached)
		return -ENOENT;
	pdf_buf_init(&mods);
	pdf_buf_init(&image);
	err = pdf_kcore_image(segs, nr, pdf_kernel_stext(w->ksyms), &image);
	if (!err)
		err = pdf_kernel_modules_text(w->ksyms, &mods);
	if (!err)
		err = pdf_cache_kernel_put(w->buildid_dir, w->stats.build_id,
					   w->stats.build_id_len, "modules",
					   mods.data, mods.len);
	if (!err)
		err = pdf_cache_kernel_put(w->buildid_dir, w->stats.build_id,
					   w->stats.build_id_len, "kcore",
					   image.data, image.len);
	pdf_buf_fini(&mods);
	pdf_buf_fini(&image);
	return err;
}

int pdf_writer_add_ubins(struct pdf_writer *w, const struct pdf_ubin *b,
			 uint32_t nr)
{
	if (!w)
		return PDF_ERR(pdfe_invalid);
	return pdf_uelf_add_all(&w->ubids, &w->stats, w->buildid_dir, b, nr);
}

int pdf_writer_add_host(struct pdf_writer *w, const struct pdf_host_rec *h)
{
	int n;

	if (!w || !h || !w->lay.host_id || h->lane >= RS_MAX_RINGS)
		return PDF_ERR(pdfe_invalid);
	n = pdf_codec_encode_host(&w->lay, h, w->enc, sizeof(w->enc));
	if (n < 0)
		return n;
	return pdf_writer_append(w, w->enc, (size_t)n);
}
