/* SPDX-License-Identifier: MIT */
/*
 * The producer: perf's output path for one ring.
 *
 * reserve moves a private head with a same-CPU cmpxchg, so a writer
 * interrupted between reserve and commit can be nested into by a handler
 * writing to the same ring.  Only the outermost commit publishes data_head,
 * and it re-checks the private head after publishing in case a nested
 * writer reserved in between.
 *
 * Normal mode writes forward and respects data_tail; a record that does not
 * fit is dropped and counted, and the count goes out as PERF_RECORD_LOST in
 * front of the next record that fits.  Overwrite mode writes backward
 * (perf's write_backward): head moves down and always points at the newest
 * record, so a reader walks from head towards older records without a tail.
 */
#include "barrier.h"
#include "ring_internal.h"
#include "test_hook.h"

#ifdef RS_RING_TEST_HOOKS
rs_test_hook_fn rs_test_hook;
#endif

static uint32_t watermark_clamp(uint64_t wm, uint64_t size)
{
	if (!wm || wm >= size)
		return (uint32_t)(size / 2 ? size / 2 : 1);
	return (uint32_t)wm;
}

int rs_producer_init(struct rs_producer *p, const struct rs_region *region,
		     uint32_t index)
{
	struct rs_ctrl_page *c;
	uint64_t head, tail;
	int err;

	if (!p)
		return -rse_invalid;
	rs_memset(p, 0, sizeof(*p));
	err = rs_region_ring(region, index, &p->ring);
	if (err)
		return err;
	c = p->ring.ctrl;

	/* Resume where a previous producer left off. */
	head = rs_load_hint(&c->data_head);
	p->head = head;
	p->watermark = watermark_clamp(region->config.data_watermark,
				       p->ring.data_size);
	p->wakeup = head - head % p->watermark;
	if (p->ring.data_mode == RS_MODE_OVERWRITE) {
		rs_announce(&c->ext.write_head, head);
	} else {
		tail = rs_read_tail(c);
		p->tail_cache = head - tail > p->ring.data_size ?
			head - p->ring.data_size : tail;
	}

	if (p->ring.aux_size) {
		p->aux_head = rs_load_hint(&c->aux_head);
		tail = rs_read_aux_tail(c);
		p->aux_tail_cache = p->aux_head - tail > p->ring.aux_size ?
			p->aux_head - p->ring.aux_size : tail;
		p->aux_watermark = watermark_clamp(region->config.aux_watermark,
						   p->ring.aux_size);
		p->aux_wakeup = p->aux_head - p->aux_head % p->aux_watermark;
		rs_announce(&c->ext.aux_write_limit, p->aux_head);
	}
	return 0;
}

/* Room check for a forward ring; re-reads the tail only when the cached
 * one says there is no room. */
static int forward_room(struct rs_producer *p, uint64_t offset, uint64_t need)
{
	uint64_t size = p->ring.data_size, tail;

	if (offset - rs_local_read(&p->tail_cache) + need <= size)
		return 1;
	tail = rs_read_tail(p->ring.ctrl);
	/* A tail ahead of head, or more than a ring behind, is nonsense:
	 * assume the consumer has freed nothing. */
	if (offset - tail > size)
		return 0;
	rs_store_hint(&p->tail_cache, tail);
	return offset - tail + need <= size;
}

/*
 * Leave a reservation: publish head if this was the outermost writer.
 * Head is published before nest drops to zero: otherwise a handler could
 * publish a newer head in between and this writer would then store an older
 * one, and a consumer would see head move backwards.  Returns 1 when the
 * doorbell should ring.  A caller that cannot pass that on (a reservation
 * that failed) says @can_ring 0: a doorbell due, for records nested into
 * it, then stays due for the next commit instead of being lost.
 */
static int put_handle(struct rs_producer *p, int can_ring)
{
	struct rs_ctrl_page *c = p->ring.ctrl;
	uint64_t head;

again:
	if (rs_local_read32(&p->nest) > 1) {
		rs_local_dec32(&p->nest);
		return 0;
	}
	head = rs_local_read(&p->head);
	rs_publish_head(c, head);
	rs_compiler_barrier();
	RS_TEST_HOOK(p, RS_HOOK_PUBLISHED);
	rs_local_set32(&p->nest, 0);
	rs_compiler_barrier();
	RS_TEST_HOOK(p, RS_HOOK_UNNESTED);
	/* A handler may have reserved after we read head. */
	if (head != rs_local_read(&p->head)) {
		rs_local_inc32(&p->nest);
		goto again;
	}
	if (!can_ring || p->ring.data_mode == RS_MODE_OVERWRITE ||
	    head - p->wakeup < p->watermark)
		return 0;
	p->wakeup = head - head % p->watermark;
	p->doorbells++;
	rs_store_hint(&c->ext.doorbells, p->doorbells);
	return 1;
}

static void write_lost(struct rs_producer *p, uint64_t pos, uint64_t count)
{
	struct rs_perf_lost rec = {
		.header = { RS_PERF_RECORD_LOST, 0, sizeof(rec) },
		.id = p->ring.index,
		.lost = count,
	};

	rs_copy_to_ring(p->ring.data, p->ring.data_size, pos, &rec, sizeof(rec));
}

