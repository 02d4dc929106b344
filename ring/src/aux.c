/* SPDX-License-Identifier: MIT */
/*
 * AUX output: perf's aux_output_begin/end for one ring.
 *
 * Normal mode respects aux_tail; what does not fit is cut and the AUX record
 * says TRUNCATED.  Wakeups happen when aux_head moves a watermark past the
 * last wakeup, and the wakeup position is rounded down to a watermark
 * boundary.  Snapshot (overwrite) mode has no tail and no wakeups, so the
 * watermark, possibly zero, is never used there.
 */
#include "barrier.h"
#include "ring_internal.h"

static int aux_overwrite(const struct rs_producer *p)
{
	return p->ring.aux_mode == RS_MODE_OVERWRITE;
}

/* Free AUX bytes in normal mode; re-reads aux_tail only when needed. */
static uint64_t aux_room(struct rs_producer *p, uint64_t want)
{
	uint64_t size = p->ring.aux_size, tail;

	if (size - (p->aux_head - p->aux_tail_cache) >= want)
		return size - (p->aux_head - p->aux_tail_cache);
	tail = rs_read_aux_tail(p->ring.ctrl);
	if (p->aux_head - tail > size)
		return size - (p->aux_head - p->aux_tail_cache);
	p->aux_tail_cache = tail;
	return size - (p->aux_head - tail);
}

int64_t rs_aux_begin(struct rs_producer *p, struct rs_aux_handle *h,
		     uint64_t max)
{
	uint64_t room;

	if (!p || !h)
		return -rse_invalid;
	if (!p->ring.aux_size)
		return -rse_mode;
	if (p->aux_busy)
		return -rse_nesting;
	p->aux_busy = 1;
	rs_compiler_barrier();

	h->start = p->aux_head;
	h->written = 0;
	h->flags = 0;
	if (aux_overwrite(p)) {
		room = max < p->ring.aux_size ? max : p->ring.aux_size;
		h->flags |= RS_PERF_AUX_FLAG_OVERWRITE;
		rs_announce(&p->ring.ctrl->ext.aux_write_limit, h->start + room);
	} else {
		room = aux_room(p, max);
		if (room > max)
			room = max;
		if (!room && max)
			h->flags |= RS_PERF_AUX_FLAG_TRUNCATED;
	}
	h->room = room;
	return (int64_t)room;
}

int rs_aux_announce(struct rs_producer *p, uint64_t len)
{
	if (!p)
		return -rse_invalid;
	if (!p->ring.aux_size)
		return -rse_mode;
	if (p->aux_busy)
		return -rse_nesting;
	if (aux_overwrite(p))
		rs_announce(&p->ring.ctrl->ext.aux_write_limit,
			    p->aux_head + (len < p->ring.aux_size ?
					   len : p->ring.aux_size));
	return 0;
}

static int64_t aux_advance(struct rs_aux_handle *h, uint64_t len)
{
	uint64_t n = h->room - h->written;

	if (len > n)
		h->flags |= RS_PERF_AUX_FLAG_TRUNCATED;
	else
		n = len;
	h->written += n;
	return (int64_t)n;
}

int64_t rs_aux_write(struct rs_producer *p, struct rs_aux_handle *h,
		     const void *src, uint64_t len)
{
	uint64_t pos;
	int64_t n;

	if (!p || !h || (!src && len) || !p->aux_busy)
		return -rse_invalid;
	pos = h->start + h->written;
	n = aux_advance(h, len);
	rs_copy_to_ring(p->ring.aux, p->ring.aux_size, pos, src, (uint64_t)n);
	return n;
}

int64_t rs_aux_skip(struct rs_producer *p, struct rs_aux_handle *h,
		    uint64_t len)
{
	if (!p || !h || !p->aux_busy)
		return -rse_invalid;
	return aux_advance(h, len);
}

/* Publish what @h wrote: aux_head, the write limit of an overwrite area
 * (nothing beyond head is being written any more), the TRUNCATED count.
 * Returns the flags the output ends with. */
static uint64_t aux_commit(struct rs_producer *p, const struct rs_aux_handle *h,
			   uint64_t flags)
{
	flags |= h->flags;
	p->aux_head = h->start + h->written;
	rs_publish_aux_head(p->ring.ctrl, p->aux_head);
	if (aux_overwrite(p))
		rs_announce(&p->ring.ctrl->ext.aux_write_limit, p->aux_head);
	if (flags & RS_PERF_AUX_FLAG_TRUNCATED) {
		p->aux_truncated++;
		rs_store_hint(&p->ring.ctrl->ext.aux_truncated, p->aux_truncated);
	}
	return flags;
}

int rs_aux_end(struct rs_producer *p, struct rs_aux_handle *h, uint64_t flags)
{
	struct rs_perf_aux rec;
	int wake = 0, ret = 0;

	if (!p || !h)
		return -rse_invalid;
	if (!p->aux_busy)
		return -rse_nesting;
	flags = aux_commit(p, h, flags);
	/* Bytes first (published above), then the record that describes
	 * them. */
	if (h->written || (flags & ~(uint64_t)RS_PERF_AUX_FLAG_OVERWRITE)) {
		rec.aux_offset = h->start;
		rec.aux_size = h->written;
		rec.flags = flags;
		ret = rs_producer_output(p, RS_PERF_RECORD_AUX, 0,
					 (const uint8_t *)&rec + sizeof(rec.header),
					 sizeof(rec) - sizeof(rec.header));
		if (ret > 0)
			wake = 1;
	}
	/* A dropped record is reported like any other (-rse_no_space), so a
	 * caller that counts its drops counts this one.  An AUX wakeup due
	 * now then stays due, and the next rs_aux_end reports it. */
	if (ret >= 0 && !aux_overwrite(p) &&
	    p->aux_head - p->aux_wakeup >= p->aux_watermark) {
		p->aux_wakeup = p->aux_head - p->aux_head % p->aux_watermark;
		/* rung: counted with the data area's (ext.doorbells) */
		if (!wake && rs_producer_doorbell(p)) {
			wake = 1;
			p->doorbells++;
			rs_store_hint(&p->ring.ctrl->ext.doorbells,
				      p->doorbells);
		}
	}
	rs_compiler_barrier();
	p->aux_busy = 0;
	return ret < 0 ? ret : wake;
}

int rs_aux_publish(struct rs_producer *p, struct rs_aux_handle *h,
		   uint64_t flags)
{
	if (!p || !h)
		return -rse_invalid;
	if (!p->aux_busy)
		return -rse_nesting;
	aux_commit(p, h, flags);
	rs_compiler_barrier();
	p->aux_busy = 0;
	return 0;
}
