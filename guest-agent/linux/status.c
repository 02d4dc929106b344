/* SPDX-License-Identifier: MIT */
/*
 * What the agent reads from and says in the region header.  The host owns
 * rs_config and may change enabled and trace_mask while the guest runs;
 * the agent owns rs_guest_status.  Each shared value is read or written
 * once, with __atomic accessors only here.  attached is stored with
 * release semantics after the other status fields, so that a host reading
 * it with acquire and seeing 1 sees the rest; the host treats all of them
 * as hints for display anyway.
 */
#include "agent.h"

#define AGENT_KIND_LINUX 2u

void agent_config_read(const struct rs_region *region, struct agent_config *c)
{
	const struct rs_region_header *h = rs_region_header(region);

	c->enabled = __atomic_load_n(&h->config.enabled, __ATOMIC_ACQUIRE);
	c->trace_mask = __atomic_load_n(&h->config.trace_mask, __ATOMIC_RELAXED);
}

void agent_status_attach(const struct rs_region *region, uint32_t rings_used)
{
	struct rs_guest_status *st = &rs_region_header(region)->status;

	__atomic_store_n(&st->abi_version, RS_ABI_VERSION, __ATOMIC_RELAXED);
	__atomic_store_n(&st->agent_kind, AGENT_KIND_LINUX, __ATOMIC_RELAXED);
	__atomic_store_n(&st->rings_used, rings_used, __ATOMIC_RELAXED);
	__atomic_store_n(&st->attached, 1u, __ATOMIC_RELEASE);
}

void agent_status_beat(const struct rs_region *region)
{
	struct rs_guest_status *st = &rs_region_header(region)->status;

	/* only this thread writes it: a plain increment, published whole */
	__atomic_store_n(&st->heartbeat,
			 __atomic_load_n(&st->heartbeat, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
}

void agent_status_detach(const struct rs_region *region)
{
	struct rs_guest_status *st = &rs_region_header(region)->status;

	__atomic_store_n(&st->attached, 0u, __ATOMIC_RELEASE);
}
