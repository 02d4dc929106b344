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

#endif
