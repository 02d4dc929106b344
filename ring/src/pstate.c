/* SPDX-License-Identifier: MIT */
/*
 * The guest's process state (abi.h, struct rs_pstate_desc): a table the
 * guest rewrites as its processes come and go, read by a host that may
 * come long after the guest died, at any instant of a rewrite.  So it is
 * two copies in the sideband area, each under a seqcount of its own (the
 * same G/H pairs as the sideband's: barrier.h, sideband.c), and a
 * generation number:
 *
 *   guest                                  host
 *   the copy not holding the newest:       for each copy: s = load-acquire
 *   G1: seq odd; release fence             (seq), even and nonzero: load
 *   write head and entries, generation     head, judge its shape
 *   = newest + 1                           take the judged copy of highest
 *   G2: store-release(seq, odd + 1)        generation, copy its entries
 *                                          once; H2: acquire fence, seq == s
 *
 * The guest never writes the copy that holds the newest complete state,
 * so a guest stopped anywhere leaves one complete copy (after its first
 * rewrite).  The descriptor (where the copies are) is written once at
 * begin under its own seqcount.  The host judges the frame only; the
 * entries are claims for introspect's parser.
 */
#include "ringside/barrier.h"
#include "ring_internal.h"

/* The head's fields from time to maps_left_out, whole words: what
 * rs_pstate_publish copies from the caller's head. */
#define HEAD_FIELDS (offsetof(struct rs_pstate_copy, reserved) - \
		     offsetof(struct rs_pstate_copy, time))
_Static_assert(offsetof(struct rs_pstate_copy, time) % 8 == 0 &&
	       HEAD_FIELDS % 8 == 0, "rs_pstate_copy's fields are words");

static struct rs_pstate_desc *desc(const struct rs_region *region)
{
	return &((struct rs_region_header *)region->base)->pstate;
}

int rs_pstate_begin(const struct rs_region *region, struct rs_pstate_writer *w,
		    uint64_t table_offset, uint64_t table_size)
{
	struct rs_pstate_copy *c;
	uint64_t copy = (table_size / 2u) & ~(uint64_t)7u;
	uint8_t *area;
	uint32_t s, i;
	int err = rs_sideband_table(region, w, table_offset, table_size, &area);

	if (err)
		return err;
	if (copy < sizeof(struct rs_pstate_copy))
		return -rse_too_small;
	rs_memset(w, 0, sizeof(*w));
	w->area = area;
	w->table_offset = table_offset;
	w->copy_size = copy;
	w->desc = desc(region);
	/* no copy of an earlier session may pass for this one's */
	for (i = 0; i < 2; i++) {
		c = (struct rs_pstate_copy *)(void *)(w->area + i * copy);
		s = rs_seqcount_write_begin(&c->seq);
		rs_store_hint(&c->magic, 0);
		rs_store_hint(&c->generation, 0);
		rs_seqcount_write_end(&c->seq, s);
	}
	s = rs_seqcount_write_begin(&w->desc->seq);
	rs_store_hint(&w->desc->magic, RS_PSTATE_MAGIC);
	rs_store_hint(&w->desc->table_offset, table_offset);
	rs_store_hint(&w->desc->copy_size, copy);
	rs_seqcount_write_end(&w->desc->seq, s);
	return 0;
}

void *rs_pstate_open(struct rs_pstate_writer *w, uint64_t *room)
{
	struct rs_pstate_copy *c;

	if (!w || !w->desc || w->open || !room)
		return NULL;
	c = (struct rs_pstate_copy *)(void *)(w->area + w->next * w->copy_size);
	w->open_seq = rs_seqcount_write_begin(&c->seq);                /* G1 */
	w->open = 1;
	*room = w->copy_size - sizeof(*c);
	return c + 1;
}

int rs_pstate_close(struct rs_pstate_writer *w,
		    const struct rs_pstate_copy *head)
{
	struct rs_pstate_copy *c;

	if (!w || !w->desc || !w->open)
		return -rse_invalid;
	c = (struct rs_pstate_copy *)(void *)(w->area + w->next * w->copy_size);
	if (!head || (head->length & 7u) ||
	    head->length > w->copy_size - sizeof(*c)) {
		/* emptied, as at begin: no reader takes it, nor counts it bad */
		rs_store_hint(&c->magic, 0);
		rs_store_hint(&c->generation, 0);
		rs_seqcount_write_end(&c->seq, w->open_seq);
		w->open = 0;
		return !head || (head->length & 7u) ? -rse_invalid : -rse_too_small;
	}
	rs_store_hint(&c->magic, RS_PSTATE_COPY_MAGIC);
	rs_store_hint(&c->generation, w->generation + 1);
	rs_store_hints(&c->time, &head->time, HEAD_FIELDS);
	rs_seqcount_write_end(&c->seq, w->open_seq);                   /* G2 */
	w->open = 0;
	w->generation++;
	w->next ^= 1u;
	return 0;
}

