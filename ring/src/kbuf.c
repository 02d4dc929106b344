/* SPDX-License-Identifier: MIT */
/*
 * Where the guest kernel's perf buffers are (abi.h, struct rs_kbuf_desc):
 * a table at the end of the sideband area under a seqcount of its own,
 * the same G/H pairs as the sideband's (barrier.h, sideband.c).  The
 * guest writes it once; the host copies it once and judges the shape
 * here, the addresses where it reads guest memory.
 */
#include "ringside/barrier.h"
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

/* The descriptor, once; the table it places, copied. */
static int kb_take(const struct rs_seqcount_reader *r, uint32_t s)
{
	struct rs_kbuf_info *in = r->info;
	struct rs_kbuf_desc d;

	rs_load_hints(&d, r->block, sizeof(d));
	if (!d.magic && !d.nr_cpus)
		return 1;           /* withdrawn */
	*in = (struct rs_kbuf_info){
		.nr_cpus = d.nr_cpus, .data_pages = d.data_pages,
		.table_offset = d.table_offset, .table_len = d.table_len,
		.sample_type = d.sample_type, .seq = s,
	};
	if (d.magic != RS_KBUF_MAGIC || shape_check(in, r->area_size))
		return -rse_corrupt;
	rs_memcpy(r->buf, r->area + in->table_offset, in->table_len);
	return 0;
}

int rs_kbuf_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		 struct rs_kbuf_info *info)
{
	return rs_seqcount_read_sideband(region, RS_HEADER_BLOCK(kbuf), buf,
					 buf_size, info, sizeof(*info), kb_take);
}
