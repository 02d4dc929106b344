/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/perfdata.h"

#include "pdf_auxtrace.h"
#include "pdf_clock.h"
#include "pdf_codec.h"
#include "pdf_feature.h"
#include "pdf_kernel.h"
#include "pdf_host.h"
#include "pdf_io.h"

#define WINDOW       (1u << 20)
#define MAX_ATTRS    64u
#define MAX_FEAT_LEN (16u << 20)

struct file_attr {
	uint64_t sample_type;
	uint64_t config1;
	uint64_t id;               /* its first id, 0 if none */
};

struct pdf_reader {
	int fd;
	uint64_t file_size;
	struct pdf_file_header hdr;
	struct pdf_layout lay;
	struct pdf_info info;
	uint32_t nr_attrs;
	struct file_attr attrs[MAX_ATTRS];
	struct pdf_event_desc descs[MAX_ATTRS];
	int nr_descs;
	int have_reader;           /* ringside's reader feature read */
	uint64_t pos;              /* next record, relative to the data section */
	uint64_t win_start;        /* data-relative offset of win[0] */
	uint64_t win_len;
	uint64_t skipped;
	int want_host;             /* give ringside:host's records */
	uint64_t aux_bytes;        /* AUXTRACE payload bytes met so far */
	uint8_t *win;
	_Alignas(8) uint8_t rec[PDF_CODEC_BUF];
	_Alignas(8) uint8_t out[PDF_CODEC_BUF];
};

static int read_at(struct pdf_reader *r, void *buf, uint64_t len, uint64_t off)
{
	int err;

	if (off > r->file_size || len > r->file_size - off)
		return PDF_ERR(pdfe_truncated);
	err = rs_io_pread_all(r->fd, buf, (size_t)len, off);
	return err == -EIO ? PDF_ERR(pdfe_truncated) : err;
}

static int read_attrs(struct pdf_reader *r)
{
	const struct pdf_file_header *h = &r->hdr;
	uint8_t buf[4096 + sizeof(struct pdf_section)];
	struct perf_event_attr attr;
	struct pdf_section ids;
	uint64_t attr_len, i;
	int err;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(ids) ||
	    h->attr_size > sizeof(buf))
		return PDF_ERR(pdfe_attr_size);
	attr_len = h->attr_size - sizeof(ids);
	if (h->attrs.size % h->attr_size || h->attrs.size / h->attr_size > MAX_ATTRS)
		return PDF_ERR(pdfe_format);
	r->nr_attrs = (uint32_t)(h->attrs.size / h->attr_size);
	for (i = 0; i < r->nr_attrs; i++) {
		err = read_at(r, buf, h->attr_size, h->attrs.offset + i * h->attr_size);
		if (err)
			return err;
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, buf, attr_len < sizeof(attr) ? attr_len : sizeof(attr));
		memcpy(&ids, buf + attr_len, sizeof(ids));
		r->attrs[i].sample_type = attr.sample_type;
		r->attrs[i].config1 = attr.config1;
		if (ids.size >= 8) {
			err = read_at(r, &r->attrs[i].id, 8, ids.offset);
			if (err)
				return err;
		}
	}
	return 0;
}

static void parse_cmdline(struct pdf_info *info, const uint8_t *p, uint64_t len)
{
	size_t used = 0;
	uint32_t nr, i;
	char arg[256];
	int n;

	if (len < 4)
		return;
	memcpy(&nr, p, 4);
	p += 4;
	len -= 4;
	for (i = 0; i < nr && len; i++) {
		n = pdf_feature_string_parse(p, len, arg, sizeof(arg));
		if (n < 0)
			return;
		p += n;
		len -= (uint64_t)n;
		if (used + strlen(arg) + 2 > sizeof(info->cmdline))
			return;
		if (used)
			info->cmdline[used++] = ' ';
		memcpy(info->cmdline + used, arg, strlen(arg) + 1);
		used += strlen(arg);
	}
}

/* The kernel's entry of HEADER_BUILD_ID: header, pid, 24 bytes of id (its
 * size in byte 20 when misc says so), the name.  Others are skipped; a
 * malformed section says nothing. */
