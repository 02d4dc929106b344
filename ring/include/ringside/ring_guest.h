/* SPDX-License-Identifier: MIT */
/*
 * The guest agent's side of the region header: the host's configuration
 * as it is now, and the agent's status: attach, heartbeat, detach
 * (guest.c); who the guest is, published by the agent and read by the
 * host (guest_info.c).
 */
#ifndef RINGSIDE_RING_GUEST_H
#define RINGSIDE_RING_GUEST_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The host's configuration as it is now, each field read once: enabled
 * with acquire semantics first, so the other fields are at least as new
 * as the switch (rs_region_enable).  Unlike rs_region_config() (the copy
 * validated at open) this follows a host that changes trace_mask or
 * enabled while the guest runs.  -rse_invalid.
 */
int rs_guest_config_read(const struct rs_region *region, struct rs_config *cfg);

/* 1 if the host has enabled tracing, 0 if not (one acquire load, for a
 * guest waiting for the switch).  -rse_invalid. */
int rs_guest_enabled(const struct rs_region *region);

/*
 * Attach an agent of @agent_kind (enum rs_agent_kind) that writes
 * @rings_used rings: read the configuration into @cfg (as
 * rs_guest_config_read), check it against the layout validated at open,
 * then publish the status: abi_version, agent_kind, rings_used, boot_gen
 * (the header's), and attached = 1 last, with release semantics.  Returns 1 when the host has
 * enabled tracing, 0 when not (the agent is attached either way; it
 * decides whether to wait).  Refused, with nothing published:
 * -rse_invalid (NULL, unknown kind, no rings or more than the region has),
 * -rse_geometry (a mode no host writes, or modes and watermarks other than
 * those the region was opened with: open it again).
 */
int rs_guest_attach(const struct rs_region *region, uint32_t agent_kind,
		    uint32_t rings_used, struct rs_config *cfg);

/* One heartbeat: status.heartbeat + 1, atomically (several vCPUs may
 * beat at once), with release semantics; before it, status.boot_gen
 * follows the header's boot_gen (written only when it differs).
 * -rse_invalid. */
int rs_guest_heartbeat(const struct rs_region *region);

/* attached = 0, with release semantics, after the agent's last record.
 * -rse_invalid. */
int rs_guest_detach(const struct rs_region *region);

/* ---- who the guest is (abi.h, struct rs_guest_info) -------------------- */

/*
 * Guest: publish @info (its magic and seq are ignored) in the region
 * header's guest info block, under the block's seqcount: seq odd while
 * the fields are written, then even with release semantics.  Publish it
 * again whenever it changes.  0; -rse_invalid.
 */
int rs_guest_info_publish(const struct rs_region *region,
			  const struct rs_guest_info *info);

/*
 * Host: copy the block once into @out (zeroed first), retrying a bounded
 * number of times while the guest writes it.  1 copied; 0 never written;
 * -rse_invalid, -rse_busy (seq odd, or it changed under every try),
 * -rse_corrupt (a settled block without RS_GUEST_INFO_MAGIC).  Only the
 * frame is judged: every field is a guest claim, and the strings are as
 * the guest stored them (NUL-padded, not necessarily NUL-terminated),
 * for the caller to bound and clean.
 */
int rs_guest_info_read(const struct rs_region *region,
		       struct rs_guest_info *out);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_GUEST_H */
