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
 * front of the next record that fits.  Its records are sealed: the body is
 * written first and the header last (store-release), and the header slot
 * after a reservation is cleared (after the space is taken, before the
 * record is sealed: slot_claim), so that a reader who walks past data_head
 * (a snapshot of a guest that stopped between two publications) finds
 * every committed record and stops at the first one that is not.  The slot is part of the room a record needs.
 * A producer given a batch (rs_producer_set_batch) publishes data_head only
 * every that many bytes, at the watermark, when the ring is full and on
 * rs_producer_flush: the consumer on the other core then sees the head's
 * cache line move once per batch instead of once per record.  Overwrite mode writes backward
 * (perf's write_backward): head moves down and always points at the newest
 * record, so a reader walks from head towards older records without a tail.
 */
#include "ringside/barrier.h"
#include "ring_internal.h"
#include "test_hook.h"

#ifdef RS_RING_TEST_HOOKS
rs_test_hook_fn rs_test_hook;
#endif

static int aux_init(struct rs_producer *p, const struct rs_region *region,
		    struct rs_ctrl_page *c);

/* A producer of ring @index, zeroed but for its ring. */
static int producer_ring(struct rs_producer *p, const struct rs_region *region,
			 uint32_t index)
{
	int err;

	if (!p)
		return -rse_invalid;
	rs_memset(p, 0, sizeof(*p));
	err = rs_region_ring(region, index, &p->ring);
	if (!err)
		p->suppress = !!(region->config.features &
				 RS_FEATURE_EVENT_SUPPRESS);
	return err;
}

int rs_producer_init(struct rs_producer *p, const struct rs_region *region,
		     uint32_t index)
{
	struct rs_ctrl_page *c;
	uint64_t head, tail;
	int err;

	err = producer_ring(p, region, index);
	if (err)
		return err;
	c = p->ring.ctrl;

	/* Resume where a previous producer left off. */
	head = rs_load_hint(&c->data_head);
	p->head = head;
	p->published = head;
	p->watermark = rs_watermark_clamp(region->config.data_watermark,
				       p->ring.data_size);
	p->wakeup = head - head % p->watermark;
	/* Worth it only on a ring much larger than the distance. */
	p->prefetch = p->ring.data_size >= 8 * RS_PREFETCH_AHEAD &&
		      rs_cpu_has_prefetchw();
	if (p->ring.data_mode == RS_MODE_OVERWRITE) {
		rs_announce(&c->ext.write_head, head);
	} else {
		tail = rs_read_tail(&c->data_tail);
		p->tail_cache = head - tail > p->ring.data_size ?
			head - p->ring.data_size : tail;
		/* Past data_head nothing is sealed until a batch is set. */
		rs_store_hint(&c->ext.flags, rs_load_hint(&c->ext.flags) &
					     ~(uint64_t)RS_EXT_SEALED);
	}

	return aux_init(p, region, c);
}

/* The AUX half of a producer's state, from the ring's AUX positions. */
static int aux_init(struct rs_producer *p, const struct rs_region *region,
		    struct rs_ctrl_page *c)
{
	uint64_t tail;

	if (p->ring.aux_size) {
		p->aux_head = rs_load_hint(&c->aux_head);
		tail = rs_read_tail(&c->aux_tail);
		p->aux_tail_cache = p->aux_head - tail > p->ring.aux_size ?
			p->aux_head - p->ring.aux_size : tail;
		p->aux_watermark = rs_watermark_clamp(region->config.aux_watermark,
						   p->ring.aux_size);
		p->aux_wakeup = p->aux_head - p->aux_head % p->aux_watermark;
		rs_announce(&c->ext.aux_write_limit, p->aux_head);
	}
	return 0;
}

int rs_producer_init_aux(struct rs_producer *p, const struct rs_region *region,
			 uint32_t index)
{
	int err;

	err = producer_ring(p, region, index);
	if (err)
		return err;
	if (!p->ring.aux_size)
		return -rse_mode;
	return aux_init(p, region, p->ring.ctrl);
}

/* Room check for a forward ring; re-reads the tail only when the cached
 * one says there is no room. */
static int forward_room(struct rs_producer *p, uint64_t offset, uint64_t need)
{
	uint64_t size = p->ring.data_size, tail;

	if (offset - rs_local_read(&p->tail_cache) + need <= size)
		return 1;
	tail = rs_read_tail(&p->ring.ctrl->data_tail);
	/* A tail ahead of head, or more than a ring behind, is nonsense:
	 * assume the consumer has freed nothing. */
	if (offset - tail > size)
		return 0;
	rs_store_hint(&p->tail_cache, tail);
	return offset - tail + need <= size;
}

/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS, docs/abi.md): a doorbell
 * that fell due is rung only when the ring's consumer has not said that
 * it polls (barrier.h, A/X against W/C; the consumer's half is in
 * consumer.c).  Called after the head that made it due was published.
 */
