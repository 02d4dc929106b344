/* SPDX-License-Identifier: MIT */
/*
 * Snapshots: copy a ring without consuming it, while its producer may still
 * be writing (live) or is paused (stable; the same code, nothing gets cut).
 *
 * Overwrite ring: read data_head, copy the whole area, then re-read the
 * producer's write frontier (ext.write_head, announced before it writes).
 * Everything reserved below the head we copied from may have landed on the
 * oldest bytes of the copy, so the window is shortened by that distance and
 * the difference reported as cut.  Records are returned newest first.
 *
 * Normal ring: the records between data_tail and data_head, oldest first,
 * and then those committed past data_head: a producer that publishes its
 * head per batch, and stopped (crashed, hung, paused) between two
 * publications, has sealed records there (barrier.h, S and T).  They are
 * read from the ring itself, header first with acquire, up to the first
 * header that is zero or malformed, and never beyond a ring from the tail.
 * A consumer draining concurrently may move the tail and let the producer
 * reuse space, so the tail is re-read after the copy and what it passed is
 * cut the same way.
 */
#if __STDC_HOSTED__
#include <stdlib.h>
#endif

#include "ringside/barrier.h"
#include "ring_internal.h"

static void snap_overwrite(struct rs_snapshot *s, struct rs_ctrl_page *c,
			   const uint8_t *data)
{
	uint64_t head = rs_read_head(&c->data_head), frontier, moved;

	rs_memcpy(s->copy, data, s->size);
	frontier = rs_reread(&c->ext.write_head);                 /* F */
	moved = head - frontier; /* backward: the frontier only goes down */
	s->start = head;
	if (head & (RS_RECORD_ALIGN - 1)) {
		s->stats.corrupt++;
		s->limit = 0;
	} else if (moved > s->size) {
		s->stats.cut_bytes = s->size;
		s->limit = 0;
	} else {
		s->stats.cut_bytes = moved;
		s->limit = s->size - moved;
	}
}

/* Copy ring bytes [@pos, @pos + @len) of the live area into the same
 * positions of the copy. */
static void copy_live(struct rs_snapshot *s, const uint8_t *data,
		      uint64_t pos, uint64_t len)
{
	uint64_t off = pos & (s->size - 1), first = s->size - off;

	if (first >= len) {
		rs_memcpy(s->copy + off, data + off, len);
		return;
	}
	rs_memcpy(s->copy + off, data + off, first);
	rs_memcpy(s->copy, data, len - first);
}

/*
 * The sealed records from @pos on, up to @bound (at most a ring from the
 * tail): each header is loaded once, with acquire, and checked before the
 * bytes it covers are copied, so a record whose header was not stored yet,
 * or that runs past @bound, is not taken.  Returns where the walk stopped.
 * Each step takes >= 8 bytes of at most a ring: bounded.
 */
static uint64_t walk_sealed(struct rs_snapshot *s, const uint8_t *data,
			    uint64_t pos, uint64_t bound)
{
	struct rs_perf_header hdr;
	uint64_t v, off;

	if (pos & (RS_RECORD_ALIGN - 1))
		return pos;
	while (bound - pos >= sizeof(hdr)) {
		off = pos & (s->size - 1);
		v = rs_header_peek((const uint64_t *)(const void *)(data + off));
		if (!v)
			break;
		rs_memcpy(&hdr, &v, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || (hdr.size & (RS_RECORD_ALIGN - 1)) ||
		    hdr.size > bound - pos) {
			s->stats.corrupt++;
			break;
		}
		rs_memcpy(s->copy + off, &v, sizeof(v));
		copy_live(s, data, pos + sizeof(hdr), hdr.size - sizeof(hdr));
		pos += hdr.size;
		s->stats.sealed_bytes += hdr.size;
		s->stats.sealed++;
	}
	return pos;
}

static void snap_forward(struct rs_snapshot *s, struct rs_ctrl_page *c,
			 const uint8_t *data)
{
	uint64_t head = rs_read_head(&c->data_head), tail2, end;
	uint64_t tail = rs_read_tail(&c->data_tail);

	rs_memcpy(s->copy, data, s->size);
	end = head;
	if (head - tail <= s->size &&
	    (rs_acquire(&c->ext.flags) & RS_EXT_SEALED))     /* S0 */
		end = walk_sealed(s, data, head, tail + s->size);
	tail2 = rs_reread(&c->data_tail);                         /* F */
	if (head - tail > s->size || tail2 - tail > end - tail) {
		s->stats.corrupt++;
		s->stats.sealed_bytes = 0;
		s->stats.sealed = 0;
		s->start = head;
		s->limit = 0;
		return;
	}
	s->stats.cut_bytes = tail2 - tail;
	s->start = tail2;
	s->limit = end - tail2;
}

/* The ring a snapshot @s copies into @buf: -rse_invalid, -rse_mode (an
 * AUX snapshot of a ring without AUX area), -rse_too_small (@buf_size
 * below the area), or rs_region_ring's. */
static int snap_ring(const void *s, const struct rs_region *region,
		     uint32_t index, const void *buf, uint64_t buf_size,
		     int aux, struct rs_ring *ring)
{
	int err;

	if (!s || !buf)
		return -rse_invalid;
	err = rs_region_ring(region, index, ring);
	if (err)
		return err;
	if (aux && !ring->aux_size)
		return -rse_mode;
	if (buf_size < (aux ? ring->aux_size : ring->data_size))
		return -rse_too_small;
	return 0;
}

