/* SPDX-License-Identifier: MIT */
/*
 * The recorder: per-thread perf events and their buffers, threads that
 * come and go, reads that count every loss.
 *
 * A thread has one buffer, owned by its switch event, that its other
 * events write into (PERF_EVENT_IOC_SET_OUTPUT: same task, same clock,
 * same direction), or two when the kvm events get their own
 * (exit_pages).  A read walks each buffer (overwrite mode: a copy taken
 * with the buffer paused), decodes each record into the recorder's
 * scratch, puts the thread's events in time order and hands them on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

void hv_rec_thr_release(struct hv_rec *r, struct hv_thr *t)
{
	(void)r;
	for (uint32_t b = 0; b < t->nbuf; b++) {
		if (t->buf[b].map)
			munmap(t->buf[b].map, t->buf[b].map_len);
		t->buf[b].map = NULL;
		t->buf[b].fd = -1;
	}
	for (int s = 0; s < HV_SRC_MAX; s++) {
		if (t->fds[s] >= 0)
			close(t->fds[s]);
		t->fds[s] = -1;
	}
	t->nbuf = 0;
	t->released = 1;
}

void hv_rec_thr_mark_gone(struct hv_rec *r, struct hv_thr *t, uint64_t when)
{
	if (t->gone)
		return;
	t->gone = 1;
	t->gone_time = when;
	t->gone_seq = ++r->gone_seq;
	r->gone++;
}

void hv_rec_free(struct hv_rec *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->n; i++)
		if (r->thr[i].used && !r->thr[i].released)
			hv_rec_thr_release(r, &r->thr[i]);
	free(r->thr);
	free(r->copy);
	free(r->ev);
	free(r->ev2);
	free(r);
}

int hv_rec_new(const struct hv_rec_opts *o, struct hv_rec **out)
{
	struct hv_rec_opts d = { 0 };
	struct hv_rec *r;
	uint64_t total;
	int errs[HV_SRC_MAX];
	int ret;

	if (!out)
		return HV_ERR(hve_invalid);
	*out = NULL;
	if (o)
		d = *o;
	if (!d.data_pages)
		d.data_pages = HV_PAGES_DEFAULT;
	if (!d.sources)
		d.sources = HV_SRC_DEFAULT;
	d.sources |= HV_SRC_BIT(HV_SRC_SWITCH);
	if (!d.kinds)
		d.kinds = HV_KIND_DEFAULT;
	if (!d.max_threads)
		d.max_threads = HV_THREADS_DEFAULT;
	if (d.mode > HV_MODE_FORWARD || (d.sources & ~HV_SRC_ALL) ||
	    !is_pow2(d.data_pages) || d.data_pages > HV_PAGES_MAX ||
	    (d.exit_pages && (!is_pow2(d.exit_pages) ||
			      d.exit_pages > HV_PAGES_MAX)) ||
	    d.max_threads > HV_THREADS_MAX || (d.kinds & ~HV_KIND_ALL) ||
	    (d.tracefs && strlen(d.tracefs) >= sizeof(r->tracefs)) ||
	    (d.proc && strlen(d.proc) >= sizeof(r->proc)))
		return HV_ERR(hve_invalid);
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->page = (uint64_t)sysconf(_SC_PAGESIZE);
	strcpy(r->proc, d.proc ? d.proc : "/proc");
	if (d.tracefs)
		strcpy(r->tracefs, d.tracefs);
	d.tracefs = d.tracefs ? r->tracefs : NULL;
	d.proc = r->proc;
	r->o = d;
	ret = hv_src_load(d.tracefs, d.sources, r->tp_ids, &r->base, errs);
	if (ret) {
		free(r);
		return ret;
	}
	if (!d.tracefs && (d.sources & ~(HV_SRC_BIT(HV_SRC_SWITCH) |
					 HV_SRC_BIT(HV_SRC_MIGRATE))))
		hv_tp_tracefs_find(r->tracefs, sizeof(r->tracefs));
	/* Scratch for the largest read: one thread's buffers. */
	r->copy_size = (uint64_t)d.data_pages * r->page;
	if ((uint64_t)d.exit_pages * r->page > r->copy_size)
		r->copy_size = (uint64_t)d.exit_pages * r->page;
	total = (uint64_t)(d.data_pages + d.exit_pages) * r->page;
	r->ev_cap = (uint32_t)(total / HV_MIN_RECORD + 1);
	r->copy = malloc(r->copy_size);
	r->ev = calloc(r->ev_cap, sizeof(*r->ev));
	r->ev2 = calloc(r->ev_cap, sizeof(*r->ev2));
	if (!r->copy || !r->ev || !r->ev2) {
		hv_rec_free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

/* ---- adding a thread ---- */

static int buf_map(struct hv_rec *r, struct hv_buf *b, int fd, uint32_t pages)
{
	int prot = PROT_READ;
	void *m;

	if (r->o.mode == HV_MODE_FORWARD)
		prot |= PROT_WRITE;
	b->fd = fd;
	b->size = (uint64_t)pages * r->page;
	b->map_len = (size_t)(b->size + r->page);
	m = mmap(NULL, b->map_len, prot, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		int err = errno;

		b->map = NULL;
		return err == EPERM ? HV_ERR(hve_mlock) : -err;
	}
	b->map = m;
	return 0;
}

static int open_src(struct hv_rec *r, struct hv_thr *t, uint32_t s,
		    uint32_t pages)
{
	struct perf_event_attr a;
	uint32_t wakeup = (uint32_t)((uint64_t)pages * r->page / 2);
	int fd;

	hv_src_attr(s, r->tp_ids[s], r->o.mode == HV_MODE_OVERWRITE, wakeup, &a);
	fd = hv_src_perf_open(&a, t->id.tid);
	if (fd < 0)
		return hv_src_open_error(fd);
	t->fds[s] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &t->layout.id[s]) < 0)
		return -errno;
	return 0;
}