int rs_producer_doorbell(struct rs_producer *p)
{
	if (!p->suppress ||
	    rs_consumer_state_read(&p->ring.ctrl->host.consumer) !=
	    RS_CONSUMER_POLLING)
		return 1;
	p->suppressed++;
	rs_store_hint(&p->ring.ctrl->ext.suppressed, p->suppressed);
	return 0;
}

/*
 * Leave a reservation: publish head if this was the outermost writer.
 * Head is published before nest drops to zero: otherwise a handler could
 * publish a newer head in between and this writer would then store an older
 * one, and a consumer would see head move backwards.  Returns 1 when the
 * doorbell should ring.  A caller that cannot pass that on (a reservation
 * that failed) says @can_ring 0: a doorbell due, for records nested into
 * it, then stays due for the next commit instead of being lost.
 *
 * With a batch, head is published only when a batch's worth of bytes is
 * unpublished, when the doorbell is due, or when @force says so (a full
 * ring, a flush): the consumer never waits on a record it could not see
 * for longer than that.
 */
static int put_handle(struct rs_producer *p, int can_ring, int force)
{
	struct rs_ctrl_page *c = p->ring.ctrl;
	uint64_t head;
	int due;

again:
	if (rs_local_read(&p->nest) > 1) {
		rs_local_dec32(&p->nest);
		return 0;
	}
	head = rs_local_read(&p->head);
	due = can_ring && p->ring.data_mode != RS_MODE_OVERWRITE &&
	      head - p->wakeup >= p->watermark;
	if (force || due || !p->batch || head - p->published >= p->batch) {
		rs_publish_head(&c->data_head, head);
		p->published = head;
		/* The count goes out with the records it counts. */
		rs_store_hint(&c->ext.produced, rs_local_read(&p->produced));
	}
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
	if (!due)
		return 0;
	p->wakeup = head - head % p->watermark;
	if (!rs_producer_doorbell(p))
		return 0;
	p->doorbells++;
	rs_store_hint(&c->ext.doorbells, p->doorbells);
	return 1;
}

/* A LOST record's body; its header is the seal, stored after the record
 * that follows it (seal()). */
static void write_lost(struct rs_producer *p, uint64_t pos, uint64_t count)
{
	struct rs_perf_lost rec = {
		.id = p->ring.index,
		.lost = count,
	};

	rs_copy_to_ring(p->ring.data, p->ring.data_size,
			pos + sizeof(rec.header), &rec.id,
			sizeof(rec) - sizeof(rec.header));
}

/* Store a reservation's headers, last: the record's, then the LOST record
 * in front of it, whose header is the first a reader walking from the
 * older records meets. */
static void seal(struct rs_producer *p, const struct rs_handle *h)
{
	uint64_t pos = h->pos - sizeof(struct rs_perf_lost), lost;
	uint32_t level = rs_local_read(&p->nest);

	if (h->size) {
		rs_note_seal(p, level, h->pos, h->header);
		rs_header_seal(rs_header_slot(p, h->pos), h->header);
	}
	if (h->lost) {
		lost = rs_header_bytes(RS_PERF_RECORD_LOST, 0,
				    sizeof(struct rs_perf_lost));
		rs_note_seal(p, level, pos, lost);
		rs_header_seal(rs_header_slot(p, pos), lost);
	}
}

