/* SPDX-License-Identifier: MIT */
/*
 * The table of the guest's user symbols (abi.h, struct rs_usyms_desc): an
 * append-only run of entries in the sideband area, between the kallsyms
 * content and the kernel perf buffers' table, under a seqcount of its own
 * (the same G/H pairs as the sideband's: barrier.h, sideband.c).  The
 * guest appends whole entries and never rewrites one it published; the
 * host copies the published part once and judges the shape here, the
 * entries in introspect's parser.
 */
#include "barrier.h"
#include "ring_internal.h"


static struct rs_usyms_desc *desc(const struct rs_region *region)
{
	return &((struct rs_region_header *)region->base)->usyms;
}

/* A descriptor some writer could have produced, in an area of @size. */
static int shape_check(const struct rs_usyms_info *in, uint64_t size)
{
	int truncated = !!(in->flags & RS_USYMS_TRUNCATED);

	if ((in->table_offset & 7u) || in->table_offset > size ||
	    in->table_size > size - in->table_offset)
		return -1;
	if ((in->length & 7u) || in->length > in->table_size ||
	    in->wanted < in->length)
		return -1;
	if (truncated != (in->wanted > in->length) ||
	    (in->flags & ~(uint32_t)RS_USYMS_TRUNCATED))
		return -1;
	if ((in->entries == 0) != (in->length == 0) ||
	    in->entries > in->length / sizeof(struct rs_usyms_entry))
		return -1;
	return 0;
}

static void store(struct rs_usyms_writer *w)
{
	struct rs_usyms_desc *d = w->desc;

	rs_store_hint(&d->magic, RS_USYMS_MAGIC);
	rs_store_hint(&d->table_offset, w->table_offset);
	rs_store_hint(&d->table_size, w->table_size);
	rs_store_hint(&d->length, w->length);
	rs_store_hint(&d->wanted, w->wanted);
	rs_store_hint(&d->entries, w->entries);
	rs_store_hint(&d->flags, w->flags);
}

int rs_usyms_begin(const struct rs_region *region, struct rs_usyms_writer *w,
		   uint64_t table_offset, uint64_t table_size)
{
	uint64_t size;
	uint32_t s;

	if (!region || !region->base || !w)
		return -rse_invalid;
	size = region->sideband_size;
	if (!size)
		return -rse_absent;
	if ((table_offset & 7u) || table_offset > size ||
	    table_size > size - table_offset)
		return -rse_invalid;
	rs_memset(w, 0, sizeof(*w));
	w->area = region->base + region->sideband_offset + table_offset;
	w->table_offset = table_offset;
	w->table_size = table_size & ~(uint64_t)7u;
	w->desc = desc(region);
	s = rs_seqcount_write_begin(&w->desc->seq);
	store(w);
	rs_seqcount_write_end(&w->desc->seq, s);
	return 0;
}

int rs_usyms_append(struct rs_usyms_writer *w, const void *entry, uint64_t len)
{
	uint32_t s;
	int put;

	if (!w || !w->desc || !entry || (len & 7u) ||
	    len < sizeof(struct rs_usyms_entry) || len > RS_USYMS_ENTRY_MAX)
		return -rse_invalid;
	put = len <= w->table_size - w->length;
	s = rs_seqcount_write_begin(&w->desc->seq);
	w->wanted += len;
	if (put) {
		rs_memcpy(w->area + w->length, entry, len);
		w->length += len;
		w->entries++;
	} else {
		w->flags |= RS_USYMS_TRUNCATED;
	}
	store(w);
	rs_seqcount_write_end(&w->desc->seq, s);
	return put;
}

struct us_read {
	const struct rs_usyms_desc *d;
	const uint8_t *area;
	uint64_t area_size;
	void *buf;
	struct rs_usyms_info in;
};

static int us_take(void *arg, uint32_t s)
{
	struct us_read *r = arg;
	const struct rs_usyms_desc *d = r->d;
	struct rs_usyms_info *in = &r->in;
	uint32_t magic;

	rs_memset(in, 0, sizeof(*in));
	magic = rs_load_hint(&d->magic);
	in->seq = s;
	in->table_offset = rs_load_hint(&d->table_offset);
	in->table_size = rs_load_hint(&d->table_size);
	in->length = rs_load_hint(&d->length);
	in->wanted = rs_load_hint(&d->wanted);
	in->entries = rs_load_hint(&d->entries);
	in->flags = rs_load_hint(&d->flags);
	if (magic != RS_USYMS_MAGIC || shape_check(in, r->area_size))
		return -rse_corrupt;
	if (in->length)
		rs_memcpy(r->buf, r->area + in->table_offset, in->length);
	return 0;
}

int rs_usyms_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		  struct rs_usyms_info *info)
{
	struct us_read r;
	int err = rs_sideband_read_check(region, buf, buf_size, info,
					 sizeof(*info));

	if (err)
		return err;
	r.d = desc(region);
	r.area = region->base + region->sideband_offset;
	r.area_size = region->sideband_size;
	r.buf = buf;
	err = rs_seqcount_read(&r.d->seq, us_take, &r);
	if (err == 1)
		*info = r.in;
	return err;
}