static void parse_build_id(struct pdf_info *info, const uint8_t *buf,
			   uint64_t len)
{
	static const char kname[] = PDF_KERNEL_DSO;
	uint64_t at = 0;

	while (len - at >= 8 + 4 + 24) {
		struct rs_perf_header h;
		const uint8_t *e = buf + at;
		uint64_t name_len;

		memcpy(&h, e, sizeof(h));
		if (h.size < 8 + 4 + 24 || h.size > len - at)
			return;
		name_len = h.size - (8 + 4 + 24);
		if (name_len >= sizeof(kname) - 1 &&
		    !memcmp(e + 36, kname, sizeof(kname) - 1)) {
			uint32_t n = PDF_BUILD_ID_SIZE;

			if ((h.misc & PDF_MISC_BUILD_ID_SIZE) && e[12 + 20] &&
			    e[12 + 20] <= PDF_BUILD_ID_SIZE)
				n = e[12 + 20];
			memcpy(info->build_id, e + 12, n);
			info->build_id_len = n;
			return;
		}
		at += h.size;
	}
}

static int read_feature(struct pdf_reader *r, unsigned bit,
			const struct pdf_section *sec)
{
	struct pdf_info *info = &r->info;
	uint8_t *buf;
	int err;

	if (sec->size > MAX_FEAT_LEN)
		return PDF_ERR(pdfe_format);
	/* A section the file cannot hold costs no allocation. */
	if (sec->offset > r->file_size || sec->size > r->file_size - sec->offset)
		return PDF_ERR(pdfe_truncated);
	buf = malloc(sec->size ? sec->size : 1);
	if (!buf)
		return -ENOMEM;
	err = read_at(r, buf, sec->size, sec->offset);
	if (err)
		goto out;
	switch (bit) {
	case PDF_FEAT_HOSTNAME:
		err = pdf_feature_string_parse(buf, sec->size, info->hostname,
				       sizeof(info->hostname));
		break;
	case PDF_FEAT_VERSION:
		err = pdf_feature_string_parse(buf, sec->size, info->version,
				       sizeof(info->version));
		break;
	case PDF_FEAT_NRCPUS:     /* the rings, in older files */
		if (sec->size >= 4 && !r->have_reader)
			memcpy(&info->nr_rings, buf, 4);
		break;
	case PDF_FEAT_OSRELEASE:
		err = pdf_feature_string_parse(buf, sec->size, info->os_release,
				       sizeof(info->os_release));
		break;
	case PDF_FEAT_RS_READER:
		/* malformed: says nothing */
		if (!pdf_feature_reader_parse(buf, sec->size, &info->nr_rings,
					      info->reader_host,
					      sizeof(info->reader_host),
					      info->reader_release,
					      sizeof(info->reader_release)))
			r->have_reader = 1;
		break;
	case PDF_FEAT_CMDLINE:
		parse_cmdline(info, buf, sec->size);
		break;
	case PDF_FEAT_EVENT_DESC:
		r->nr_descs = err = pdf_feature_event_desc_parse(buf, sec->size, r->descs,
							 MAX_ATTRS);
		break;
	case PDF_FEAT_CLOCK_DATA:
		if (sec->size >= 24) {
			memcpy(&info->clockid, buf + 4, 4);
			info->have_clock_data = 1;
		}
		break;
	case PDF_FEAT_RS_CLOCK:
		/* a malformed one reads as "nothing said", not a bad file */
		pdf_clock_parse(buf, sec->size, &info->clock);
		break;
	case PDF_FEAT_RS_HOST:
		/* likewise: a malformed one says nothing */
		pdf_host_parse(buf, sec->size, &info->host);
		break;
	case PDF_FEAT_BUILD_ID:
		parse_build_id(info, buf, sec->size);
		break;
	case PDF_FEAT_SAMPLE_TIME:
		if (sec->size >= 16) {
			memcpy(&info->first_time, buf, 8);
			memcpy(&info->last_time, buf + 8, 8);
			info->have_time = 1;
		}
		break;
	default:
		break;
	}
	err = err < 0 ? err : 0;
out:
	free(buf);
	return err;
}

static int read_features(struct pdf_reader *r)
{
	struct pdf_section index[PDF_FEAT_BITS];
	uint64_t at = r->hdr.data.offset + r->hdr.data.size;
	unsigned bit, n = 0, i = 0;
	int err;

	for (bit = 0; bit < PDF_FEAT_BITS; bit++)
		n += (r->hdr.features[bit / 64] >> (bit % 64)) & 1;
	if (!n)
		return 0;
	err = read_at(r, index, n * sizeof(index[0]), at);
	if (err)
		return err;
	for (bit = 0; bit < PDF_FEAT_BITS; bit++) {
		if (!((r->hdr.features[bit / 64] >> (bit % 64)) & 1))
			continue;
		err = read_feature(r, bit, &index[i++]);
		if (err)
			return err;
	}
	return 0;
}

