/* SPDX-License-Identifier: MIT */
/*
 * The agent's side of time synchronization (ring.h, rs_tsync_*): once per
 * pass of the main loop a single load says whether the host has a window
 * open; if so, a burst answers its pings with CLOCK_MONOTONIC, the clock
 * of the agent's samples (kbuf.c: use_clockid) and markers (agent_markers_now).
 * The burst is bounded (AGENT_TSYNC_BURST_NS); a host that wants more
 * rounds gets them at the next pass.
 */
#include "agent.h"

static uint64_t now(void *arg)
{
	(void)arg;
	return agent_markers_now();
}

static void relax(void *arg)
{
	(void)arg;
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

void agent_tsync_init(struct agent_tsync *t)
{
	rs_tsync_guest_init(&t->guest, RS_TSYNC_CLOCK_MONOTONIC);
	t->bursts = 0;
}

int agent_tsync_poll(struct agent_tsync *t, const struct rs_region *region)
{
	const struct rs_tsync_clock clk = { now, relax, NULL };
	int n;

	if (rs_tsync_guest_pending(region) != 1)
		return 0;
	n = rs_tsync_guest_answer(&t->guest, region, &clk, AGENT_TSYNC_BURST_NS);
	if (n > 0)
		t->bursts++;
	return n;
}
