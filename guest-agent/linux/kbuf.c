/* SPDX-License-Identifier: MIT */
/*
 * One guest CPU's perf events and the kernel ring buffer they share: the
 * cpu-clock sampler owns the buffer, the tracepoints are redirected into it
 * (PERF_EVENT_IOC_SET_OUTPUT), so one reader sees one CPU in time order.
 *
 * The buffer follows the kernel's contract (perf_event_open(2), "The
 * mmap layout"): the kernel writes records, then store-releases data_head
 * (A); we load-acquire data_head (B), read the records, then store-release
 * data_tail (C); the kernel reads data_tail with a full barrier (D) before
 * reusing space.  A pairs with B, C with D.  read_head() and write_tail()
 * below are the only places that order memory, through the ring library.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ringside/abi.h"

#include "agent.h"

/* The mmap page is a struct rs_ctrl_page as far as these two go (abi.h
 * asserts the offsets; tests/ring/test_abi.c compares with the kernel's). */
static uint64_t read_head(const struct perf_event_mmap_page *pg)
{
	return rs_perf_page_read_head((const void *)pg);                /* B */
}

static void write_tail(struct perf_event_mmap_page *pg, uint64_t tail)
{
	rs_perf_page_publish_tail((void *)pg, tail);                    /* C */
}

static int perf_open(struct perf_event_attr *a, int cpu)
{
	long fd = syscall(SYS_perf_event_open, a, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* What every event of the agent shares: layout and clock of its samples. */
static void attr_base(struct perf_event_attr *a, const struct agent_events *ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = ev->sample_type;
	a->disabled = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;   /* the markers' clock too */
	a->sample_id_all = 1;           /* every record timed (agent_kbuf_peek) */
}

static int open_tracepoints(struct kbuf *k, const struct agent_events *ev)
{
	struct perf_event_attr a;
	uint32_t i;
	int fd;

	for (i = 0; i < ev->nr_tps; i++) {
		attr_base(&a, ev);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = ev->tp_id[i];
		a.sample_period = 1;
		fd = perf_open(&a, k->cpu);
		if (fd < 0)
			return fd;
		k->tp_fd[k->nr_tp++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, k->fd))
			return -errno;
	}
	return 0;
}

void agent_kbuf_sample_attr(struct perf_event_attr *a, const struct agent_events *ev)
{
	attr_base(a, ev);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = ev->freq;
	a->comm = 1;                /* the kernel's own COMM at exec/prctl */
	a->comm_exec = 1;
	a->task = 1;                /* FORK: a tid's name is not a dead one's */
	a->mmap = 1;                /* and MMAP2 of code mapped, with the */
	a->mmap2 = 1;               /* file's build id, as perf asks for them */
	a->build_id = 1;
	a->watermark = 1;
}

int agent_kbuf_open(struct kbuf *k, int cpu, const struct agent_events *ev)
{
	struct perf_event_attr a;
	size_t len;
	int err;

	k->cpu = cpu;
	k->fd = -1;
	k->nr_tp = 0;
	k->base = NULL;
	k->tail = 0;
	k->have = 0;
	k->sample_type = ev->sample_type;
	k->data_size = (uint64_t)ev->buf_pages * RS_PAGE_SIZE;
	agent_kbuf_sample_attr(&a, ev);
	a.wakeup_watermark = ev->watermark && ev->watermark < k->data_size ?
			     ev->watermark : (uint32_t)(k->data_size / 2);
	err = perf_open(&a, cpu);
	if (err == -EINVAL) {       /* a kernel before 5.12: dev and inode */
		a.build_id = 0;
		err = perf_open(&a, cpu);
	}
	if (err < 0)
		return err;
	k->fd = err;
	len = (size_t)(k->data_size + RS_PAGE_SIZE);
	k->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, 0);
	if (k->base == MAP_FAILED) {
		err = -errno;
		k->base = NULL;
		agent_kbuf_close(k);
		return err;
	}
	err = open_tracepoints(k, ev);
	if (err)
		agent_kbuf_close(k);
	return err;
}

