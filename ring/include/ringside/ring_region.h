/* SPDX-License-Identifier: MIT */
/*
 * A trace region (region.c).  The host lays it out from struct
 * rs_region_params (rs_region_layout) and flips its switch
 * (rs_region_enable); either side then opens it (rs_region_open, or the
 * host by its own layout: rs_region_open_layout) into a struct rs_region,
 * a private copy of the validated layout that every other call of the
 * library works from, and rs_region_ring resolves one of its rings.
 */
#ifndef RINGSIDE_RING_REGION_H
#define RINGSIDE_RING_REGION_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A validated region: the caller's private copy of the layout.  Its
 * fields are private: the functions below, never the fields. */
struct rs_region {
	uint8_t *base;
	uint64_t size;
	uint32_t nr_rings;
	uint32_t reserved;
	struct rs_config config;                 /* as read at open */
	struct rs_ring_desc rings[RS_MAX_RINGS]; /* validated */
	uint64_t sideband_offset;                /* validated; 0 size: none */
	uint64_t sideband_size;
	/* bit i % 64 of word i / 64: ring i failed rs_region_open_layout */
	uint64_t skipped[RS_MAX_RINGS / 64];
};

/* One ring, resolved to addresses inside a validated region
 * (rs_region_ring).  Unlike struct rs_region's, its fields are public and
 * read-only. */
struct rs_ring {
	struct rs_ctrl_page *ctrl;
	uint8_t *data;
	uint8_t *aux;
	uint64_t data_size;
	uint64_t aux_size;
	uint32_t data_mode;
	uint32_t aux_mode;
	uint32_t index;
	uint32_t reserved;
};

/* What a region is to hold; grows at the end, callers set size. */
struct rs_region_params {
	uint32_t size;            /* sizeof(struct rs_region_params) */
	uint32_t nr_rings;        /* 1 .. RS_MAX_RINGS (more than RS_HDR_RINGS:
				   * a ring table) */
	uint32_t data_pages;      /* power of two, >= 1 */
	uint32_t aux_pages;       /* power of two, or 0 for no AUX area */
	uint32_t data_mode;       /* enum rs_mode */
	uint32_t aux_mode;        /* enum rs_mode */
	uint32_t data_watermark;  /* bytes, < data size; 0: half the data area */
	uint32_t aux_watermark;   /* bytes, < AUX size; 0: half (normal mode) */
	uint64_t trace_mask;      /* enum rs_trace_bit */
	uint64_t sample_type;
	uint64_t sample_freq;
	uint64_t doorbell_addr;   /* guest-physical doorbell, 0 for none */
	uint32_t sideband_pages;  /* 0 .. RS_SIDEBAND_MAX / 4 KiB; 0: none */
	uint32_t features;        /* enum rs_feature offered (config.features);
				   * only RS_FEATURES_KNOWN bits */
};

/* A caller built against the first version of the struct (no
 * sideband_pages) sets size to this; everything after it reads as 0. */
#define RS_REGION_PARAMS_SIZE_V1 64u

/* 1 if @v is a power of two, 0 if not (0 is not). */
static inline int rs_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * Fill @params for @nr_rings rings of @data_pages data and @aux_pages AUX
 * pages each, in @data_mode and @aux_mode (enum rs_mode); every feature
 * this library knows (RS_FEATURES_KNOWN); everything else
 * zero: default watermarks, nothing traced, no doorbell (set those fields
 * afterwards; no sideband either: set sideband_pages).  @params is filled
 * even when the values are refused.
 * -rse_invalid (NULL, unknown mode), -rse_geometry (as rs_region_size).
 */
int rs_region_params_init(struct rs_region_params *params, uint32_t nr_rings,
			  uint32_t data_pages, uint32_t aux_pages,
			  uint32_t data_mode, uint32_t aux_mode);

/*
 * Bytes a region for @params needs: the layout's end rounded up to a power
 * of two.  -rse_invalid, -rse_geometry.
 */
int rs_region_size(const struct rs_region_params *params, uint64_t *size);

/*
 * Lay a region out in @mem (@mem_size bytes, page aligned, a power of two
 * >= rs_region_size()).  Zeroes it, writes the header, the descriptors, the
 * configuration (enabled = 0) and every control page.
 * -rse_invalid, -rse_geometry, -rse_too_small.
 */
int rs_region_layout(void *mem, uint64_t mem_size,
		     const struct rs_region_params *params);

/*
 * Host: switch tracing on (rs_region_enable) or off (rs_region_disable) in
 * the region laid out at @mem: config.enabled, stored with release
 * semantics after whatever configuration the host wrote before, so a guest
 * that sees the switch (rs_guest_enabled) sees that configuration too.
 * The host never needs the guest-writable header for this: only the flag
 * is written.  -rse_invalid (NULL or not page aligned).
 */
int rs_region_enable(void *mem);
int rs_region_disable(void *mem);

/*
 * Host: the guest of the region laid out at @mem reset (its agent, if it
 * had one, is gone with the boot it ran in): the header's boot_gen + 1,
 * the new value in *@gen.  An agent says the boot_gen it last read
 * (rs_guest_status.boot_gen), so a status whose boot_gen is behind the
 * header's is a claim of an agent from before the reset.  Only that word
 * is written.  -rse_invalid (NULL or not page aligned).
 */
