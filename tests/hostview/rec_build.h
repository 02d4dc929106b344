/* SPDX-License-Identifier: MIT */
/*
 * Synthetic perf records as a hostview buffer holds them: sample_type
 * IDENTIFIER | TID | TIME | CPU (+ RAW), sample_id_all.  For the tests
 * of the decoder, the buffer walks and the analysis.
 */
#ifndef HV_TEST_REC_BUILD_H
#define HV_TEST_REC_BUILD_H

#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ringside/hv_parse.h"

#define ID_SWITCH 101
#define ID_MIGRATE 102
#define ID_EXIT 103
#define ID_ENTRY 104
#define ID_UEXIT 105

/* The layout of the records below: kvm_exit's exit_reason at 8 and isa
 * at 24, kvm_userspace_exit's reason at 8 and errno at 12, as in the
 * kernel's formats. */
static inline void test_layout(struct hv_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->id[HV_SRC_SWITCH] = ID_SWITCH;
	l->id[HV_SRC_MIGRATE] = ID_MIGRATE;
	l->id[HV_SRC_KVM_EXIT] = ID_EXIT;
	l->id[HV_SRC_KVM_ENTRY] = ID_ENTRY;
	l->id[HV_SRC_KVM_UEXIT] = ID_UEXIT;
	l->exit_reason = (struct hv_tpfield){ .offset = 8, .size = 4 };
	l->exit_isa = (struct hv_tpfield){ .offset = 24, .size = 4 };
	l->uexit_reason = (struct hv_tpfield){ .offset = 8, .size = 4 };
	l->uexit_errno = (struct hv_tpfield){ .offset = 12, .size = 4,
					      .is_signed = 1 };
}

static inline void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static inline uint32_t trailer_at(uint8_t *rec, uint32_t at, uint32_t tid,
				  uint64_t time, uint32_t cpu, uint64_t id)
{
	put32(rec + at, 1000);
	put32(rec + at + 4, tid);
	put64(rec + at + 8, time);
	put32(rec + at + 16, cpu);
	put32(rec + at + 20, 0);
	put64(rec + at + 24, id);
	return at + 32;
}

static inline void header(uint8_t *rec, uint32_t type, uint16_t misc,
			  uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	memcpy(rec, &h, sizeof(h));
}

/* A SWITCH record: in, out (blocked) or out with the preempt bit. */
#define SW_IN 0
#define SW_OUT 1
#define SW_PREEMPT 2
static inline uint32_t rec_switch(uint8_t *rec, int how, uint32_t tid,
				  uint64_t time, uint32_t cpu)
{
	uint16_t misc = 0;

	if (how != SW_IN)
		misc |= PERF_RECORD_MISC_SWITCH_OUT;
	if (how == SW_PREEMPT)
		misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	header(rec, PERF_RECORD_SWITCH, misc, 40);
	return trailer_at(rec, 8, tid, time, cpu, ID_SWITCH);
}

static inline uint32_t rec_lost(uint8_t *rec, uint64_t lost, uint32_t tid,
				uint64_t time)
{
	header(rec, PERF_RECORD_LOST, 0, 56);
	put64(rec + 8, ID_SWITCH);
	put64(rec + 16, lost);
	return trailer_at(rec, 24, tid, time, 0, ID_SWITCH);
}

static inline uint32_t rec_task(uint8_t *rec, uint32_t type, uint32_t tid,
				uint32_t child, uint64_t time)
{
	header(rec, type, 0, 64);
	put32(rec + 8, 1000);
	put32(rec + 12, 1000);
	put32(rec + 16, child);
	put32(rec + 20, tid);
	put64(rec + 24, time);
	return trailer_at(rec, 32, tid, time, 0, ID_SWITCH);
}

/* A SAMPLE of @id; @raw_len > 0 adds a RAW part of that many bytes
 * (the u32 size then the bytes, padded to 8), @reason at 8 and @extra at
 * 12 (uexit's errno) or 24 (exit's isa). */
static inline uint32_t rec_sample(uint8_t *rec, uint64_t id, uint32_t tid,
				  uint64_t time, uint32_t cpu, uint32_t raw_len,
				  uint32_t reason, uint32_t extra)
{
	uint32_t size = 40;

	put64(rec + 8, id);
	put32(rec + 16, 1000);
	put32(rec + 20, tid);
	put64(rec + 24, time);
	put32(rec + 32, cpu);
	put32(rec + 36, 0);
	if (raw_len) {
		uint8_t *raw = rec + 44;

		put32(rec + 40, raw_len);
		memset(raw, 0, raw_len);
		if (raw_len >= 12)
			put32(raw + 8, reason);
		if (id == ID_UEXIT && raw_len >= 16)
			put32(raw + 12, extra);
		if (id == ID_EXIT && raw_len >= 28)
			put32(raw + 24, extra);
		size = (44 + raw_len + 7) & ~7u;
	}
	header(rec, PERF_RECORD_SAMPLE, 0, (uint16_t)size);
	return size;
}

#endif