static int open_thread(struct hv_rec *r, struct hv_thr *t)
{
	uint32_t kvm = r->o.sources & (HV_SRC_BIT(HV_SRC_KVM_EXIT) |
				       HV_SRC_BIT(HV_SRC_KVM_ENTRY) |
				       HV_SRC_BIT(HV_SRC_KVM_UEXIT));
	int ret, owner1 = -1;

	ret = open_src(r, t, HV_SRC_SWITCH, r->o.data_pages);
	if (ret)
		return ret;
	ret = buf_map(r, &t->buf[0], t->fds[HV_SRC_SWITCH], r->o.data_pages);
	t->nbuf = 1;
	if (ret)
		return ret;
	t->sources = HV_SRC_BIT(HV_SRC_SWITCH);
	for (uint32_t s = HV_SRC_SWITCH + 1; s < HV_SRC_MAX; s++) {
		int own = 0, to;

		if (!(r->o.sources & HV_SRC_BIT(s)))
			continue;
		if ((kvm & HV_SRC_BIT(s)) && r->o.exit_pages && owner1 < 0)
			own = 1;
		ret = open_src(r, t, s, own ? r->o.exit_pages : r->o.data_pages);
		if (ret)
			return ret;
		if (own) {
			ret = buf_map(r, &t->buf[1], t->fds[s], r->o.exit_pages);
			t->nbuf = 2;
			if (ret)
				return ret;
			owner1 = t->fds[s];
		} else {
			to = (kvm & HV_SRC_BIT(s)) && owner1 >= 0 ?
			     owner1 : t->fds[HV_SRC_SWITCH];
			if (ioctl(t->fds[s], PERF_EVENT_IOC_SET_OUTPUT, to) < 0)
				return -errno;
		}
		t->sources |= HV_SRC_BIT(s);
	}
	return 0;
}

/* The thread's start time now, to tell it from a successor with its
 * tid.  0 when it is gone. */
