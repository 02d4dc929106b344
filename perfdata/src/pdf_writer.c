/* SPDX-License-Identifier: MIT */
/*
 * File layout: header | attrs (attr + ids section, one per event) | ids |
 * data | feature index | features.  The header is written last, in place,
 * once the data size is known.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pdf_auxtrace.h"
#include "pdf_clock.h"
#include "pdf_feature.h"
#include "pdf_host.h"
#include "pdf_io.h"
#include "pdf_kernel.h"
#include "pdf_writer.h"

/* At open, in sequence; again at the end (@again) in place, when the
 * clock changed the attrs. */
static int write_attrs(struct pdf_writer *w, int again)
{
	uint8_t buf[PDF_LAYOUT_ATTRS_MAX];
	size_t len = pdf_layout_attrs(&w->lay, buf);

	w->data_offset = len;
	if (again)   /* the header part is written last, over these zeros */
		return rs_io_pwrite_all(w->fd, buf, len, 0);
	return rs_io_write_all(w->fd, buf, len);
}

/* What the data section holds now. */
static struct pdf_writer_part counts(const struct pdf_writer *w)
{
	return (struct pdf_writer_part){ .bytes = w->stats.bytes,
		.records = w->stats.records, .lost_records = w->lost_records,
		.lost = w->lost };
}

void pdf_writer_mark(struct pdf_writer *w)
{
	w->mark = counts(w);
}

/*
 * A guest kernel's symbols (pdf_ksyms.c): its maps first in the data
 * section, its build id for HEADER_BUILD_ID, its table in perf's build-id
 * cache (pdf_cache.c).  The id is always the content's, never the
 * guest's own: perf reads the running kernel's /proc/kallsyms for a file
 * whose kernel id is the running kernel's, so the guest's own id would
 * name its samples after the symbols of any reader that runs the same
 * kernel.  Whatever fails is in stats.ksyms_err, not the caller's: the
 * trace is written anyway.  Only a failed write of the file itself is
 * returned.
 */
int pdf_writer_ksyms(struct pdf_writer *w, const struct pdf_writer_params *p)
{
	uint8_t *id = w->stats.build_id;
	uint32_t len = PDF_BUILD_ID_SIZE;
	struct pdf_ksyms *k;
	struct pdf_buf recs;
	int err, put;

	err = pdf_ksyms_parse(&k, p->guest_kallsyms, p->guest_kallsyms_len);
	if (err) {
		w->stats.ksyms_err = err;
		return 0;
	}
	put = pdf_ksyms_content_id(k, id);
	if (!put)
		put = pdf_ksyms_cache_put(k, id, len, w->buildid_dir);
	w->stats.build_id_len = len;
	if (put)
		w->stats.ksyms_err = put > 0 ? -EEXIST : put;
	pdf_buf_init(&recs);
	err = pdf_kernel_mmaps(k, &w->lay, &recs);
	w->ksyms = k;
	w->ksyms_cached = !put;
	if (!err && recs.len > PDF_WRITER_OUT_BUF)
		err = -E2BIG;
	if (!err)
		err = pdf_writer_append(w, recs.data, recs.len);
	pdf_buf_fini(&recs);
	return err;
}

/* The AUXTRACE_INFO first in the data section: perf sets its decoder up
 * from it before it meets any AUXTRACE record. */
static int aux_info(struct pdf_writer *w, uint32_t format)
{
	struct pdf_buf b;
	int err;

	pdf_buf_init(&b);
	pdf_auxtrace_info_record(&b, format);
	err = b.err ? b.err : pdf_writer_append(w, b.data, b.len);
	pdf_buf_fini(&b);
	w->aux_format = format;
	return err;
}

int pdf_writer_open(struct pdf_writer **wp, const char *path,
		    const struct pdf_writer_params *params)
{
	struct pdf_writer *w;
	int err;

	if (!wp || !path || !params ||
	    params->size < sizeof(struct pdf_writer_params) ||
	    params->aux_format >= PDF_AUX_FORMAT_MAX)
		return PDF_ERR(pdfe_invalid);
	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	/* guest names never go to perf's own cache (docs/perfdata.md,
	 * "Where guest names go") */
	if (params->buildid_dir) {
		w->buildid_dir = strdup(params->buildid_dir);
	} else {
		char own[PATH_MAX];

		if (!pdf_cache_dir_of(path, own, sizeof(own)))
			w->buildid_dir = strdup(own);
	}
	if (!w->buildid_dir) {
		err = -ENOMEM;
		goto fail;
	}
	w->path = strdup(path);
	w->tmp = calloc(1, strlen(path) + sizeof(PDF_ASIDE_SUFFIX));
	w->out = malloc(PDF_WRITER_OUT_BUF);
	if (!w->path || !w->tmp || !w->out) {
		err = -ENOMEM;
		goto fail;
	}
	pdf_layout_init(&w->lay, params->sample_type);
	w->lay.pt = params->aux_format == PDF_AUX_INTEL_PT;
	w->lay.host_id = params->host_view ? PDF_HOST_ID : 0;
	w->nr_rings = params->nr_rings;
	w->argc = params->argc;
	w->argv = params->argv;
	pdf_writer_set_guest(w, params->guest);
	/* trace data is the guest's: readable by the owner only (0600,
	 * pdf_aside_open), never through a name another user planted; read
	 * back when the clock rewrites its times */
	w->fd = pdf_aside_open(path, w->tmp, strlen(path) + sizeof(PDF_ASIDE_SUFFIX));
	if (w->fd < 0) {
		err = w->fd;
		goto fail;
	}
	err = write_attrs(w, 0);
	if (!err && params->aux_format)
		err = aux_info(w, params->aux_format);
	if (!err && params->guest_kallsyms) {
		w->have_ksyms = 1;
		err = pdf_writer_ksyms(w, params);
	}
	if (err)
		goto fail;
	pdf_writer_mark(w);
	*wp = w;
	return 0;
fail:
	pdf_writer_discard(w);
	return err;
}

