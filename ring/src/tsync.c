/* SPDX-License-Identifier: MIT */
/*
 * Time synchronization through the region header's time_sync cells
 * (ring.h, docs/abi.md "Time synchronization").  The idea is the
 * classic ping exchange (as trace-cmd's tsync and NTP do it): the host
 * reads its clock before a ping (t1) and after the echo (t2); the guest's
 * clock was read in between, so the guest's time g corresponds to host time
 * (t1 + t2) / 2 within (t2 - t1) / 2.  The smallest bound of a window wins.
 *
 * The host side treats every guest cell as hostile: each answer is read
 * once (echo, guest_time, echo again), refused and counted unless it is
 * the echo of the ping in flight, unchanged across the read, below 2^63,
 * not below an earlier answer, and not further ahead of the previous
 * answer than the host's own clock moved.  Every loop is bounded by the
 * caller's clock and by a count of iterations.
 */
#include "ringside/barrier.h"
#include "ring_internal.h"

/* Polls per wait, whatever the clock says (a clock stuck in the past
 * must not keep either side spinning). */
#define POLL_MAX      (1u << 26)
/* Pings per window beyond the valid rounds wanted. */
#define EXTRA_PINGS   32u
/* Pings in a row without an answer after which a window ends: the guest
 * stopped answering (it hung, or its burst ended and it does not look). */
#define SILENT_MAX    3u
/* Clock rate difference tolerated between answers: 1/1000 (1000 ppm,
 * far beyond any real oscillator), plus a fixed slack. */
#define RATE_SLACK_DIV 1000u
#define FIXED_SLACK_NS 2000u

static struct rs_time_sync *cells(const struct rs_region *region)
{
	return &((struct rs_region_header *)region->base)->time_sync;
}

void rs_tsync_params_init(struct rs_tsync_params *p)
{
	if (!p)
		return;
	rs_memset(p, 0, sizeof(*p));
	p->rounds = 16;
	p->max_rounds = 64;
	p->target_ns = 20000;
	p->host_clock = RS_TSYNC_CLOCK_MONOTONIC;
	p->wait_ns = 5000000000ull;   /* 2.5 of the Linux agent's normal-mode beats */
	p->round_ns = 60000000ull;
}

uint32_t rs_tsync_refused(const struct rs_tsync_result *r)
{
	return r ? r->wrong_seq + r->torn + r->backwards + r->implausible : 0;
}

