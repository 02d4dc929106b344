/* SPDX-License-Identifier: MIT */
/*
 * The host's read of a guest-written block under a seqcount (the
 * sideband, kernel perf buffer and user symbol descriptors): settled
 * reads only, each field loaded once into a private copy by the caller's
 * @take, retried a bounded number of times while the guest writes.
 */
#include "ring_internal.h"

#include "barrier.h"

#define READ_TRIES 8  /* seqcount retries before the host gives up */

int rs_seqcount_read(const uint32_t *seq, rs_seq_take_fn take, void *arg)
{
	int tries, err = -rse_busy;

	for (tries = 0; tries < READ_TRIES; tries++) {
		uint32_t s = rs_seqcount_read_begin(seq);
		int got;

		if (!s)
			return 0;           /* never written */
		if (s & 1u)
			continue;           /* being written */
		got = take(arg, s);
		if (!rs_seqcount_read_ok(seq, s)) {
			err = -rse_busy;    /* changed under the copy */
			continue;
		}
		if (got < 0)
			return got;
		return got ? 0 : 1;         /* 1 from take: withdrawn */
	}
	return err;
}
