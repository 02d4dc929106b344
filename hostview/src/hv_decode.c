/* SPDX-License-Identifier: MIT */
/*
 * One perf record of a hostview buffer into a struct hv_ev.  The record
 * is a copy the caller made; every length in it is checked against the
 * copy's before anything past the header is read.
 */
#include <string.h>

#include "internal.h"

/* The sample_id_all trailer: pid, tid, time, cpu, res, identifier. */
static void trailer(const uint8_t *rec, size_t len, struct hv_ev *out)
{
	const uint8_t *t = rec + len - HV_SAMPLE_ID_SIZE;

	memcpy(&out->pid, t, 4);
	memcpy(&out->tid, t + 4, 4);
	memcpy(&out->time, t + 8, 8);
	memcpy(&out->cpu, t + 16, 4);
	memcpy(&out->id, t + 24, 8);
}

static int src_of(const struct hv_layout *l, uint64_t id)
{
	if (!id)
		return -1;
	for (int s = 0; s < HV_SRC_MAX; s++)
		if (l->id[s] == id)
			return s;
	return -1;
}

/* A kvm tracepoint's fields from its raw bytes. */
static int tp_fields(const struct hv_layout *l, int src, const uint8_t *raw,
		     uint32_t raw_len, struct hv_ev *out)
{
	uint64_t v, e;
	int ret;

	switch (src) {
	case HV_SRC_KVM_EXIT:
		out->type = HV_EV_KVM_EXIT;
		ret = hv_tp_get(&l->exit_reason, raw, raw_len, &v);
		if (ret)
			return ret;
		out->reason = (uint32_t)v;
		out->isa = l->isa;
		if (l->exit_isa.size) {
			ret = hv_tp_get(&l->exit_isa, raw, raw_len, &v);
			if (ret)
				return ret;
			out->isa = (uint32_t)v;
		}
		return 0;
	case HV_SRC_KVM_ENTRY:
		out->type = HV_EV_KVM_ENTRY;
		return 0;
	case HV_SRC_KVM_UEXIT:
		out->type = HV_EV_KVM_UEXIT;
		ret = hv_tp_get(&l->uexit_reason, raw, raw_len, &v);
		if (ret)
			return ret;
		out->reason = (uint32_t)v;
		if (l->uexit_errno.size &&
		    hv_tp_get(&l->uexit_errno, raw, raw_len, &e) == 0 &&
		    (int64_t)e < 0 && (int64_t)e > -(1 << 20))
			out->reason = HV_UEXIT_ERRNO | (uint32_t)-(int64_t)e;
		return 0;
	}
	return HV_ERR(hve_invalid);
}

static int sample(const struct hv_layout *l, const uint8_t *rec, size_t len,
		  struct hv_ev *out)
{
	uint32_t raw_len;
	int src;

	/* header, identifier, pid+tid, time, cpu+res */
	if (len < 40)
		return HV_ERR(hve_short);
	memcpy(&out->id, rec + 8, 8);
	memcpy(&out->pid, rec + 16, 4);
	memcpy(&out->tid, rec + 20, 4);
	memcpy(&out->time, rec + 24, 8);
	memcpy(&out->cpu, rec + 32, 4);
	src = src_of(l, out->id);
	switch (src) {
	case HV_SRC_MIGRATE:
		out->type = HV_EV_MIGRATE;
		return 0;
	case HV_SRC_KVM_EXIT:
	case HV_SRC_KVM_ENTRY:
	case HV_SRC_KVM_UEXIT:
		if (len < 44)
			return HV_ERR(hve_short);
		memcpy(&raw_len, rec + 40, 4);
		if (raw_len > len - 44)
			return HV_ERR(hve_corrupt);
		return tp_fields(l, src, rec + 44, raw_len, out);
	default:
		out->type = HV_EV_OTHER;
		return 0;
	}
}

int hv_decode(const struct hv_layout *l, const void *record, size_t len,
	      struct hv_ev *out)
{
	const uint8_t *rec = record;
	struct perf_event_header h;

	if (!l || !rec || !out)
		return HV_ERR(hve_invalid);
	memset(out, 0, sizeof(*out));
	/* perf's records are 8-byte multiples */
	if (len < sizeof(h) || (len & 7))
		return HV_ERR(hve_short);
	memcpy(&h, rec, sizeof(h));
	if (h.size != len)
		return HV_ERR(hve_short);
	if (h.type == PERF_RECORD_SAMPLE)
		return sample(l, rec, len, out);
	if (len < sizeof(h) + HV_SAMPLE_ID_SIZE)
		return HV_ERR(hve_short);
	trailer(rec, len, out);
	switch (h.type) {
	case PERF_RECORD_SWITCH:
		if (!(h.misc & PERF_RECORD_MISC_SWITCH_OUT))
			out->type = HV_EV_SWITCH_IN;
		else if (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
			out->type = HV_EV_PREEMPT;
		else
			out->type = HV_EV_SWITCH_OUT;
		return 0;
	case PERF_RECORD_LOST:
		/* id, lost */
		if (len < sizeof(h) + 16 + HV_SAMPLE_ID_SIZE)
			return HV_ERR(hve_short);
		memcpy(&out->count, rec + 16, 8);
		out->type = HV_EV_LOST;
		return 0;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK: {
		/* pid, ppid, tid, ptid, time */
		uint32_t tid;

		if (len < sizeof(h) + 24 + HV_SAMPLE_ID_SIZE)
			return HV_ERR(hve_short);
		memcpy(&tid, rec + 16, 4);
		memcpy(&out->time, rec + 24, 8);
		if (h.type == PERF_RECORD_EXIT) {
			out->type = HV_EV_EXIT;
		} else {
			out->type = HV_EV_FORK;
			out->count = tid;
		}
		return 0;
	}
	default:
		out->type = HV_EV_OTHER;
		return 0;
	}
}