int agent_kbuf_enable(struct kbuf *k, int on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	uint32_t i;

	if (ioctl(k->fd, req, 0))
		return -errno;
	for (i = 0; i < k->nr_tp; i++)
		if (ioctl(k->tp_fd[i], req, 0))
			return -errno;
	return 0;
}

void agent_kbuf_close(struct kbuf *k)
{
	uint32_t i;

	for (i = 0; i < k->nr_tp; i++)
		close(k->tp_fd[i]);
	k->nr_tp = 0;
	if (k->base)
		munmap(k->base, (size_t)(k->data_size + RS_PAGE_SIZE));
	k->base = NULL;
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* Copy @len bytes at ring position @pos out of the data area, wrapping. */
static void copy_out(const struct kbuf *k, uint64_t pos, void *dst, size_t len)
{
	const uint8_t *data = (const uint8_t *)k->base + RS_PAGE_SIZE;
	size_t off = (size_t)(pos & (k->data_size - 1));
	size_t first = len < k->data_size - off ? len : (size_t)(k->data_size - off);

	memcpy(dst, data + off, first);
	memcpy((uint8_t *)dst + first, data, len - first);
}

/* Bytes of the sample_id trailer the kernel puts after every record but
 * a sample (perf_event_open(2), sample_id_all), and where its time is. */
static uint32_t trailer_size(uint64_t type, uint32_t *time_at)
{
	static const uint64_t fields[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	uint32_t n = 0, i;

	*time_at = UINT32_MAX;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!(type & fields[i]))
			continue;
		if (fields[i] == PERF_SAMPLE_TIME)
			*time_at = n;
		n += 8;
	}
	return n;
}

/* Where a sample's TIME is (IDENTIFIER, IP, TID come before it), for
 * @type; 0: its samples have none. */
