/* SPDX-License-Identifier: MIT */
/*
 * Where the guest kernel's perf buffers are (abi.h, struct rs_kbuf_desc):
 * a table at the end of the sideband area under a seqcount of its own,
 * the same G/H pairs as the sideband's (barrier.h, sideband.c).  The
 * guest writes it once; the host copies it once and judges the shape
 * here, the addresses where it reads guest memory.
 */
#include "barrier.h"
#include "ring_internal.h"


static struct rs_kbuf_desc *desc(const struct rs_region *region)
{
	return &((struct rs_region_header *)region->base)->kbuf;
}

/* A shape some writer could have produced, in an area of @size. */
static int shape_check(const struct rs_kbuf_info *in, uint64_t size)
{
	if (!in->nr_cpus || in->nr_cpus > RS_KBUF_MAX_CPUS)
		return -1;
	if (!in->data_pages || in->data_pages > RS_KBUF_MAX_PAGES ||
	    (in->data_pages & (in->data_pages - 1)))
		return -1;
	if (in->table_len != (uint64_t)in->nr_cpus *
	    RS_KBUF_ROW_WORDS(in->data_pages) * 8u)
		return -1;
	if ((in->table_offset & 7u) || in->table_offset > size ||
	    in->table_len > size - in->table_offset)
		return -1;
	return 0;
}

int rs_kbuf_publish(const struct rs_region *region, struct rs_kbuf_info *info,
		    const uint64_t *rows)
{
	struct rs_kbuf_desc *d;
	uint64_t len, size;
	uint32_t s;

	if (!region || !region->base || !info || !rows)
		return -rse_invalid;
	size = region->sideband_size;
	if (!size)
		return -rse_absent;
	info->table_len = (uint64_t)info->nr_cpus *
		RS_KBUF_ROW_WORDS(info->data_pages) * 8u;
	len = (info->table_len + RS_PAGE_SIZE - 1) & ~(uint64_t)(RS_PAGE_SIZE - 1);
	if (len > size)
		return -rse_too_small;
	info->table_offset = size - len;
	if (shape_check(info, size))
		return -rse_invalid;
	d = desc(region);
	s = rs_seqcount_write_begin(&d->seq);
	rs_memcpy(region->base + region->sideband_offset + info->table_offset,
		  rows, info->table_len);
	rs_store_hint(&d->magic, RS_KBUF_MAGIC);
	rs_store_hint(&d->nr_cpus, info->nr_cpus);
	rs_store_hint(&d->data_pages, info->data_pages);
	rs_store_hint(&d->table_offset, info->table_offset);
	rs_store_hint(&d->table_len, info->table_len);
	rs_store_hint(&d->sample_type, info->sample_type);
	rs_seqcount_write_end(&d->seq, s);
	return 0;
}

int rs_kbuf_withdraw(const struct rs_region *region)
{
	struct rs_kbuf_desc *d;
	uint32_t s;

	if (!region || !region->base)
		return -rse_invalid;
	if (!region->sideband_size)
		return -rse_absent;
	d = desc(region);
	s = rs_seqcount_write_begin(&d->seq);
	rs_store_hint(&d->magic, 0);
	rs_store_hint(&d->nr_cpus, 0);
	rs_seqcount_write_end(&d->seq, s);
	return 0;
}

struct kb_read {
	const struct rs_kbuf_desc *d;
	const uint8_t *area;
	uint64_t area_size;
	void *buf;
	struct rs_kbuf_info in;
};

static int kb_take(void *arg, uint32_t s)
{
	struct kb_read *r = arg;
	const struct rs_kbuf_desc *d = r->d;
	struct rs_kbuf_info *in = &r->in;
	uint32_t magic;

	rs_memset(in, 0, sizeof(*in));
	magic = rs_load_hint(&d->magic);
	in->seq = s;
	in->nr_cpus = rs_load_hint(&d->nr_cpus);
	in->data_pages = rs_load_hint(&d->data_pages);
	in->table_offset = rs_load_hint(&d->table_offset);
	in->table_len = rs_load_hint(&d->table_len);
	in->sample_type = rs_load_hint(&d->sample_type);
	if (!magic && !in->nr_cpus)
		return 1;           /* withdrawn */
	if (magic != RS_KBUF_MAGIC || shape_check(in, r->area_size))
		return -rse_corrupt;
	rs_memcpy(r->buf, r->area + in->table_offset, in->table_len);
	return 0;
}

int rs_kbuf_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		 struct rs_kbuf_info *info)
{
	struct kb_read r;
	int err = rs_sideband_read_check(region, buf, buf_size, info,
					 sizeof(*info));

	if (err)
		return err;
	r.d = desc(region);
	r.area = region->base + region->sideband_offset;
	r.area_size = region->sideband_size;
	r.buf = buf;
	err = rs_seqcount_read(&r.d->seq, kb_take, &r);
	if (err == 1)
		*info = r.in;
	return err;
}
