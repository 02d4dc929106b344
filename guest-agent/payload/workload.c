// SPDX-License-Identifier: MIT
/*
 * The deterministic workload: RS_RECORD_SEQ records (sequence numbers and
 * checksums, time = rdtsc), a PERF_RECORD_SAMPLE of the agent's own IP every
 * sample_every records, and an AUX output every aux_every records.  Every
 * attempt is counted in the report, so the host can check
 * delivered + lost == attempted.
 */
#include "agent.h"

#include "ringside/producer_inline.h"

static void ring_doorbell(struct agent *a)
{
	if (!a->doorbell)
		return;
	/* An MMIO write KVM turns into an eventfd signal (ioeventfd). */
	*a->doorbell = a->id;
	a->rep->doorbells++;
}

/*
 * Tests only (boot->wait_space): before a record of @size goes in, spin
 * until the host has freed room for it and for a LOST record in front of
 * it, so that a test can ask for "nothing lost" whatever the guest's speed
 * relative to the host.  Room is measured from the producer's own head:
 * with a batch, data_head lags it, and the record also needs the header
 * slot after it kept clear.  Before spinning the head is published, or the
 * host could not see the records it has to drain to make room.  The shared
 * tail counts only when the last one seen shows no room; it is a hint
 * (reserve re-reads it with acquire before it reuses space).  Bounded:
 * after WAIT_SPINS reads the record is tried anyway, and dropped and
 * counted if there is still no room.  A real agent never waits for the
 * host: it drops and counts.
 */
#define WAIT_SPINS (1ull << 32)

static void wait_space(struct agent *a, uint32_t size)
{
	uint64_t need = size + sizeof(struct rs_perf_lost), head;
	struct rs_ring_state st;

	if (!a->boot->wait_space || a->ring.data_mode != RS_MODE_NORMAL)
		return;
	if (a->batch)
		need += sizeof(uint64_t);
	head = rs_producer_head(&a->prod);
	if (head - a->tail_seen + need <= a->ring.data_size)
		return;
	a->rep->space_waits++;
	if (rs_producer_flush(&a->prod) > 0)
		ring_doorbell(a);
	for (uint64_t spins = 0; spins < WAIT_SPINS; spins++) {
		rs_ring_state_read(&a->ring, &st);
		a->tail_seen = st.data_tail;
		if (head - a->tail_seen + need <= a->ring.data_size)
			return;
		cpu_relax();
	}
	a->rep->space_gave_up++;
}

/* Account one attempt; ret is what the ring library returned. */
static int account(struct agent *a, int ret)
{
	a->rep->attempted++;
	if (ret == -rse_no_space) {
		a->rep->dropped++;
		return 0;
	}
	if (ret < 0)
		return ret;
	if (ret > 0)
		ring_doorbell(a);
	return 0;
}

/*
 * One sequence record.  @torn (RS_WL_CORRUPT: a kernel that tears its own
 * ring): its header claims 12 bytes, a size no record can have, so the
 * host loses framing there.  The header goes in through the handle and is
 * sealed at commit like any other, so the host never sees the record
 * intact first, whenever it drains.
 */
static int emit_seq(struct agent *a, uint64_t seq, int torn)
{
	struct rs_handle h;
	int size, ret;

	/* Counted before the attempt: a host that pauses us anywhere sees
	 * seq_attempted - 1 committed or in flight, never more. */
	a->rep->seq_attempted = seq + 1;
	size = rs_seq_build(a->rec, seq, rdtsc(), a->id, a->boot->fill);
	if (size < 0)
		return size;
	wait_space(a, (uint32_t)size);
	if (torn)
		((struct rs_perf_header *)(void *)a->rec)->size = 12;
	ret = rs_producer_reserve(&a->prod, &h, (uint32_t)size);
	if (ret == 0) {
		rs_producer_write(&a->prod, &h, a->rec, (uint32_t)size);
		ret = rs_producer_commit(&a->prod, &h);
	}
	return account(a, ret);
}

static uint64_t here(void)
{
	uint64_t ip;

	__asm__ volatile("leaq 0(%%rip), %0" : "=r"(ip));
	return ip;
}

/* Body laid out in perf's order for the sample_type bits ringside uses. */
static int emit_sample(struct agent *a)
{
	uint64_t body[8], t = a->sample_type;
	uint32_t n = 0;

	if (t & RS_PERF_SAMPLE_IP)
		body[n++] = here();
	if (t & RS_PERF_SAMPLE_TID)
		body[n++] = (uint64_t)a->id << 32;  /* pid 0, tid = vCPU */
	if (t & RS_PERF_SAMPLE_TIME)
		body[n++] = rdtsc();
	if (t & RS_PERF_SAMPLE_ADDR)
		body[n++] = 0;
	if (t & RS_PERF_SAMPLE_ID)
		body[n++] = a->id;
	if (t & RS_PERF_SAMPLE_CPU)
		body[n++] = a->id;                  /* cpu, reserved 0 */
	if (t & RS_PERF_SAMPLE_PERIOD)
		body[n++] = 1;
	a->rep->samples++;
	wait_space(a, (uint32_t)(sizeof(struct rs_perf_header) +
				 n * sizeof(body[0])));
	return account(a, rs_producer_output_inline(&a->prod,
				RS_PERF_RECORD_SAMPLE, RS_PERF_MISC_GUEST_KERNEL,
				body, n * sizeof(body[0])));
}