/* Everything up to the last mark is on disk once a flush went well (a
 * flush happens between additions, or inside an AUX payload, which is
 * past the mark). */
static int flush_out(struct pdf_writer *w)
{
	int err = rs_io_write_all(w->fd, w->out, w->used);

	w->used = 0;
	if (!err)
		w->good = w->mark;
	return err;
}

int pdf_writer_append(struct pdf_writer *w, const void *rec, size_t size)
{
	int err;

	if (w->used + size > PDF_WRITER_OUT_BUF) {
		err = flush_out(w);
		if (err)
			return err;
	}
	memcpy(w->out + w->used, rec, size);
	w->used += size;
	w->stats.bytes += size;
	return 0;
}

const struct pdf_writer_stats *pdf_writer_stats(const struct pdf_writer *w)
{
	return &w->stats;
}

const char *pdf_writer_tmp_path(const struct pdf_writer *w)
{
	return w->tmp;
}

int pdf_writer_set_clock(struct pdf_writer *w, const struct pdf_clock_sync *cs)
{
	if (!w || !cs || cs->state >= PDF_CLOCK_STATE_MAX || cs->nr > 2 ||
	    (cs->state == PDF_CLOCK_SYNCED && !cs->nr))
		return PDF_ERR(pdfe_invalid);
	w->clock = *cs;
	return 0;
}

int pdf_writer_set_host(struct pdf_writer *w, const struct pdf_host_facts *h)
{
	if (!w)
		return PDF_ERR(pdfe_invalid);
	if (!h || h->kind == PDF_HOST_NONE) {
		w->host.kind = PDF_HOST_NONE;
		return 0;
	}
	if (!pdf_host_valid(h))
		return PDF_ERR(pdfe_invalid);
	w->host = *h;
	return 0;
}

int pdf_writer_layout_v1(struct pdf_writer *w)
{
	uint64_t host_id;
	int pt;

	if (!w || w->stats.bytes)
		return PDF_ERR(pdfe_invalid);
	pt = w->lay.pt;
	host_id = w->lay.host_id;
	pdf_layout_init_v1(&w->lay, w->lay.guest_sample_type);
	w->lay.pt = pt;
	w->lay.host_id = host_id;
	pdf_layout_set_guest(&w->lay, &w->guest);
	return write_attrs(w, 1);
}

int pdf_writer_set_guest(struct pdf_writer *w, const struct pdf_guest_facts *g)
{
	if (!w)
		return PDF_ERR(pdfe_invalid);
	memset(&w->guest, 0, sizeof(w->guest));
	if (g && g->known)
		w->guest = *g;
	pdf_layout_set_guest(&w->lay, &w->guest);
	w->attrs_stale = w->fd >= 0;
	return 0;
}

/* Guest times to host CLOCK_MONOTONIC in the data section, the attrs and
 * SAMPLE_TIME, when a sync says how.  0, -errno, PDF_ERR(). */
static int apply_clock(struct pdf_writer *w)
{
	int err;

	if (!pdf_clock_usable(&w->clock) || w->clock_applied)
		return 0;
	err = pdf_clock_rewrite(w->fd, w->data_offset, w->stats.bytes, &w->lay,
				&w->clock, w->out);
	if (err)
		return err;
	w->first_time = pdf_clock_to_host(&w->clock, w->first_time);
	w->last_time = pdf_clock_to_host(&w->clock, w->last_time);
	w->first_sample = pdf_clock_to_host(&w->clock, w->first_sample);
	w->last_sample = pdf_clock_to_host(&w->clock, w->last_sample);
	w->lay.use_clockid = 1;
	w->attrs_stale = 0;
	w->clock_applied = 1;
	return write_attrs(w, 1);
}

/* What the features say of the guest, of the host and of the samples'
 * times (the guest's samples alone; all records in a file without one);
 * the frames cut per ring go into the host facts. */
static void pdf_writer_tail_facts(struct pdf_writer *w,
				  struct pdf_feat_info *info)
{
	uint32_t i;