int rs_region_note_reset(void *mem, uint64_t *gen);

/*
 * Validate the region in @mem and keep a private copy of its layout in
 * @region.  Every offset and size is checked against @mem_size and against
 * each other; after success the copy, not the shared header, is used.
 * -rse_invalid, -rse_too_small, -rse_magic, -rse_version, -rse_geometry.
 */
int rs_region_open(struct rs_region *region, void *mem, uint64_t mem_size);

/* --- A region opened by the host's own layout ------------------------------
 * The header page is guest-writable, and a guest that goes wrong may have
 * scribbled over it: exactly when its flight recorder matters most.  A host
 * that laid the region out knows its geometry without the header; it opens
 * the region from the params it laid it out with, and learns what the
 * header says differently. */

/* A field of the header the host writes at layout (rs_region_diff.field). */
enum rs_hdr_field {
	rs_hf_magic,
	rs_hf_abi_version,
	rs_hf_header_size,
	rs_hf_region_size,
	rs_hf_page_size,
	rs_hf_nr_rings,
	rs_hf_sideband_offset,
	rs_hf_sideband_size,
	rs_hf_data_mode,
	rs_hf_aux_mode,
	rs_hf_data_watermark,
	rs_hf_aux_watermark,
	rs_hf_trace_mask,
	rs_hf_sample_type,
	rs_hf_sample_freq,
	rs_hf_doorbell_addr,
	rs_hf_ctrl_offset,     /* of rings[ring] */
	rs_hf_data_offset,
	rs_hf_data_size,
	rs_hf_aux_offset,
	rs_hf_aux_size,
	rs_hf_nr_rings_total,
	rs_hf_max
};

/* One header field that differs from the layout. */
struct rs_region_diff {
	uint32_t field;       /* enum rs_hdr_field */
	uint32_t ring;        /* for the per-ring fields (rs_hf_ctrl_offset..) */
	uint64_t seen;        /* what the header says (guest-writable) */
	uint64_t laid_out;    /* what the host laid out */
};

#define RS_REGION_DIFF_MAX 16u

struct rs_region_damage {
	uint32_t nr_diffs;        /* entries of diff[] */
	uint32_t more_diffs;      /* differences found beyond those listed */
	uint32_t nr_bad_rings;    /* rings marked in bad_rings */
	uint32_t reserved;
	/* bit i % 64 of word i / 64: ring i's control page disagrees with
	 * the layout; the ring is skipped (rs_region_damage_bad_ring) */
	uint64_t bad_rings[RS_MAX_RINGS / 64];
	struct rs_region_diff diff[RS_REGION_DIFF_MAX];
};

/* The field's name in the header ("magic", "nr_rings", "rings[].data_size"
 * without the index).  Never NULL. */
const char *rs_region_field_name(uint32_t field);

/*
 * Open the region in @mem (@mem_size bytes, what the host laid out with
 * rs_region_layout(mem, mem_size, @params)) from @params alone: the private
 * copy of the layout and of the configuration is the host's (only
 * config.enabled, which the host flips at run time, is read from the
 * header).  Every header field the layout wrote is compared with what the
 * header says now; @damage lists those that differ.  Each ring's control
 * page is checked against the layout; a ring whose page disagrees is
 * marked in damage->bad_rings and skipped (rs_region_ring refuses it with
 * -rse_corrupt), the others stay readable.  Returns the number of
 * differences found plus the number of rings skipped (0: nothing is
 * damaged), or -rse_invalid (NULL, @mem
 * not page aligned), -rse_geometry (@params not valid, @mem_size not a
 * power of two), -rse_too_small (@mem_size below the layout's size).
 */
int rs_region_open_layout(struct rs_region *region, void *mem,
			  uint64_t mem_size,
			  const struct rs_region_params *params,
			  struct rs_region_damage *damage);

/* 1 if @damage marks ring @index bad, else 0. */
int rs_region_damage_bad_ring(const struct rs_region_damage *damage,
			      uint32_t index);

/* 1 if ring @index was skipped by rs_region_open_layout, else 0. */
int rs_region_ring_skipped(const struct rs_region *region, uint32_t index);

/* The configuration as validated at open (a private copy). */
const struct rs_config *rs_region_config(const struct rs_region *region);

/* Rings in the validated region (0 for NULL). */
uint32_t rs_region_nr_rings(const struct rs_region *region);

/* The guest's status block and the host's enabled flag, each read once.
 * Guest-written: display it, never index with it.  -rse_invalid. */
int rs_region_status_read(const struct rs_region *region,
			  struct rs_guest_status *status, uint32_t *enabled);

/* The header's boot_gen, read once (rs_region_note_reset; 0 in a region
 * laid out before it was counted).  In guest-writable memory: a hint. */
uint64_t rs_region_boot_gen(const struct rs_region *region);

/* The shared header (for the status fields the caller owns). */
struct rs_region_header *rs_region_header(const struct rs_region *region);

/* Resolve ring @index into @ring (its fields are public: a view of the
 * validated layout).  -rse_invalid; -rse_corrupt for a ring
 * rs_region_open_layout skipped. */
int rs_region_ring(const struct rs_region *region, uint32_t index,
		   struct rs_ring *ring);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_RING_REGION_H */
