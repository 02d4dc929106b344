/* SPDX-License-Identifier: MIT */
/*
 * hostview-bench: what the host view costs (docs/benchmarks.md, "The host
 * view").  One JSON line per measurement, the median of --reps runs:
 *
 * - "hostview_switch": two threads pinned to one CPU ping-pong through
 *   pipes, so that every round trip is two context switches, each
 *   recorded as a switch-out and a switch-in of the thread concerned;
 *   timed bare, recorded into overwrite buffers nobody reads (the flight
 *   recorder), the same with migration samples, and into forward
 *   buffers that a reader on another CPU drains every millisecond.  The
 *   recorded thread pays (trip - bare trip) / events per trip per event;
 *   the reader's own CPU time is per million events.
 * - "hostview_tracepoint": a per-thread tracepoint sample of the shape
 *   kvm_exit's takes (IDENTIFIER | TID | TIME | CPU | RAW, every event,
 *   write_backward), on raw_syscalls:sys_enter around close(-1): what a
 *   traced exit adds to the thread, measured where exits cannot be
 *   driven at will (this host's emulated KVM takes ~15 us per exit).
 * - "hostview_threads": N idle threads: the recorder's cost to add one,
 *   to read one that wrote nothing, its memory and descriptors.
 * - "hostview_file": switch records filed into a perf.data and read
 *   back (pdf_writer_add_host, pdf_reader_want_host), per record.
 *
 * Needs perf events (root, or perf_event_paranoid <= 2 for the switch
 * lines); exit 77 without.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "ringside/hv_parse.h"
#include "ringside/hv_rec.h"
#include "ringside/perfdata.h"

#define MAX_REPS 15
#define KVM_SOURCES (HV_SRC_BIT(HV_SRC_SWITCH) | HV_SRC_BIT(HV_SRC_KVM_EXIT) | \
		     HV_SRC_BIT(HV_SRC_KVM_UEXIT))

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static int pin(int cpu)
{
	cpu_set_t s;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

/* ---- ping-pong ---- */

struct pong {
	pthread_t th;
	int to[2], back[2];
	int cpu;
	volatile int tid;
};

static void *pong_main(void *arg)
{
	struct pong *p = arg;
	char c;

	pin(p->cpu);
	__atomic_store_n(&p->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(p->to[0], &c, 1) == 1 && c == 'p')
		if (write(p->back[1], &c, 1) != 1)
			break;
	return NULL;
}

