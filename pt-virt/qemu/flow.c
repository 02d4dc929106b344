// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * From executed blocks to packets, for one vCPU.  QEMU tells the plugin
 * only which block starts executing; every branch ends a block, so the
 * previous block's last instruction and the new block's start say what
 * that branch did: pv_gen_insn(last, next = new start).
 *
 * A new start that the last instruction cannot reach means an event came
 * in between: an interrupt (TCG takes them between blocks only) or an
 * exception part-way through the block.  PT reports it as FUP(the
 * instruction that was next) + TIP(the handler), and that FUP address is
 * not known yet: after a conditional branch it is either outcome, and an
 * exception may have stopped the block at any of its instructions.  The
 * handler's return tells: the first far transfer (IRET) back to one of
 * those addresses.  Until then the blocks that run are held, not turned
 * into packets; the event is resolved and the held blocks are replayed in
 * order.  A handler that never returns there (a fixup, a task that never
 * resumes) is resolved after QPT_HOLD_MAX blocks by a guess (the
 * fall-through), counted in `guessed`.
 */
#include <stdlib.h>
#include <x86intrin.h>

#include "qpt.h"

uint64_t qpt_tsc(void)
{
	/* Under TCG without icount the guest's TSC is the host's TSC plus
	 * an offset that stays constant while the guest runs. */
	return __rdtsc();
}

static void check(struct qpt_vcpu *v, int ret)
{
	if (ret < 0)
		v->gen_errors++;
}

/* Bytes were lost at a ToPA STOP and output resumed: the decoder needs
 * to be told (OVF) and a sync point (PSB+) to continue from. */
static void resync(struct qpt_vcpu *v, uint64_t ip)
{
	if (!v->aux.resync)
		return;
	v->aux.resync = false;
	v->overflows++;
	check(v, pv_gen_overflow(v->gen, ip));
	check(v, pv_gen_psb(v->gen, ip, qpt_tsc()));
}

static bool reaches(const struct qpt_tb *t, uint64_t next)
{
	/* Another iteration of a REP string instruction: still the same
	 * instruction, no packet. */
	if (t->rep && next == t->last.ip)
		return true;
	return pv_insn_can_reach(&t->last, next);
}

/* Does the block end in a branch whose targets the block itself says? */
static bool reaches_direct(const struct qpt_tb *t)
{
	return t->last.iclass == PV_INSN_OTHER || t->last.iclass == PV_INSN_JCC ||
	       t->last.iclass == PV_INSN_JMP || t->last.iclass == PV_INSN_CALL;
}

/* Does an instruction of block @t start at @ip? */
static bool insn_of(const struct qpt_tb *t, uint64_t ip)
{
	uint64_t a = t->start;

	if (ip < t->start || ip >= t->end)
		return false;
	for (uint32_t i = 0; i < t->n; a += t->lens[i++])
		if (a == ip)
			return true;
	return false;
}

/* Is @ip where the event at block @t can have returned to: an outcome of
 * its last instruction, or one of its instructions (an exception)?  Only
 * blocks that end without an indirect branch are ever held. */
static bool resume_point(const struct qpt_tb *t, uint64_t ip)
{
	return reaches(t, ip) || insn_of(t, ip);
}


/* Entry points: where events and entries into the filter (user to
 * kernel) went.  Nothing but an event or INT n enters them. */
static void handler_add(struct qpt_vcpu *v, uint64_t ip)
{
	for (uint32_t i = 0, h = (uint32_t)(ip >> 4); i < QPT_HANDLERS; i++) {
		uint64_t *e = &v->handlers[(h + i) % QPT_HANDLERS];

		if (*e == ip)
			return;
		if (!*e) {
			*e = ip;
			return;
		}
	}
}

static bool handler_is(const struct qpt_vcpu *v, uint64_t ip)
{
	for (uint32_t i = 0, h = (uint32_t)(ip >> 4); i < QPT_HANDLERS; i++) {
		uint64_t e = v->handlers[(h + i) % QPT_HANDLERS];

		if (e == ip)
			return true;
		if (!e)
			return false;
	}
	return false;
}

/* Exception entries: handlers that returned into the middle of the block
 * they interrupted (a fault, retried).  Interrupts never do that. */
static void exc_add(struct qpt_vcpu *v, uint64_t ip)
{
	for (uint32_t i = 0; i < QPT_EXC_ENTRIES; i++) {
		if (v->exc[i] == ip)
			return;
		if (!v->exc[i]) {
			v->exc[i] = ip;
			return;
		}
	}
}

static bool exc_is(const struct qpt_vcpu *v, uint64_t ip)
{
	for (uint32_t i = 0; i < QPT_EXC_ENTRIES && v->exc[i]; i++)
		if (v->exc[i] == ip)
			return true;
	return false;
}