static void count_drop(struct rs_producer *p)
{
	rs_local_add(&p->lost_pending, 1);
	rs_local_add(&p->lost_total, 1);
	rs_store_hint(&p->ring.ctrl->ext.lost, rs_local_read(&p->lost_total));
}

/* Reserve @size bytes (0: only a pending LOST record), the nest count
 * already taken.  A ring without room counts the record dropped when
 * @count (one record's reservation); a run's caller counts its own. */
static int reserve_nested(struct rs_producer *p, struct rs_handle *h,
			  uint32_t size, int count)
{
	int backward = p->ring.data_mode == RS_MODE_OVERWRITE;
	uint64_t offset, next, need, pending, slot;
	uint32_t level;

	slot = p->batch ? sizeof(uint64_t) : 0;
	level = rs_local_read(&p->nest);
	if (slot && level > RS_NEST_MAX) {
		if (size && count)
			count_drop(p);
		put_handle(p, 0, 1);
		return -rse_nesting;
	}
	do {
		pending = backward ? 0 : rs_local_read(&p->lost_pending);
		need = size + (pending ? sizeof(struct rs_perf_lost) : 0);
		offset = rs_local_read(&p->head);
		if (backward) {
			next = offset - need;
		} else {
			/* With a batch: the record and the header slot after
			 * it, which must never hold an older lap's bytes. */
			if (!forward_room(p, offset, need + slot)) {
				if (size && count)
					count_drop(p);
				put_handle(p, 0, 1);
				return -rse_no_space;
			}
			next = offset + need;
			if (slot)
				rs_slot_claim(p, level, next);
		}
		RS_TEST_HOOK(p, RS_HOOK_RESERVE_READ);
	} while (!rs_local_cmpxchg(&p->head, offset, next));
	RS_TEST_HOOK(p, RS_HOOK_RESERVE_TAKEN);
	if (!backward && slot)
		rs_slot_clear(p, level, next);
	if (!backward && p->prefetch)
		rs_prefetch_ahead(p, offset, next);

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
	h->header = 0;
	h->lost = pending ? 1 : 0;
	return 0;
}

static int reserve(struct rs_producer *p, struct rs_handle *h, uint32_t size)
{
	rs_local_inc32(&p->nest);
	rs_compiler_barrier();
	return reserve_nested(p, h, size, 1);
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
	const uint8_t *from = src;
	uint32_t n;

	if (!p || !h || (!src && len) || len > h->size - h->written)
		return -rse_invalid;
	/* The header's bytes wait in the handle for commit to seal. */
	if (h->written < sizeof(h->header) && len) {
		n = (uint32_t)sizeof(h->header) - h->written;
		if (n > len)
			n = len;
		rs_memcpy((uint8_t *)&h->header + h->written, from, n);
		h->written += n;
		from += n;
		len -= n;
	}
	rs_copy_to_ring(p->ring.data, p->ring.data_size, h->pos + h->written,
			from, len);
	h->written += len;
	return 0;
}

int rs_producer_commit(struct rs_producer *p, struct rs_handle *h)
{
	static const uint8_t zero[RS_RECORD_ALIGN];

	if (!p || !h || h->written > h->size)
		return -rse_invalid;
	if (!rs_local_read(&p->nest))
		return -rse_nesting;
	/* A writer that did not even write the header abandoned the record:
	 * frame it as padding so readers can step over it. */
	if (h->size && h->written < sizeof(struct rs_perf_header)) {
		h->header = rs_header_bytes(RS_RECORD_PAD, 0, (uint16_t)h->size);
		h->written = sizeof(struct rs_perf_header);
	}
	/* Bytes the writer skipped read as zero, never as stale data. */
	while (h->written < h->size) {
		uint32_t n = h->size - h->written;

		rs_producer_write(p, h, zero, n < sizeof(zero) ? n : sizeof(zero));
	}
	seal(p, h);
	if (h->size)
		rs_local_add(&p->produced, 1);
	return put_handle(p, 1, 0);
}

/* rs_producer_output's general way, the nest count held: out of line, so
 * that the common case (producer_inline.h) saves no registers for it. */
