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

void kbuf_sample_attr(struct perf_event_attr *a, const struct agent_events *ev)
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

int kbuf_open(struct kbuf *k, int cpu, const struct agent_events *ev)
{
	struct perf_event_attr a;
	size_t len;
	int err;

	k->cpu = cpu;
	k->fd = -1;
	k->nr_tp = 0;
	k->base = NULL;
	k->tail = 0;
	k->data_size = (uint64_t)ev->buf_pages * RS_PAGE_SIZE;
	kbuf_sample_attr(&a, ev);
	a.wakeup_watermark = (uint32_t)(k->data_size / 2);
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
		kbuf_close(k);
		return err;
	}
	err = open_tracepoints(k, ev);
	if (err)
		kbuf_close(k);
	return err;
}

int kbuf_enable(struct kbuf *k, int on)
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

void kbuf_close(struct kbuf *k)
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

int kbuf_drain(struct kbuf *k, uint64_t max, kbuf_fn fn, void *arg)
{
	struct perf_event_mmap_page *pg = k->base;
	const struct rs_perf_header *rec = (const void *)k->rec;
	uint64_t head = read_head(pg), start = k->tail;
	int n = 0;

	while (k->tail < head && k->tail - start < max) {
		struct rs_perf_header h;

		copy_out(k, k->tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - k->tail) {
			k->tail = head;   /* cannot happen with a sane kernel */
			break;
		}
		copy_out(k, k->tail, k->rec, h.size);
		fn(rec, arg);
		k->tail += h.size;
		n++;
	}
	write_tail(pg, k->tail);
	return n;
}

#define PM_PRESENT  (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

int kbuf_gpas(const struct kbuf *k, int pagemap_fd, uint64_t *row)
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
