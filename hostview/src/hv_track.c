/* SPDX-License-Identifier: MIT */
/*
 * One thread's events cut into intervals of state.  The switch records
 * are the only witnesses of state: a thread is running from a switch-in
 * to the next switch-out, runnable from a preempting switch-out to the
 * next switch-in, blocked from any other switch-out to the next
 * switch-in.  A loss makes the state unknown until the next switch.
 */
#include <string.h>

#include "ringside/hv_track.h"

static const char *const state_names[HV_ST_MAX] = {
	[HV_ST_UNKNOWN]  = "unknown",
	[HV_ST_RUNNING]  = "running",
	[HV_ST_RUNNABLE] = "runnable",
	[HV_ST_BLOCKED]  = "blocked",
	[HV_ST_GONE]     = "gone",
};

const char *hv_track_state_name(uint32_t state)
{
	return state < HV_ST_MAX ? state_names[state] : "invalid";
}

void hv_track_init(struct hv_track *t, hv_interval_fn fn, void *arg)
{
	if (!t)
		return;
	memset(t, 0, sizeof(*t));
	t->state = HV_ST_UNKNOWN;
	t->cpu = t->last_cpu = UINT32_MAX;
	t->exit_slot = UINT32_MAX;
	t->fn = fn;
	t->arg = arg;
}

static void top_insert(struct hv_track *t, const struct hv_preempt *p)
{
	uint32_t i;

	if (t->ntop == HV_TOP && p->ns <= t->top[HV_TOP - 1].ns)
		return;
	i = t->ntop < HV_TOP ? t->ntop++ : HV_TOP - 1;
	/* Longest first; an equal one after those already there. */
	while (i > 0 && t->top[i - 1].ns < p->ns) {
		t->top[i] = t->top[i - 1];
		i--;
	}
	t->top[i] = *p;
}

/* Closes the current interval at @end; @cpu_in is where a runnable one
 * ran again.  Starts nothing. */
static int close_iv(struct hv_track *t, uint64_t end, uint32_t cpu_in,
		    uint32_t open)
{
	struct hv_interval iv = {
		.start = t->since, .end = end, .state = t->state,
		.cpu = t->cpu, .open = open,
	};

	if (end < t->since)
		iv.end = end = t->since;
	t->state_ns[t->state] += end - t->since;
	if (t->state == HV_ST_RUNNABLE) {
		struct hv_preempt p = {
			.start = t->since, .ns = end - t->since,
			.cpu_out = t->cpu, .cpu_in = cpu_in,
		};

		if (p.ns)
			top_insert(t, &p);
	}
	/* Nothing is said of no time: the first event's own instant. */
	if (end == t->since)
		return 0;
	return t->fn ? t->fn(t->arg, &iv) : 0;
}

static void begin(struct hv_track *t, uint32_t state, uint32_t cpu, uint64_t at)
{
	t->state = state;
	t->cpu = cpu;
	t->since = at;
}

/* The reason's slot, counted; UINT32_MAX when the table is full. */
static uint32_t reason_count(struct hv_track *t, const struct hv_ev *ev)
{
	uint32_t i;

	for (i = 0; i < t->nreasons; i++)
		if (t->reasons[i].type == ev->type &&
		    t->reasons[i].isa == ev->isa &&
		    t->reasons[i].reason == ev->reason)
			break;
	if (i == t->nreasons) {
		if (i == HV_REASONS) {
			t->reasons_other++;
			return UINT32_MAX;
		}
		t->nreasons++;
		memset(&t->reasons[i], 0, sizeof(t->reasons[i]));
		t->reasons[i].type = ev->type;
		t->reasons[i].isa = ev->isa;
		t->reasons[i].reason = ev->reason;
	}
	t->reasons[i].count++;
	return i;
}

static int switch_in(struct hv_track *t, const struct hv_ev *ev)
{
	int ret;

	if (t->state == HV_ST_RUNNING || t->state == HV_ST_GONE)
		t->unmatched++;
	ret = close_iv(t, ev->time, ev->cpu, 0);
	if (t->last_cpu != UINT32_MAX && t->last_cpu != ev->cpu)
		t->migrations++;
	t->switches_in++;
	t->last_cpu = ev->cpu;
	begin(t, HV_ST_RUNNING, ev->cpu, ev->time);
	return ret;
}

static int switch_out(struct hv_track *t, const struct hv_ev *ev)
{
	uint32_t to = ev->type == HV_EV_PREEMPT ? HV_ST_RUNNABLE : HV_ST_BLOCKED;
	int ret;

	if (t->state != HV_ST_RUNNING && t->state != HV_ST_UNKNOWN)
		t->unmatched++;
	ret = close_iv(t, ev->time, ev->cpu, 0);
	if (to == HV_ST_RUNNABLE)
		t->preempts++;
	else
		t->blocks++;
	t->last_cpu = ev->cpu;
	begin(t, to, ev->cpu, ev->time);
	return ret;
}

int hv_track_feed(struct hv_track *t, const struct hv_ev *ev)
{
	uint32_t slot;
	int ret;

	if (!t || !ev || t->ended)
		return HV_ERR(hve_invalid);
	if (!t->started) {
		t->started = 1;
		t->first = ev->time;
		t->since = ev->time;
	} else if (ev->time < t->last) {
		t->out_of_order++;
		return 0;
	}
	t->last = ev->time;
	switch (ev->type) {
	case HV_EV_SWITCH_IN:
		return switch_in(t, ev);
	case HV_EV_SWITCH_OUT:
	case HV_EV_PREEMPT:
		return switch_out(t, ev);
	case HV_EV_MIGRATE:
		t->migrate_events++;
		return 0;
	case HV_EV_KVM_EXIT:
		t->exits++;
		slot = reason_count(t, ev);
		t->in_exit = slot != UINT32_MAX;
		t->exit_slot = slot;
		t->exit_time = ev->time;
		return 0;
	case HV_EV_KVM_ENTRY:
		if (t->in_exit)
			t->reasons[t->exit_slot].ns += ev->time - t->exit_time;
		t->in_exit = 0;
		return 0;
	case HV_EV_KVM_UEXIT:
		t->uexits++;
		reason_count(t, ev);
		return 0;
	case HV_EV_LOST:
		/* What happened in the hole is not known. */
		t->lost += ev->count;
		t->in_exit = 0;
		ret = close_iv(t, ev->time, UINT32_MAX, 0);
		begin(t, HV_ST_UNKNOWN, t->last_cpu, ev->time);
		return ret;
	case HV_EV_EXIT:
		if (t->state == HV_ST_GONE)
			return 0;
		ret = close_iv(t, ev->time, UINT32_MAX, 0);
		begin(t, HV_ST_GONE, t->last_cpu, ev->time);
		return ret;
	default:
		return 0;
	}
}

int hv_track_finish(struct hv_track *t, uint64_t end)
{
	int ret;

	if (!t || t->ended)
		return HV_ERR(hve_invalid);
	t->ended = 1;
	if (!t->started)
		return 0;                    /* nothing was fed */
	if (!end || end < t->last)
		end = t->last;
	if (t->state == HV_ST_GONE)
		return 0;
	ret = close_iv(t, end, UINT32_MAX, 1);
	t->since = end;
	return ret;
}