/* Match the attrs to ringside's events by the names in EVENT_DESC. */
static int build_layout(struct pdf_reader *r)
{
	const struct file_attr *found[PDF_KIND_MAX] = { 0 };
	uint32_t i;
	int d, k;

	for (d = 0; d < r->nr_descs; d++) {
		for (k = 0; k < PDF_KIND_MAX; k++)
			if (!strcmp(r->descs[d].name, pdf_layout_kind_name((enum pdf_kind)k)))
				break;
		if (k == PDF_KIND_MAX)
			continue;
		for (i = 0; i < r->nr_attrs; i++)
			if (r->attrs[i].id && r->attrs[i].id == r->descs[d].id)
				found[k] = &r->attrs[i];
	}
	/* ringside:state is younger than the others: a file without it
	 * has no host records */
	for (k = 0; k < PDF_KIND_MAX; k++)
		if (!found[k] && k != PDF_KIND_STATE)
			return PDF_ERR(pdfe_not_ringside);
	/* the layout the attrs say: the shared sample-id fields, or that of
	 * the files written before them */
	pdf_layout_init(&r->lay, found[PDF_KIND_SAMPLE]->config1);
	for (k = 0; k < PDF_KIND_MAX; k++)
		if (found[k] && found[k]->sample_type != r->lay.sample_type[k])
			break;
	if (k < PDF_KIND_MAX)
		pdf_layout_init_v1(&r->lay, found[PDF_KIND_SAMPLE]->config1);
	for (k = 0; k < PDF_KIND_MAX; k++) {
		if (!found[k]) {
			r->lay.id[k] = 0;
			continue;
		}
		if (found[k]->sample_type != r->lay.sample_type[k])
			return PDF_ERR(pdfe_not_ringside);
		r->lay.id[k] = found[k]->id;
	}
	/* ringside:host, where the file has the host's view */
	for (d = 0; d < r->nr_descs; d++)
		if (!strcmp(r->descs[d].name, PDF_HOST_NAME))
			for (i = 0; i < r->nr_attrs; i++)
				if (r->attrs[i].id &&
				    r->attrs[i].id == r->descs[d].id)
					r->lay.host_id = r->attrs[i].id;
	r->info.sample_type = r->lay.guest_sample_type;
	r->info.data_size = r->hdr.data.size;
	return 0;
}

static int read_header(struct pdf_reader *r)
{
	struct pdf_file_header *h = &r->hdr;
	int err;

	err = read_at(r, h, sizeof(*h), 0);
	if (err)
		return err == PDF_ERR(pdfe_truncated) ? PDF_ERR(pdfe_magic) : err;
	if (h->magic != PDF_MAGIC)
		return PDF_ERR(pdfe_magic);
	if (h->size != sizeof(*h))
		return PDF_ERR(pdfe_format);
	if (h->data.offset > r->file_size ||
	    h->data.size > r->file_size - h->data.offset)
		return PDF_ERR(pdfe_truncated);
	return 0;
}

