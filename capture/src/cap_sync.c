/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cap_internal.h"

/* A sync less precise than the point it would replace by this much is
 * not kept (cap_sync_poll's periodic ones; the final one always is). */
#define CSYNC_WORSE_NS 100000ull

/* Drift beyond this (parts per million) is no clock's: the end's sync is
 * then not used for interpolation. */
#define DRIFT_MAX_PPM 1000

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t host_now(void *arg)
{
	(void)arg;
	return clock_ns(CLOCK_MONOTONIC);
}

/* While waiting for the guest to see the window: don't burn the CPU. */
static void host_relax(void *arg)
{
	struct timespec ts = { 0, 50000 };

	(void)arg;
	nanosleep(&ts, NULL);
}

void *cap_sync_map_header(int fd)
{
	void *hdr;
	int wfd = cap_source_reopen(fd);

	if (wfd < 0)
		return NULL;
	hdr = mmap(NULL, RS_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, wfd, 0);
	close(wfd);
	return hdr == MAP_FAILED ? NULL : hdr;
}

void cap_sync_unmap(void *hdr)
{
	if (hdr)
		munmap(hdr, RS_PAGE_SIZE);
}

void cap_sync_init(struct cap_sync *c)
{
	memset(c, 0, sizeof(*c));
	c->last_try = -1e9;
}

/* 1 when a VMM converts some ring's times to host CLOCK_MONOTONIC. */
static int vmm_converts(const struct rs_region *region)
{
	uint32_t i, n = rs_region_nr_rings(region);

	for (i = 0; i < n; i++) {
		struct rs_time_conv tc;
		struct rs_ring ring;

		if (!rs_region_ring(region, i, &ring) &&
		    rs_ring_time_read(&ring, &tc) == 1)
			return 1;
	}
	return 0;
}

/* CLOCK_REALTIME with CLOCK_MONOTONIC at the same instant, for perf's
 * HEADER_CLOCK_DATA (perf script -F +tod). */
static void wall_pair(struct pdf_clock_sync *cs)
{
	uint64_t m1 = clock_ns(CLOCK_MONOTONIC);
	uint64_t w = clock_ns(CLOCK_REALTIME);
	uint64_t m2 = clock_ns(CLOCK_MONOTONIC);

	cs->wall_ns = w;
	cs->mono_ns = m1 + (m2 - m1) / 2;
}

