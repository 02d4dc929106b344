/* SPDX-License-Identifier: MIT */
/* What the library's files share and nobody else sees. */
#ifndef HV_INTERNAL_H
#define HV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "ringside/hv_parse.h"
#include "ringside/hv_rec.h"

/* Reads at most @cap - 1 bytes of @path (relative to @dirfd) into @buf,
 * NUL-terminated.  The length, or -errno. */
int hv_thread_read_small(int dirfd, const char *path, char *buf, size_t cap);

/* The perf_event_attr of source @src (a tracepoint's @tp_id), for a
 * buffer written backward or not; forward buffers wake a poller at
 * @wakeup bytes. */
void hv_src_attr(uint32_t src, uint32_t tp_id, int backward, uint32_t wakeup,
		 struct perf_event_attr *attr);

/* perf_event_open(attr, tid, -1, group -1, CLOEXEC): the fd or -errno. */
int hv_src_perf_open(struct perf_event_attr *attr, int32_t tid);

/* A perf_event_open or mmap failure in hostview's words: EACCES/EPERM
 * are HV_ERR(hve_perm), ENOSYS HV_ERR(hve_no_perf); the rest as they
 * are. */
int hv_src_open_error(int err);

/* The tracepoint a kvm source reads, and the fields it wants. */
struct hv_tp_want {
	const char *event;
	const char *const *fields;
	uint32_t nfields;
};
const struct hv_tp_want *hv_src_tp(uint32_t src);

/* Loads every tracepoint @sources need under @tracefs: ids into @ids
 * (per source), fields into @l.  0 or the first failure; a source that
 * fails has ids[src] = 0. */
int hv_src_load(const char *tracefs, uint32_t sources, uint32_t *ids,
		struct hv_layout *l, int *errs);

/* CLOCK_MONOTONIC now, ns. */
uint64_t hv_src_now_ns(void);

/* ---- the recorder (hv_rec.c, hv_rec_read.c) ---- */

#define HV_GONE_HELD 64u     /* gone threads whose flight recorders wait
			      * for a capture (HV_READ_ALL) */
#define HV_MIN_RECORD 40u    /* the least a decodable record takes */
#define HV_INFLIGHT 512u     /* overwrite mode: the oldest bytes of a copy
			      * that a record begun before a pause may
			      * still be writing over (a few records) */

struct hv_buf {
	int fd;              /* the owner event; -1: none */
	uint8_t *map;
	size_t map_len;
	uint64_t size;       /* data bytes: our own figure */
	uint64_t tail;       /* forward: what we have read */
	uint64_t last_head;  /* overwrite: head at the last HV_READ_NEW */
};

struct hv_tally {
	uint64_t events, bytes, lost, overwritten, written, corrupt, other;
};

struct hv_thr {
	struct hv_thread_id id;
	struct hv_layout layout;
	int fds[HV_SRC_MAX];
	struct hv_buf buf[2];
	uint32_t nbuf;
	uint32_t sources;
	uint32_t used;       /* the slot holds a thread */
	uint32_t gone;
	uint32_t released;   /* its events closed, buffers unmapped */
	uint32_t exit_seen;
	uint64_t gone_time;
	uint64_t gone_seq;   /* order of going, for HV_GONE_HELD */
	struct hv_tally t;
};

struct hv_rec {
	struct hv_rec_opts o;
	char tracefs[4096];
	char proc[4096];
	uint32_t tp_ids[HV_SRC_MAX];
	struct hv_layout base;   /* the tracepoints' fields */
	struct hv_thr *thr;
	uint32_t n, cap;
	int32_t pid;             /* followed; 0: none */
	uint64_t page;
	uint64_t added, gone, failed, forgotten, gone_seq;
	struct hv_tally old;     /* of forgotten entries */
	/* one read's scratch */
	uint8_t *copy;           /* a paused buffer's bytes */
	uint64_t copy_size;
	struct hv_ev *ev, *ev2;
	uint32_t nev, ev_cap;
	uint32_t refresh_due;
	struct hv_thr *cur;      /* the thread being read */
};

/* A thread's events closed and its buffers unmapped (what it recorded
 * is read first); its going noted at @when. */
void hv_rec_thr_release(struct hv_rec *r, struct hv_thr *t);
void hv_rec_thr_mark_gone(struct hv_rec *r, struct hv_thr *t, uint64_t when);

#endif