static int pong_start(struct pong *p, int cpu)
{
	memset(p, 0, sizeof(*p));
	p->cpu = cpu;
	if (pipe(p->to) || pipe(p->back) ||
	    pthread_create(&p->th, NULL, pong_main, p))
		return -1;
	while (!__atomic_load_n(&p->tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return 0;
}

static void pong_stop(struct pong *p)
{
	if (write(p->to[1], "q", 1) != 1)
		return;
	pthread_join(p->th, NULL);
	close(p->to[0]);
	close(p->to[1]);
	close(p->back[0]);
	close(p->back[1]);
}

/* @n round trips from the calling thread; ns. */
static uint64_t trips(struct pong *p, uint64_t n)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	char c = 'p';

	for (uint64_t i = 0; i < n; i++)
		if (write(p->to[1], &c, 1) != 1 || read(p->back[0], &c, 1) != 1)
			return 0;
	return now_ns(CLOCK_MONOTONIC) - t0;
}

struct reader {
	pthread_t th;
	struct hv_rec *r;
	int cpu;
	volatile int stop;
	uint64_t cpu_ns;
	uint64_t events;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	uint64_t t0;

	pin(rd->cpu);
	t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	while (!__atomic_load_n(&rd->stop, __ATOMIC_ACQUIRE)) {
		int n = rd->r ? hv_rec_read(rd->r, HV_READ_NEW, NULL, NULL) : 0;

		if (n > 0)
			rd->events += (uint64_t)(n & (HV_REFRESH_DUE - 1));
		usleep(1000);
	}
	if (rd->r)
		rd->events += (uint64_t)(hv_rec_read(rd->r, HV_READ_NEW, NULL,
						     NULL) & (HV_REFRESH_DUE - 1));
	rd->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

enum sw_mode {
	SW_BARE, SW_ATTACHED, SW_SCHED_TP, SW_OVERWRITE, SW_OVERWRITE_MIGRATE,
	SW_FORWARD_READ,
};

static const char *const sw_names[] = {
	"bare", "attached", "sched_switch_tp", "overwrite",
	"overwrite+migrate", "forward+reader",
};

/* The two comparison lines, opened here rather than by the recorder:
 * a per-thread event that records nothing (what having any per-thread
 * event costs a context switch), and the per-thread sched:sched_switch
 * tracepoint (switch-outs only, with prev_state), both into overwrite
 * buffers of the recorder's size. */
struct raw_ev {
	int fd;
	void *map;
	size_t len;
};

static int raw_open(struct raw_ev *e, int mode, int tid)
{
	struct perf_event_attr a;
	struct hv_tp tp;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = HV_SAMPLE_TYPE;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.write_backward = 1;
	if (mode == SW_ATTACHED) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.exclude_kernel = 1;
	} else {
		if (hv_tp_load(NULL, "sched", "sched_switch", NULL, 0, &tp))
			return -1;
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = tp.id;
		a.sample_period = 1;
		a.sample_type |= PERF_SAMPLE_RAW;
	}
	e->fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0)
		return -1;
	e->len = (1 + 64) * (size_t)sysconf(_SC_PAGESIZE);
	e->map = mmap(NULL, e->len, PROT_READ, MAP_SHARED, e->fd, 0);
	if (e->map == MAP_FAILED) {
		close(e->fd);
		return -1;
	}
	return 0;
}

/* Records in an overwrite buffer: bytes written / the record size. */
static uint64_t raw_close(struct raw_ev *e, uint32_t rec_size)
{
	const struct perf_event_mmap_page *p = e->map;
	uint64_t head = __atomic_load_n(&p->data_head, __ATOMIC_ACQUIRE);

	munmap(e->map, e->len);
	close(e->fd);
	return rec_size ? (0 - head) / rec_size : 0;
}

struct sw_result {
	uint64_t trip_ns;       /* per round trip */
	uint64_t events;        /* recorded, over the run */
	uint64_t reader_cpu_ns;
	uint64_t lost;
	uint64_t capture_ns;    /* overwrite: one HV_READ_ALL of it all */
	uint64_t captured;      /* events that read handed on */
};