__attribute__((noinline)) int
rs_producer_output_held(struct rs_producer *p, uint32_t type, uint16_t misc,
			const void *body, uint32_t body_len, uint32_t size)
{
	struct rs_handle h;
	int err;

	err = reserve_nested(p, &h, size, 1);
	if (err)
		return err;
	/* The header goes in at commit, as one store. */
	h.header = rs_header_bytes(type, misc, (uint16_t)size);
	h.written = sizeof(struct rs_perf_header);
	rs_producer_write(p, &h, body, body_len);
	return rs_producer_commit(p, &h);
}

int rs_producer_put(struct rs_producer *p)
{
	return put_handle(p, 1, 0);
}

/*
 * reserve + write + commit.  A forward ring takes producer_inline.h's
 * path: its common case (no LOST record pending, room by the cached tail,
 * a record that does not wrap) in line, anything else the general way
 * with the nest count already held.  What callers in this tree compile in
 * line (rs_producer_output_inline) is this for small bodies.
 */
int rs_producer_output(struct rs_producer *p, uint32_t type, uint16_t misc,
		       const void *body, uint32_t body_len)
{
	uint64_t area;
	uint32_t size;

	if (!body && body_len)
		return -rse_invalid;
	if (body_len > RS_RECORD_MAX)
		return -rse_too_big;
	size = (uint32_t)rs_align_up(sizeof(struct rs_perf_header) + body_len,
				     RS_RECORD_ALIGN);
	/* Consumers drop a known type that is too short: refuse it here. */
	if (size < rs_record_min_size(type))
		return -rse_invalid;
	if (!p || !p->ring.data)
		return -rse_invalid;
	area = p->ring.data_size;
	if (size > RS_RECORD_MAX || size + sizeof(struct rs_perf_lost) > area)
		return -rse_too_big;
	if (p->ring.data_mode != RS_MODE_OVERWRITE)
		return rs_output_forward(p, type, misc, body, body_len, size);
	rs_local_inc32(&p->nest);
	rs_compiler_barrier();
	return rs_producer_output_held(p, type, misc, body, body_len, size);
}

/* Whether a run's records are whole: every size at least its type's,
 * 8-aligned, within the run, @nr of them ending exactly at @len. */
static int run_valid(const uint8_t *src, uint32_t len, uint32_t nr)
{
	struct rs_perf_header hdr;
	uint32_t off = 0, n = 0;

	while (off < len) {
		rs_memcpy(&hdr, src + off, sizeof(hdr));
		if (hdr.size < rs_record_min_size(hdr.type) ||
		    (hdr.size & (RS_RECORD_ALIGN - 1)) || hdr.size > len - off)
			return 0;
		off += hdr.size;
		n++;
	}
	return n == nr;
}

/*
 * A run of records into one reservation.  A forward ring takes the run as
 * it is, one copy: a reader that walks sealed records past data_head meets
 * the run's first header (or the LOST record's in front of it) first, and
 * that is sealed last, after every byte behind it.  An overwrite ring
 * takes the run newest first, as its records always lie: the last of
 * @recs at the reservation's low end, each sealed after its body.
 */
static int output_run(struct rs_producer *p, const uint8_t *src,
		      uint32_t len, uint32_t nr)
{
	struct rs_perf_header hdr;
	struct rs_handle h;
	uint64_t pos, header;
	uint32_t off;
	int err;

	if ((uint64_t)len + sizeof(struct rs_perf_lost) > p->ring.data_size / 2)
		return -rse_too_big;
	rs_local_inc32(&p->nest);
	rs_compiler_barrier();
	err = reserve_nested(p, &h, len, 0);
	if (err)
		return err;
	if (p->ring.data_mode != RS_MODE_OVERWRITE) {
		rs_copy_to_ring(p->ring.data, p->ring.data_size,
				h.pos + sizeof(hdr), src + sizeof(hdr),
				len - sizeof(hdr));
		rs_memcpy(&h.header, src, sizeof(h.header));
		seal(p, &h);
	} else {
		pos = h.pos + len;
		for (off = 0; off < len; off += hdr.size) {
			rs_memcpy(&hdr, src + off, sizeof(hdr));
			rs_memcpy(&header, src + off, sizeof(header));
			pos -= hdr.size;
			rs_copy_to_ring(p->ring.data, p->ring.data_size,
					pos + sizeof(hdr), src + off + sizeof(hdr),
					hdr.size - sizeof(hdr));
			rs_header_seal(rs_header_slot(p, pos), header);
		}
	}
	rs_local_add(&p->produced, nr);
	return put_handle(p, 1, 0);
}

