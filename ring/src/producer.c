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
#include "barrier.h"
#include "ring_internal.h"
#include "test_hook.h"

#ifdef RS_RING_TEST_HOOKS
rs_test_hook_fn rs_test_hook;
#endif

/* The 8 header bytes of the record at @pos: records start 8-aligned in an
 * area that is a multiple of 8, so a header never wraps. */
static uint64_t *header_slot(const struct rs_producer *p, uint64_t pos)
{
	return (uint64_t *)(void *)(p->ring.data + (pos & (p->ring.data_size - 1)));
}

static uint64_t header_bytes(uint32_t type, uint16_t misc, uint16_t size)
{
	struct rs_perf_header hdr = { type, misc, size };
	uint64_t v;

	rs_memcpy(&v, &hdr, sizeof(v));
	return v;
}

static uint32_t watermark_clamp(uint64_t wm, uint64_t size)
{
	if (!wm || wm >= size)
		return (uint32_t)(size / 2 ? size / 2 : 1);
	return (uint32_t)wm;
}

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
	p->watermark = watermark_clamp(region->config.data_watermark,
				       p->ring.data_size);
	p->wakeup = head - head % p->watermark;
	/* Worth it only on a ring much larger than the distance. */
	p->prefetch = p->ring.data_size >= 8 * RS_PREFETCH_AHEAD &&
		      rs_cpu_has_prefetchw();
	if (p->ring.data_mode == RS_MODE_OVERWRITE) {
		rs_announce(&c->ext.write_head, head);
	} else {
		tail = rs_read_tail(c);
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

int rs_aux_producer_init(struct rs_producer *p, const struct rs_region *region,
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

/* Each line that starts in [@from, @to) + RS_PREFETCH_AHEAD, so that
 * consecutive reservations ask for every line once. */
static void prefetch_ahead(const struct rs_producer *p, uint64_t from,
			   uint64_t to)
{
	uint64_t line = (from + RS_PREFETCH_AHEAD + 63) & ~(uint64_t)63;

	for (; line < to + RS_PREFETCH_AHEAD; line += 64)
		rs_prefetchw(p->ring.data + (line & (p->ring.data_size - 1)));
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
	if (rs_local_read32(&p->nest) > 1) {
		rs_local_dec32(&p->nest);
		return 0;
	}
	head = rs_local_read(&p->head);
	due = can_ring && p->ring.data_mode != RS_MODE_OVERWRITE &&
	      head - p->wakeup >= p->watermark;
	if (force || due || !p->batch || head - p->published >= p->batch) {
		rs_publish_head(c, head);
		p->published = head;
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
	if (!rs_doorbell_decide(p))
		return 0;
	p->doorbells++;
	rs_store_hint(&c->ext.doorbells, p->doorbells);
	return 1;
}

/*
 * The header slot after a reservation, with a batch (sealed records).  It
 * is cleared after the space is taken, not before: a clear before the take
 * goes where a head read before it says, and a writer nested in between
 * would have put its records there, which the clear would cut into.  After
 * the take, a writer nested into this one may reserve right behind it and
 * seal its header in that slot before the clear: every writer notes a
 * header it seals in a slot that a writer it interrupted is about to clear
 * (note_seal), and that one puts the header back after its clear.
 *
 * slot_claim, before each try to take: the slot this level will clear.
 * Deeper than RS_NEST_MAX levels there is no room to note it: -1.
 */
static inline int slot_claim(struct rs_producer *p, uint32_t level,
			     uint64_t next)
{
	if (level > RS_NEST_MAX)
		return -1;
	rs_store_hint(&p->slot_pos[level - 1], next);
	rs_store_hint(&p->slot_header[level - 1], 0);
	rs_compiler_barrier();
	return 0;
}

/* After the take: clear the slot, and put back a nested writer's header.
 * @level: this writer's nest count, which nested writers restore. */
static inline void slot_clear(struct rs_producer *p, uint32_t level,
			      uint64_t next)
{
	uint64_t *slot = header_slot(p, next), header;

	rs_header_clear(slot);
	rs_compiler_barrier();
	header = rs_local_read(&p->slot_header[level - 1]);
	if (header)
		rs_header_seal(slot, header);
}

/* A header about to be sealed at @pos, for the writers this one
 * interrupted (slot_clear). */
static inline void note_seal(struct rs_producer *p, uint32_t level,
			     uint64_t pos, uint64_t header)
{
	uint32_t i;

	for (i = 0; i + 1 < level && i < RS_NEST_MAX; i++)
		if (rs_local_read(&p->slot_pos[i]) == pos)
			rs_store_hint(&p->slot_header[i], header);
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
	uint32_t level = rs_local_read32(&p->nest);

	if (h->size) {
		note_seal(p, level, h->pos, h->header);
		rs_header_seal(header_slot(p, h->pos), h->header);
	}
	if (h->lost) {
		lost = header_bytes(RS_PERF_RECORD_LOST, 0,
				    sizeof(struct rs_perf_lost));
		note_seal(p, level, pos, lost);
		rs_header_seal(header_slot(p, pos), lost);
	}
}

static void count_drop(struct rs_producer *p)
{
	rs_local_add(&p->lost_pending, 1);
	rs_local_add(&p->lost_total, 1);
	rs_store_hint(&p->ring.ctrl->ext.lost, rs_local_read(&p->lost_total));
}

/* Reserve @size bytes (0: only a pending LOST record), the nest count
 * already taken. */
static int reserve_nested(struct rs_producer *p, struct rs_handle *h,
			  uint32_t size)
{
	int backward = p->ring.data_mode == RS_MODE_OVERWRITE;
	uint64_t offset, next, need, pending, slot;
	uint32_t level;

	slot = p->batch ? sizeof(uint64_t) : 0;
	level = rs_local_read32(&p->nest);
	if (slot && level > RS_NEST_MAX) {
		if (size)
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
				if (size)
					count_drop(p);
				put_handle(p, 0, 1);
				return -rse_no_space;
			}
			next = offset + need;
			if (slot)
				slot_claim(p, level, next);
		}
		RS_TEST_HOOK(p, RS_HOOK_RESERVE_READ);
	} while (!rs_local_cmpxchg(&p->head, offset, next));
	RS_TEST_HOOK(p, RS_HOOK_RESERVE_TAKEN);
	if (!backward && slot)
		slot_clear(p, level, next);
	if (!backward && p->prefetch)
		prefetch_ahead(p, offset, next);

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
	return reserve_nested(p, h, size);
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
	if (!rs_local_read32(&p->nest))
		return -rse_nesting;
	/* A writer that did not even write the header abandoned the record:
	 * frame it as padding so readers can step over it. */
	if (h->size && h->written < sizeof(struct rs_perf_header)) {
		h->header = header_bytes(RS_RECORD_PAD, 0, (uint16_t)h->size);
		h->written = sizeof(struct rs_perf_header);
	}
	/* Bytes the writer skipped read as zero, never as stale data. */
	while (h->written < h->size) {
		uint32_t n = h->size - h->written;

		rs_producer_write(p, h, zero, n < sizeof(zero) ? n : sizeof(zero));
	}
	seal(p, h);
	if (h->size) {
		rs_local_add(&p->produced, 1);
		rs_store_hint(&p->ring.ctrl->ext.produced,
			      rs_local_read(&p->produced));
	}
	return put_handle(p, 1, 0);
}

/*
 * A record's body into the ring at @dst (not wrapping): short bodies as
 * two overlapping moves of a fixed size each, which the compiler makes a
 * few loads and stores instead of a call.  The last 8-byte word of the
 * record is zeroed first when the body ends inside it: the bytes up to
 * the record's aligned size read as zero, as commit's fill makes them.
 */
static inline void body_copy(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (len & (RS_RECORD_ALIGN - 1))
		rs_memset(dst + (len & ~(RS_RECORD_ALIGN - 1)), 0,
			  RS_RECORD_ALIGN);
	if (len > 64) {
		rs_memcpy(dst, src, len);
	} else if (len >= 32) {
		rs_memcpy(dst, src, 32);
		rs_memcpy(dst + len - 32, src + len - 32, 32);
	} else if (len >= 16) {
		rs_memcpy(dst, src, 16);
		rs_memcpy(dst + len - 16, src + len - 16, 16);
	} else if (len >= 8) {
		rs_memcpy(dst, src, 8);
		rs_memcpy(dst + len - 8, src + len - 8, 8);
	} else if (len >= 4) {
		rs_memcpy(dst, src, 4);
		rs_memcpy(dst + len - 4, src + len - 4, 4);
	} else if (len) {
		dst[0] = src[0];
		dst[len / 2] = src[len / 2];
		dst[len - 1] = src[len - 1];
	}
}

/*
 * put_handle for rs_producer_output's common case, a forward ring with a
 * batch: the outermost writer, no doorbell due and less than a batch
 * unpublished drops the nest count and is done, with the same steps and
 * the same re-check of the head as put_handle.  Anything else is
 * put_handle's.
 */
static inline int leave(struct rs_producer *p)
{
	uint64_t head;

	if (rs_local_read32(&p->nest) == 1 && p->batch) {
		head = rs_local_read(&p->head);
		if (head - p->wakeup < p->watermark &&
		    head - p->published < p->batch) {
			rs_compiler_barrier();
			RS_TEST_HOOK(p, RS_HOOK_PUBLISHED);
			rs_local_set32(&p->nest, 0);
			rs_compiler_barrier();
			RS_TEST_HOOK(p, RS_HOOK_UNNESTED);
			if (head == rs_local_read(&p->head))
				return 0;
			/* A handler reserved after head was read. */
			rs_local_inc32(&p->nest);
		}
	}
	return put_handle(p, 1, 0);
}

/* rs_producer_output's general way, the nest count held: out of line, so
 * that the common case saves no registers for it. */
static __attribute__((noinline)) int
output_slow(struct rs_producer *p, uint32_t type, uint16_t misc,
	    const void *body, uint32_t body_len, uint32_t size)
{
	struct rs_handle h;
	int err;

	err = reserve_nested(p, &h, size);
	if (err)
		return err;
	/* The header goes in at commit, as one store. */
	h.header = header_bytes(type, misc, (uint16_t)size);
	h.written = sizeof(struct rs_perf_header);
	rs_producer_write(p, &h, body, body_len);
	return rs_producer_commit(p, &h);
}

/*
 * reserve + write + commit.  The common case, a forward ring with no LOST
 * record pending, room by the cached tail and a record that does not wrap,
 * takes the same steps in line: nest count, space taken with the
 * same-CPU cmpxchg, header slot cleared, body, header sealed, produced, and
 * put_handle.  Anything else, and a nested writer that took the space
 * first, goes the general way with the nest count already held.
 */
int rs_producer_output(struct rs_producer *p, uint32_t type, uint16_t misc,
		       const void *body, uint32_t body_len)
{
	uint64_t offset, next, area, off, slot, header;
	uint32_t size, level;
	uint8_t *rec;

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

	rs_local_inc32(&p->nest);
	rs_compiler_barrier();
	/* Nested writers give the count back as they found it. */
	level = rs_local_read32(&p->nest);
	if (p->ring.data_mode != RS_MODE_OVERWRITE) {
		slot = p->batch ? sizeof(uint64_t) : 0;
		offset = rs_local_read(&p->head);
		off = offset & (area - 1);
		next = offset + size;
		if (!rs_local_read(&p->lost_pending) && off + size <= area &&
		    offset - rs_local_read(&p->tail_cache) + size + slot <= area &&
		    (!slot || !slot_claim(p, level, next))) {
			RS_TEST_HOOK(p, RS_HOOK_RESERVE_READ);
			if (rs_local_cmpxchg(&p->head, offset, next)) {
				RS_TEST_HOOK(p, RS_HOOK_RESERVE_TAKEN);
				if (slot)
					slot_clear(p, level, next);
				if (p->prefetch)
					prefetch_ahead(p, offset, next);
				rec = p->ring.data + off;
				body_copy(rec + sizeof(struct rs_perf_header),
					  body, body_len);
				header = header_bytes(type, misc, (uint16_t)size);
				note_seal(p, level, offset, header);
				rs_header_seal((uint64_t *)(void *)rec, header);
				rs_local_add(&p->produced, 1);
				rs_store_hint(&p->ring.ctrl->ext.produced,
					      rs_local_read(&p->produced));
				return leave(p);
			}
		}
	}
	return output_slow(p, type, misc, body, body_len, size);
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
	if (rs_local_read32(&p->nest))
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
		rs_header_clear(header_slot(p, head));
		rs_publish_flags(&c->ext.flags, flags | RS_EXT_SEALED);
	}
	p->batch = bytes;
	return 0;
}

int rs_producer_flush(struct rs_producer *p)
{
	if (!p || !p->ring.data)
		return -rse_invalid;
	if (rs_local_read32(&p->nest))
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
