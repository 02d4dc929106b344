/* SPDX-License-Identifier: MIT */
/*
 * Walking a perf buffer's data area.  Positions are free-running; the
 * area's size is the caller's own (the mapping it made), never the
 * kernel page's data_size.  Each record is copied out before it is
 * handed on, so a record that wraps the area's end arrives whole, and
 * nothing the kernel writes later changes what the caller reads.  Every
 * loop is bounded by the area's size.
 */
#include <string.h>

#include "internal.h"

#define MAX_RECORD 65536u   /* a perf record's size is a u16 */

static void copy_out(const uint8_t *data, uint64_t size, uint64_t pos,
		     void *dst, uint32_t len)
{
	uint64_t off = pos & (size - 1);
	uint64_t first = size - off;

	if (first >= len) {
		memcpy(dst, data + off, len);
	} else {
		memcpy(dst, data + off, (size_t)first);
		memcpy((uint8_t *)dst + first, data, (size_t)(len - first));
	}
}

static int bad_size(uint64_t size)
{
	return size < 8 || (size & (size - 1));
}

int hv_ring_walk_forward(const uint8_t *data, uint64_t size, uint64_t tail,
			 uint64_t head, hv_record_fn fn, void *arg,
			 struct hv_walk *w)
{
	uint64_t rec[MAX_RECORD / 8];
	uint64_t avail, done = 0;

	if (!data || !fn || !w || bad_size(size))
		return HV_ERR(hve_invalid);
	memset(w, 0, sizeof(*w));
	w->end = tail;
	avail = head - tail;
	if (avail > size) {
		/* A head more than a buffer ahead: nothing between them can
		 * be told apart from what was overwritten. */
		w->corrupt = 1;
		w->end = head;
		return 0;
	}
	while (done < avail) {
		struct perf_event_header h;
		int ret;

		if (avail - done < sizeof(h)) {
			w->corrupt = 1;
			break;
		}
		copy_out(data, size, tail + done, &h, sizeof(h));
		if (h.size < sizeof(h) || (h.size & 7) || h.size > avail - done) {
			w->corrupt = 1;
			break;
		}
		copy_out(data, size, tail + done, rec, h.size);
		done += h.size;
		w->records++;
		w->bytes += h.size;
		w->end = tail + done;
		ret = fn(arg, rec, h.size);
		if (ret)
			return ret;
	}
	/* A stop at a bad header skips the rest of what is there: the
	 * caller's tail moves to head, the bytes counted as corrupt. */
	if (w->corrupt)
		w->end = head;
	return 0;
}

int hv_ring_walk_backward(const uint8_t *data, uint64_t size, uint64_t head,
			  uint64_t limit, hv_record_fn fn, void *arg,
			  struct hv_walk *w)
{
	uint64_t rec[MAX_RECORD / 8];
	uint64_t done = 0;

	if (!data || !fn || !w || bad_size(size))
		return HV_ERR(hve_invalid);
	memset(w, 0, sizeof(*w));
	if (limit > size)
		limit = size;
	while (limit - done >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		int ret;

		copy_out(data, size, head + done, &h, sizeof(h));
		if (h.size == 0)
			break;               /* never written */
		if (h.size < sizeof(h) || (h.size & 7)) {
			w->corrupt = 1;
			break;
		}
		if (h.size > limit - done)
			break;               /* its start was written over */
		copy_out(data, size, head + done, rec, h.size);
		done += h.size;
		w->records++;
		w->bytes += h.size;
		ret = fn(arg, rec, h.size);
		if (ret) {
			w->end = head + done;
			return ret;
		}
	}
	w->end = head + done;
	return 0;
}