/* Can the block's last instruction have gone to @b?  An indirect branch,
 * RET or far transfer can go anywhere, but not to an entry point (INT n
 * and INT3 excepted): there an exception stopped the block part-way, or
 * an interrupt came right after it. */
static bool branched(const struct qpt_vcpu *v, const struct qpt_tb *p,
		     const struct qpt_tb *b)
{
	switch (p->last.iclass) {
	case PV_INSN_JMP_IND:
	case PV_INSN_CALL_IND:
	case PV_INSN_RET:
		return !handler_is(v, b->start);
	case PV_INSN_FAR:
		return p->last.vector >= 0 || !handler_is(v, b->start);
	default:
		return reaches(p, b->start);
	}
}

/*
 * A fault fixed up elsewhere.  An exception handler can resume past the
 * faulting instruction, at a fixup: Linux's user-access helpers end in a
 * RET (`__get_user_8`: a load from the user's address, then RET), and a
 * fixup address is one the RET could have gone to, so the return alone
 * reads as an interrupt after the RET.  What tells them apart is whether
 * the block's memory accesses completed: QEMU reports a completed access
 * (a faulting one never), so the watched instructions of a RET-ending
 * block (tb.c) record theirs.  Of block @p, the one that ran last: the
 * first watched instruction that did not complete, or 0 (all did, or
 * none is watched).  A block held while an event waits keeps this for
 * the one before it (qpt_held.pfault): by the replay it is long past.
 */
static uint64_t fault_in(const struct qpt_vcpu *v, const struct qpt_tb *p)
{
	uint32_t k = 0;

	if (!p || !p->nmem)
		return 0;
	/* on_exec counted p's execution, then this block's: no access of
	 * p completed, the first faulted */
	if (v->mem_seq != v->blocks - 1)
		return p->mem_ip[0];
	while (k < p->nmem && p->mem_ip[k] != v->mem_ip)
		k++;
	/* the one after the last that completed, if any */
	return k + 1 < p->nmem ? p->mem_ip[k + 1] : 0;
}

static void hold(struct qpt_vcpu *v, const struct qpt_tb *b, uint64_t mark,
		 uint64_t pfault)
{
	if (v->nhold == v->hold_cap) {
		uint32_t cap = v->hold_cap ? 2 * v->hold_cap : 256;
		struct qpt_held *n = realloc(v->hold, cap * sizeof(*n));

		if (!n) {
			v->gen_errors++;
			return;
		}
		v->hold = n;
		v->hold_cap = cap;
	}
	v->hold[v->nhold++] = (struct qpt_held){ b, mark, pfault };
}

/* The held event returns to @r: its packets, then the held blocks. */
static void resolve(struct qpt_vcpu *v, uint64_t r)
{
	const struct qpt_tb *at = v->ev_at, *to = v->ev_to;
	struct qpt_held *held = v->hold;
	uint32_t n = v->nhold;

	v->pending = false;
	v->hold = NULL;
	v->nhold = v->hold_cap = 0;
	if (v->ev_fault && !insn_of(at, r)) {
		/* A watched access of the block did not complete, and the
		 * handler went on elsewhere: a fault fixed up (FUP at the
		 * faulting instruction; the IRET's TIP goes to r). */
		r = v->ev_fault;
		v->exceptions++;
		v->fixups++;
		if (v->ev_mark)
			qpt_truth_fault(v, v->ev_mark - 1);
	} else if (exc_is(v, to->start) && at->last.iclass == PV_INSN_OTHER &&
	    r == at->end && !at->rep) {
		/* An exception handler (one that has returned into a block
		 * before) came back after the block's last instruction: that
		 * instruction faulted and its fixup skipped it. */
		r = at->last.ip;
		v->exceptions++;
		if (v->ev_mark)
			qpt_truth_fault(v, v->ev_mark - 1);
	} else if (reaches(at, r) && !(at->rep && r == at->last.ip) &&
		   !(!reaches_direct(at) && insn_of(at, r))) {
		/* Both when a loop's block branches to its own start: the
		 * interrupt after the branch is taken to be the likelier. */
		check(v, pv_gen_insn(v->gen, &at->last, r, qpt_tsc()));
		resync(v, r);
	} else {
		v->exceptions++;
		exc_add(v, to->start);
		/* The faulting instruction is the last one started before
		 * the handler: in the truth, it started and did not retire. */
		if (v->ev_mark)
			qpt_truth_fault(v, v->ev_mark - 1);
	}
	if (to->inside) {
		check(v, pv_gen_event(v->gen, r, to->start));
	} else {
		check(v, pv_gen_disable(v->gen, r));
		v->en = false;
	}
	resync(v, to->start);
	v->prev = to;
	/* a replay may resolve a nested event and replay within it */
	bool was = v->replaying;
	uint64_t was_pfault = v->replay_pfault;

	v->replaying = true;
	for (uint32_t i = 0; i < n; i++) {
		v->replay_pfault = held[i].pfault;
		qpt_flow_block(v, held[i].tb, held[i].mark);
	}
	v->replaying = was;
	v->replay_pfault = was_pfault;
	free(held);
}