static int switch_run(int mode, int cpu, int other, uint64_t n,
		      struct sw_result *res)
{
	struct hv_rec_opts o = {
		.mode = mode == SW_FORWARD_READ ? HV_MODE_FORWARD :
						  HV_MODE_OVERWRITE,
		.data_pages = 64,
		.sources = HV_SRC_BIT(HV_SRC_SWITCH) |
			   (mode == SW_OVERWRITE_MIGRATE ?
			    HV_SRC_BIT(HV_SRC_MIGRATE) : 0),
	};
	struct hv_thread_id id = { .pid = getpid() };
	struct hv_rec_totals tot;
	struct reader rd = { .cpu = other };
	struct raw_ev raw[2];
	struct hv_rec *r = NULL;
	struct pong p;
	uint64_t ns;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (pin(cpu) || pong_start(&p, cpu))
		return -1;
	if (mode == SW_ATTACHED || mode == SW_SCHED_TP) {
		if (raw_open(&raw[0], mode, p.tid) ||
		    raw_open(&raw[1], mode, (int)syscall(SYS_gettid))) {
			pong_stop(&p);
			return -1;
		}
	} else if (mode != SW_BARE) {
		ret = hv_rec_new(&o, &r);
		id.tid = p.tid;
		hv_thread_classify("pong", 0, &id);
		if (!ret)
			ret = hv_rec_add(r, &id);
		id.tid = (int32_t)syscall(SYS_gettid);
		hv_thread_classify("ping", 0, &id);
		if (!ret)
			ret = hv_rec_add(r, &id);
		if (ret) {
			fprintf(stderr, "hostview-bench: %s\n",
				hv_err_str(ret));
			pong_stop(&p);
			hv_rec_free(r);
			return ret;
		}
	}
	/* Every line has a thread waking each millisecond on the other
	 * CPU: forward+reader's reader, a thread that reads nothing in the
	 * others.  Measured here: a ping-pong ran ~2x faster on a machine
	 * whose other CPU was not idle, whatever else it did. */
	if (other >= 0) {
		rd.r = mode == SW_FORWARD_READ ? r : NULL;
		if (pthread_create(&rd.th, NULL, reader_main, &rd))
			return -1;
	}
	trips(&p, n / 10 + 1);       /* warm */
	ns = trips(&p, n);
	if (other >= 0) {
		__atomic_store_n(&rd.stop, 1, __ATOMIC_RELEASE);
		pthread_join(rd.th, NULL);
		res->reader_cpu_ns = rd.cpu_ns;
	}
	res->trip_ns = ns / n;
	if (mode == SW_ATTACHED || mode == SW_SCHED_TP) {
		/* sched_switch's sample: 8 + 32 + 4 + its 64 raw bytes */
		uint32_t size = mode == SW_SCHED_TP ? 112 : 0;

		res->events = raw_close(&raw[0], size) + raw_close(&raw[1], size);
	}
	if (r) {
		hv_rec_totals(r, &tot);
		/* the events of the timed and the warming trips alike */
		res->events = mode == SW_FORWARD_READ ? rd.events : 0;
		res->lost = tot.lost;
		if (mode != SW_FORWARD_READ) {
			struct hv_thread_stats st;

			/* a capture, timed: the tallies of what was
			 * written, and what a capture costs per event */
			uint64_t t0 = now_ns(CLOCK_MONOTONIC);
			int got = hv_rec_read(r, HV_READ_ALL, NULL, NULL);

			res->capture_ns = now_ns(CLOCK_MONOTONIC) - t0;
			res->captured = got > 0 ? (uint64_t)(got & (HV_REFRESH_DUE - 1)) : 0;

			/* written bytes / 40: every switch record is 40 */
			for (uint32_t i = 0; i < hv_rec_count(r); i++)
				if (hv_rec_stats(r, i, &st) == 0)
					res->events += st.written / 40;
		}
	}
	pong_stop(&p);
	hv_rec_free(r);
	return 0;
}

