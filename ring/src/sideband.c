/* SPDX-License-Identifier: MIT */
/*
 * The sideband: one area the guest fills once after attach (the kernel's
 * symbols, its build id) and the host copies once, described by
 * rs_sideband_desc in the region header under a seqcount (barrier.h's G/H
 * pairs, with the guest as the writer):
 *
 *   guest                                  host
 *   G1: seq odd; release fence             H1: s = load-acquire(seq)
 *   write the area, then the descriptor    check s even, read the
 *   G2: store-release(seq, odd + 1)        descriptor once, bound it,
 *                                          copy the area
 *                                          H2: acquire fence; seq == s
 *
 * The area is where the layout validated at open says (the private copy),
 * never where the guest-writable header says now.
 */
#include "barrier.h"
#include "ring_internal.h"


static struct rs_sideband_desc *desc(const struct rs_region *region)
{
	return &((struct rs_region_header *)region->base)->sideband;
}

uint64_t rs_sideband_size(const struct rs_region *region)
{
	return region ? region->sideband_size : 0;
}

int rs_sideband_begin(const struct rs_region *region,
		      struct rs_sideband_writer *w)
{
	if (!region || !region->base || !w)
		return -rse_invalid;
	if (!region->sideband_size)
		return -rse_absent;
	rs_memset(w, 0, sizeof(*w));
	w->area = region->base + region->sideband_offset;
	w->size = region->sideband_size;
	w->desc = desc(region);
	w->seq = rs_seqcount_write_begin(&w->desc->seq);
	return 0;
}

int rs_sideband_append(struct rs_sideband_writer *w, const void *src,
		       uint64_t len)
{
	if (!w || !w->desc || (!src && len))
		return -rse_invalid;
	w->wanted += len;
	if (w->flags & RS_SIDEBAND_TRUNCATED)
		return 0;
	if (len > w->size - w->length) {
		w->flags |= RS_SIDEBAND_TRUNCATED;
		return 0;
	}
	if (len)
		rs_memcpy(w->area + w->length, src, len);
	w->length += len;
	return 1;
}

int rs_sideband_set_build_id(struct rs_sideband_writer *w, const void *id,
			     uint32_t len)
{
	if (!w || !w->desc || (!id && len) || len > RS_SIDEBAND_BUILD_ID_MAX)
		return -rse_invalid;
	rs_memset(w->build_id, 0, sizeof(w->build_id));
	if (len)
		rs_memcpy(w->build_id, id, len);
	w->build_id_len = len;
	return 0;
}

int rs_sideband_commit(struct rs_sideband_writer *w, uint32_t kind)
{
	struct rs_sideband_desc *d;

	if (!w || !w->desc || !kind)
		return -rse_invalid;
	d = w->desc;
	rs_store_hint(&d->magic, RS_SIDEBAND_MAGIC);
	rs_store_hint(&d->kind, kind);
	rs_store_hint(&d->flags, w->flags);
	rs_store_hint(&d->length, w->length);
	rs_store_hint(&d->wanted, w->wanted);
	rs_store_hint(&d->build_id_len, w->build_id_len);
	rs_memcpy(d->build_id, w->build_id, sizeof(d->build_id));
	rs_seqcount_write_end(&d->seq, w->seq);
	w->desc = (struct rs_sideband_desc *)0;  /* one commit per begin */
	return 0;
}

/* A descriptor some writer could have produced, in an area of @size. */
static int desc_check(const struct rs_sideband_info *in, uint32_t magic,
		      uint64_t size)
{
	int truncated = !!(in->flags & RS_SIDEBAND_TRUNCATED);

	if (magic != RS_SIDEBAND_MAGIC || !in->kind)
		return -rse_corrupt;
	if (in->length > size || in->wanted < in->length)
		return -rse_corrupt;
	if (truncated != (in->wanted > in->length))
		return -rse_corrupt;
	if (in->flags & ~(uint32_t)RS_SIDEBAND_TRUNCATED)
		return -rse_corrupt;
	if (in->build_id_len > RS_SIDEBAND_BUILD_ID_MAX)
		return -rse_corrupt;
	return 0;
}

int rs_sideband_read_check(const struct rs_region *region, const void *buf,
			   uint64_t buf_size, void *info, size_t info_size)
{
	if (!region || !region->base || !info || (!buf && buf_size))
		return -rse_invalid;
	rs_memset(info, 0, info_size);
	if (!region->sideband_size)
		return -rse_absent;
	if (buf_size < region->sideband_size)
		return -rse_too_small;
	return 0;
}

struct sb_read {
	const struct rs_sideband_desc *d;
	const uint8_t *area;
	uint64_t area_size;
	void *buf;
	struct rs_sideband_info in;
};

static int sb_take(void *arg, uint32_t s)
{
	struct sb_read *r = arg;
	const struct rs_sideband_desc *d = r->d;
	struct rs_sideband_info *in = &r->in;
	uint32_t magic;
	int err;

	rs_memset(in, 0, sizeof(*in));
	/* Each field once, into the private copy; judged there. */
	magic = rs_load_hint(&d->magic);
	in->seq = s;
	in->kind = rs_load_hint(&d->kind);
	in->flags = rs_load_hint(&d->flags);
	in->length = rs_load_hint(&d->length);
	in->wanted = rs_load_hint(&d->wanted);
	in->build_id_len = rs_load_hint(&d->build_id_len);
	rs_memcpy(in->build_id, d->build_id, sizeof(in->build_id));
	err = desc_check(in, magic, r->area_size);
	if (!err)
		rs_memcpy(r->buf, r->area, in->length);
	return err;
}

int rs_sideband_read(const struct rs_region *region, void *buf,
		     uint64_t buf_size, struct rs_sideband_info *info)
{
	struct sb_read r;
	int err = rs_sideband_read_check(region, buf, buf_size, info,
					 sizeof(*info));

	if (err)
		return err;
	r.d = desc(region);
	r.area = region->base + region->sideband_offset;
	r.area_size = region->sideband_size;
	r.buf = buf;
	err = rs_seqcount_read(&r.d->seq, sb_take, &r);
	if (err != 1)
		return err;
	/* bytes of the unused id tail are not the guest's business */
	rs_memset(r.in.build_id + r.in.build_id_len, 0,
		  RS_SIDEBAND_BUILD_ID_MAX - r.in.build_id_len);
	*info = r.in;
	return 1;
}

int rs_sideband_limit(struct rs_sideband_writer *w, uint64_t room)
{
	if (!w || !w->desc || w->length || room > w->size)
		return -rse_invalid;
	w->size = room;
	return 0;
}