int pdf_reader_open(struct pdf_reader **rp, const char *path)
{
	struct pdf_reader *r;
	struct stat st;
	int err;

	if (!rp || !path)
		return PDF_ERR(pdfe_invalid);
	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->win = malloc(WINDOW);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || !r->win) {
		err = r->fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	if (fstat(r->fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : PDF_ERR(pdfe_magic);
		goto fail;
	}
	r->file_size = (uint64_t)st.st_size;
	err = read_header(r);
	if (!err)
		err = read_attrs(r);
	if (!err)
		err = read_features(r);
	if (!err)
		err = build_layout(r);
	if (err)
		goto fail;
	*rp = r;
	return 0;
fail:
	pdf_reader_close(r);
	return err;
}

const struct pdf_info *pdf_reader_info(const struct pdf_reader *r)
{
	return &r->info;
}

void pdf_reader_want_host(struct pdf_reader *r, int want)
{
	if (r)
		r->want_host = !!want;
}

int pdf_reader_has_host(const struct pdf_reader *r)
{
	return r && r->lay.host_id;
}

uint64_t pdf_reader_skipped(const struct pdf_reader *r)
{
	return r->skipped;
}

uint64_t pdf_reader_aux_bytes(const struct pdf_reader *r)
{
	return r->aux_bytes;
}

/* Make [pos, pos + len) of the data section readable at the return value. */
static const uint8_t *window(struct pdf_reader *r, uint64_t pos, uint64_t len,
			     int *err)
{
	uint64_t want;

	if (pos >= r->win_start && pos + len <= r->win_start + r->win_len)
		return r->win + (pos - r->win_start);
	want = r->hdr.data.size - pos;
	if (want > WINDOW)
		want = WINDOW;
	*err = read_at(r, r->win, want, r->hdr.data.offset + pos);
	if (*err)
		return NULL;
	r->win_start = pos;
	r->win_len = want;
	return r->win;
}

int pdf_reader_next(struct pdf_reader *r, struct pdf_event *ev)
{
	struct rs_perf_header hdr;
	const uint8_t *p;
	int err = 0, n;

	for (;;) {
		uint64_t left = r->hdr.data.size - r->pos;

		ev->offset = r->hdr.data.offset + r->pos;
		if (!left)
			return 0;
		if (left < sizeof(hdr))
			return PDF_ERR(pdfe_truncated);
		p = window(r, r->pos, sizeof(hdr), &err);
		if (!p)
			return err;
		memcpy(&hdr, p, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > left)
			return PDF_ERR(pdfe_format);
		p = window(r, r->pos, hdr.size, &err);
		if (!p)
			return err;
		memcpy(r->rec, p, hdr.size);
		r->pos += hdr.size;
		if (hdr.type == PDF_RECORD_AUXTRACE) {
			/* its bytes follow, outside its size: bounded by the
			 * data section, stepped over (AUX data is opaque) */
			uint64_t pay = pdf_auxtrace_payload(r->rec, hdr.size);

			if (hdr.size < sizeof(hdr) + sizeof(struct pdf_auxtrace) ||
			    pay % 8 || pay > r->hdr.data.size - r->pos)
				return PDF_ERR(pdfe_format);
			r->pos += pay;
			r->aux_bytes += pay;
			r->skipped++;
			continue;
		}
		n = pdf_codec_decode(&r->lay, (const struct rs_perf_header *)r->rec,
			       r->out, sizeof(r->out), &ev->ring, &ev->time);
		if (n < 0)
			return n;
		if (n == 0) {
			r->skipped++;
			continue;
		}
		ev->state = ev->ring == PDF_RING_STATE;
		if (ev->state)
			ev->ring = 0;
		ev->host = !ev->state && (ev->ring & PDF_RING_HOST);
		ev->host_cpu = 0;
		if (ev->host) {
			ev->ring &= ~PDF_RING_HOST;
			memcpy(&ev->host_cpu, r->out + n, 4);
			if (!r->want_host) {
				r->skipped++;
				continue;
			}
		}
		if (ev->ring >= RS_MAX_RINGS)
			return PDF_ERR(pdfe_format);
		ev->rec = (const struct rs_perf_header *)r->out;
		return 1;
	}
}

int pdf_reader_aux(struct pdf_reader *r, pdf_aux_fn fn, void *arg)
{
	uint64_t pos = 0, size = r ? r->hdr.data.size : 0;
	uint8_t *data = NULL;
	int given = 0, err = 0;

	if (!r || !fn)
		return PDF_ERR(pdfe_invalid);
	while (!err && size - pos >= sizeof(struct rs_perf_header)) {
		struct rs_perf_header hdr;
		struct pdf_auxtrace ax;
		uint8_t *grown;

		err = read_at(r, &hdr, sizeof(hdr), r->hdr.data.offset + pos);
		if (err)
			break;
		if (hdr.size < sizeof(hdr) || hdr.size > size - pos) {
			err = PDF_ERR(pdfe_format);
			break;
		}
		pos += hdr.size;
		if (hdr.type != PDF_RECORD_AUXTRACE)
			continue;
		if (hdr.size < sizeof(hdr) + sizeof(ax)) {
			err = PDF_ERR(pdfe_format);
			break;
		}
		err = read_at(r, &ax, sizeof(ax), r->hdr.data.offset + pos -
			      hdr.size + sizeof(hdr));
		if (err)
			break;
		if (ax.size % 8 || ax.size > size - pos ||
		    ax.size > PDF_KCORE_MAX_BYTES) {
			err = PDF_ERR(pdfe_format);
			break;
		}
		grown = realloc(data, ax.size ? ax.size : 1);
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		data = grown;
		err = read_at(r, data, ax.size, r->hdr.data.offset + pos);
		if (!err)
			err = fn(arg, ax.idx, ax.offset, data, ax.size);
		pos += ax.size;
		given++;
	}
	free(data);
	return err ? err : given;
}

void pdf_reader_close(struct pdf_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->win);
	free(r);
}