static uint64_t guess(const struct qpt_tb *t)
{
	return t->last.iclass == PV_INSN_JMP || t->last.iclass == PV_INSN_CALL ?
	       t->last.target : t->last.ip + t->last.len;
}

static void step(struct qpt_vcpu *v, const struct qpt_tb *b, uint64_t mark)
{
	const struct qpt_tb *p = v->prev;

	v->prev = b;
	if (!v->en) {
		if (!b->inside)
			return;
		v->en = true;
		v->enables++;
		if (p)
			handler_add(v, b->start);
		if (!v->started) {
			v->started = true;
			check(v, pv_gen_enable(v->gen, b->start, qpt_tsc()));
		} else {
			check(v, pv_gen_reenable(v->gen, b->start));
		}
		resync(v, b->start);
		return;
	}
	/* PacketEn: p is inside the filter. */
	if (branched(v, p, b) && !p->bad) {
		if (b->inside) {
			check(v, pv_gen_insn(v->gen, &p->last, b->start, qpt_tsc()));
		} else {
			check(v, pv_gen_leave(v->gen, &p->last, b->start));
			v->en = false;
			v->leaves++;
		}
		resync(v, b->start);
		return;
	}
	/* QEMU left the block before its instruction at b's start and goes
	 * on there in a new block (an I/O access or a write to a page with
	 * code ends the block early): the instructions before it retired,
	 * nothing else happened. */
	if (insn_of(p, b->start)) {
		v->restarts++;
		return;
	}
	v->events++;
	handler_add(v, b->start);
	v->pending = true;
	v->ev_fault = v->replaying ? v->replay_pfault : fault_in(v, p);
	v->ev_at = p;
	v->ev_to = b;
	v->ev_mark = mark;
	v->depth = 0;
	v->hold_prev = b;
}

void qpt_flow_block(struct qpt_vcpu *v, const struct qpt_tb *b, uint64_t mark)
{
	const struct qpt_tb *p;

	if (!v->gen)
		return;
	if (!v->pending) {
		step(v, b, mark);
		return;
	}
	p = v->hold_prev;
	v->hold_prev = b;
	/* Nested events raise the depth, returns lower it; the return at
	 * depth 0 that lands on a resume point resolves the event.  (After
	 * an indirect branch any address can be its target.) */
	if (p->inside && p->last.iclass == PV_INSN_FAR && p->last.vector < 0) {
		if (!v->depth && resume_point(v->ev_at, b->start)) {
			resolve(v, b->start);
			qpt_flow_block(v, b, mark);
			return;
		}
		if (v->depth)
			v->depth--;
	} else if (handler_is(v, b->start)) {
		v->depth++;
	}
	hold(v, b, mark, v->replaying ? v->replay_pfault : fault_in(v, p));
	if (v->nhold >= QPT_HOLD_MAX) {
		v->guessed++;
		resolve(v, guess(v->ev_at));
	}
}

/*
 * The vCPU stopped: it halted, or QEMU paused the VM (a pause, a panic
 * with on_crash preserve).  It may never run again, so what it did must be
 * in the AUX area now: a held event is resolved by the guess (a CPU that
 * halts in a handler, as Linux's stop_this_cpu does, never returns from
 * it), the branch outcomes waiting for a full TNT go out, and aux_head is
 * published.  Cheap enough for every HLT: a few bytes, one store.
 */
void qpt_flow_idle(struct qpt_vcpu *v)
{
	if (!v->gen)
		return;
	v->idles++;
	for (int i = 0; i < 64 && v->pending; i++) {
		v->guessed++;
		v->idle_guessed++;
		resolve(v, guess(v->ev_at));
	}
	check(v, pv_gen_flush(v->gen));
	if (v->out_ok)
		pv_aux_flush(&v->aux, 0);
}

void qpt_flow_finish(struct qpt_vcpu *v)
{
	/* Held events at the end: nothing will tell, so guess. */
	for (int i = 0; i < 64 && v->pending; i++) {
		v->guessed++;
		resolve(v, guess(v->ev_at));
	}
	if (v->gen && v->en) {
		check(v, pv_gen_disable(v->gen, v->prev ? v->prev->start : 0));
		v->en = false;
	}
}
