/* SPDX-License-Identifier: MIT */
/*
 * What a region's header claims, checked before any of it is used: every
 * area inside the region, page-aligned, a power of two, and no two spans
 * (the header with its ring table, the sideband, each ring's control
 * page, data and AUX areas) overlapping; each control page's own words.
 */
#include "ring_internal.h"

/* [off, off + len) lies inside a region of @size bytes. */
int rs_region_check_in(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int area_ok(uint64_t off, uint64_t len, uint64_t size)
{
	if (!rs_is_pow2(len) || len < RS_PAGE_SIZE || len > RS_AREA_MAX)
		return 0;
	if (off & (RS_PAGE_SIZE - 1))
		return 0;
	return rs_region_check_in(off, len, size);
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * The spans of a region: the header page with the ring table after it,
 * the sideband, and each ring's control page, data and AUX areas.  Span k
 * of the order a layout places them in (header, control pages, the larger
 * kind of area, the smaller, sideband), computed rather than stored, so
 * that the check needs no array of them (a freestanding guest has a
 * 16 KiB stack).
 */
struct spans {
	const struct rs_ring_desc *d; /* nr descriptors, checked one by one */
	uint32_t nr;
	int aux_first;
	uint64_t head_len;            /* header + ring table */
	uint64_t sb_off, sb_len;
};

static uint32_t spans_count(const struct spans *sp)
{
	return 2 + 3 * sp->nr;
}

/* Span @k: 0 when it is empty (no AUX, no sideband). */
static void span_at(const struct spans *sp, uint32_t k, uint64_t *off,
		    uint64_t *len)
{
	uint32_t n = sp->nr, kind, i;
	const struct rs_ring_desc *d;

	if (k == 0) {
		*off = 0, *len = sp->head_len;
		return;
	}
	if (k == 1 + 3 * n) {
		*off = sp->sb_off, *len = sp->sb_len;
		return;
	}
	kind = (k - 1) / n; /* 0 control pages, 1 first areas, 2 second */
	i = (k - 1) % n;
	d = &sp->d[i];
	if (kind == 0) {
		*off = d->ctrl_offset, *len = RS_PAGE_SIZE;
	} else if ((kind == 1) == !!sp->aux_first) {
		*off = d->aux_offset, *len = d->aux_size;
	} else {
		*off = d->data_offset, *len = d->data_size;
	}
}

/* No two spans overlap.  A layout's order makes that one pass (each span
 * begins at or after the end of the one before, in either order of the
 * kinds); any other order, every pair. */
static int spans_disjoint(struct spans *sp)
{
	uint32_t k, j, n = spans_count(sp);
	uint64_t a, alen, b, blen, end;

	for (sp->aux_first = 0; sp->aux_first < 2; sp->aux_first++) {
		for (k = 0, end = 0; k < n; k++) {
			span_at(sp, k, &a, &alen);
			if (!alen)
				continue;
			if (a < end)
				break;
			end = a + alen; /* in_region: no overflow */
		}
		if (k == n)
			return 1;
	}
	sp->aux_first = 0;
	for (k = 0; k < n; k++) {
		span_at(sp, k, &a, &alen);
		if (!alen)
			continue;
		for (j = k + 1; j < n; j++) {
			span_at(sp, j, &b, &blen);
			if (blen && overlaps(a, alen, b, blen))
				return 0;
		}
	}
	return 1;
}

/* @d: the @nr descriptors, the header's and the table's (copies). */
int rs_region_check_descs(const struct rs_region_header *h,
			  const struct rs_ring_desc *d, uint32_t nr,
			  uint64_t size)
{
	struct spans sp = {
		.d = d, .nr = nr,
		.head_len = RS_PAGE_SIZE + rs_ring_table_size(nr),
	};
	uint32_t i;

	if (!rs_region_check_in(0, sp.head_len, size))
		return -rse_geometry;
	if (h->sideband_size) {
		if ((h->sideband_offset | h->sideband_size) & (RS_PAGE_SIZE - 1) ||
		    h->sideband_size > RS_SIDEBAND_MAX ||
		    !rs_region_check_in(h->sideband_offset, h->sideband_size, size))
			return -rse_geometry;
		sp.sb_off = h->sideband_offset;
		sp.sb_len = h->sideband_size;
	} else if (h->sideband_offset) {
		return -rse_geometry;
	}
	for (i = 0; i < nr; i++) {
		if ((d[i].ctrl_offset & (RS_PAGE_SIZE - 1)) ||
		    !rs_region_check_in(d[i].ctrl_offset, RS_PAGE_SIZE, size))
			return -rse_geometry;
		if (!area_ok(d[i].data_offset, d[i].data_size, size))
			return -rse_geometry;
		if (d[i].aux_size) {
			if (!area_ok(d[i].aux_offset, d[i].aux_size, size))
				return -rse_geometry;
		} else if (d[i].aux_offset) {
			return -rse_geometry;
		}
	}
	return spans_disjoint(&sp) ? 0 : -rse_geometry;
}

/* The control page repeats the descriptor in perf's terms; they must agree. */
int rs_region_check_ctrl(const uint8_t *mem, const struct rs_ring_desc *d)
{
	const struct rs_ctrl_page *c =
		(const struct rs_ctrl_page *)(mem + d->ctrl_offset);
	uint64_t data_offset = c->data_offset, data_size = c->data_size;
	uint64_t aux_offset = c->aux_offset, aux_size = c->aux_size;

	if (d->data_offset < d->ctrl_offset ||
	    data_offset != d->data_offset - d->ctrl_offset ||
	    data_size != d->data_size || aux_size != d->aux_size)
		return -rse_geometry;
	if (d->aux_size && (d->aux_offset < d->ctrl_offset ||
			    aux_offset != d->aux_offset - d->ctrl_offset))
		return -rse_geometry;
	return 0;
}