int rs_pstate_publish(struct rs_pstate_writer *w,
		      const struct rs_pstate_copy *head, const void *entries)
{
	uint64_t room;
	void *e;

	if (!w || !w->desc || w->open || !head || (!entries && head->length) ||
	    (head->length & 7u))
		return -rse_invalid;
	if (head->length > w->copy_size - sizeof(struct rs_pstate_copy))
		return -rse_too_small;
	e = rs_pstate_open(w, &room);
	if (head->length)
		rs_memcpy(e, entries, head->length);
	return rs_pstate_close(w, head);
}

/* A copy head some writer could have produced, in a copy of @size. */
static int head_check(const struct rs_pstate_copy *h, uint64_t size)
{
	int truncated = !!(h->flags & RS_PSTATE_TRUNCATED);

	if (h->magic != RS_PSTATE_COPY_MAGIC || !h->generation)
		return -1;
	if ((h->length & 7u) || h->length > size - sizeof(*h))
		return -1;
	if (h->flags & ~(uint32_t)RS_PSTATE_TRUNCATED)
		return -1;
	if (truncated != (h->procs_left_out || h->maps_left_out))
		return -1;
	if (h->nr_procs > h->length / sizeof(struct rs_pstate_proc) ||
	    h->nr_procs > RS_PSTATE_MAX_PROCS ||
	    h->nr_maps > h->length / sizeof(struct rs_pstate_map) ||
	    (uint64_t)h->nr_maps > (uint64_t)h->nr_procs * RS_PSTATE_MAX_MAPS)
		return -1;
	return 0;
}

/* The head of the copy at @copy, loaded once: 1 complete and judged
 * good, 0 never written or being written, -1 complete and bad. */
static int load_head(const uint8_t *copy, struct rs_pstate_copy *h,
		     uint64_t size)
{
	const struct rs_pstate_copy *c = (const void *)copy;
	uint32_t s = rs_seqcount_read_begin(&c->seq);

	rs_load_hints(h, c, sizeof(*h));
	h->seq = s;
	if (!s || (s & 1u) || !rs_seqcount_read_ok(&c->seq, s))
		return 0;
	if (!h->magic && !h->generation)
		return 0;          /* emptied at begin, not written since */
	return head_check(h, size) ? -1 : 1;
}

/* The descriptor (read under its seqcount by rs_seqcount_read_sideband),
 * then each copy's head under the copy's own; the newest good copy's
 * entries, copied while its seqcount holds. */
static int ps_take(const struct rs_seqcount_reader *r, uint32_t s)
{
	struct rs_pstate_info *info = r->info;
	struct rs_pstate_copy h[2];
	const struct rs_pstate_copy *c;
	struct rs_pstate_desc d;
	uint32_t bad = 0, pick;
	int st[2], i;

	(void)s;
	rs_load_hints(&d, r->block, sizeof(d));
	if (d.magic != RS_PSTATE_MAGIC || (d.table_offset & 7u) ||
	    (d.copy_size & 7u) || d.copy_size < sizeof(struct rs_pstate_copy) ||
	    d.table_offset > r->area_size ||
	    d.copy_size > (r->area_size - d.table_offset) / 2u)
		return -rse_corrupt;
	for (i = 0; i < 2; i++) {
		st[i] = load_head(r->area + d.table_offset +
				  (uint64_t)i * d.copy_size, &h[i], d.copy_size);
		bad += st[i] < 0;
	}
	if (st[0] <= 0 && st[1] <= 0) {
		if (bad)
			return -rse_corrupt;
		if (!(h[0].seq & 1u) && !(h[1].seq & 1u))
			return 1;           /* none complete yet */
		return -rse_busy;           /* the first rewrite, or a guest
					     * that died in it */
	}
	pick = st[0] > 0 && (st[1] <= 0 || h[0].generation > h[1].generation)
	       ? 0 : 1;
	c = (const void *)(r->area + d.table_offset +
			   (uint64_t)pick * d.copy_size);
	if (h[pick].length)
		rs_memcpy(r->buf, c + 1, h[pick].length);
	if (!rs_seqcount_read_ok(&c->seq, h[pick].seq))
		return -rse_busy;           /* rewritten under the copy */
	info->table_offset = d.table_offset;
	info->copy_size = d.copy_size;
	info->copy = pick;
	info->bad_copies = bad;
	info->head = h[pick];
	return 0;
}

int rs_pstate_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		   struct rs_pstate_info *info)
{
	return rs_seqcount_read_sideband(region, RS_HEADER_BLOCK(pstate), buf,
					 buf_size, info, sizeof(*info), ps_take);
}
