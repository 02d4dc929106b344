/* SPDX-License-Identifier: MIT */
/*
 * The host consumer.  Everything in the region is guest-writable, so:
 * each shared value is read once and bounded; sizes and addresses come from
 * the validated private layout, never from the control page; a record is
 * copied out before its header is trusted; every loop is bounded by the
 * ring size; and what cannot be read is counted, never skipped silently.
 *
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS, docs/abi.md): a consumer
 * says in the control page that it polls, and before it sleeps takes it
 * back and looks at the heads once more (barrier.h, W/C against A/X);
 * the producer's half is rs_producer_doorbell (producer.c).
 */
#if __STDC_HOSTED__
#include <stdlib.h>
#endif

#include "ringside/barrier.h"
#include "ring_internal.h"

static void tails_reset(struct rs_consumer *c)
{
	struct rs_ctrl_page *ctrl = c->ring.ctrl;
	uint64_t head = rs_read_head(&ctrl->data_head);
	uint64_t tail = rs_load_hint(&ctrl->data_tail);

	/* Start from the published tail unless it is implausible. */
	if (head - tail > c->ring.data_size) {
		c->stats.corrupt++;
		c->stats.bad_heads++;
		tail = head;
	}
	c->tail = tail;
	if (c->ring.aux_size) {
		head = rs_read_head(&ctrl->aux_head);
		tail = rs_load_hint(&ctrl->aux_tail);
		if (head - tail > c->ring.aux_size) {
			c->stats.aux_corrupt++;
			tail = head;
		}
		c->aux_tail = tail;
	}
}

int rs_consumer_init(struct rs_consumer *c, const struct rs_region *region,
		     uint32_t index)
{
	int err;

	if (!c)
		return -rse_invalid;
	rs_memset(&c->stats, 0, sizeof(c->stats));
	c->tail = c->aux_tail = 0;
	c->bad_head = c->bad_aux_head = 0;
	err = rs_region_ring(region, index, &c->ring);
	if (err)
		return err;
	c->watermark = rs_watermark_clamp(region->config.data_watermark,
					  c->ring.data_size);
	c->aux_watermark = c->ring.aux_size ?
		rs_watermark_clamp(region->config.aux_watermark,
				   c->ring.aux_size) : 1;
	tails_reset(c);
	return 0;
}

void rs_consumer_fini(struct rs_consumer *c)
{
	if (c)
		rs_memset(&c->ring, 0, sizeof(c->ring));
}

/* Account for a LOST or AUX record the consumer delivers (drain counts
 * records and bytes of every type itself). */
static void record_stats(struct rs_cons_stats *s, const struct rs_perf_header *rec)
{
	if (rec->type == RS_PERF_RECORD_LOST) {
		const struct rs_perf_lost *l = (const struct rs_perf_lost *)rec;

		s->lost_records++;
		/* the guest's count: saturate rather than wrap */
		s->lost = s->lost + l->lost < s->lost ? UINT64_MAX :
			  s->lost + l->lost;
	} else if (rec->type == RS_PERF_RECORD_AUX) {
		const struct rs_perf_aux *a = (const struct rs_perf_aux *)rec;

		s->aux_records++;
		if (a->flags & RS_PERF_AUX_FLAG_TRUNCATED)
			s->aux_truncated++;
		if (a->flags & RS_PERF_AUX_FLAG_PARTIAL)
			s->aux_partial++;
	}
}

/*
 * Copy a record of @len bytes (a multiple of 8) out of the ring, where it
 * does not wrap.  Most records are at most 64 bytes: two fixed-size moves
 * that may overlap, which the compiler inlines, cost less than a call to
 * memcpy for a size it cannot know.
 */
static inline void copy_record(void *dst, const uint8_t *src, uint64_t len)
{
	uint8_t *d = dst;

	if (len <= 16) {
		rs_memcpy(d, src, 8);
		rs_memcpy(d + len - 8, src + len - 8, 8);
	} else if (len <= 32) {
		rs_memcpy(d, src, 16);
		rs_memcpy(d + len - 16, src + len - 16, 16);
	} else if (len <= 64) {
		rs_memcpy(d, src, 32);
		rs_memcpy(d + len - 32, src + len - 32, 32);
	} else {
		rs_memcpy(d, src, len);
	}
}

