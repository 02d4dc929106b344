/* SPDX-License-Identifier: MIT */
/*
 * The host's read of a guest-written block under a seqcount (the
 * sideband, kernel perf buffer, user symbol and process table
 * descriptors, the guest info): settled reads only, each field loaded
 * once into a private copy by the block's take, retried a bounded number
 * of times while the guest writes (barrier.h, H1 and H2):
 *
 *   H1: s = load-acquire(seq); 0: never written; odd: being written
 *   take: load the block once, judge it, copy what it describes
 *   H2: acquire fence; seq == s, else the copy may be torn: again
 */
#include "ringside/barrier.h"
#include "ring_internal.h"

#define READ_TRIES 8  /* seqcount retries before the host gives up */

/* Every block a guest writes under a seqcount has it second. */
#define SEQ_SECOND(type) \
	_Static_assert(offsetof(struct type, seq) == 4, #type "'s seq")
SEQ_SECOND(rs_sideband_desc);
SEQ_SECOND(rs_kbuf_desc);
SEQ_SECOND(rs_usyms_desc);
SEQ_SECOND(rs_pstate_desc);
SEQ_SECOND(rs_guest_info);

static int settle(const struct rs_seqcount_reader *r, size_t info_size,
		  rs_seqcount_take_fn take)
{
	const uint32_t *seq = (const uint32_t *)r->block + 1;
	int tries, got, err = -rse_busy;

	for (tries = 0; tries < READ_TRIES; tries++) {
		uint32_t s = rs_seqcount_read_begin(seq);

		if (!s) {
			err = 0;            /* never written */
			break;
		}
		if (s & 1u)
			continue;           /* being written */
		rs_memset(r->info, 0, info_size);
		got = take(r, s);
		if (got == -rse_busy || !rs_seqcount_read_ok(seq, s)) {
			err = -rse_busy;    /* changed under the copy */
			continue;
		}
		if (!got)
			return 1;
		err = got < 0 ? got : 0;    /* 1 from take: nothing to take */
		break;
	}
	rs_memset(r->info, 0, info_size);
	return err;
}

static int reader(struct rs_seqcount_reader *r, const struct rs_region *region,
		  size_t block, void *info)
{
	if (!region || !region->base || !info)
		return -rse_invalid;
	rs_memset(r, 0, sizeof(*r));
	r->region = region;
	r->block = region->base + block;
	r->info = info;
	return 0;
}

int rs_seqcount_read(const struct rs_region *region, size_t block,
		     void *info, size_t info_size, rs_seqcount_take_fn take)
{
	struct rs_seqcount_reader r;
	int err = reader(&r, region, block, info);

	return err ? err : settle(&r, info_size, take);
}

int rs_seqcount_read_sideband(const struct rs_region *region, size_t block,
			      void *buf, uint64_t buf_size, void *info,
			      size_t info_size, rs_seqcount_take_fn take)
{
	struct rs_seqcount_reader r;
	int err = reader(&r, region, block, info);

	if (err || (!buf && buf_size))
		return err ? err : -rse_invalid;
	rs_memset(info, 0, info_size);
	if (!region->sideband_size)
		return -rse_absent;
	if (buf_size < region->sideband_size)
		return -rse_too_small;
	r.area = region->base + region->sideband_offset;
	r.area_size = region->sideband_size;
	r.buf = buf;
	return settle(&r, info_size, take);
}