static uint64_t abs_diff(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

struct round {
	int64_t offset;
	uint64_t bound;
};

/* What one ping brought back. */
enum ping_end { PING_ANSWER, PING_TIMEOUT };

struct host {
	struct rs_time_sync *ts;
	const struct rs_tsync_clock *clk;
	struct rs_tsync_result *res;
	uint64_t seq;           /* the ping in flight */
	uint64_t rng;           /* xorshift state: the step to the next seq */
	uint64_t first_seq;     /* this window's first: echoes below are foreign */
	uint64_t odd_echo;      /* the last foreign echo counted */
	int answered;           /* the guest answered something this window */
	int have_last;
	uint64_t last_g;        /* the previous accepted answer ... */
	uint64_t last_t1;       /* ... and the host's t1 of its ping */
};

static int ping(struct host *h, uint64_t limit, uint64_t *t1, uint64_t *t2,
		uint64_t *g, uint64_t *e, uint64_t *e2)
{
	const struct rs_tsync_clock *clk = h->clk;
	uint32_t n;

	/* An unpredictable step: a guest cannot echo a ping before it was
	 * sent, so every answer was made between t1 and t2. */
	h->rng ^= h->rng << 13;
	h->rng ^= h->rng >> 7;
	h->rng ^= h->rng << 17;
	h->seq += 1 + (h->rng & 0xffffu);
	*t1 = clk->now(clk->arg);
	rs_store_hint(&h->ts->host_time, *t1);
	rs_release(&h->ts->seq, h->seq);                        /* P */
	h->res->pings++;
	for (n = 0; n < POLL_MAX; n++) {
		*e = rs_acquire(&h->ts->echo);                   /* R */
		if (*e == h->seq) {
			*g = rs_load_hint(&h->ts->guest_time);
			*e2 = rs_reread(&h->ts->echo);        /* R2 */
			*t2 = clk->now(clk->arg);
			return PING_ANSWER;
		}
		if ((*e < h->first_seq || *e > h->seq) && *e != h->odd_echo) {
			/* no ping of this window (a late echo of an earlier
			 * one is normal): a guest making answers up, counted
			 * once per value */
			h->odd_echo = *e;
			h->res->wrong_seq++;
		}
		if (clk->now(clk->arg) > limit)
			break;
		if (!h->answered && clk->relax)
			clk->relax(clk->arg);
	}
	return PING_TIMEOUT;
}

/* 1 when an answer may be used; else counted in res and 0. */
static int plausible(struct host *h, uint64_t t2, uint64_t g, uint64_t e,
		     uint64_t e2)
{
	struct rs_tsync_result *res = h->res;
	uint64_t host_span, slack;

	if (e2 != e) {
		res->torn++;
		return 0;
	}
	if (!g || g > (uint64_t)INT64_MAX) {
		res->implausible++;
		return 0;
	}
	if (!h->have_last)
		return 1;
	if (g < h->last_g) {
		res->backwards++;
		return 0;
	}
	/* The previous answer was read after last_t1, this one before t2:
	 * an honest guest's clock cannot have moved more than the host's. */
	host_span = t2 - h->last_t1;
	slack = host_span / RATE_SLACK_DIV + FIXED_SLACK_NS;
	if (g - h->last_g > host_span + slack) {
		res->implausible++;
		return 0;
	}
	return 1;
}

int rs_tsync_host_run(void *mem, const struct rs_tsync_params *p,
		      const struct rs_tsync_clock *clk,
		      struct rs_tsync_result *res)
{
	struct round rounds[RS_TSYNC_MAX_ROUNDS];
	struct host h;
	uint64_t start, end_first, end_all, max_pings;
	uint32_t window, i, best = 0, max_rounds, silent = 0;

	if (res)
		rs_memset(res, 0, sizeof(*res));
	if (!mem || ((uintptr_t)mem & (RS_PAGE_SIZE - 1)) || !p || !clk ||
	    !clk->now || !res || !p->rounds || p->rounds > RS_TSYNC_MAX_ROUNDS ||
	    p->max_rounds > RS_TSYNC_MAX_ROUNDS)
		return -rse_invalid;
	max_rounds = p->max_rounds > p->rounds ? p->max_rounds : p->rounds;
	rs_memset(&h, 0, sizeof(h));
	h.ts = &((struct rs_region_header *)mem)->time_sync;
	h.clk = clk;
	h.res = res;
	start = clk->now(clk->arg);
	end_first = start + p->wait_ns;
	/* extra rounds for precision only within the budget of the rounds
	 * wanted: a guest cannot stretch a window by answering slowly */
	end_all = end_first + 2ull * p->rounds * p->round_ns;
	max_pings = max_rounds + EXTRA_PINGS;
	/* A fresh seq and window for every window: an echo left over from an
	 * earlier host process can never match. */
	h.seq = start | 1;
	h.first_seq = h.seq;
	h.rng = start ^ 0x9e3779b97f4a7c15ull;
	/* whatever echo holds now is from before this window: not counted */
	h.odd_echo = rs_acquire(&h.ts->echo);
	window = (uint32_t)(start >> 16) | 1u;
	res->window = window;
	rs_store_hint(&h.ts->host_clock, p->host_clock);
	rs_store_hint(&h.ts->seq, h.seq);
	rs_release(&h.ts->request, window);                      /* T1 */

	while (res->rounds < max_rounds && res->pings < max_pings) {
		uint64_t t1, t2 = 0, g = 0, e = 0, e2 = 0, limit;
		uint64_t now = clk->now(clk->arg);

		if (res->rounds >= p->rounds && res->bound <= p->target_ns)
			break;   /* enough, and good enough */

		if (now > end_all)
			break;
		limit = h.answered ? now + p->round_ns : end_first;
		if (limit > end_all)
			limit = end_all;
		if (ping(&h, limit, &t1, &t2, &g, &e, &e2) == PING_TIMEOUT) {
			res->timeouts++;
			if (!h.answered || ++silent >= SILENT_MAX)
				break;   /* nobody is there (any more) */
			continue;
		}
		h.answered = 1;
		silent = 0;
		if (t2 < t1 || !plausible(&h, t2, g, e, e2))
			continue;
		h.have_last = 1;
		h.last_g = g;
		h.last_t1 = t1;
		i = res->rounds++;
		rounds[i].bound = (t2 - t1) / 2;
		rounds[i].offset = (int64_t)(g - (t1 + rounds[i].bound));
		if (rounds[i].bound < rounds[best].bound || i == 0) {
			best = i;
			res->offset = rounds[i].offset;
			res->bound = rounds[i].bound;
			res->host_time = t1 + rounds[i].bound;
			res->guest_time = g;
		}
	}
	rs_release(&h.ts->request, 0);
	res->guest_clock = rs_load_hint(&h.ts->guest_clock);
	if (!res->rounds)
		return h.answered ? -rse_corrupt : -rse_timeout;
	for (i = 0; i < res->rounds; i++)
		if (abs_diff(rounds[i].offset, res->offset) >
		    rounds[i].bound + res->bound + FIXED_SLACK_NS)
			res->inconsistent++;
	return 0;
}

void rs_tsync_guest_init(struct rs_tsync_guest *g, uint32_t guest_clock)
{
	if (!g)
		return;
	rs_memset(g, 0, sizeof(*g));
	g->guest_clock = guest_clock;
}

int rs_tsync_guest_pending(const struct rs_region *region)
{
	if (!region || !region->base)
		return -rse_invalid;
	return rs_load_hint(&cells(region)->request) != 0;
}

int rs_tsync_guest_answer(struct rs_tsync_guest *g,
			  const struct rs_region *region,
			  const struct rs_tsync_clock *clk, uint64_t max_ns)
{
	struct rs_time_sync *ts;
	uint64_t start, s, t;
	uint32_t n, window;
	int answers = 0;

	if (!g || !region || !region->base || !clk || !clk->now)
		return -rse_invalid;
	ts = cells(region);
	start = clk->now(clk->arg);
	for (n = 0; n < POLL_MAX; n++) {
		window = rs_acquire(&ts->request);               /* T2 */
		if (!window)
			break;
		s = rs_acquire(&ts->seq);                         /* Q */
		if (s != g->last_seq) {
			t = clk->now(clk->arg);
			rs_store_hint(&ts->guest_time, t);
			if (window != g->window) {
				g->window = window;
				rs_store_hint(&ts->window, window);
				rs_store_hint(&ts->guest_clock, g->guest_clock);
			}
			rs_release(&ts->echo, s);              /* E' */
			g->last_seq = s;
			g->answers++;
			rs_store_hint(&ts->answers, g->answers);
			answers++;
			if (answers == 0x7fffffff)
				break;
		} else {
			t = clk->now(clk->arg);
		}
		if (t - start > max_ns)
			break;
		if (clk->relax)
			clk->relax(clk->arg);
	}
	return answers;
}
