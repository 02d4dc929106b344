/* SPDX-License-Identifier: MIT */
/*
 * The sideband: an area of the region the guest fills once after attach
 * (the kernel's symbols and build id) and the host copies once, described
 * by a block of the region header under a seqcount (sideband.c).  The
 * guest's tables in it have headers of their own: ring_kbuf.h,
 * ring_usyms.h, ring_pstate.h.
 */
#ifndef RINGSIDE_RING_SIDEBAND_H
#define RINGSIDE_RING_SIDEBAND_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_region.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The guest's sideband in the making (rs_sideband_begin .. commit). */
struct rs_sideband_writer {
	uint8_t *area;
	uint64_t size;
	uint64_t length;        /* content bytes written */
	uint64_t wanted;        /* content bytes offered */
	uint32_t flags;
	uint32_t seq;           /* the odd value begin stored */
	uint32_t build_id_len;
	uint32_t reserved;
	struct rs_sideband_desc *desc;
	uint8_t build_id[RS_SIDEBAND_BUILD_ID_MAX];
};

/* Bytes of the region's sideband area, from the validated layout (0: none). */
uint64_t rs_sideband_size(const struct rs_region *region);

/*
 * Guest: fill the sideband.  rs_sideband_begin marks the descriptor as
 * being written (seq odd); rs_sideband_append adds @len bytes of content
 * whole or not at all: a piece that does not fit is not written, the
 * content is TRUNCATED from then on (later pieces are counted, not
 * written), and wanted counts every byte offered; rs_sideband_set_build_id
 * records up to RS_SIDEBAND_BUILD_ID_MAX bytes of build id;
 * rs_sideband_commit publishes kind, flags, length, wanted and the build
 * id, then seq even, with release semantics.
 * begin: -rse_invalid, -rse_absent (the region has no sideband area).
 * append: 1 written, 0 not written (truncated), -rse_invalid.
 * set_build_id: -rse_invalid (NULL, or longer than the maximum).
 * commit: -rse_invalid (NULL, kind 0).
 */
int rs_sideband_begin(const struct rs_region *region,
		      struct rs_sideband_writer *w);
int rs_sideband_append(struct rs_sideband_writer *w, const void *src,
		       uint64_t len);
int rs_sideband_set_build_id(struct rs_sideband_writer *w, const void *id,
			     uint32_t len);
int rs_sideband_commit(struct rs_sideband_writer *w, uint32_t kind);

/* What the host read: the guest's descriptor, validated. */
struct rs_sideband_info {
	uint32_t kind;            /* enum rs_sideband_kind (claim) */
	uint32_t flags;           /* RS_SIDEBAND_TRUNCATED (claim) */
	uint64_t length;          /* bytes copied to the caller's buffer */
	uint64_t wanted;          /* the guest's total (claim, >= length) */
	uint32_t seq;
	uint32_t build_id_len;
	uint8_t build_id[RS_SIDEBAND_BUILD_ID_MAX];
};

/*
 * Host: copy the sideband once into @buf (@buf_size >= rs_sideband_size())
 * and describe it in @info.  The descriptor is read under its seqcount and
 * every length is bounded by the host's own layout before anything is
 * copied.  1: complete content copied; 0: the guest has written none yet
 * (@info zeroed).  -rse_invalid, -rse_absent (no sideband area),
 * -rse_too_small (@buf), -rse_busy (the guest is writing it: seq odd, or
 * it changed under every try), -rse_corrupt (a descriptor no writer
 * produces: bad magic, kind 0, length beyond the area, wanted below length,
 * TRUNCATED without more wanted or the reverse, build id too long).
 */
int rs_sideband_read(const struct rs_region *region, void *buf,
		     uint64_t buf_size, struct rs_sideband_info *info);

/*
 * Guest: keep the content below @room bytes of the area (room for the
 * perf buffer table at its end); after begin, before any append.
 * -rse_invalid.
 */
int rs_sideband_limit(struct rs_sideband_writer *w, uint64_t room);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_SIDEBAND_H */