int rs_snapshot_take(struct rs_snapshot *s, const struct rs_region *region,
		     uint32_t index, void *buf, uint64_t buf_size)
{
	struct rs_ring ring;
	int err = snap_ring(s, region, index, buf, buf_size, 0, &ring);

	if (err)
		return err;
	rs_memset(&s->stats, 0, sizeof(s->stats));
	s->copy = buf;
	s->size = ring.data_size;
	s->mode = ring.data_mode;
	s->pos = 0;
	s->done = 0;
	if (ring.data_mode == RS_MODE_OVERWRITE)
		snap_overwrite(s, ring.ctrl, ring.data);
	else
		snap_forward(s, ring.ctrl, ring.data);
	return 0;
}

int rs_snapshot_next(struct rs_snapshot *s, const struct rs_perf_header **rec)
{
	struct rs_perf_header hdr, *out;
	uint64_t at;

	if (!s || !rec)
		return -rse_invalid;
	if (s->done || s->limit - s->pos < sizeof(hdr))
		goto end;
	at = s->start + s->pos;
	/* A backward ring is written downwards from position 0: reaching 0
	 * means every record ever written has been returned. */
	if (s->mode == RS_MODE_OVERWRITE && at == 0)
		goto end;
	rs_copy_from_ring(&hdr, s->copy, s->size, at, sizeof(hdr));
	if (hdr.size < sizeof(hdr) || (hdr.size & (RS_RECORD_ALIGN - 1))) {
		s->stats.corrupt++;
		goto end;
	}
	if (hdr.size > s->limit - s->pos) {
		/* Past the window: the writer reached it, either long ago (the
		 * oldest record, partly overwritten) or during the copy (cut). */
		if (s->mode != RS_MODE_OVERWRITE)
			s->stats.corrupt++;
		else if (s->pos + hdr.size > s->size)
			s->stats.overwritten = 1;
		goto end;
	}
	out = (struct rs_perf_header *)s->rec;
	rs_copy_from_ring(out, s->copy, s->size, at, hdr.size);
	s->pos += hdr.size;
	s->stats.records++;
	s->stats.bytes += hdr.size;
	if (hdr.type == RS_PERF_RECORD_LOST && hdr.size >= sizeof(struct rs_perf_lost))
		s->stats.lost += ((const struct rs_perf_lost *)out)->lost;
	*rec = out;
	return 1;
end:
	s->done = 1;
	return 0;
}

/* The heap constructors, as the consumer's (consumer.c). */
#if __STDC_HOSTED__
struct rs_snapshot *rs_snapshot_alloc(void)
{
	return calloc(1, sizeof(struct rs_snapshot));
}

void rs_snapshot_free(struct rs_snapshot *s)
{
	free(s);
}
#endif

const struct rs_snap_stats *rs_snapshot_stats(const struct rs_snapshot *s)
{
	return s ? &s->stats : (const struct rs_snap_stats *)0;
}

/*
 * Snapshot-mode AUX: the copy holds [head - size, head).  A writer may be
 * filling [head, limit), which lands on [head - size, limit - size) of the
 * copy, so the valid part starts at the later of the two.
 */
static void aux_overwrite(struct rs_aux_snapshot *a, struct rs_ctrl_page *c,
			  const uint8_t *aux, uint64_t size, uint8_t *buf)
{
	uint64_t head = rs_read_head(&c->aux_head), limit, oldest, start;

	rs_copy_from_ring(buf, aux, size, head, size);
	limit = rs_reread(&c->ext.aux_write_limit);               /* F */
	oldest = head > size ? head - size : 0;
	if (limit - head > size)      /* below head, or absurdly far: trust nothing */
		start = head;
	else
		start = limit > size && limit - size > oldest ? limit - size : oldest;
	a->head = head;
	a->overwritten = oldest;
	a->cut_bytes = start - oldest;
	a->start = start;
	a->len = head - start;
	/* buf[0] holds position head - size. */
	if (a->len && start != head - size)
		__builtin_memmove(buf, buf + (start - (head - size)), a->len);
}

static int aux_forward(struct rs_aux_snapshot *a, struct rs_ctrl_page *c,
		       const uint8_t *aux, uint64_t size, uint8_t *buf)
{
	uint64_t head = rs_read_head(&c->aux_head), tail2;
	uint64_t tail = rs_read_tail(&c->aux_tail);

	if (head - tail > size)
		return -rse_corrupt;
	rs_copy_from_ring(buf, aux, size, tail, head - tail);
	tail2 = rs_reread(&c->aux_tail);                          /* F */
	if (tail2 - tail > head - tail)
		return -rse_corrupt;
	a->head = head;
	a->overwritten = 0;
	a->cut_bytes = tail2 - tail;
	a->start = tail2;
	a->len = head - tail2;
	if (a->cut_bytes && a->len)
		__builtin_memmove(buf, buf + a->cut_bytes, a->len);
	return 0;
}

int rs_snapshot_aux(struct rs_aux_snapshot *a, const struct rs_region *region,
		    uint32_t index, void *buf, uint64_t buf_size)
{
	struct rs_ring ring;
	int err = snap_ring(a, region, index, buf, buf_size, 1, &ring);

	if (err)
		return err;
	rs_memset(a, 0, sizeof(*a));
	if (ring.aux_mode == RS_MODE_OVERWRITE) {
		aux_overwrite(a, ring.ctrl, ring.aux, ring.aux_size, buf);
		return 0;
	}
	return aux_forward(a, ring.ctrl, ring.aux, ring.aux_size, buf);
}