int rs_consumer_drain(struct rs_consumer *c, rs_record_fn fn, void *arg)
{
	uint64_t size, head, pos, left, off, records = 0, bytes = 0;
	struct rs_perf_header hdr, *rec;
	const uint8_t *data;
	int n = 0, ret = 0;

	if (!c || !fn || !c->ring.ctrl)
		return -rse_invalid;
	rec = (struct rs_perf_header *)c->rec;
	if (c->ring.data_mode != RS_MODE_NORMAL)
		return -rse_mode;
	size = c->ring.data_size;
	data = c->ring.data;
	head = rs_read_head(&c->ring.ctrl->data_head);
	pos = c->tail;
	if (head == pos)
		return 0;
	c->stats.batches++;
	if (head - pos > size) {
		/* A head more than a ring ahead of our tail, or behind it, is
		 * a lie: following it would put the tail where the producer
		 * never goes.  Count it once and wait for a plausible head. */
		if (head != c->bad_head) {
			c->stats.corrupt++;
			c->stats.bad_heads++;
		}
		c->bad_head = head;
		return 0;
	}
	/* Each pass consumes >= 8 bytes of at most @size: bounded. */
	while (pos != head) {
		left = head - pos;
		if (left < sizeof(hdr))
			goto corrupt;
		off = pos & (size - 1);
		/* Most records do not wrap: one copy each, header included,
		 * and the wrapping copy only at the end of the area.  (A tail
		 * the guest misaligned can put a header across the end.) */
		if (off <= size - sizeof(hdr))
			rs_memcpy(&hdr, data + off, sizeof(hdr));
		else
			rs_copy_from_ring(&hdr, data, size, pos, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || (hdr.size & (RS_RECORD_ALIGN - 1)) ||
		    hdr.size > left)
			goto corrupt;
		if (off <= size - hdr.size)
			copy_record(rec, data + off, hdr.size);
		else
			rs_copy_from_ring(rec, data, size, pos, hdr.size);
		/* The header we checked, not a second read of it. */
		*rec = hdr;
		if (hdr.size < rs_record_min_size(hdr.type)) {
			/* Framing is intact: drop this record, keep going. */
			c->stats.corrupt++;
			c->stats.corrupt_bytes += hdr.size;
			pos += hdr.size;
			continue;
		}
		ret = fn(rec, arg);
		if (ret < 0)
			break;
		/* Counted here, stored once at the end: the callback is
		 * opaque, and fields of *c would be stored around each call. */
		records++;
		bytes += hdr.size;
		if (hdr.type == RS_PERF_RECORD_LOST ||
		    hdr.type == RS_PERF_RECORD_AUX)
			record_stats(&c->stats, rec);
		pos += hdr.size;
		n++;
	}
	goto publish;
corrupt:
	/* Lost framing: the rest of this batch cannot be parsed. */
	c->stats.corrupt++;
	c->stats.corrupt_bytes += head - pos;
	pos = head;
publish:
	c->stats.records += records;
	c->stats.bytes += bytes;
	c->tail = pos;
	rs_publish_tail(&c->ring.ctrl->data_tail, pos);
	return ret < 0 ? ret : n;
}

int64_t rs_consumer_drain_aux(struct rs_consumer *c, rs_aux_fn fn, void *arg)
{
	uint64_t size, head, tail, avail, off, first;
	int ret;

	if (!c || !fn || !c->ring.ctrl)
		return -rse_invalid;
	if (!c->ring.aux_size || c->ring.aux_mode != RS_MODE_NORMAL)
		return -rse_mode;
	size = c->ring.aux_size;
	head = rs_read_head(&c->ring.ctrl->aux_head);
	tail = c->aux_tail;
	avail = head - tail;
	if (!avail)
		return 0;
	if (avail > size) {
		/* As for data_head: count the lie, do not follow it. */
		if (head != c->bad_aux_head)
			c->stats.aux_corrupt++;
		c->bad_aux_head = head;
		return 0;
	}
	/* The chunks point into shared memory: AUX bytes are opaque here and
	 * a callback that interprets them must copy them first. */
	off = tail & (size - 1);
	first = size - off < avail ? size - off : avail;
	ret = fn(c->ring.aux + off, first, tail, arg);
	if (ret < 0)
		return ret;
	if (first < avail) {
		ret = fn(c->ring.aux, avail - first, tail + first, arg);
		if (ret < 0) {
			avail = first;
			head = tail + first;
		}
	}
	c->stats.aux_bytes += avail;
	c->aux_tail = head;
	rs_publish_tail(&c->ring.ctrl->aux_tail, head);
	return ret < 0 ? ret : (int64_t)avail;
}

