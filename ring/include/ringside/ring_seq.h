/* SPDX-License-Identifier: MIT */
/*
 * RS_RECORD_SEQ records (seq.c): a record that proves its own delivery,
 * with a sequence number, a pattern and a checksum over both.
 */
#ifndef RINGSIDE_RING_SEQ_H
#define RINGSIDE_RING_SEQ_H

#include <stdint.h>

#include "ringside/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checksum of an RS_RECORD_SEQ record (header excluded); 0 for NULL. */
uint64_t rs_seq_checksum(const struct rs_rec_seq *rec);

/* Size of an RS_RECORD_SEQ record with @fill pattern bytes. */
uint32_t rs_seq_size(uint32_t fill);

/* Build an RS_RECORD_SEQ record in @buf (rs_seq_size(@fill) bytes).
 * Returns the size.  -rse_too_big. */
int rs_seq_build(void *buf, uint64_t seq, uint64_t time, uint32_t producer,
		 uint32_t fill);

/* 1 if @rec is an intact RS_RECORD_SEQ record, 0 if not. */
int rs_seq_check(const struct rs_perf_header *rec);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_SEQ_H */