static uint64_t start_now(struct hv_rec *r, int32_t pid, int32_t tid)
{
	char path[4200], buf[1024];
	uint64_t start = 0;
	int n;

	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", r->proc,
		 (int)(pid > 0 ? pid : tid), (int)tid);
	n = hv_thread_read_small(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0 || hv_thread_parse_stat(buf, (size_t)n, &start, NULL))
		return 0;
	return start;
}

static void tally_sum(struct hv_tally *to, const struct hv_tally *from)
{
	to->events += from->events;
	to->bytes += from->bytes;
	to->lost += from->lost;
	to->overwritten += from->overwritten;
	to->written += from->written;
	to->corrupt += from->corrupt;
	to->other += from->other;
}

static struct hv_thr *slot(struct hv_rec *r)
{
	struct hv_thr *reuse = NULL;

	for (uint32_t i = 0; i < r->n; i++)
		if (!r->thr[i].used)
			return &r->thr[i];
	if (r->n < r->o.max_threads) {
		if (r->n == r->cap) {
			uint32_t cap = r->cap ? r->cap * 2 : 16;
			struct hv_thr *t;

			if (cap > r->o.max_threads)
				cap = r->o.max_threads;
			t = realloc(r->thr, (size_t)cap * sizeof(*t));
			if (!t)
				return NULL;
			r->thr = t;
			r->cap = cap;
		}
		return &r->thr[r->n++];
	}
	/* Full: the longest gone thread gives its entry up. */
	for (uint32_t i = 0; i < r->n; i++)
		if (r->thr[i].gone &&
		    (!reuse || r->thr[i].gone_seq < reuse->gone_seq))
			reuse = &r->thr[i];
	if (reuse) {
		if (!reuse->released)
			hv_rec_thr_release(r, reuse);
		tally_sum(&r->old, &reuse->t);
		r->forgotten++;
	}
	return reuse;
}

int hv_rec_add(struct hv_rec *r, const struct hv_thread_id *id)
{
	struct hv_thr *t;
	int ret;

	if (!r || !id || id->tid <= 0)
		return HV_ERR(hve_invalid);
	for (uint32_t i = 0; i < r->n; i++)
		if (r->thr[i].used && !r->thr[i].gone &&
		    r->thr[i].id.tid == id->tid)
			return -EEXIST;
	t = slot(r);
	if (!t)
		return r->n < r->o.max_threads ? -ENOMEM : HV_ERR(hve_too_many);
	memset(t, 0, sizeof(*t));
	t->id = *id;
	t->layout = r->base;
	for (int s = 0; s < HV_SRC_MAX; s++)
		t->fds[s] = -1;
	t->buf[0].fd = t->buf[1].fd = -1;
	ret = open_thread(r, t);
	if (!ret && id->start && start_now(r, id->pid, id->tid) != id->start)
		ret = -ESRCH;        /* the tid names another thread now */
	if (ret) {
		hv_rec_thr_release(r, t);
		memset(t, 0, sizeof(*t));
		if (ret == -ESRCH)
			r->gone++;
		else
			r->failed++;
		return ret;
	}
	t->used = 1;
	r->added++;
	return 0;
}

int hv_rec_follow(struct hv_rec *r, int32_t pid)
{
	struct hv_refresh rf;
	int ret;

	if (!r || pid <= 0 || r->pid)
		return HV_ERR(hve_invalid);
	r->pid = pid;
	ret = hv_rec_refresh(r, &rf);
	if (ret)
		return ret;
	if (rf.process_gone && !rf.added)
		return -ESRCH;
	if (!rf.added && rf.failed)
		return rf.error;
	return (int)rf.added;
}