int rs_producer_output_run(struct rs_producer *p, const void *recs,
			   uint32_t len, uint32_t nr)
{
	if (!p || !p->ring.data || !recs || !nr || !run_valid(recs, len, nr))
		return -rse_invalid;
	return output_run(p, recs, len, nr);
}

/*
 * The caller found where each record ends on its own walk: a forward ring
 * copies the run without walking it again.  An overwrite ring walks it
 * anyway, to lay it newest first: rs_producer_output_run, checks and all.
 */
int rs_producer_output_walked(struct rs_producer *p, const void *recs,
			      uint32_t len, uint32_t nr)
{
	if (p && p->ring.data_mode == RS_MODE_OVERWRITE)
		return rs_producer_output_run(p, recs, len, nr);
	if (!p || !p->ring.data || !recs || !nr ||
	    len < sizeof(struct rs_perf_header) || (len & (RS_RECORD_ALIGN - 1)))
		return -rse_invalid;
	return output_run(p, recs, len, nr);
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
	seal(p, &h);
	return 1 + put_handle(p, 1, 1);
}

/*
 * A batch needs the header slot at head cleared before anything past the
 * published head can be sealed, and says so in ext.flags; without one the
 * head is published at every commit and the flag goes, after the head.
 */
int rs_producer_set_batch(struct rs_producer *p, uint32_t bytes)
{
	struct rs_ctrl_page *c;
	uint64_t head, flags;

	if (!p || !p->ring.data || (bytes && bytes > p->ring.data_size / 2))
		return -rse_invalid;
	if (p->ring.data_mode == RS_MODE_OVERWRITE)
		return -rse_mode;
	if (rs_local_read(&p->nest))
		return -rse_nesting;
	c = p->ring.ctrl;
	head = rs_local_read(&p->head);
	flags = rs_load_hint(&c->ext.flags);
	if (!bytes) {
		p->batch = 0;
		rs_producer_flush(p);
		rs_store_hint(&c->ext.flags, flags & ~(uint64_t)RS_EXT_SEALED);
		return 0;
	}
	if (!p->batch) {
		/* The slot at head holds the oldest record of a full ring. */
		if (!forward_room(p, head, sizeof(uint64_t)))
			return -rse_no_space;
		rs_header_clear(rs_header_slot(p, head));
		rs_release(&c->ext.flags, flags | RS_EXT_SEALED);  /* S0 */
	}
	p->batch = bytes;
	return 0;
}

int rs_producer_flush(struct rs_producer *p)
{
	if (!p || !p->ring.data)
		return -rse_invalid;
	if (rs_local_read(&p->nest))
		return -rse_nesting;
	rs_local_inc32(&p->nest);
	rs_compiler_barrier();
	return put_handle(p, 1, 1);
}

uint64_t rs_producer_lost(const struct rs_producer *p)
{
	return p ? rs_local_read(&p->lost_total) : 0;
}

uint64_t rs_producer_head(const struct rs_producer *p)
{
	return p ? rs_local_read(&p->head) : 0;
}

int rs_producer_has_room(const struct rs_producer *p, uint64_t bytes)
{
	uint64_t head, used, size;

	if (!p || !p->ring.data || !p->ring.ctrl)
		return 0;
	if (p->ring.data_mode == RS_MODE_OVERWRITE)
		return 1;
	size = p->ring.data_size;
	if (bytes > size)
		return 0;
	head = rs_local_read(&p->head);
	if (head - rs_local_read(&p->tail_cache) <= size - bytes)
		return 1;
	used = head - rs_read_tail(&p->ring.ctrl->data_tail);
	return used <= size - bytes;
}
