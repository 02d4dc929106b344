// SPDX-License-Identifier: MIT
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmm_fixture.h"

void vt_require_kvm(void)
{
	if (access("/dev/kvm", R_OK | W_OK) != 0) {
		printf("SKIP: /dev/kvm is not usable here (%s)\n", strerror(errno));
		exit(77);
	}
}

const char *vt_payload(void)
{
	const char *p = getenv("RS_GUEST_AGENT");

	ck_assert_msg(p && *p, "RS_GUEST_AGENT not set");
	return p;
}

static void log_to(void *arg, int level, const char *fmt, va_list ap)
{
	struct vt *t = arg;

	(void)level;
	vsnprintf(t->log, sizeof(t->log), fmt, ap);
}

void vt_params(struct vmm_params *p)
{
	vmm_params_init(p);
	p->data_pages = 4;
	p->boot.records = 1000;
}

void vt_boot(struct vt *t, int start)
{
	int ret;

	t->p.log = log_to;
	t->p.log_arg = t;
	ret = vmm_create(&t->vm, &t->p);
	ck_assert_msg(ret == 0, "create: %s (%s)", strerror(-ret), t->log);
	ret = vmm_load_file(t->vm, vt_payload());
	ck_assert_msg(ret == 0, "load: %s (%s)", strerror(-ret), t->log);
	for (uint32_t r = 0; r < t->p.nr_vcpus; r++) {
		t->rings[r].id = r;
		if (t->p.data_mode == RS_MODE_NORMAL) {
			t->cons[r] = rs_consumer_alloc(vmm_region(t->vm), r);
			ck_assert_ptr_nonnull(t->cons[r]);
		}
	}
	if (start) {
		ret = vmm_start(t->vm);
		ck_assert_msg(ret == 0, "start: %s (%s)", strerror(-ret), t->log);
	}
}

void vt_fini(struct vt *t)
{
	for (uint32_t r = 0; r < RS_MAX_RINGS; r++)
		rs_consumer_free(t->cons[r]);
	vmm_destroy(t->vm);
	memset(t, 0, sizeof(*t));
}

static int check_sample(struct vt_ring *s, const struct rs_perf_header *rec)
{
	const uint64_t *body = (const uint64_t *)(rec + 1);

	/* Default sample_type IP|TID|TIME|CPU: four u64. */
	if (rec->size != sizeof(*rec) + 4 * 8)
		return 0;
	if (body[0] < RS_BOOT_LOAD_GPA || body[0] >= RS_BOOT_LOAD_GPA + (1u << 20))
		return 0;   /* the agent's own code */
	return body[1] >> 32 == s->id && body[3] == s->id;
}

int vt_on_record(const struct rs_perf_header *rec, void *arg)
{
	struct vt_ring *s = arg;
	const struct rs_rec_seq *q = (const struct rs_rec_seq *)rec;

	switch (rec->type) {
	case RS_RECORD_SEQ:
		if (!rs_seq_check(rec) || q->producer != s->id) {
			s->bad++;
			break;
		}
		if (s->backward) {
			/* Newest first: each seq one below the previous. */
			if (s->seq == 0)
				s->newest_seq = q->seq;
			else if (q->seq + 1 != s->next_seq)
				s->order_errors++;
			s->next_seq = q->seq;
		} else {
			if (q->seq < s->next_seq)
				s->order_errors++;
			else
				s->skipped_seqs += q->seq - s->next_seq;
			s->next_seq = q->seq + 1;
			s->newest_seq = q->seq;
		}
		s->seq++;
		break;
	case RS_PERF_RECORD_SAMPLE:
		if (check_sample(s, rec))
			s->samples++;
		else
			s->bad++;
		break;
	case RS_PERF_RECORD_AUX:
		s->aux_recs++;
		break;
	case RS_PERF_RECORD_LOST:
		s->lost_recs++;
		s->lost += ((const struct rs_perf_lost *)rec)->lost;
		break;
	default:
		s->other++;
	}
	return 0;
}

int vt_on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	struct vt_ring *s = arg;
	const uint8_t *b = chunk;

	if (pos != s->aux_next)
		s->aux_bad++;
	for (uint64_t i = 0; i < len; i++)
		if (b[i] != rs_guest_aux_byte(s->id, pos + i))
			s->aux_bad++;
	s->aux_bytes += len;
	s->aux_next = pos + len;
	return 0;
}