static uint32_t sample_time_at(uint64_t type)
{
	if (!(type & PERF_SAMPLE_TIME))
		return 0;
	return (uint32_t)sizeof(struct rs_perf_header) +
	       ((type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0) +
	       ((type & PERF_SAMPLE_IP) ? 8 : 0) +
	       ((type & PERF_SAMPLE_TID) ? 8 : 0);
}

uint32_t agent_kbuf_tid_at(uint64_t type)
{
	if (!(type & PERF_SAMPLE_TID))
		return 0;
	return (uint32_t)sizeof(struct rs_perf_header) +
	       ((type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0) +
	       ((type & PERF_SAMPLE_IP) ? 8 : 0);
}

/* The copied record's time (0: none), its trailer taken off. */
static uint64_t take_time(struct kbuf *k)
{
	struct rs_perf_header *h = (void *)k->rec;
	uint64_t t = 0;
	uint32_t at, size;

	if (h->type == PERF_RECORD_SAMPLE) {
		if (k->time_at && k->time_at + 8 <= h->size)
			memcpy(&t, k->rec + k->time_at, 8);
		return t;
	}
	size = trailer_size(k->sample_type, &at);
	if (!size || h->size < sizeof(*h) + size)
		return 0;
	h->size = (uint16_t)(h->size - size);
	if (at != UINT32_MAX)
		memcpy(&t, k->rec + h->size + at, 8);
	return t;
}

void agent_kbuf_begin(struct kbuf *k, uint64_t max)
{
	k->head = read_head(k->base);
	k->end = k->head - k->tail > max ? k->tail + max : k->head;
	k->have = 0;
	k->time_at = sample_time_at(k->sample_type);
	k->tid_at = agent_kbuf_tid_at(k->sample_type);
}

/*
 * A sample that does not wrap the buffer's end is read where it is: the
 * space up to head is the reader's until agent_kbuf_end gives it back, and a
 * sample keeps every byte.  Anything else is copied (a record that wraps,
 * one whose trailer comes off).
 */
const struct rs_perf_header *agent_kbuf_peek(struct kbuf *k, uint64_t *time)
{
	const uint8_t *data = (const uint8_t *)k->base + RS_PAGE_SIZE;
	struct rs_perf_header h;
	uint64_t off;

	if (!k->have) {
		if (k->tail >= k->end)
			return NULL;
		/* records are 8-aligned: a header never wraps */
		off = k->tail & (k->data_size - 1);
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > k->head - k->tail) {
			/* cannot happen with a sane kernel */
			k->tail = k->end = k->head;
			return NULL;
		}
		if (h.type == PERF_RECORD_SAMPLE && off + h.size <= k->data_size) {
			k->cur = data + off;
			k->time = 0;
			if (k->time_at && k->time_at + 8 <= h.size)
				memcpy(&k->time, k->cur + k->time_at, 8);
		} else {
			copy_out(k, k->tail, k->rec, h.size);
			k->time = take_time(k);
			k->cur = k->rec;
		}
		k->have = h.size;
	}
	*time = k->time;
	return (const void *)k->cur;
}

void agent_kbuf_next(struct kbuf *k)
{
	k->tail += (uint64_t)k->have;
	k->have = 0;
}

void agent_kbuf_end(struct kbuf *k)
{
	k->have = 0;
	write_tail(k->base, k->tail);
}

int agent_kbuf_drain(struct kbuf *k, uint64_t max, kbuf_fn fn, void *arg)
{
	const struct rs_perf_header *rec;
	uint64_t time;
	int n = 0;

	agent_kbuf_begin(k, max);
	while ((rec = agent_kbuf_peek(k, &time)) != NULL) {
		fn(rec, arg);
		agent_kbuf_next(k);
		n++;
	}
	agent_kbuf_end(k);
	return n;
}

/*
 * A pass in runs.  Phase one walks each buffer's headers and notes its
 * breaks: the records that are not samples (and a sample that wraps the
 * buffer's end), with their times.  Phase two takes the breaks in time
 * order across the CPUs (then by CPU, as a merge of the CPUs' streams by
 * time would have them); before each, every CPU's samples older than it
 * go out (on its own CPU, those before it in the buffer), as runs of
 * samples that lie one after the other in the buffer; after the last,
 * the rest.  So a record that changes the processes reaches the sink
 * after every sample older than it and before every newer one, on any
 * CPU.  Phase one also notes where each run must end (the buffer's end,
 * KBUF_RUN_MAX) and where the sampled thread changes, so a sample is
 * read once for its header and its pid and tid (and, while a break of
 * another CPU waits, again for its time), and nothing else.
 */
#define KBUF_BREAKS  4096u            /* breaks per pass; the rest waits */
#define KBUF_SPLITS  8192u            /* run ends per pass; the rest waits */
#define KBUF_THREADS 8192u            /* thread changes per pass; likewise */
#define KBUF_RUN_MAX (16u * 1024u)    /* bytes of a run at most */

/* A record's place in its CPU's pass: where, and how many of the pass's
 * records come before it. */
struct kbreak {
	uint64_t pos, time;
	uint32_t idx;
};

struct ksplit {
	uint64_t pos;
	uint32_t idx;
};

static struct {
	struct kbreak brk[KBUF_BREAKS];
	uint32_t nr;
	uint32_t first[AGENT_MAX_CPUS];   /* each CPU's breaks, in order */
	uint32_t count[AGENT_MAX_CPUS];
	uint32_t next[AGENT_MAX_CPUS];    /* the next one not taken */
	/* Phase one also notes where a run of samples must end (the
	 * buffer's end, KBUF_RUN_MAX), so that a flush without a cut takes
	 * its runs from these, not from the samples again. */
	struct ksplit split[KBUF_SPLITS];
	uint32_t nr_split;
	uint32_t split_first[AGENT_MAX_CPUS];
	uint32_t split_count[AGENT_MAX_CPUS];
	uint32_t split_next[AGENT_MAX_CPUS];
	/* and where the sampled thread changes: at thr_pos[i] begin
	 * thr[i]'s samples (each CPU's first sample of the pass is one) */
	uint64_t thr_pos[KBUF_THREADS];
	struct kbuf_thread thr[KBUF_THREADS];
	uint32_t nr_thr;
	uint32_t thr_first[AGENT_MAX_CPUS];
	uint32_t thr_count[AGENT_MAX_CPUS];
	uint32_t thr_next[AGENT_MAX_CPUS];  /* the one sampled at the tail */
	uint32_t idx[AGENT_MAX_CPUS];     /* records taken of the pass */
	uint32_t total[AGENT_MAX_CPUS];   /* records of the pass, to its end */
	uint8_t bad[AGENT_MAX_CPUS];      /* a header no kernel writes: the
					   * rest of the buffer skipped */
} pass;

/* @len bytes at ring position @pos, wrapping, as a u64 (a time). */
static uint64_t read_u64(const struct kbuf *k, uint64_t pos)
{
	uint64_t v;

	copy_out(k, pos, &v, sizeof(v));
	return v;
}

/* The time of the record at @pos with header @h: a sample's own, the
 * trailer's of any other (0: none). */
static uint64_t time_at(const struct kbuf *k, uint64_t pos,
			const struct rs_perf_header *h)
{
	uint32_t at, size;

	if (h->type == PERF_RECORD_SAMPLE)
		return k->time_at && k->time_at + 8 <= h->size ?
		       read_u64(k, pos + k->time_at) : 0;
	size = trailer_size(k->sample_type, &at);
	if (!size || h->size < sizeof(*h) + size || at == UINT32_MAX)
		return 0;
	return read_u64(k, pos + h->size - size + at);
}

/* Phase one for CPU @c's buffer. */
static void note_breaks(struct kbuf *k, uint32_t c)
{
	const uint8_t *data = (const uint8_t *)k->base + RS_PAGE_SIZE;
	struct rs_perf_header h;
	uint64_t pos, off;

	uint64_t run = k->tail;   /* where the run in progress began */
	uint32_t idx = 0, v[2], last[2] = { 0, 0 };
	int any = 0;

	agent_kbuf_begin(k, k->data_size);
	pass.first[c] = pass.nr;
	pass.count[c] = pass.next[c] = 0;
	pass.split_first[c] = pass.nr_split;
	pass.split_count[c] = pass.split_next[c] = 0;
	pass.thr_first[c] = pass.nr_thr;
	pass.thr_count[c] = pass.thr_next[c] = 0;
	pass.idx[c] = 0;
	pass.bad[c] = 0;
	for (pos = k->tail; pos < k->end; pos += h.size, idx++) {
		off = pos & (k->data_size - 1);
		memcpy(&h, data + off, sizeof(h));   /* never wraps */
		if (h.size < sizeof(h) || (h.size & 7u) || h.size > k->head - pos) {
			pass.bad[c] = 1;             /* no sane kernel's */
			k->end = pos;
			break;
		}
		if (h.type == PERF_RECORD_SAMPLE && off + h.size <= k->data_size) {
			/* a run lies in one piece, and is not too long */
			if (pos != run && (off == 0 ||
					   pos + h.size - run > KBUF_RUN_MAX)) {
				if (pass.nr_split == KBUF_SPLITS) {
					k->end = pos;        /* the next pass's */
					break;
				}
				pass.split[pass.nr_split].pos = pos;
				pass.split[pass.nr_split].idx = idx;
				pass.nr_split++;
				pass.split_count[c]++;
				run = pos;
			}
			if (!k->tid_at || k->tid_at + sizeof(v) > h.size)
				continue;
			memcpy(v, data + off + k->tid_at, sizeof(v));
			if (any && v[0] == last[0] && v[1] == last[1])
				continue;
			if (pass.nr_thr == KBUF_THREADS) {
				k->end = pos;                /* the next pass's */
				break;
			}
			pass.thr_pos[pass.nr_thr] = pos;
			pass.thr[pass.nr_thr].pid = v[0];
			pass.thr[pass.nr_thr].tid = v[1];
			pass.nr_thr++;
			pass.thr_count[c]++;
			last[0] = v[0];
			last[1] = v[1];
			any = 1;
			continue;
		}
		if (pass.nr == KBUF_BREAKS) {        /* the next pass's */
			k->end = pos;
			break;
		}
		pass.brk[pass.nr].pos = pos;
		pass.brk[pass.nr].time = time_at(k, pos, &h);
		pass.brk[pass.nr].idx = idx;
		pass.nr++;
		pass.count[c]++;
		run = pos + h.size;
	}
	pass.total[c] = idx;
}

/* A run of CPU @c's samples, [@start, @end), @nr of them, to @s with
 * the threads it sampled: the one at @start (the last change at or
 * before it) and every change up to @end, as phase one noted them. */
static void emit(const struct kbuf *k, uint32_t c, uint64_t start,
		 uint64_t end, uint32_t nr, const struct kbuf_sink *s,
		 void *arg)
{
	const uint8_t *data = (const uint8_t *)k->base + RS_PAGE_SIZE;
	const uint64_t *tp = &pass.thr_pos[pass.thr_first[c]];
	uint32_t n = pass.thr_count[c], j = pass.thr_next[c], e;

	while (j + 1 < n && tp[j + 1] <= start)
		j++;
	for (e = j; e < n && tp[e] < end; e++)
		;
	pass.thr_next[c] = e > j ? e - 1 : j;
	s->samples(data + (start & (k->data_size - 1)), (uint32_t)(end - start),
		   nr, &pass.thr[pass.thr_first[c] + j], e - j, c, arg);
}

/* CPU @c's samples from its tail up to @limit (a break's position or the
 * pass's end; @end_idx the pass's records before it), as runs to @s,
 * their ends those phase one noted. */
static void flush_noted(struct kbuf *k, uint32_t c, uint64_t limit,
			uint32_t end_idx, const struct kbuf_sink *s, void *arg)
{
	const struct ksplit *sp = &pass.split[pass.split_first[c]];
	uint32_t n = pass.split_count[c];
	uint64_t pos = k->tail, end;
	uint32_t idx = pass.idx[c], to;

	while (pos < limit) {
		while (pass.split_next[c] < n && sp[pass.split_next[c]].pos <= pos)
			pass.split_next[c]++;
		if (pass.split_next[c] < n && sp[pass.split_next[c]].pos < limit) {
			end = sp[pass.split_next[c]].pos;
			to = sp[pass.split_next[c]].idx;
		} else {
			end = limit;
			to = end_idx;
		}
		emit(k, c, pos, end, to - idx, s, arg);
		pos = end;
		idx = to;
	}
	k->tail = pos;
	pass.idx[c] = idx;
}

/* CPU @c's samples from its tail up to @limit, those older than @cutoff
 * (@le: or as old), as runs to @s: walked, for their times. */
static void flush_cut(struct kbuf *k, uint32_t c, uint64_t limit,
		      uint64_t cutoff, int le, const struct kbuf_sink *s,
		      void *arg)
{
	const uint8_t *data = (const uint8_t *)k->base + RS_PAGE_SIZE;
	uint64_t pos = k->tail, start = pos, t;
	struct rs_perf_header h;
	uint32_t nr = 0, taken = 0;

	while (pos < limit) {
		memcpy(&h, data + (pos & (k->data_size - 1)), sizeof(h));
		t = 0;
		if (k->time_at && k->time_at + 8 <= h.size)
			memcpy(&t, data + (pos & (k->data_size - 1)) +
			       k->time_at, sizeof(t));
		if (le ? t > cutoff : t >= cutoff)
			break;
		/* a run lies in one piece, and is not too long */
		if (nr && ((pos & (k->data_size - 1)) == 0 ||
			   pos + h.size - start > KBUF_RUN_MAX)) {
			emit(k, c, start, pos, nr, s, arg);
			start = pos;
			nr = 0;
		}
		pos += h.size;
		nr++;
		taken++;
	}
	if (nr)
		emit(k, c, start, pos, nr, s, arg);
	k->tail = pos;
	pass.idx[c] += taken;
}

/* Where CPU @c's samples end for now: its next break, else its pass's end. */
static uint64_t run_limit(const struct kbuf *k, uint32_t c)
{
	return pass.next[c] < pass.count[c] ?
	       pass.brk[pass.first[c] + pass.next[c]].pos : k->end;
}

int agent_kbuf_drain_runs(struct kbuf *const *k, uint32_t n,
		    const struct kbuf_sink *s, void *arg)
{
	const struct rs_perf_header *rec;
	uint64_t time;
	uint32_t c, d, best;
	int count = 0;

	if (n > AGENT_MAX_CPUS)
		n = AGENT_MAX_CPUS;
	pass.nr = 0;
	pass.nr_split = 0;
	pass.nr_thr = 0;
	/* every head read first: what comes in during the pass waits for
	 * the next one, on every CPU alike */
	for (c = 0; c < n; c++)
		if (k[c])
			note_breaks(k[c], c);
	for (;;) {
		const struct kbreak *b = NULL, *x;

		best = n;
		for (c = 0; c < n; c++) {
			if (!k[c] || pass.next[c] >= pass.count[c])
				continue;
			x = &pass.brk[pass.first[c] + pass.next[c]];
			if (!b || x->time < b->time) {
				b = x;
				best = c;
			}
		}
		if (!b)
			break;
		for (d = 0; d < n; d++) {
			if (!k[d])
				continue;
			if (d == best)
				flush_noted(k[d], d, b->pos, b->idx, s, arg);
			else
				flush_cut(k[d], d, run_limit(k[d], d), b->time,
					  d < best, s, arg);
		}
		pass.next[best]++;
		rec = agent_kbuf_peek(k[best], &time);
		if (rec) {
			s->record(rec, best, arg);
			agent_kbuf_next(k[best]);
			pass.idx[best]++;
			count++;
		}
	}
	for (c = 0; c < n; c++) {
		if (!k[c])
			continue;
		flush_noted(k[c], c, k[c]->end, pass.total[c], s, arg);
		if (pass.bad[c])
			k[c]->tail = k[c]->head;
		agent_kbuf_end(k[c]);
	}
	return count;
}

#define PM_PRESENT  (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

int agent_kbuf_gpas(const struct kbuf *k, int pagemap_fd, uint64_t *row)
{
	const volatile uint8_t *p = k->base;
	uint64_t n = 1 + k->data_size / RS_PAGE_SIZE, i;

	if (!p)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		uintptr_t va = (uintptr_t)(p + i * RS_PAGE_SIZE);
		uint64_t e;
		ssize_t r;

		(void)p[i * RS_PAGE_SIZE];    /* fault it in */
		r = pread(pagemap_fd, &e, sizeof(e),
			  (off_t)((va / RS_PAGE_SIZE) * sizeof(e)));
		if (r < 0)
			return -errno;
		if (r != sizeof(e) || !(e & PM_PRESENT))
			return -ENOENT;
		if (!(e & PM_PFN_MASK))
			return -EPERM;        /* PFNs are zeroed for non-root */
		row[i] = (e & PM_PFN_MASK) * RS_PAGE_SIZE;
	}
	return 0;
}