static void bench_switch(int cpu, int other, uint64_t n, int reps)
{
	uint64_t trip[SW_FORWARD_READ + 1][MAX_REPS];
	uint64_t rcpu[MAX_REPS], evs[SW_FORWARD_READ + 1] = { 0 };
	uint64_t cap[MAX_REPS] = { 0 };
	uint64_t lost[SW_FORWARD_READ + 1] = { 0 };
	uint64_t all = n + n / 10 + 1;       /* warm and timed trips */
	int last = other < 0 ? SW_OVERWRITE_MIGRATE : SW_FORWARD_READ;
	uint64_t bare;

	/* The modes in turn within each repetition, so that a machine
	 * whose load drifts weighs on all of them alike. */
	for (int k = 0; k < reps; k++) {
		for (int mode = SW_BARE; mode <= last; mode++) {
			struct sw_result res;

			if (switch_run(mode, cpu, other, n, &res))
				return;
			trip[mode][k] = res.trip_ns;
			evs[mode] = res.events;
			lost[mode] += res.lost;
			if (mode == SW_FORWARD_READ)
				rcpu[k] = res.events ? res.reader_cpu_ns *
						       1000000 / res.events : 0;
			if (mode == SW_OVERWRITE)
				cap[k] = res.captured ? res.capture_ns *
						       1000 / res.captured : 0;
		}
	}
	bare = median(trip[SW_BARE], reps);
	for (int mode = SW_BARE; mode <= last; mode++) {
		int base = SW_BARE;
		double per_trip = (double)evs[mode] / (double)all;
		int64_t diff[MAX_REPS];

		/* Paired: each repetition's line against its own bare run,
		 * then the median, so that load that drifts between
		 * repetitions cancels. */
		for (int k = 0; k < reps; k++)
			diff[k] = (int64_t)trip[mode][k] - (int64_t)trip[base][k];
		qsort(diff, (size_t)reps, sizeof(*diff), cmp_i64);
		printf("{\"bench\":\"hostview_switch\",\"mode\":\"%s\","
		       "\"round_trips\":%llu,\"ns_per_trip\":%llu,"
		       "\"ns_per_trip_added\":%lld,"
		       "\"events_per_trip\":%.2f,\"ns_per_event\":%.0f,"
		       "\"reader_cpu_ms_per_million_events\":%.1f,\"lost\":%llu}\n",
		       sw_names[mode], (unsigned long long)n,
		       (unsigned long long)median(trip[mode], reps),
		       (long long)diff[reps / 2], per_trip,
		       per_trip > 0 ? (double)diff[reps / 2] / per_trip : 0.0,
		       mode == SW_FORWARD_READ ?
		       (double)median(rcpu, reps) / 1e6 : 0.0,
		       (unsigned long long)lost[mode]);
	}
	(void)bare;
	printf("{\"bench\":\"hostview_capture\",\"what\":\"HV_READ_ALL of "
	       "two 256 KiB overwrite buffers full of switch records: pause, "
	       "copy, resume, walk, decode, order\",\"ns_per_event\":%.1f}\n",
	       (double)median(cap, reps) / 1000.0);
}

/* ---- a per-thread tracepoint sample ---- */

static uint64_t close_loop(uint64_t n)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	for (uint64_t i = 0; i < n; i++)
		close(-1);
	return now_ns(CLOCK_MONOTONIC) - t0;
}

static void bench_tracepoint(uint64_t n, int reps)
{
	struct perf_event_attr a;
	struct hv_tp tp;
	uint64_t bare[MAX_REPS], traced[MAX_REPS];
	size_t len = (1 + 64) * (size_t)sysconf(_SC_PAGESIZE);
	void *m;
	int ret, fd;

	ret = hv_tp_load(NULL, "raw_syscalls", "sys_enter", NULL, 0, &tp);
	if (ret) {
		printf("{\"bench\":\"hostview_tracepoint\",\"error\":\"%s\"}\n",
		       hv_err_str(ret));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = tp.id;
	a.sample_period = 1;
	a.sample_type = HV_SAMPLE_TYPE | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.write_backward = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("{\"bench\":\"hostview_tracepoint\",\"error\":\"%s\"}\n",
		       strerror(errno));
		return;
	}
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return;
	}
	for (int k = 0; k < reps; k++) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		bare[k] = close_loop(n);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		traced[k] = close_loop(n);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	{
		uint64_t b = median(bare, reps), t = median(traced, reps);
		int64_t diff[MAX_REPS];

		for (int k = 0; k < reps; k++)
			diff[k] = (int64_t)traced[k] - (int64_t)bare[k];
		qsort(diff, (size_t)reps, sizeof(*diff), cmp_i64);

		printf("{\"bench\":\"hostview_tracepoint\",\"what\":"
		       "\"raw_syscalls:sys_enter, kvm_exit's sample shape\","
		       "\"calls\":%llu,\"ns_per_call_bare\":%.1f,"
		       "\"ns_per_call_traced\":%.1f,\"ns_per_event\":%.1f}\n",
		       (unsigned long long)n, (double)b / (double)n,
		       (double)t / (double)n, (double)diff[reps / 2] / (double)n);
	}
	munmap(m, len);
	close(fd);
}