static void count_drop(struct rs_producer *p)
{
	rs_local_add(&p->lost_pending, 1);
	rs_local_add(&p->lost_total, 1);
	rs_store_hint(&p->ring.ctrl->ext.lost, rs_local_read(&p->lost_total));
}

/* Reserve @size bytes (0: only a pending LOST record). */
static int reserve(struct rs_producer *p, struct rs_handle *h, uint32_t size)
{
	int backward = p->ring.data_mode == RS_MODE_OVERWRITE;
	uint64_t offset, next, need, pending;

	rs_local_inc32(&p->nest);
	rs_compiler_barrier();
	do {
		pending = backward ? 0 : rs_local_read(&p->lost_pending);
		need = size + (pending ? sizeof(struct rs_perf_lost) : 0);
		offset = rs_local_read(&p->head);
		if (backward) {
			next = offset - need;
		} else {
			if (!forward_room(p, offset, need)) {
				if (size)
					count_drop(p);
				put_handle(p, 0);
				return -rse_no_space;
			}
			next = offset + need;
		}
		RS_TEST_HOOK(p, RS_HOOK_RESERVE_READ);
	} while (!rs_local_cmpxchg(&p->head, offset, next));
	RS_TEST_HOOK(p, RS_HOOK_RESERVE_TAKEN);

	if (backward) {
		rs_announce_lower(&p->ring.ctrl->ext.write_head, next);
		h->pos = next;
	} else {
		h->pos = offset;
		if (pending) {
			/* A nested writer may have taken the count after our
			 * read; then this LOST record reports 0. */
			write_lost(p, offset, rs_local_xchg(&p->lost_pending, 0));
			h->pos += sizeof(struct rs_perf_lost);
		}
	}
	h->size = size;
	h->written = 0;
	return 0;
}

int rs_producer_reserve(struct rs_producer *p, struct rs_handle *h,
			uint32_t size)
{
	if (!p || !h || !p->ring.data)
		return -rse_invalid;
	if (size > RS_RECORD_MAX ||
	    size + sizeof(struct rs_perf_lost) > p->ring.data_size)
		return -rse_too_big;
	if (size < sizeof(struct rs_perf_header) || (size & (RS_RECORD_ALIGN - 1)))
		return -rse_invalid;
	return reserve(p, h, size);
}

int rs_producer_write(struct rs_producer *p, struct rs_handle *h,
		      const void *src, uint32_t len)
{
	if (!p || !h || (!src && len) || len > h->size - h->written)
		return -rse_invalid;
	rs_copy_to_ring(p->ring.data, p->ring.data_size, h->pos + h->written,
			src, len);
	h->written += len;
	return 0;
}

int rs_producer_commit(struct rs_producer *p, struct rs_handle *h)
{
	static const uint8_t zero[RS_RECORD_ALIGN];

	if (!p || !h || h->written > h->size)
		return -rse_invalid;
	if (!rs_local_read32(&p->nest))
		return -rse_nesting;
	/* A writer that did not even write the header abandoned the record:
	 * frame it as padding so readers can step over it. */
	if (h->size && h->written < sizeof(struct rs_perf_header)) {
		struct rs_perf_header pad = { RS_RECORD_PAD, 0, (uint16_t)h->size };

		h->written = 0;
		rs_producer_write(p, h, &pad, sizeof(pad));
	}
	/* Bytes the writer skipped read as zero, never as stale data. */
	while (h->written < h->size) {
		uint32_t n = h->size - h->written;

		rs_producer_write(p, h, zero, n < sizeof(zero) ? n : sizeof(zero));
	}
	if (h->size) {
		rs_local_add(&p->produced, 1);
		rs_store_hint(&p->ring.ctrl->ext.produced,
			      rs_local_read(&p->produced));
	}
	return put_handle(p, 1);
}

int rs_producer_output(struct rs_producer *p, uint32_t type, uint16_t misc,
		       const void *body, uint32_t body_len)
{
	struct rs_perf_header hdr;
	struct rs_handle h;
	uint32_t size;
	int err;

	if (!body && body_len)
		return -rse_invalid;
	if (body_len > RS_RECORD_MAX)
		return -rse_too_big;
	size = (uint32_t)rs_align_up(sizeof(hdr) + body_len, RS_RECORD_ALIGN);
	/* Consumers drop a known type that is too short: refuse it here. */
	if (size < rs_record_min_size(type))
		return -rse_invalid;
	err = rs_producer_reserve(p, &h, size);
	if (err)
		return err;
	hdr.type = type;
	hdr.misc = misc;
	hdr.size = (uint16_t)size;
	/* Records start 8-aligned in an area that is a multiple of 8, so the
	 * header never wraps: one store instead of a wrapping copy. */
	rs_memcpy(p->ring.data + (h.pos & (p->ring.data_size - 1)), &hdr,
		  sizeof(hdr));
	h.written = sizeof(hdr);
	rs_producer_write(p, &h, body, body_len);
	return rs_producer_commit(p, &h);
}

int rs_producer_flush_lost(struct rs_producer *p)
{
	struct rs_handle h;
	int err;

	if (!p || !p->ring.data)
		return -rse_invalid;
	if (!rs_local_read(&p->lost_pending))
		return 0;
	err = reserve(p, &h, 0);
	if (err)
		return err;
	return 1 + put_handle(p, 1);
}

uint64_t rs_producer_lost(const struct rs_producer *p)
{
	return p ? rs_local_read(&p->lost_total) : 0;
}
