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
 * (H1 and H2 are rs_seqcount_read's, seq_read.c.)  The host judges only the block's frame (magic, a settled seq); every
 * value in it is a claim the caller bounds, and the strings reach it as
 * the guest stored them, not necessarily NUL-terminated.
 */
#include "barrier.h"
#include "ring_internal.h"

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
	rs_store_hint(&b->nr_cpus_online, info->nr_cpus_online);
	rs_store_hint(&b->nr_cpus_avail, info->nr_cpus_avail);
	rs_store_hint(&b->mem_total_kib, info->mem_total_kib);
	rs_store_hint(&b->sample_period, info->sample_period);
	rs_store_hint(&b->sample_flags, info->sample_flags);
	rs_store_hint(&b->sample_type_id, info->sample_type_id);
	rs_store_hint(&b->sample_config, info->sample_config);
	rs_memcpy(b->hostname, info->hostname, sizeof(b->hostname));
	rs_memcpy(b->os_release, info->os_release, sizeof(b->os_release));
	rs_memcpy(b->arch, info->arch, sizeof(b->arch));
	rs_memcpy(b->cpu_desc, info->cpu_desc, sizeof(b->cpu_desc));
	rs_seqcount_write_end(&b->seq, s);                             /* G2 */
	return 0;
}

struct gi_read {
	const struct rs_guest_info *b;
	struct rs_guest_info in;
};

static int gi_take(void *arg, uint32_t s)
{
	struct gi_read *r = arg;
	const struct rs_guest_info *b = r->b;
	struct rs_guest_info *in = &r->in;

	/* Each field once, into the private copy; judged there. */
	in->magic = rs_load_hint(&b->magic);
	in->seq = s;
	in->nr_cpus_online = rs_load_hint(&b->nr_cpus_online);
	in->nr_cpus_avail = rs_load_hint(&b->nr_cpus_avail);
	in->mem_total_kib = rs_load_hint(&b->mem_total_kib);
	in->sample_period = rs_load_hint(&b->sample_period);
	in->sample_flags = rs_load_hint(&b->sample_flags);
	in->sample_type_id = rs_load_hint(&b->sample_type_id);
	in->sample_config = rs_load_hint(&b->sample_config);
	rs_memcpy(in->hostname, b->hostname, sizeof(in->hostname));
	rs_memcpy(in->os_release, b->os_release, sizeof(in->os_release));
	rs_memcpy(in->arch, b->arch, sizeof(in->arch));
	rs_memcpy(in->cpu_desc, b->cpu_desc, sizeof(in->cpu_desc));
	return in->magic != RS_GUEST_INFO_MAGIC ? -rse_corrupt : 0;
}

int rs_guest_info_read(const struct rs_region *region,
		       struct rs_guest_info *out)
{
	struct gi_read r;
	int err;

	if (!region || !region->base || !out)
		return -rse_invalid;
	rs_memset(out, 0, sizeof(*out));
	r.b = block(region);
	err = rs_seqcount_read(&r.b->seq, gi_take, &r);
	if (err == 1)
		*out = r.in;
	return err;
}
