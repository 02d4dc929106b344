/* SPDX-License-Identifier: MIT */
/*
 * Who the guest is (abi.h, struct rs_guest_info): a block of the region
 * header the guest writes at attach under a seqcount of its own, the same
 * G/H pairs as the sideband's (barrier.h, sideband.c):
 *
 *   guest                                  host
 *   G1: seq odd; release fence             H1: s = load-acquire(seq)
 *   write the fields, magic                check s even, load each field
 *   G2: store-release(seq, odd + 1)        once into a private copy
 *                                          H2: acquire fence; seq == s
 *
 * (H1 and H2 are rs_seqcount_read's, seqcount.c.)  The host judges only
 * the block's frame (magic, a settled seq); every value in it is a claim
 * the caller bounds, and the strings reach it as the guest stored them,
 * not necessarily NUL-terminated.
 */
#include "ringside/barrier.h"
#include "ring_internal.h"

/* Every field after magic and seq, a whole number of words. */
#define FIELDS offsetof(struct rs_guest_info, nr_cpus_online)
_Static_assert(FIELDS == 8, "rs_guest_info's fields start at a word");

static struct rs_guest_info *block(const struct rs_region *region)
{
	return &((struct rs_region_header *)region->base)->info;
}

int rs_guest_info_publish(const struct rs_region *region,
			  const struct rs_guest_info *info)
{
	struct rs_guest_info *b;
	uint32_t s;

	if (!region || !region->base || !info)
		return -rse_invalid;
	b = block(region);
	s = rs_seqcount_write_begin(&b->seq);                          /* G1 */
	rs_store_hint(&b->magic, RS_GUEST_INFO_MAGIC);
	rs_store_hints(&b->nr_cpus_online, &info->nr_cpus_online,
		       sizeof(*b) - FIELDS);
	rs_seqcount_write_end(&b->seq, s);                             /* G2 */
	return 0;
}

/* The block, once. */
static int gi_take(const struct rs_seqcount_reader *r, uint32_t s)
{
	struct rs_guest_info *in = r->info;

	rs_load_hints(in, r->block, sizeof(*in));
	in->seq = s;
	return in->magic != RS_GUEST_INFO_MAGIC ? -rse_corrupt : 0;
}

int rs_guest_info_read(const struct rs_region *region,
		       struct rs_guest_info *out)
{
	return rs_seqcount_read(region, RS_HEADER_BLOCK(info), out,
				sizeof(*out), gi_take);
}