static uint64_t udiff(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

/* Keep the end's point only if the drift it implies is a clock's. */
static void check_drift(struct cap_sync *c)
{
	const struct pdf_clock_point *a = &c->cs.pt[0], *b = &c->cs.pt[1];
	uint64_t span;

	if (c->cs.nr < 2)
		return;
	span = b->guest_ns > a->guest_ns ? b->guest_ns - a->guest_ns : 0;
	if (!span || udiff(b->offset_ns, a->offset_ns) >
	    span / (1000000 / DRIFT_MAX_PPM) + a->bound_ns + b->bound_ns) {
		c->cs.nr = 1;
		c->end_dropped = 1;
	}
}

/*
 * A sync between the first and the final one that would not help: much
 * less precise than the point it would replace (a guest busy or preempted
 * just then).  A first point that was poor (taken while the guest booted,
 * say) is replaced by a much better one instead.  1: drop this sync.
 */
static int worse(struct cap_sync *c)
{
	struct pdf_clock_point *cur = &c->cs.pt[c->cs.nr - 1];

	if (c->cs.nr == 1 && cur->bound_ns > CSYNC_WORSE_NS &&
	    c->last.bound < cur->bound_ns / 4) {
		c->cs.nr = 0;   /* the better one becomes the first */
		return 0;
	}
	return c->last.bound > cur->bound_ns + CSYNC_WORSE_NS;
}

/* What rs_tsync_host_run returned (@ret, its result in c->last) into the
 * file's points. */
static void count(struct cap_sync *c, int ret, int final)
{
	c->last_ret = ret;
	if (ret) {
		if (!c->cs.nr)
			c->cs.state = ret == -rse_timeout ?
				      PDF_CLOCK_NO_ANSWER : PDF_CLOCK_REFUSED;
		c->gave_up = 1;
		if (final)
			c->final = CAP_SYNC_FINAL_FAILED;
		return;
	}
	if (final)
		c->final = CAP_SYNC_FINAL_OK;
	if (!final && c->cs.nr && worse(c))
		return;
	if (!c->cs.nr)
		wall_pair(&c->cs);
	c->cs.state = PDF_CLOCK_SYNCED;
	c->cs.pt[c->cs.nr ? 1 : 0] = (struct pdf_clock_point){
		.guest_ns = c->last.guest_time,
		.offset_ns = c->last.offset,
		.bound_ns = c->last.bound,
		.rounds = c->last.rounds,
		.refused = rs_tsync_refused(&c->last),
	};
	if (c->cs.nr < 2)
		c->cs.nr++;
	c->end_dropped = 0;
	check_drift(c);
}

static void *run_main(void *arg)
{
	const struct rs_tsync_clock clk = { host_now, host_relax, NULL };
	struct cap_sync *c = arg;
	struct rs_tsync_params p;

	rs_tsync_params_init(&p);
	c->run_ret = rs_tsync_host_run(c->run_mem, &p, &clk, &c->run_res);
	__atomic_store_n(&c->ran, 1, __ATOMIC_RELEASE);
	return NULL;
}

void cap_sync_join(struct cap_sync *c)
{
	if (!c->running)
		return;
	pthread_join(c->thread, NULL);
	c->running = 0;
	c->last = c->run_res;
	count(c, c->run_ret, 0);
}

void cap_sync_take(struct cap_sync *c, const struct rs_region *region, void *wmem,
		int final)
{
	const struct rs_tsync_clock clk = { host_now, host_relax, NULL };
	struct rs_tsync_params p;
	struct rs_guest_status st;
	uint32_t enabled;

	cap_sync_join(c);
	c->last_try = cap_time_now();
	if (c->cs.state == PDF_CLOCK_HOST || c->why_not)
		return;
	if (vmm_converts(region)) {
		c->cs.state = PDF_CLOCK_HOST;
		return;
	}
	if (rs_region_status_read(region, &st, &enabled) || st.attached != 1) {
		if (!c->cs.nr)
			c->cs.state = PDF_CLOCK_NO_AGENT;
		if (final)
			c->final = CAP_SYNC_FINAL_NO_AGENT;
		return;
	}
	if (!wmem) {
		c->why_not = "no time sync: the region is not writable here";
		return;
	}
	rs_tsync_params_init(&p);
	c->wait_ns = p.wait_ns;
	if (!final) {
		c->run_mem = wmem;
		__atomic_store_n(&c->ran, 0, __ATOMIC_RELAXED);
		memset(&c->run_res, 0, sizeof(c->run_res));
		if (!pthread_create(&c->thread, NULL, run_main, c)) {
			c->running = 1;
			return;
		}
		/* no thread: the sync here and now */
	}
	count(c, rs_tsync_host_run(wmem, &p, &clk, &c->last), final);
}

void cap_sync_poll(struct cap_sync *c, const struct rs_region *region, void *wmem)
{
	struct rs_guest_status st;
	uint32_t enabled;
	double now;

	if (c->running) {
		if (__atomic_load_n(&c->ran, __ATOMIC_ACQUIRE))
			cap_sync_join(c);
		return;
	}
	if (c->gave_up || c->why_not || c->cs.state == PDF_CLOCK_HOST)
		return;
	now = cap_time_now();
	if (c->cs.nr) {
		if (now - c->last_try >= CAP_SYNC_PERIOD)
			cap_sync_take(c, region, wmem, 0);
		return;
	}
	if (now - c->last_try < 0.25)
		return;
	c->last_try = now;
	if (!rs_region_status_read(region, &st, &enabled) && st.attached == 1)
		cap_sync_take(c, region, wmem, 0);
}