static int emit_aux(struct agent *a)
{
	struct rs_aux_handle h;
	uint8_t chunk[64];
	uint64_t left;
	int64_t room, n;
	int ret;

	/* wait_space covers the AUX record; the bytes may be cut (TRUNCATED) */
	wait_space(a, sizeof(struct rs_perf_aux));
	room = rs_aux_begin(&a->prod, &h, a->boot->aux_bytes);
	if (room < 0)
		return (int)room;
	for (left = (uint64_t)room; left; left -= (uint64_t)n) {
		uint64_t len = left < sizeof(chunk) ? left : sizeof(chunk);

		for (uint64_t i = 0; i < len; i++)
			chunk[i] = rs_guest_aux_byte(a->id, a->aux_stream + i);
		n = rs_aux_write(&a->prod, &h, chunk, len);
		if (n <= 0)
			break;
		a->aux_stream += (uint64_t)n;
		a->rep->aux_bytes += (uint64_t)n;
	}
	ret = rs_aux_end(&a->prod, &h, 0);
	a->rep->aux_outputs++;
	if (ret > 0)
		a->rep->aux_doorbells++;
	return account(a, ret);
}

/*
 * Dropped records leave a LOST count pending in the producer; it reaches
 * the ring only when there is room.  Wait for the host to drain so that the
 * count is in the ring before the agent says it is done.
 */
static int flush_lost(struct agent *a)
{
	int ret;

	rs_shared_store32(&a->rep->phase, RS_PHASE_FLUSHING);
	/* The end of the burst: records of an unfinished batch become
	 * visible now (a LOST record below publishes too, but there may be
	 * none). */
	ret = rs_producer_flush(&a->prod);
	if (ret < 0)
		return ret;
	if (ret > 0)
		ring_doorbell(a);
	while ((ret = rs_producer_flush_lost(&a->prod)) == -rse_no_space)
		cpu_relax();
	if (ret == 2)
		ring_doorbell(a);
	return ret < 0 ? ret : 0;
}

/*
 * data_head is published per boot->data_batch bytes rather than per record:
 * the host's side of the line that holds it then moves once per batch.
 * Above half the data area (the library's limit) the batch is lowered to
 * that.  A ring full at its head cannot start one (the header slot there
 * is the oldest record's); it then publishes per record, which is always
 * correct.  Overwrite rings publish their newest record every time.
 */
static int start_batch(struct agent *a)
{
	uint64_t bytes = a->boot->data_batch;
	int ret;

	if (!bytes || a->ring.data_mode != RS_MODE_NORMAL)
		return 0;
	if (bytes > a->ring.data_size / 2)
		bytes = a->ring.data_size / 2;
	ret = rs_producer_set_batch(&a->prod, (uint32_t)bytes);
	if (ret == -rse_no_space)
		return 0;
	if (ret == 0)
		a->batch = (uint32_t)bytes;
	return ret;
}

/*
 * The heartbeat says the guest still runs; the host only shows it.  Under
 * the VMM's header guard each beat is an exit (docs/abi.md), so the
 * workload beats by time: looked at every 64th record, at most once per
 * RS_PAYLOAD_BEAT_CYCLES of the TSC (about a millisecond at 2 GHz), and
 * once at the end.  By count (every 64 records) it was an exit per few
 * microseconds.  1 beats at every 64th record (an A/B build of vmm-bench).
 */
#ifndef RS_PAYLOAD_BEAT_CYCLES
#define RS_PAYLOAD_BEAT_CYCLES (1ull << 21)
#endif

static void heartbeat(struct agent *a, int last)
{
	uint64_t now = rdtsc();

	if (!last && now - a->last_beat < RS_PAYLOAD_BEAT_CYCLES)
		return;
	a->last_beat = now;
	rs_guest_heartbeat(a->region);
}

int agent_workload(struct agent *a)
{
	const struct rs_boot_info *b = a->boot;
	/* An output of 0 bytes makes no AUX record: it would be an attempt
	 * that neither arrives nor is lost. */
	int aux = (a->mask & RS_TRACE_AUX) && b->aux_every && b->aux_bytes &&
		  a->aux_size;
	int samples = (a->mask & RS_TRACE_SAMPLES) && b->sample_every;
	int ret;

	ret = start_batch(a);
	if (ret)
		return ret;
	for (uint64_t seq = 0; seq < b->records; seq++) {
		ret = emit_seq(a, seq, 0);
		if (!ret && samples && seq % b->sample_every == 0)
			ret = emit_sample(a);
		if (!ret && aux && seq % b->aux_every == 0)
			ret = emit_aux(a);
		if (ret)
			return ret;
		if ((seq & 63) == 63 || seq + 1 == b->records)
			heartbeat(a, seq + 1 == b->records);
	}
	if (b->workload == RS_WL_CORRUPT) {
		ret = emit_seq(a, b->records, 1);
		if (ret)
			return ret;
	}
	return flush_lost(a);
}