/* Count the records in [@from, @to) of the data area (at most a ring)
 * into *@records, and what the walk cannot frame into *@unframed.
 * Bounded: each step passes >= 8 bytes. */
static void walk(const struct rs_consumer *c, uint64_t from, uint64_t to,
		 uint64_t *records, uint64_t *unframed)
{
	uint64_t size = c->ring.data_size, pos = from;
	struct rs_perf_header hdr;

	while (pos != to) {
		rs_copy_from_ring(&hdr, c->ring.data, size, pos, sizeof(hdr));
		if (to - pos < sizeof(hdr) || hdr.size < sizeof(hdr) ||
		    (hdr.size & (RS_RECORD_ALIGN - 1)) || hdr.size > to - pos) {
			*unframed += to - pos;
			return;
		}
		++*records;
		pos += hdr.size;
	}
}

/* Where to go on in one area (data or AUX) of a restored region: @own
 * our position, @tail and @head the restored ones.  Adds to *@bits;
 * [*@from, *@to) is what lies between the restored tail and where we go
 * on: delivered already (skipped) when *@bits has no HEAD_BACK, else
 * delivered from here on though it may repeat what was.  *@back and
 * *@ahead: the head_back and tail_ahead bytes. */
static uint64_t resume_at(uint64_t own, uint64_t tail, uint64_t head,
			  int *bits, uint64_t *from, uint64_t *to,
			  uint64_t *back, uint64_t *ahead)
{
	*from = *to = *back = *ahead = 0;
	if (own < tail) {
		*bits |= RS_REATTACH_TAIL_AHEAD;
		*ahead = tail - own;
		return tail;
	}
	if (own > tail)
		*bits |= RS_REATTACH_TAIL_BACK;
	*from = tail;
	if (own <= head) {
		*to = own;
		return own;
	}
	/* Not the history we read, or an older copy of it: from its tail */
	*bits |= RS_REATTACH_HEAD_BACK;
	*back = own - head;
	*to = head;
	return tail;
}