	memset(info, 0, sizeof(*info));
	info->guest = &w->guest;
	info->have_time = w->have_time;
	info->first_time = w->have_sample_time ? w->first_sample : w->first_time;
	info->last_time = w->have_sample_time ? w->last_sample : w->last_time;
	for (i = 0; i < w->host.nr_rings && i < RS_MAX_RINGS; i++)
		w->host.ring[i].frames_trimmed = w->trimmed[i];
}

static int write_tail(struct pdf_writer *w)
{
	struct pdf_file_header hdr;
	struct pdf_feat_info info;
	struct pdf_buf feat;
	int err;

	if (!w->stats.bytes) {
		/* perf takes an empty data section for an unfinished file */
		struct rs_perf_header round = {
			PDF_RECORD_FINISHED_ROUND, 0, sizeof(round) };

		err = pdf_writer_append(w, &round, sizeof(round));
		if (err)
			return err;
	}
	err = flush_out(w);
	if (!err)
		err = apply_clock(w);
	if (!err && w->attrs_stale)
		err = write_attrs(w, 1);
	if (err)
		return err;
	pdf_writer_tail_facts(w, &info);

	info.clock = &w->clock;
	info.host = &w->host;
	info.lay = &w->lay;
	info.nr_rings = w->nr_rings;
	info.argc = w->argc;
	info.argv = w->argv;
	info.build_id = w->stats.build_id;
	info.build_id_len = w->stats.build_id_len;
	if (w->maps_vdso)   /* its error is the buffer's */
		pdf_buildid_vdso_unknown(&w->ubids);
	info.ubids = w->ubids.data;
	info.ubids_len = w->ubids.len;

	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = PDF_MAGIC;
	hdr.size = sizeof(hdr);
	hdr.attr_size = PDF_ATTR_SIZE + sizeof(struct pdf_section);
	hdr.attrs.offset = sizeof(hdr);
	hdr.attrs.size = pdf_layout_nr_attrs(&w->lay) * hdr.attr_size;
	hdr.data.offset = w->data_offset;
	hdr.data.size = w->stats.bytes;

	pdf_buf_init(&feat);
	err = pdf_feature_build(&info, hdr.data.offset + hdr.data.size,
				 hdr.features, &feat);
	if (!err)
		err = rs_io_write_all(w->fd, feat.data, feat.len);
	pdf_buf_fini(&feat);
	if (!err)
		err = rs_io_pwrite_all(w->fd, &hdr, sizeof(hdr), 0);
	if (!err && fsync(w->fd))
		err = -errno;
	return err;
}

int pdf_writer_code_ranges(const struct pdf_writer *w,
			   struct pdf_code_range *r, unsigned max)
{
	if (!w || !w->ksyms || !w->ksyms_cached)
		return 0;
	return pdf_kernel_code_ranges(w->ksyms, r, max);
}

int pdf_writer_has_kcore(const struct pdf_writer *w)
{
	if (!w || !w->ksyms || !w->ksyms_cached)
		return 0;
	return pdf_cache_kernel_has(w->buildid_dir, w->stats.build_id,
				    w->stats.build_id_len, "kcore");
}

/* What the writer holds, its file closed or removed already. */
static void writer_free(struct pdf_writer *w)
{
	pdf_ksyms_free(w->ksyms);
	pdf_buf_fini(&w->ubids);
	free(w->buildid_dir);
	free(w->out);
	free(w->path);
	free(w->tmp);
	free(w);
}

int pdf_writer_finish(struct pdf_writer *w)
{
	int err = pdf_writer_try_finish(w);

	if (err && w)
		pdf_writer_discard(w);
	return err;
}

int pdf_writer_try_finish(struct pdf_writer *w)
{
	int err;

	if (!w || w->fd < 0)
		return PDF_ERR(pdfe_invalid);
	err = write_tail(w);
	if (err)
		return err;     /* still whole: the caller may salvage */
	err = pdf_aside_commit(w->fd, w->tmp, w->path);
	w->fd = -1;
	if (err) {
		w->tmp[0] = '\0';   /* removed */
		return err;
	}
	writer_free(w);
	return 0;
}

int pdf_writer_salvage(struct pdf_writer *w, struct pdf_writer_part *kept,
		       struct pdf_writer_part *dropped)
{
	struct pdf_writer_part k, all;
	off_t end;

	if (!w || w->fd < 0)
		return PDF_ERR(pdfe_invalid);
	k = w->good;
	all = counts(w);
	if (kept)
		*kept = k;
	if (dropped)
		*dropped = (struct pdf_writer_part){
			.bytes = all.bytes - k.bytes,
			.records = all.records - k.records,
			.lost_records = all.lost_records - k.lost_records,
			.lost = all.lost - k.lost };
	w->used = 0;
	w->stats.bytes = k.bytes;
	w->stats.records = k.records;
	w->lost_records = k.lost_records;
	w->lost = k.lost;
	w->mark = k;
	end = (off_t)(w->data_offset + k.bytes);
	if (ftruncate(w->fd, end) || lseek(w->fd, end, SEEK_SET) != end)
		return -errno;
	return 0;
}

void pdf_writer_discard(struct pdf_writer *w)
{
	if (!w)
		return;
	pdf_aside_discard(w->fd, w->tmp);
	writer_free(w);
}