int hv_rec_refresh(struct hv_rec *r, struct hv_refresh *out)
{
	struct hv_thread_id *now;
	uint32_t found = 0, max;
	int ret;

	if (!r || !out || !r->pid)
		return HV_ERR(hve_invalid);
	memset(out, 0, sizeof(*out));
	max = r->o.max_threads;
	now = calloc(max, sizeof(*now));
	if (!now)
		return -ENOMEM;
	ret = hv_thread_scan(r->proc, r->pid, r->o.kinds, now, max, &found);
	if (ret == -ESRCH) {
		out->process_gone = 1;
		found = 0;
	} else if (ret) {
		free(now);
		return ret;
	}
	if (found > max)
		found = max;
	for (uint32_t i = 0; i < r->n; i++) {
		struct hv_thr *t = &r->thr[i];
		uint32_t j;

		if (!t->used || t->gone)
			continue;
		for (j = 0; j < found; j++)
			if (now[j].tid == t->id.tid &&
			    (!t->id.start || now[j].start == t->id.start))
				break;
		if (j == found) {
			hv_rec_thr_mark_gone(r, t, hv_src_now_ns());
			out->gone++;
		}
	}
	for (uint32_t j = 0; j < found; j++) {
		uint32_t i;

		for (i = 0; i < r->n; i++)
			if (r->thr[i].used && !r->thr[i].gone &&
			    r->thr[i].id.tid == now[j].tid)
				break;
		if (i < r->n)
			continue;
		ret = hv_rec_add(r, &now[j]);
		if (!ret) {
			out->added++;
		} else if (ret != -ESRCH) {
			out->failed++;
			if (!out->error)
				out->error = ret;
		}
	}
	free(now);
	r->refresh_due = 0;
	return 0;
}

/* ---- tallies ---- */

uint32_t hv_rec_count(const struct hv_rec *r)
{
	uint32_t n = 0;

	if (!r)
		return 0;
	for (uint32_t i = 0; i < r->n; i++)
		n += r->thr[i].used;
	return n;
}

/* The @i-th used entry. */
static const struct hv_thr *nth(const struct hv_rec *r, uint32_t i)
{
	for (uint32_t k = 0; k < r->n; k++)
		if (r->thr[k].used && i-- == 0)
			return &r->thr[k];
	return NULL;
}

static uint64_t thr_mem(const struct hv_thr *t)
{
	uint64_t m = 0;

	for (uint32_t b = 0; b < t->nbuf; b++)
		if (t->buf[b].map)
			m += t->buf[b].map_len;
	return m;
}

int hv_rec_stats(const struct hv_rec *r, uint32_t i, struct hv_thread_stats *out)
{
	const struct hv_thr *t;

	if (!r || !out || !(t = nth(r, i)))
		return HV_ERR(hve_invalid);
	memset(out, 0, sizeof(*out));
	out->id = t->id;
	out->sources = t->sources;
	out->gone = t->gone;
	out->gone_time = t->gone_time;
	out->events = t->t.events;
	out->bytes = t->t.bytes;
	out->lost = t->t.lost;
	out->overwritten = t->t.overwritten;
	out->written = t->t.written;
	out->corrupt = t->t.corrupt;
	out->other = t->t.other;
	out->mem = thr_mem(t);
	return 0;
}

void hv_rec_totals(const struct hv_rec *r, struct hv_rec_totals *out)
{
	struct hv_tally sum;

	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!r)
		return;
	sum = r->old;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct hv_thr *t = &r->thr[i];

		if (!t->used)
			continue;
		out->threads++;
		if (!t->gone)
			out->live++;
		tally_sum(&sum, &t->t);
		out->mem += thr_mem(t);
		for (int s = 0; s < HV_SRC_MAX; s++)
			out->fds += t->fds[s] >= 0;
	}
	out->added = r->added;
	out->gone = r->gone;
	out->failed = r->failed;
	out->forgotten = r->forgotten;
	out->events = sum.events;
	out->lost = sum.lost;
	out->overwritten = sum.overwritten;
	out->corrupt = sum.corrupt;
}

uint32_t hv_rec_pollfds(const struct hv_rec *r, struct pollfd *fds, uint32_t max)
{
	uint32_t n = 0;

	if (!r || !fds)
		return 0;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct hv_thr *t = &r->thr[i];

		if (!t->used || t->released)
			continue;
		for (uint32_t b = 0; b < t->nbuf && n < max; b++) {
			fds[n].fd = t->buf[b].fd;
			fds[n].events = POLLIN;
			fds[n].revents = 0;
			n++;
		}
	}
	return n;
}
