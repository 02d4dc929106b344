// SPDX-License-Identifier: MIT
/*
 * The AUX half of a perf driver for Intel PT, played by the VMM: the
 * engine writes through the ToPA, this file makes aux_head follow it,
 * emits PERF_RECORD_AUX records at PMIs and at flushes, and moves the
 * STOP/INT markers as the consumer's aux_tail moves.
 *
 * Positions: the ToPA lists the AUX area's regions in order and its last
 * END points back at the first table, so byte k of the output stream lands
 * at AUX offset (start + k) mod aux_size.  The guest programs the output
 * MSRs with pv_aux_output_msrs' values to start there.
 */
#include "ringside/ring.h"
#include "pv_internal.h"

static void pmi_flush(struct pv_aux *a)
{
	if (pv_aux_flush(a, 0) > 0) {
		a->stats.wakeups++;
		if (a->wake)
			a->wake(a->wake_arg);
	}
}

/* The engine raises the PMI where a region fills, which may be between
 * two bytes of one packet.  A driver reads the output position after the
 * packets that were being written (hardware writes them whole), and a
 * consumer given a head inside a packet hands perf a record that ends in
 * half of it: the flush waits for the end of the write. */
static void on_pmi(void *arg, struct pv_out *o)
{
	struct pv_aux *a = arg;

	(void)o;
	a->stats.pmis++;
	if (a->writing) {
		a->pmi_pending = true;
		return;
	}
	pmi_flush(a);
}

/* pv_out_write, with a PMI during it taken at its end. */
static int64_t out_write(struct pv_aux *a, const void *buf, uint64_t len)
{
	int64_t n;

	a->writing = true;
	n = pv_out_write(a->out, buf, len);
	a->writing = false;
	if (a->pmi_pending) {
		a->pmi_pending = false;
		pmi_flush(a);
	}
	return n;
}

void pv_aux_on_wake(struct pv_aux *a, void (*fn)(void *arg), void *arg)
{
	if (!a)
		return;
	a->wake = fn;
	a->wake_arg = arg;
}

static uint64_t aux_tail(const struct pv_aux *a)
{
	struct rs_ring_state st;

	if (rs_ring_state_read(&a->prod->ring, &st) < 0)
		return a->head - a->aux_size;
	/* Hostile: a tail ahead of head or more than a buffer behind it is
	 * treated as "nothing consumed since the last good value". */
	if (a->head - st.aux_tail > a->aux_size)
		return a->head > a->aux_size ? a->head - a->aux_size : 0;
	return st.aux_tail;
}

int pv_aux_init(struct pv_aux *a, struct rs_producer *prod, struct pv_out *out,
		uint64_t aux_gpa, struct pv_topa_params *tp, void *tables,
		uint64_t tables_size)
{
	struct rs_ring_state st;
	int ret;

	if (!a || !prod || !out || !tp || !prod->ring.aux_size)
		return -pve_invalid;
	memset(a, 0, sizeof(*a));
	a->prod = prod;
	a->out = out;
	a->aux_size = prod->ring.aux_size;
	a->snapshot = prod->ring.aux_mode == RS_MODE_OVERWRITE;
	tp->aux_gpa = aux_gpa;
	tp->aux_size = a->aux_size;
	if (a->snapshot)
		tp->flags |= PV_TOPA_SNAPSHOT;
	ret = pv_topa_build(&a->topa, tp, tables, tables_size);
	if (ret < 0)
		return ret;
	if (rs_ring_state_read(&prod->ring, &st) < 0)
		return -pve_invalid;
	a->head = a->flushed = st.aux_head;
	a->out_bytes = out->stats.bytes;
	a->out_dropped = out->stats.dropped;
	if (pv_topa_markers(&a->topa, a->head, aux_tail(a)) == -pve_no_space)
		a->stats.no_space++;
	out->pmi = on_pmi;
	out->pmi_arg = a;
	return 0;
}

void pv_aux_no_records(struct pv_aux *a)
{
	if (a)
		a->no_records = true;
}

int pv_aux_output_msrs(const struct pv_aux *a, uint64_t *base, uint64_t *mask)
{
	uint64_t off;
	uint32_t region, index;
	int ret;

	if (!a || !base || !mask)
		return -pve_invalid;
	off = a->head % a->aux_size;
	region = (uint32_t)(off / a->topa.region_size);
	ret = pv_topa_locate(&a->topa, region, base, &index);
	if (ret < 0)
		return ret;
	*mask = PV_MASK_PTRS(index, off % a->topa.region_size);
	return 0;
}