/* ---- idle threads ---- */

struct idle {
	pthread_t th;
	int fd[2];
	volatile int tid;
};

static void *idle_main(void *arg)
{
	struct idle *t = arg;
	char c;

	pthread_setname_np(pthread_self(), "CPU 0/BENCH");
	__atomic_store_n(&t->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(t->fd[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void bench_threads(uint32_t n, uint32_t sources, int reps)
{
	struct hv_rec_opts o = { .mode = HV_MODE_OVERWRITE, .sources = sources,
				 .exit_pages = sources & ~HV_SRC_BIT(HV_SRC_SWITCH) ?
					       HV_PAGES_DEFAULT : 0 };
	struct idle *t = calloc(n, sizeof(*t));
	uint64_t add[MAX_REPS], rd[MAX_REPS];
	struct hv_rec_totals tot = { 0 };
	uint32_t started = 0;

	if (!t)
		return;
	for (; started < n; started++) {
		if (pipe(t[started].fd) ||
		    pthread_create(&t[started].th, NULL, idle_main, &t[started]))
			break;
		while (!__atomic_load_n(&t[started].tid, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	for (int k = 0; k < reps && started; k++) {
		struct hv_rec *r;
		uint64_t t0;
		int ret = hv_rec_new(&o, &r);

		if (ret) {
			printf("{\"bench\":\"hostview_threads\",\"error\":\"%s\"}\n",
			       hv_err_str(ret));
			break;
		}
		t0 = now_ns(CLOCK_MONOTONIC);
		for (uint32_t i = 0; i < started && !ret; i++) {
			struct hv_thread_id id = { .pid = getpid(), .tid = t[i].tid };

			hv_thread_classify("CPU 0/BENCH", 0, &id);
			ret = hv_rec_add(r, &id);
		}
		add[k] = (now_ns(CLOCK_MONOTONIC) - t0) / started;
		if (ret) {
			printf("{\"bench\":\"hostview_threads\",\"error\":\"%s\"}\n",
			       hv_err_str(ret));
			hv_rec_free(r);
			break;
		}
		hv_rec_read(r, HV_READ_NEW, NULL, NULL);
		t0 = now_ns(CLOCK_MONOTONIC);
		for (int j = 0; j < 10; j++)
			hv_rec_read(r, HV_READ_NEW, NULL, NULL);
		rd[k] = (now_ns(CLOCK_MONOTONIC) - t0) / 10 / started;
		hv_rec_totals(r, &tot);
		hv_rec_free(r);
		if (k == reps - 1)
			printf("{\"bench\":\"hostview_threads\",\"sources\":\"%s\","
			       "\"threads\":%u,\"add_us_per_thread\":%.1f,"
			       "\"read_idle_ns_per_thread\":%.0f,"
			       "\"mem_bytes_per_thread\":%llu,"
			       "\"fds_per_thread\":%.1f}\n",
			       sources == HV_SRC_BIT(HV_SRC_SWITCH) ? "switch" :
			       "switch+kvm_exit+kvm_userspace_exit",
			       started, (double)median(add, reps) / 1000.0,
			       (double)median(rd, reps),
			       (unsigned long long)(tot.mem / started),
			       (double)tot.fds / started);
	}
	for (uint32_t i = 0; i < started; i++) {
		if (write(t[i].fd[1], "x", 1) == 1)
			pthread_join(t[i].th, NULL);
		close(t[i].fd[0]);
		close(t[i].fd[1]);
	}
	free(t);
}

/*
 * What a capture adds per host event once read: filing it into the
 * perf.data (pdf_writer_add_host, a switch record on one of two lanes)
 * and reading it back as report does (pdf_reader_want_host).  Median of
 * @reps runs of @n records each, in a file under TMPDIR.
 */
static void bench_file(uint64_t n, int reps)
{
	struct pdf_writer_params wp = { .size = sizeof(wp), .nr_rings = 2,
					.host_view = 1 };
	uint64_t wr[MAX_REPS], rd[MAX_REPS], t0, t1;
	const char *tmp = getenv("TMPDIR");
	struct pdf_writer *w;
	struct pdf_reader *r;
	struct pdf_event ev;
	char path[4096];
	int k, ok = 1;

	snprintf(path, sizeof(path), "%s/hostview-bench.%d.data",
		 tmp ? tmp : "/tmp", (int)getpid());
	for (k = 0; k < reps && ok; k++) {
		uint64_t i, got = 0;

		ok = !pdf_writer_open(&w, path, &wp);
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; ok && i < n; i++) {
			struct pdf_host_rec h = {
				.type = PERF_RECORD_SWITCH, .lane = i & 1,
				.misc = i & 2 ? PERF_RECORD_MISC_SWITCH_OUT : 0,
				.tid = PDF_HOST_TID(i & 1), .time = 1000 + i,
			};

			ok = !pdf_writer_add_host(w, &h);
		}
		t1 = now_ns(CLOCK_MONOTONIC);
		ok = ok && !pdf_writer_finish(w);
		wr[k] = t1 - t0;
		ok = ok && !pdf_reader_open(&r, path);
		if (!ok)
			break;
		pdf_reader_want_host(r, 1);
		t0 = now_ns(CLOCK_MONOTONIC);
		while (pdf_reader_next(r, &ev) == 1)
			got += ev.host;
		rd[k] = now_ns(CLOCK_MONOTONIC) - t0;
		pdf_reader_close(r);
		unlink(path);
		ok = got == n;
	}
	if (!ok) {
		printf("{\"bench\":\"hostview_file\",\"skipped\":\"%s\"}\n",
		       path);
		unlink(path);
		return;
	}
	printf("{\"bench\":\"hostview_file\",\"what\":\"switch records "
	       "into a perf.data (pdf_writer_add_host) and read back\","
	       "\"records\":%llu,\"ns_per_record_filed\":%.1f,"
	       "\"ns_per_record_read\":%.1f}\n", (unsigned long long)n,
	       (double)median(wr, reps) / (double)n,
	       (double)median(rd, reps) / (double)n);
}

int main(int argc, char **argv)
{
	struct hv_rec_opts o = { .sources = HV_SRC_ALL };
	uint64_t n = 200000, calls = 2000000;
	uint32_t threads = 64;
	int reps = 5, cpu = -1, other = -1;
	struct hv_probe p;
	cpu_set_t s;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			n = 20000;
			calls = 200000;
			threads = 16;
			reps = 3;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			threads = (uint32_t)atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: hostview-bench [--quick] "
				"[--reps N] [--threads N]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS || threads < 1 || threads > 4096) {
		fprintf(stderr, "hostview-bench: --reps 1..%d, --threads 1..4096\n",
			MAX_REPS);
		return 2;
	}
	if (hv_probe(&o, 0, &p)) {
		printf("{\"bench\":\"hostview\",\"skipped\":\"%s\"}\n",
		       hv_err_str(p.perf));
		return 77;
	}
	sched_getaffinity(0, sizeof(s), &s);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &s))
			continue;
		if (cpu < 0)
			cpu = c;
		else if (other < 0)
			other = c;
	}
	printf("{\"bench\":\"hostview\",\"cpus\":\"%d,%d\",\"kvm\":\"%s\","
	       "\"usable\":\"%#x\"}\n", cpu, other, p.kvm, p.usable);
	bench_switch(cpu, other, n, reps);
	pin(other >= 0 ? other : cpu);
	bench_tracepoint(calls, reps);
	bench_threads(threads, HV_SRC_BIT(HV_SRC_SWITCH), reps);
	if ((p.usable & KVM_SOURCES) == KVM_SOURCES)
		bench_threads(threads, KVM_SOURCES, reps);
	bench_file(n * 5, reps);
	return 0;
}