void vt_drain(struct vt *t)
{
	for (uint32_t r = 0; r < t->p.nr_vcpus; r++) {
		ck_assert_int_ge(vmm_doorbell_collect(t->vm, r), 0);
		if (!t->cons[r])
			continue;
		ck_assert_int_ge(rs_consumer_drain(t->cons[r], vt_on_record,
						   &t->rings[r]), 0);
		if (t->p.aux_pages && t->p.aux_mode == RS_MODE_NORMAL)
			ck_assert_int_ge(rs_consumer_drain_aux(t->cons[r], vt_on_aux,
							       &t->rings[r]), 0);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void poll_doorbells(struct vt *t, int ms)
{
	struct pollfd pfd[RS_MAX_RINGS];

	for (uint32_t r = 0; r < t->p.nr_vcpus; r++)
		pfd[r] = (struct pollfd){ .fd = vmm_doorbell_fd(t->vm, r),
					  .events = POLLIN };
	poll(pfd, t->p.nr_vcpus, ms);
}

void vt_run(struct vt *t, int drain)
{
	double end = now_s() + 90;

	while (vmm_wait(t->vm, 0) == -ETIMEDOUT) {
		ck_assert_msg(now_s() < end, "guest did not finish in 90 s");
		if (drain) {
			poll_doorbells(t, 10);
			vt_drain(t);
		} else {
			vmm_wait(t->vm, 20);
		}
	}
	if (drain)
		vt_drain(t);
}

void vt_wait_phase(struct vt *t, uint32_t id, uint32_t phase, int drain)
{
	struct rs_vmm_vcpu_info info;
	double end = now_s() + 90;

	for (;;) {
		ck_assert_int_eq(vmm_cpu_info(t->vm, id, &info), 0);
		if (info.report.phase >= phase || info.state != RS_VCPU_RUNNING)
			break;
		ck_assert_msg(now_s() < end, "vCPU %u: no phase %u in 90 s", id, phase);
		if (drain) {
			poll_doorbells(t, 5);
			vt_drain(t);
		} else {
			usleep(2000);
		}
	}
	ck_assert_msg(info.report.phase >= phase, "vCPU %u stopped (%s) in phase %u",
		      id, vmm_cpu_state_name(info.state), info.report.phase);
}

void vt_wait_state(struct vt *t, uint32_t id, uint32_t state)
{
	struct rs_vmm_vcpu_info info;
	double end = now_s() + 90;

	for (;;) {
		ck_assert_int_eq(vmm_cpu_info(t->vm, id, &info), 0);
		if (info.state == state)
			return;
		ck_assert_msg(info.state == RS_VCPU_RUNNING,
			      "vCPU %u is %s, waiting for %s", id,
			      vmm_cpu_state_name(info.state), vmm_cpu_state_name(state));
		ck_assert_msg(now_s() < end, "vCPU %u not %s in 90 s", id,
			      vmm_cpu_state_name(state));
		usleep(2000);
	}
}

uint64_t vt_wait_seq(struct vt *t, uint32_t id, uint64_t n)
{
	struct rs_vmm_vcpu_info info;
	double end = now_s() + 90;

	for (;;) {
		ck_assert_int_eq(vmm_cpu_info(t->vm, id, &info), 0);
		if (info.report.seq_attempted > n)
			return info.report.seq_attempted;
		ck_assert_msg(info.state == RS_VCPU_RUNNING, "vCPU %u is %s at %llu records",
			      id, vmm_cpu_state_name(info.state),
			      (unsigned long long)info.report.seq_attempted);
		ck_assert_msg(now_s() < end, "vCPU %u not past %llu records in 90 s",
			      id, (unsigned long long)n);
		usleep(2000);
	}
}

void vt_check_accounting(struct vt *t, uint32_t id)
{
	const struct vt_ring *s = &t->rings[id];
	const struct rs_cons_stats *cs = rs_consumer_stats(t->cons[id]);
	struct rs_vmm_vcpu_info info;
	uint64_t delivered = s->seq + s->samples + s->aux_recs;

	ck_assert_int_eq(vmm_cpu_info(t->vm, id, &info), 0);
	ck_assert_msg(info.report.phase == RS_PHASE_DONE, "ring %u: phase %u error %d",
		      id, info.report.phase, info.report.error);
	ck_assert_uint_eq(s->bad, 0);
	ck_assert_uint_eq(s->other, 0);
	ck_assert_uint_eq(s->order_errors, 0);
	ck_assert_uint_eq(cs->corrupt, 0);
	ck_assert_uint_eq(s->lost, cs->lost);
	/* The proof: every attempt arrived exactly once or was counted lost. */
	ck_assert_msg(delivered + s->lost == info.report.attempted,
		      "ring %u: delivered %llu + lost %llu != attempted %llu", id,
		      (unsigned long long)delivered, (unsigned long long)s->lost,
		      (unsigned long long)info.report.attempted);
	ck_assert_uint_eq(s->lost, info.report.dropped);
	/* SEQ records missing in the middle or at the end are among the
	 * lost ones; with no loss, every one arrived. */
	ck_assert_uint_le(s->next_seq, info.report.seq_attempted);
	ck_assert_uint_le(s->skipped_seqs + info.report.seq_attempted - s->next_seq,
			  s->lost);
	if (s->lost == 0)
		ck_assert_uint_eq(s->seq, info.report.seq_attempted);
	ck_assert_uint_eq(s->aux_bad, 0);
	if (t->p.aux_pages && t->p.aux_mode == RS_MODE_NORMAL)
		ck_assert_uint_eq(s->aux_bytes, info.report.aux_bytes);
}

struct vt_ring vt_snapshot(struct vt *t, uint32_t id, int pause)
{
	const struct rs_perf_header *rec;
	struct rs_snapshot *snap = rs_snapshot_alloc();
	uint64_t size = (uint64_t)t->p.data_pages * RS_PAGE_SIZE;
	void *buf = malloc(size);
	struct vt_ring s = { .id = id, .backward = t->p.data_mode == RS_MODE_OVERWRITE };
	int ret;

	ck_assert_ptr_nonnull(snap);
	ck_assert_ptr_nonnull(buf);
	if (pause)
		ck_assert_int_eq(vmm_pause(t->vm), 0);
	ret = rs_snapshot_take(snap, vmm_region(t->vm), id, buf, size);
	if (pause)
		ck_assert_int_eq(vmm_resume(t->vm), 0);
	ck_assert_int_eq(ret, 0);
	while (rs_snapshot_next(snap, &rec) == 1)
		vt_on_record(rec, &s);
	ck_assert_uint_eq(rs_snapshot_stats(snap)->corrupt, 0);
	s.cut_bytes = rs_snapshot_stats(snap)->cut_bytes;
	ck_assert_uint_eq(s.bad, 0);
	ck_assert_uint_eq(s.other, 0);
	ck_assert_uint_eq(s.order_errors, 0);
	rs_snapshot_free(snap);
	free(buf);
	return s;
}