int rs_consumer_reattach(struct rs_consumer *c, const struct rs_region *region,
			 uint32_t index)
{
	uint64_t head, tail, from, to, back, ahead, pos, unframed = 0;
	struct rs_ring ring;
	int bits = 0, err;

	if (!c || !c->ring.ctrl)
		return -rse_invalid;
	err = rs_region_ring(region, index, &ring);
	if (err)
		return err;
	if (ring.data_size != c->ring.data_size ||
	    ring.aux_size != c->ring.aux_size ||
	    ring.data_mode != c->ring.data_mode ||
	    ring.aux_mode != c->ring.aux_mode)
		return -rse_geometry;
	c->ring = ring;
	c->stats.reattaches++;
	c->bad_head = c->bad_aux_head = 0;

	head = rs_read_head(&ring.ctrl->data_head);
	tail = rs_load_hint(&ring.ctrl->data_tail);
	if (head - tail > ring.data_size) {
		c->stats.corrupt++;
		c->stats.bad_heads++;
		bits |= RS_REATTACH_CORRUPT;
		tail = head;
	}
	pos = resume_at(c->tail, tail, head, &bits, &from, &to, &back, &ahead);
	if (bits & RS_REATTACH_TAIL_BACK)
		c->stats.tail_back++;
	if (back) {
		c->stats.head_back++;
		c->stats.head_back_bytes += back;
		/* delivered by the drain, which frames them itself */
		c->stats.unsure_bytes += to - from;
		walk(c, from, to, &c->stats.unsure_records, &unframed);
	} else {
		c->stats.skip_bytes += to - from;
		walk(c, from, to, &c->stats.skip_records,
		     &c->stats.skip_unframed);
	}
	if (ahead) {
		c->stats.tail_ahead++;
		c->stats.tail_ahead_bytes += ahead;
	}
	c->tail = pos;
	rs_publish_tail(&ring.ctrl->data_tail, pos);

	if (ring.aux_size) {
		head = rs_read_head(&ring.ctrl->aux_head);
		tail = rs_load_hint(&ring.ctrl->aux_tail);
		if (head - tail > ring.aux_size) {
			c->stats.aux_corrupt++;
			bits |= RS_REATTACH_CORRUPT;
			tail = head;
		}
		pos = resume_at(c->aux_tail, tail, head, &bits, &from, &to,
				&back, &ahead);
		if (back)
			c->stats.aux_unsure_bytes += to - from;
		else
			c->stats.aux_skip_bytes += to - from;
		c->stats.aux_head_back_bytes += back;
		c->stats.aux_tail_ahead_bytes += ahead;
		c->aux_tail = pos;
		/* only a normal-mode AUX area has a tail the producer reads */
		if (ring.aux_mode == RS_MODE_NORMAL)
			rs_publish_tail(&ring.ctrl->aux_tail, pos);
	}
	return bits;
}

uint64_t rs_consumer_pending(const struct rs_consumer *c)
{
	uint64_t head;

	if (!c || !c->ring.ctrl)
		return 0;
	head = rs_read_head(&c->ring.ctrl->data_head);
	return head - c->tail > c->ring.data_size ? 0 : head - c->tail;
}

const struct rs_cons_stats *rs_consumer_stats(const struct rs_consumer *c)
{
	return c ? &c->stats : (const struct rs_cons_stats *)0;
}

/*
 * Whether a doorbell may have fallen due, and been suppressed, between
 * @tail (consumed) and @head: the producer decides at the first
 * publication past each multiple of the watermark, so one lies in
 * (tail, head].  A head that is nonsense (behind, or more than a ring
 * ahead) does not keep a consumer awake: the drain ignores it, and a guest
 * must not make the host spin with it.
 */
static int due_since(uint64_t head, uint64_t tail, uint64_t size, uint32_t wm)
{
	if (head == tail || head - tail > size)
		return 0;
	return head / wm != tail / wm;
}

int rs_consumer_sleep_prepare(struct rs_consumer *c)
{
	const struct rs_ring *ring;
	struct rs_ctrl_page *ctrl;

	if (!c || !c->ring.ctrl)
		return -rse_invalid;
	ring = &c->ring;
	ctrl = ring->ctrl;
	rs_consumer_state_sleep(&ctrl->host.consumer);
	if (ring->data_mode == RS_MODE_NORMAL &&
	    due_since(rs_read_head(&ctrl->data_head), c->tail, ring->data_size,
		      c->watermark))
		return 1;
	if (ring->aux_size && ring->aux_mode == RS_MODE_NORMAL &&
	    due_since(rs_read_head(&ctrl->aux_head), c->aux_tail, ring->aux_size,
		      c->aux_watermark))
		return 1;
	return 0;
}

int rs_consumer_awake(struct rs_consumer *c)
{
	if (!c || !c->ring.ctrl)
		return -rse_invalid;
	rs_consumer_state_poll(&c->ring.ctrl->host.consumer);
	return 0;
}

/* Heap constructors for the host; a freestanding build (no malloc) has
 * none: its objects live in static storage or on the stack. */
#if __STDC_HOSTED__
struct rs_consumer *rs_consumer_alloc(const struct rs_region *region,
				      uint32_t index)
{
	struct rs_consumer *c = malloc(sizeof(*c));

	if (c && rs_consumer_init(c, region, index) < 0) {
		free(c);
		return NULL;
	}
	return c;
}

void rs_consumer_free(struct rs_consumer *c)
{
	rs_consumer_fini(c);
	free(c);
}
#endif
