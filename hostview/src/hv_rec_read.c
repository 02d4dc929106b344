/* SPDX-License-Identifier: MIT */
/*
 * The recorder's reads: each thread's buffer walked (forward, or a paused
 * overwrite buffer's copy newest first), its records decoded, put in
 * time order and handed on, every loss counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>

#include "internal.h"

static int collect(void *arg, const void *rec, uint32_t len)
{
	struct hv_rec *r = arg;
	struct hv_thr *t = r->cur;
	struct hv_ev ev;

	t->t.bytes += len;
	if (hv_decode(&t->layout, rec, len, &ev)) {
		t->t.corrupt++;
		return 0;
	}
	if (ev.type == HV_EV_OTHER) {
		t->t.other++;
		return 0;
	}
	if (r->nev == r->ev_cap) {
		t->t.corrupt++;      /* cannot happen: ev_cap bounds a walk */
		return 0;
	}
	r->ev[r->nev++] = ev;
	return 0;
}

static uint64_t load_head(const struct hv_buf *b)
{
	const struct perf_event_mmap_page *p = (const void *)b->map;

	return __atomic_load_n(&p->data_head, __ATOMIC_ACQUIRE);
}

static void read_forward(struct hv_rec *r, struct hv_thr *t, struct hv_buf *b)
{
	struct perf_event_mmap_page *p = (void *)b->map;
	uint64_t head = load_head(b);
	struct hv_walk w;

	hv_ring_walk_forward(b->map + r->page, b->size, b->tail, head,
			     collect, r, &w);
	if (w.corrupt)
		t->t.corrupt++;
	b->tail = w.end;
	__atomic_store_n(&p->data_tail, b->tail, __ATOMIC_RELEASE);
}

static void reverse(struct hv_ev *ev, uint32_t n)
{
	for (uint32_t i = 0; i < n / 2; i++) {
		struct hv_ev x = ev[i];

		ev[i] = ev[n - 1 - i];
		ev[n - 1 - i] = x;
	}
}

/* Returns the head it read at. */
static uint64_t read_backward(struct hv_rec *r, struct hv_thr *t,
			      struct hv_buf *b, uint32_t how)
{
	uint64_t head, written, fresh, limit, moved, usable;
	uint32_t first = r->nev;
	struct hv_walk w;

	/* Nothing written since the last look: nothing to copy. */
	if (how == HV_READ_NEW && load_head(b) == b->last_head)
		return b->last_head;
	/* The kernel counts what it drops while paused and says so in a
	 * LOST record once resumed. */
	ioctl(b->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
	head = load_head(b);
	memcpy(r->copy, b->map + r->page, (size_t)b->size);
	moved = head - load_head(b);
	ioctl(b->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	/* A record begun before the pause is finished after it, downward
	 * from head: over the oldest bytes of the copy.  What was published
	 * during the copy, and a slack for what was still being written,
	 * are left out of the walk. */
	usable = b->size > moved + HV_INFLIGHT ? b->size - moved - HV_INFLIGHT : 0;
	written = 0 - head;          /* written downward from 0 */
	fresh = b->last_head - head;
	if (how == HV_READ_ALL) {
		limit = written < usable ? written : usable;
	} else {
		limit = fresh < usable ? fresh : usable;
		b->last_head = head;
	}
	hv_ring_walk_backward(r->copy, b->size, head, limit, collect, r, &w);
	if (w.corrupt)
		t->t.corrupt++;
	/* Every byte written since the last look that this one did not
	 * take was written over (or lay past an impossible record). */
	if (how == HV_READ_NEW)
		t->t.overwritten += fresh - (w.end - head);
	reverse(r->ev + first, r->nev - first);
	return head;
}

/* Two runs of events, each in time order, merged into one (stable). */
static void merge(struct hv_rec *r, uint32_t split)
{
	uint32_t i = 0, j = split, k = 0;

	while (i < split || j < r->nev) {
		if (j >= r->nev || (i < split && r->ev[i].time <= r->ev[j].time))
			r->ev2[k++] = r->ev[i++];
		else
			r->ev2[k++] = r->ev[j++];
	}
	memcpy(r->ev, r->ev2, (size_t)k * sizeof(*r->ev));
}

static int read_thread(struct hv_rec *r, struct hv_thr *t, uint32_t how,
		       hv_ev_fn fn, void *arg, uint64_t *handed)
{
	uint64_t written = 0;
	uint32_t split = 0;
	int ret = 0;

	r->cur = t;
	r->nev = 0;
	for (uint32_t b = 0; b < t->nbuf; b++) {
		if (b == 1)
			split = r->nev;
		if (r->o.mode == HV_MODE_FORWARD) {
			read_forward(r, t, &t->buf[b]);
			written += load_head(&t->buf[b]);
		} else {
			written += 0 - read_backward(r, t, &t->buf[b], how);
		}
	}
	t->t.written = written;
	if (t->nbuf == 2)
		merge(r, split);
	for (uint32_t i = 0; i < r->nev; i++) {
		const struct hv_ev *ev = &r->ev[i];

		t->t.events++;
		switch (ev->type) {
		case HV_EV_LOST:
			t->t.lost += ev->count;
			break;
		case HV_EV_EXIT:
			if (ev->tid == (uint32_t)t->id.tid) {
				t->exit_seen = 1;
				if (!t->gone)
					hv_rec_thr_mark_gone(r, t, ev->time);
				else
					t->gone_time = ev->time;
			}
			r->refresh_due = 1;
			break;
		case HV_EV_FORK:
			r->refresh_due = 1;
			break;
		}
		if (ret)
			continue;
		if (fn)
			ret = fn(arg, &t->id, ev);
		if (!ret)
			(*handed)++;
	}
	return ret;
}

static uint32_t gone_held(const struct hv_rec *r, struct hv_thr **oldest)
{
	uint32_t held = 0;

	*oldest = NULL;
	for (uint32_t i = 0; i < r->n; i++) {
		struct hv_thr *t = &r->thr[i];

		if (!t->used || !t->gone || t->released)
			continue;
		held++;
		if (!*oldest || t->gone_seq < (*oldest)->gone_seq)
			*oldest = t;
	}
	return held;
}

int hv_rec_read(struct hv_rec *r, uint32_t how, hv_ev_fn fn, void *arg)
{
	uint64_t handed = 0;
	struct hv_thr *oldest;
	int ret = 0;

	if (!r || how > HV_READ_ALL)
		return HV_ERR(hve_invalid);
	for (uint32_t i = 0; i < r->n && !ret; i++) {
		struct hv_thr *t = &r->thr[i];

		if (!t->used || t->released)
			continue;
		ret = read_thread(r, t, how, fn, arg, &handed);
		/* A gone thread's last records have been read: forward,
		 * they are delivered; overwrite, a capture has them. */
		if (t->gone && (r->o.mode == HV_MODE_FORWARD ||
				how == HV_READ_ALL))
			hv_rec_thr_release(r, t);
	}
	while (gone_held(r, &oldest) > HV_GONE_HELD)
		hv_rec_thr_release(r, oldest);
	if (ret)
		return ret;
	if (handed > HV_REFRESH_DUE - 1)
		handed = HV_REFRESH_DUE - 1;
	return (int)handed | (r->refresh_due ? HV_REFRESH_DUE : 0);
}