static void account(struct pv_aux *a)
{
	a->head += a->out->stats.bytes - a->out_bytes;
	a->out_bytes = a->out->stats.bytes;
}

static int flush(struct pv_aux *a, uint64_t flags, struct rs_aux_handle *begun);

/*
 * A flight recorder without PERF_RECORD_AUX records (the QEMU plugin's):
 * there publishing aux_head is a store, so every write is published at
 * once, and a snapshot of a guest that stopped for good (a panic) holds
 * its newest bytes.  The write limit is announced before the bytes go in,
 * as rs_aux_begin does: a live snapshot then cuts the part of its copy
 * this write may be overwriting instead of returning it torn (abi.md,
 * "Live").
 */
static int64_t write_announced(struct pv_aux *a, const void *buf, uint64_t len)
{
	struct rs_aux_handle h;
	int64_t n;

	account(a);
	if (rs_aux_begin(a->prod, &h, a->head - a->flushed + len) < 0)
		return -pve_internal;
	n = out_write(a, buf, len);
	flush(a, 0, &h);
	return n;
}

int64_t pv_aux_write(struct pv_aux *a, const void *buf, uint64_t len)
{
	int64_t n;

	if (!a)
		return -pve_invalid;
	/* Stopped: the driver resumes as soon as the consumer made room. */
	if (a->out->msr->status & PV_STATUS_STOPPED)
		pv_aux_flush(a, 0);
	if (a->snapshot && a->no_records)
		return write_announced(a, buf, len);
	/* Published every half buffer: what goes in meanwhile overwrites the
	 * oldest bytes a live snapshot may be reading, so it is announced
	 * first (the next flush brings the limit back to aux_head). */
	if (a->snapshot) {
		account(a);
		if (rs_aux_announce(a->prod, a->head - a->flushed + len) < 0)
			return -pve_internal;
	}
	n = out_write(a, buf, len);
	if (n < 0)
		return n;
	account(a);
	if (a->snapshot && a->head - a->flushed >= a->aux_size / 2)
		pv_aux_flush(a, 0);
	return n;
}

/* After a ToPA STOP: if the consumer made room, step past the full region
 * and let output go on.  The bytes offered meanwhile are gone. */
static void restart(struct pv_aux *a)
{
	struct pv_msr *m = a->out->msr;
	uint64_t base, mask;

	if (pv_aux_output_msrs(a, &base, &mask) < 0)
		return;
	m->output_base = base;
	m->output_mask = mask;
	m->status &= ~PV_STATUS_STOPPED;
	a->stop_reported = false;
	a->resync = true;
	a->stats.restarts++;
}

int pv_aux_flush(struct pv_aux *a, uint64_t flags)
{
	if (!a)
		return -pve_invalid;
	return flush(a, flags, NULL);
}

/* Publish what the engine wrote since the last flush.  @begun: the handle
 * of an rs_aux_begin made before the bytes were written (write_announced),
 * else NULL and it is begun here. */
static int flush(struct pv_aux *a, uint64_t flags, struct rs_aux_handle *begun)
{
	struct rs_aux_handle own, *h = begun ? begun : &own;
	bool stopped;
	int64_t room;
	int wake = 0, ret;

	account(a);
	stopped = a->out->msr->status & PV_STATUS_STOPPED;
	if (stopped && !a->stop_reported) {
		flags |= RS_PERF_AUX_FLAG_TRUNCATED;
		a->stop_reported = true;
	}
	if (a->out->stats.dropped != a->out_dropped && !stopped)
		flags |= RS_PERF_AUX_FLAG_PARTIAL;
	a->out_dropped = a->out->stats.dropped;

	if (a->head != a->flushed || flags || begun) {
		if (!begun) {
			room = rs_aux_begin(a->prod, h, a->head - a->flushed);
			if (room < 0)
				return -pve_internal;
		}
		rs_aux_skip(a->prod, h, a->head - a->flushed);
		ret = a->no_records ? rs_aux_publish(a->prod, h, flags) :
				      rs_aux_end(a->prod, h, flags);
		if (ret > 0)
			wake = 1;
		a->flushed = a->head;
		a->stats.records++;
		if ((flags | h->flags) & RS_PERF_AUX_FLAG_TRUNCATED)
			a->stats.truncated++;
		if (flags & RS_PERF_AUX_FLAG_PARTIAL)
			a->stats.partial++;
	}
	ret = pv_topa_markers(&a->topa, a->head, aux_tail(a));
	if (ret == -pve_no_space)
		a->stats.no_space++;
	else if (stopped && ret == 0)
		restart(a);
	return wake;
}
