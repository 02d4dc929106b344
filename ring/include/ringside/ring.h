/* SPDX-License-Identifier: MIT */
/*
 * ringside ring protocol: region layout, producer, AUX, consumer, snapshot.
 *
 * Every function returns an int: >= 0 success (or a count), < 0 the negation
 * of an enum rs_error.  rs_error_str() names it.  Nothing here prints, exits,
 * allocates (except rs_consumer_alloc / rs_snapshot_alloc on the host) or
 * calls libc beyond memcpy/memset, so the same code builds for the host,
 * a Linux guest and a freestanding guest.
 *
 * Threads: a producer is used by one CPU at a time (nested writers from
 * interrupt or signal context on that CPU are allowed).  A consumer is used
 * by one host thread.  Producer and consumer run concurrently in different
 * address spaces; the shared state is hostile to the consumer.
 */
#ifndef RINGSIDE_RING_H
#define RINGSIDE_RING_H

#include <stdint.h>

#include "ringside/abi.h"
#include "ringside/ring_types.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rs_error {
	rse_ok = 0,
	rse_internal,   /* a library invariant broke */
	rse_invalid,    /* the caller passed nonsense (NULL, a ring index the
			 * region lacks, an unknown mode, a misaligned buffer) */
	rse_magic,      /* not a ringside region */
	rse_version,    /* region of an ABI version this library does not speak */
	rse_geometry,   /* a size, count or offset that does not fit (ring
			 * count, non-power-of-two size, overlap; a region
			 * header with values no host writes) */
	rse_too_small,  /* buffer or region too small for the layout */
	rse_too_big,    /* record larger than RS_RECORD_MAX or than the ring */
	rse_no_space,   /* ring full: the record was dropped and counted */
	rse_mode,       /* not possible in this ring's mode */
	rse_corrupt,    /* shared state failed validation */
	rse_nesting,    /* unbalanced reserve/commit or AUX begin/end */
	rse_disabled,   /* the host has not enabled tracing (for agents: the
			 * library itself does not gate on config.enabled) */
	rse_absent,     /* the region has no such area (no sideband) */
	rse_busy,       /* the other side is writing it right now */
	rse_timeout,    /* the other side did not answer in time (time sync) */
	rse_max
};

/* Never NULL; "unknown error" for values out of range. */
const char *rs_error_str(int err);

/* ---- region ---------------------------------------------------------- */

/* What a region is to hold; grows at the end, callers set size. */
struct rs_region_params {
	uint32_t size;            /* sizeof(struct rs_region_params) */
	uint32_t nr_rings;        /* 1 .. RS_MAX_RINGS */
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
	uint64_t bad_rings;       /* bit i: ring i's control page disagrees with
				   * the layout; the ring is skipped */
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

/* One ring's shared positions and counters, each read once. */
struct rs_ring_state {
	uint64_t data_head;
	uint64_t data_tail;
	uint64_t aux_head;
	uint64_t aux_tail;
	uint64_t write_head;      /* overwrite mode frontier */
	uint64_t produced;        /* guest hints from rs_ctrl_ext */
	uint64_t lost;
	uint64_t aux_truncated;
	uint64_t doorbells;
	uint64_t suppressed;      /* doorbells due but not rung (polling) */
	uint32_t consumer;        /* rs_ctrl_host.consumer (host-written) */
	uint32_t reserved;
};

/* Read @ring's state (for display: the guest may write any of it).
 * -rse_invalid. */
int rs_ring_state_read(const struct rs_ring *ring, struct rs_ring_state *st);

/*
 * Producer clock to nanoseconds, perf's cap_user_time_zero scheme:
 *   ns = time_zero + (t >> time_shift) * time_mult
 *                  + (((t & ((1 << time_shift) - 1)) * time_mult) >> time_shift)
 * A ringside VMM converts the guest TSC to host CLOCK_MONOTONIC this way.
 */
struct rs_time_conv {
	uint64_t time_zero;
	uint32_t time_mult;       /* 0: no conversion */
	uint16_t time_shift;      /* < 64 */
	uint16_t reserved;
};

/* @t in nanoseconds; @t itself when @tc is NULL or has no multiplier. */
uint64_t rs_time_to_ns(const struct rs_time_conv *tc, uint64_t t);

/*
 * Host: publish @tc in @ring's control page (time fields under the lock
 * seqcount, cap_user_time and cap_user_time_zero set).  -rse_invalid
 * (NULL, time_mult 0 or time_shift >= 64).
 */
int rs_ring_time_publish(const struct rs_ring *ring,
			 const struct rs_time_conv *tc);

/*
 * Read the conversion published in @ring's control page, once.  Returns 1
 * with @tc filled, 0 when none is published (@tc zeroed: times stay as the
 * producer wrote them).  The page is guest-writable: a torn or implausible
 * value (shift >= 64, zero multiplier, a seqcount that never settles) reads
 * as "none".  -rse_invalid.
 */
int rs_ring_time_read(const struct rs_ring *ring, struct rs_time_conv *tc);

/* ---- time synchronization (host and guest) ----------------------------- */

/*
 * The guest's clock against the host's, through the region's time_sync
 * cells (abi.h, docs/abi.md): no exit per exchange.  The host pings, the
 * guest echoes each ping with its clock; per round
 *   offset = guest - (t1 + t2) / 2,  bound = (t2 - t1) / 2
 * where t1 and t2 are the host's clock before the ping and after the echo,
 * and the round with the smallest bound wins.  Host time of a guest time g
 * is then g - offset, within +-bound.  Clocks come from the caller (ring/
 * has no libc): @now returns ns; @relax, if set, is called between polls
 * while the host waits for the guest to notice the window (a short sleep)
 * or inside a guest burst (a pause instruction).
 */
struct rs_tsync_clock {
	uint64_t (*now)(void *arg);
	void (*relax)(void *arg);
	void *arg;
};

#define RS_TSYNC_MAX_ROUNDS 64u

struct rs_tsync_params {
	uint32_t rounds;          /* valid rounds wanted, 1 .. max_rounds */
	uint32_t host_clock;      /* RS_TSYNC_CLOCK_* of @now, told to the guest */
	uint64_t wait_ns;         /* longest wait for the first answer */
	uint64_t round_ns;        /* longest wait for each later answer */
	uint32_t max_rounds;      /* valid rounds at most, rounds ..
				   * RS_TSYNC_MAX_ROUNDS: more rounds while
				   * the best bound is above target_ns */
	uint32_t reserved;
	uint64_t target_ns;       /* a bound good enough to stop at @rounds */
};

/* Defaults: 16 rounds (up to 64 while the best bound is above 20 us),
 * CLOCK_MONOTONIC, 1 s for the first answer (the Linux agent looks at the
 * window at least every 50 ms), 60 ms for each later one (a guest whose
 * burst ended answers at its next look). */
void rs_tsync_params_init(struct rs_tsync_params *p);

struct rs_tsync_result {
	int64_t offset;           /* guest - host, ns, of the best round */
	uint64_t bound;           /* +- ns around offset */
	uint64_t host_time;       /* the best round's midpoint, host clock */
	uint64_t guest_time;      /* the guest's answer in that round */
	uint32_t window;          /* the window id used */
	uint32_t rounds;          /* valid rounds */
	uint32_t pings;           /* pings sent */
	uint32_t timeouts;        /* pings not answered in time */
	/* answers refused, and why (guest claims, counted, never used): */
	uint32_t wrong_seq;       /* an echo of a seq never asked */
	uint32_t torn;            /* the echo changed while guest_time was read */
	uint32_t backwards;       /* below an earlier answer of this window */
	uint32_t implausible;     /* 0, >= 2^63, or ahead of what the host's
				   * clock allows since the previous answer */
	uint32_t inconsistent;    /* valid rounds whose offset disagrees with
				   * the best round's beyond both bounds */
	uint32_t guest_clock;     /* the clock the guest says it answers with */
};

/* Answers refused, total (wrong_seq + torn + backwards + implausible). */
uint32_t rs_tsync_refused(const struct rs_tsync_result *r);

/*
 * Host: one synchronization window on the region laid out at @mem (page
 * aligned, mapped writable; only the header's time_sync cells are
 * touched, as rs_region_enable touches only its flag).  Opens the window,
 * pings until @p->rounds rounds were valid and the best bound is at most
 * @p->target_ns (or @p->max_rounds were valid), or the time runs out (at
 * most @p->wait_ns + @p->rounds * 2 * @p->round_ns; 3 pings in a row
 * without an answer end it too), closes it.  Every
 * answer is read once and checked; refused answers are counted in @res.
 * 0 with @res filled; -rse_timeout: the guest did not answer at all;
 * -rse_corrupt: it answered, but no answer was acceptable; -rse_invalid.
 * @res is filled in every case (counts for the message).
 */
int rs_tsync_host_run(void *mem, const struct rs_tsync_params *p,
		      const struct rs_tsync_clock *clk,
		      struct rs_tsync_result *res);

/* Guest: private state of the answering side (ring_types.h). */
void rs_tsync_guest_init(struct rs_tsync_guest *g, uint32_t guest_clock);

/* Guest: 1 when the host has a window open, else 0 (one relaxed load:
 * cheap enough for every pass of a polling loop).  -rse_invalid. */
int rs_tsync_guest_pending(const struct rs_region *region);

/*
 * Guest: answer the host's pings for at most @max_ns (by @clk), or until
 * the window closes: each new seq once, with @clk->now().  The loop is
 * also bounded in iterations, whatever the clock does.  Returns the
 * answers given (0 when no window is open).  -rse_invalid.
 */
int rs_tsync_guest_answer(struct rs_tsync_guest *g,
			  const struct rs_region *region,
			  const struct rs_tsync_clock *clk, uint64_t max_ns);

/* ---- guest status (guest) ---------------------------------------------- */

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

/*
 * A reader of a perf ring buffer (Linux's own, whose mmap page has the
 * control page's layout: struct rs_ctrl_page): load-acquire data_head
 * before reading the records below it, store-release data_tail after.
 */
uint64_t rs_perf_page_read_head(const struct rs_ctrl_page *page);
void rs_perf_page_publish_tail(struct rs_ctrl_page *page, uint64_t tail);

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

/* ---- sideband (guest writes once, host reads once) --------------------- */

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

/* ---- the guest kernel's perf buffers (abi.h, struct rs_kbuf_desc) ------- */

/* The table's shape, as the guest gives it and the host reads it back. */
struct rs_kbuf_info {
	uint32_t nr_cpus;
	uint32_t data_pages;
	uint64_t table_offset;    /* from the sideband area's start */
	uint64_t table_len;       /* bytes */
	uint64_t sample_type;
	uint32_t seq;
};

/*
 * Guest: publish @info->nr_cpus rows of RS_KBUF_ROW_WORDS(data_pages) u64
 * (@rows) at the end of the sideband area, page-aligned, under the
 * descriptor's seqcount; @info->table_offset and table_len are set.
 * Publish it before the kallsyms (rs_sideband_limit to table_offset).
 * -rse_invalid (bounds of abi.h), -rse_absent (no sideband area),
 * -rse_too_small (the table does not fit).
 */
int rs_kbuf_publish(const struct rs_region *region, struct rs_kbuf_info *info,
		    const uint64_t *rows);

/* Guest: the buffers are going away (the agent stops): magic 0 under the
 * seqcount, which the host reads as no table.  -rse_invalid. */
int rs_kbuf_withdraw(const struct rs_region *region);

/*
 * Host: copy the table once into @buf (@buf_size >= rs_sideband_size()):
 * 1 copied (@info says its shape), 0 never written or withdrawn, -rse_invalid,
 * -rse_absent, -rse_too_small (@buf), -rse_busy, -rse_corrupt (bad magic,
 * counts beyond abi.h's bounds, data_pages not a power of two, a length
 * that does not match them, a table outside the host's own area).
 * The addresses in it are not looked at: guest claims.
 */
int rs_kbuf_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		 struct rs_kbuf_info *info);

/* ---- the guest's user symbols (abi.h, struct rs_usyms_desc) ------------- */

/* The guest's private state of its table: what it published. */
struct rs_usyms_writer {
	uint8_t *area;            /* the table's first byte */
	uint64_t table_offset;    /* from the sideband area's start */
	uint64_t table_size;
	uint64_t length;          /* bytes of whole entries published */
	uint64_t wanted;          /* bytes offered */
	uint32_t entries;
	uint32_t flags;           /* RS_USYMS_TRUNCATED */
	struct rs_usyms_desc *desc;
};

/*
 * Guest: publish an empty table of @table_size bytes at @table_offset of
 * the sideband area (between the kallsyms content and the perf buffer
 * table), under the descriptor's seqcount.  -rse_invalid (not 8-aligned,
 * outside the area), -rse_absent (no sideband area).
 */
int rs_usyms_begin(const struct rs_region *region, struct rs_usyms_writer *w,
		   uint64_t table_offset, uint64_t table_size);

/*
 * Guest: append one entry of @len bytes (a multiple of 8, a struct
 * rs_usyms_entry first) after the published ones, under the seqcount; an
 * entry never changes once published.  1 written; 0 it did not fit: not
 * written, TRUNCATED set, @len added to wanted; -rse_invalid.
 */
int rs_usyms_append(struct rs_usyms_writer *w, const void *entry, uint64_t len);

/* What the host read: the guest's descriptor, its shape checked. */
struct rs_usyms_info {
	uint64_t table_offset;
	uint64_t table_size;
	uint64_t length;          /* bytes copied to the caller's buffer */
	uint64_t wanted;          /* the guest's total (claim, >= length) */
	uint32_t entries;         /* claim: the entries are not looked at */
	uint32_t flags;
	uint32_t seq;
};

/*
 * Host: copy the published entries once into @buf (@buf_size >=
 * rs_sideband_size()), bounded by the host's own layout.  1 copied
 * (@info->length bytes, possibly 0), 0 never written, -rse_invalid,
 * -rse_absent, -rse_too_small (@buf), -rse_busy, -rse_corrupt (bad magic,
 * a table outside the area, a length beyond it or not 8-aligned, wanted
 * below length, TRUNCATED without more wanted or the reverse, unknown
 * flags, more entries than could fit).  The entries are guest claims for
 * the caller to check (introspect's gusyms).
 */
int rs_usyms_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		  struct rs_usyms_info *info);

/* ---- the guest's process state (abi.h, struct rs_pstate_desc) ----------- */

/* The guest's private state of its table. */
struct rs_pstate_writer {
	uint8_t *area;            /* copy 0's first byte */
	uint64_t table_offset;    /* from the sideband area's start */
	uint64_t copy_size;       /* bytes of each copy, its head included */
	uint64_t generation;      /* of the newest complete copy, 0: none */
	uint32_t next;            /* the copy to rewrite next */
	struct rs_pstate_desc *desc;
};

/*
 * Guest: set up a table of two copies in @table_size bytes at
 * @table_offset of the sideband area (after the user symbols, before the
 * perf buffer table), both empty, and describe it in the header.
 * -rse_invalid (not 8-aligned, outside the area), -rse_absent (no
 * sideband area), -rse_too_small (no room for two copy heads).
 */
int rs_pstate_begin(const struct rs_region *region, struct rs_pstate_writer *w,
		    uint64_t table_offset, uint64_t table_size);

/*
 * Guest: rewrite the copy that does not hold the newest state with
 * @head's counts (magic, seq and generation are the writer's) and its
 * @head->length bytes of process entries, then make it the newest.
 * -rse_invalid, -rse_too_small (length over the copy: nothing written).
 */
int rs_pstate_publish(struct rs_pstate_writer *w,
		      const struct rs_pstate_copy *head, const void *entries);

/* What the host read: the layout and the copy it took. */
struct rs_pstate_info {
	uint64_t table_offset;
	uint64_t copy_size;
	uint32_t copy;            /* 0 or 1 */
	uint32_t bad_copies;      /* complete copies whose head was refused */
	struct rs_pstate_copy head; /* claims: counts, generation, time */
};

/*
 * Host: copy the newest complete copy's entries once into @buf (@buf_size
 * >= rs_sideband_size()), bounded by the host's own layout.  1 copied
 * (@info->head.length bytes, possibly 0), 0 no table or no complete copy
 * yet, -rse_invalid, -rse_absent, -rse_too_small (@buf), -rse_busy (a
 * copy being written and none complete: a first rewrite, or a guest that
 * died in it), -rse_corrupt (a bad descriptor: magic, copies outside the
 * area; or no good copy and a complete one refused: magic, a length
 * beyond the copy or not 8-aligned, unknown flags, TRUNCATED without a
 * count left out or the reverse, more processes or mappings than could
 * fit).  The entries are claims for the caller (introspect's gpstate).
 */
int rs_pstate_read(const struct rs_region *region, void *buf, uint64_t buf_size,
		   struct rs_pstate_info *info);

/* ---- producer (guest) -------------------------------------------------- */

/*
 * Attach a producer to ring @index of @region, resuming from the ring's
 * current heads.  Mode and watermarks come from the region's configuration.
 * -rse_invalid.
 */
int rs_producer_init(struct rs_producer *p, const struct rs_region *region,
		     uint32_t index);

/*
 * A producer of ring @index's AUX area only: reads the AUX positions and
 * writes nothing of the data ring's state, for a writer beside the data
 * ring's own producer (the QEMU PT plugin beside the guest agent).  Use it
 * with rs_aux_begin/write/skip and rs_aux_publish only, never rs_aux_end
 * or the data calls.  -rse_invalid, -rse_mode (no AUX area).
 */
int rs_producer_init_aux(struct rs_producer *p, const struct rs_region *region,
			 uint32_t index);

/*
 * Reserve @size bytes (header included, multiple of 8, 8 .. RS_RECORD_MAX)
 * for one record.  Nested reservations on the same producer are allowed;
 * head is published when the outermost one commits.  In normal mode a full
 * ring drops the record: it is counted and -rse_no_space is returned; a LOST
 * record with the count goes in at the next reservation that has room.
 * -rse_invalid (size < 8 or not a multiple of 8), -rse_too_big (larger than
 * RS_RECORD_MAX, or than the data area minus room for one LOST record),
 * -rse_no_space, -rse_nesting (with a batch, a writer nested more than
 * RS_NEST_MAX deep: dropped and counted as a full ring's are).
 */
int rs_producer_reserve(struct rs_producer *p, struct rs_handle *h,
			uint32_t size);

/* Copy @len bytes into the reserved record after what was written.
 * -rse_invalid (past the reservation). */
int rs_producer_write(struct rs_producer *p, struct rs_handle *h,
		      const void *src, uint32_t len);

/*
 * Finish a reservation; bytes not written read as zero, and a record whose
 * header was not written becomes an RS_RECORD_PAD of the reserved size.
 * Returns 1 when
 * the data head crossed the watermark and the consumer should be woken (the
 * doorbell), 0 otherwise.  -rse_invalid, -rse_nesting.
 */
int rs_producer_commit(struct rs_producer *p, struct rs_handle *h);

/* reserve + write header and body + commit.  Same returns as commit, and
 * reserve's errors; -rse_invalid also for a body shorter than @type's
 * fixed part (consumers would drop such a record). */
int rs_producer_output(struct rs_producer *p, uint32_t type, uint16_t misc,
		       const void *body, uint32_t body_len);

/*
 * @nr whole records one after the other at @recs, @len bytes in all (each
 * header's size its record's length: aligned, at least its type's fixed
 * part), into one reservation: the records rs_producer_output would write
 * one by one, in the same order for a reader, for one reservation's cost.
 * Same returns as commit.  A normal ring without room for all of them
 * takes none and counts none: -rse_no_space, and the caller writes them
 * one by one (each one that does not fit then counted).  -rse_invalid
 * (records that are not whole, @nr 0), -rse_too_big (@len above half the
 * data area, less a LOST record), -rse_nesting as reserve.
 */
int rs_producer_output_run(struct rs_producer *p, const void *recs,
			   uint32_t len, uint32_t nr);

/* Try to write a pending LOST record now.  0 nothing pending, 1 written,
 * 2 written and the doorbell is due (as commit's 1).  -rse_no_space: still
 * no room, try again after the consumer drained. */
int rs_producer_flush_lost(struct rs_producer *p);

/* Records dropped so far, total. */
uint64_t rs_producer_lost(const struct rs_producer *p);

/* Where the next record goes: data_head once published.  With a batch the
 * published data_head lags it by up to the batch; a producer that waits
 * for room measures it from here (and flushes first, so that the consumer
 * can see what it must free). */
uint64_t rs_producer_head(const struct rs_producer *p);

/*
 * Normal mode: publish data_head only when @bytes or more are unpublished
 * (0, the default: at every commit), when the doorbell is due, when a
 * reservation finds the ring full, and on rs_producer_flush.  A consumer
 * on another core then pays for the head's cache line once per batch.
 * Committed records past data_head stay findable by snapshots (sealed
 * records, docs/abi.md).  A producer that sets a batch must call
 * rs_producer_flush when it goes idle: until then the consumer may lag
 * by up to @bytes.  -rse_invalid (@bytes above half the data area),
 * -rse_mode (overwrite ring).
 */
int rs_producer_set_batch(struct rs_producer *p, uint32_t bytes);

/* Publish data_head now.  Returns 1 when the doorbell is due (as commit's
 * 1), else 0.  -rse_invalid, -rse_nesting (inside a reservation: its
 * commit publishes). */
int rs_producer_flush(struct rs_producer *p);

/* ---- AUX (guest) -------------------------------------------------------- */

/*
 * Start AUX output of up to @max bytes.  Normal mode: room is limited by
 * aux_tail; snapshot (overwrite) mode: room is min(@max, AUX size), old data
 * is overwritten.  Returns the room (0 is not an error: rs_aux_end then
 * emits a TRUNCATED record).  -rse_invalid, -rse_mode (no AUX area),
 * -rse_nesting (already inside begin/end).
 */
int64_t rs_aux_begin(struct rs_producer *p, struct rs_aux_handle *h,
		     uint64_t max);

/* Copy up to @len bytes into the AUX area; what does not fit marks the
 * output TRUNCATED.  Returns bytes copied.  -rse_invalid. */
int64_t rs_aux_write(struct rs_producer *p, struct rs_aux_handle *h,
		     const void *src, uint64_t len);

/* Advance over @len bytes written in place (as a PMU would).  Returns bytes
 * skipped.  -rse_invalid. */
int64_t rs_aux_skip(struct rs_producer *p, struct rs_aux_handle *h,
		    uint64_t len);

/*
 * Publish aux_head and emit PERF_RECORD_AUX with the accumulated flags plus
 * @flags (PARTIAL, COLLISION, TRUNCATED).  Returns 1 when a doorbell is due:
 * the AUX head crossed the AUX watermark (normal mode), or the AUX record
 * took the data head across the data watermark; else 0.  -rse_no_space: the
 * AUX record found the data ring full and was dropped and counted, like any
 * record (the bytes are published all the same and the output is over); an
 * AUX wakeup due then is reported by the next rs_aux_end that places its
 * record.  -rse_invalid, -rse_nesting.
 */
int rs_aux_end(struct rs_producer *p, struct rs_aux_handle *h,
	       uint64_t flags);

/*
 * rs_aux_end without the PERF_RECORD_AUX: publish aux_head (and count a
 * TRUNCATED output) but leave the data ring alone.  For a producer that
 * plays the hardware beside a guest that owns the data ring (the QEMU PT
 * plugin): the data ring keeps its single producer.  -rse_invalid,
 * -rse_nesting.
 */
int rs_aux_publish(struct rs_producer *p, struct rs_aux_handle *h,
		   uint64_t flags);

/*
 * An overwrite area written in place outside rs_aux_begin/end (a PMU that
 * publishes only now and then: pt-virt's engine between two PERF_RECORD_AUX):
 * announce that up to @len bytes past aux_head are about to be written,
 * before writing them, so that a live snapshot cuts what they overwrite
 * (at most the AUX size).  The next rs_aux_begin re-announces, and its
 * end brings the limit back to aux_head.  Normal mode: nothing to announce
 * (aux_tail keeps the writer out of unread bytes); returns 0.
 * -rse_invalid, -rse_mode (no AUX area), -rse_nesting (inside begin/end).
 */
int rs_aux_announce(struct rs_producer *p, uint64_t len);

/* ---- consumer (host) ---------------------------------------------------- */

/* Called for each valid record; @rec is a private, 8-aligned copy valid
 * until the next call.  Return < 0 to stop: that record is not consumed
 * and the drain returns the value. */
typedef int (*rs_record_fn)(const struct rs_perf_header *rec, void *arg);

/* Called with AUX bytes (at most two chunks per drain when data wraps).
 * @pos is the AUX position of @chunk[0].  Return < 0 to stop. */
typedef int (*rs_aux_fn)(const void *chunk, uint64_t len, uint64_t pos,
			 void *arg);

/* Attach to ring @index, starting at the current tails.  -rse_invalid. */
int rs_consumer_init(struct rs_consumer *c, const struct rs_region *region,
		     uint32_t index);
void rs_consumer_fini(struct rs_consumer *c);
struct rs_consumer *rs_consumer_alloc(const struct rs_region *region,
				      uint32_t index);
void rs_consumer_free(struct rs_consumer *c);

/*
 * One batch: read data_head once, copy out and validate every record up to
 * it, call @fn for each, publish data_tail once.  A head more than a ring
 * ahead of the tail (or behind it) is counted as corruption (once per
 * value) and ignored: nothing is consumed until the head is plausible.  A
 * malformed header is counted and the rest of the batch up to head is
 * discarded (counted in corrupt_bytes).  Returns the
 * number of records delivered.  -rse_invalid, -rse_mode (overwrite ring),
 * or @fn's negative return.
 */
int rs_consumer_drain(struct rs_consumer *c, rs_record_fn fn, void *arg);

/* Same for the AUX area: returns bytes delivered.  -rse_invalid,
 * -rse_mode (no AUX area or snapshot mode), or @fn's negative return. */
int64_t rs_consumer_drain_aux(struct rs_consumer *c, rs_aux_fn fn, void *arg);

/* What rs_consumer_reattach found, as a mask (0: the restored tails
 * were where the consumer had left them). */
enum rs_reattach_event {
	RS_REATTACH_TAIL_BACK  = 1u << 0, /* a tail behind our position */
	RS_REATTACH_HEAD_BACK  = 1u << 1, /* a head behind our position */
	RS_REATTACH_TAIL_AHEAD = 1u << 2, /* a tail ahead of it */
	RS_REATTACH_CORRUPT    = 1u << 3, /* a head and tail that cannot be
					   * true (counted as at init) */
};

/*
 * Go on reading ring @index of @region, a new mapping of the region @c
 * read until now, restored under it (QEMU restores a saved or migrated
 * guest's region with its memory), keeping the 64-bit positions @c has
 * reached.  The host-written tails come back as they were when the page
 * was copied, which may be older than what @c has taken since, and the
 * guest's heads as the guest then was.  Per area, with P our position and
 * T, H the restored tail and head, read once:
 *   T <= P <= H: resume at P; the bytes in [T, P) were delivered already
 *     and are not delivered again (skip_records, skip_bytes; tail_back).
 *   H < P: the region's history is not the one @c read up to P: a
 *     region laid out anew (a fresh boot: H and T from 0), or a copy
 *     older than what @c took.  Resume at T: what it holds is delivered,
 *     and what cannot be known is counted: the H - T bytes (and their
 *     records, by walking them) may repeat records delivered before
 *     (unsure_records, unsure_bytes), and the P - H bytes taken beyond
 *     H are not in the restored guest's history, whose counters do not
 *     count them (head_back, head_back_bytes).  A save with the guest's
 *     vCPUs stopped (virsh save, managedsave) never gives this case: the
 *     guest's head cannot move after its copy.
 *   P < T: resume at T; the T - P bytes between were never read here
 *     (tail_ahead, tail_ahead_bytes).
 * A restored head more than a ring ahead of its tail is counted as at
 * rs_consumer_init (corrupt, bad_heads) and read from the head.  The
 * tails resumed from are written back at once.  Skipped records are
 * counted by walking their headers in the restored bytes.  Returns a
 * mask of enum rs_reattach_event.  -rse_invalid; -rse_geometry: the
 * ring's sizes or modes differ from those @c read (nothing changed).
 */
int rs_consumer_reattach(struct rs_consumer *c, const struct rs_region *region,
			 uint32_t index);

/* Bytes between tail and head right now (0 if the head is implausible). */
uint64_t rs_consumer_pending(const struct rs_consumer *c);

/*
 * Event suppression (RS_FEATURE_EVENT_SUPPRESS, docs/abi.md): the consumer
 * says in the ring's control page whether it polls.  A consumer that
 * sleeps on the doorbell calls rs_consumer_sleep_prepare before it sleeps
 * and sleeps only when it returns 0; it calls rs_consumer_awake when it
 * wakes (or decides not to sleep) and goes on draining.  In a region
 * without the feature both only write the word, which no producer reads.
 */

/* Store RS_CONSUMER_WAKE, full fence, re-read data_head and aux_head:
 * 1 when either crossed a multiple of its watermark past what @c consumed
 * (a doorbell may have fallen due while the consumer polled, and been
 * suppressed: drain instead of sleeping), 0 when it may sleep: a producer
 * that crosses the next one sees WAKE and rings, so the consumer sleeps
 * with less than a watermark's worth pending, as without suppression.
 * -rse_invalid. */
int rs_consumer_sleep_prepare(struct rs_consumer *c);

/* Store RS_CONSUMER_POLLING: due doorbells are suppressed until the next
 * rs_consumer_sleep_prepare.  -rse_invalid. */
int rs_consumer_awake(struct rs_consumer *c);

const struct rs_cons_stats *rs_consumer_stats(const struct rs_consumer *c);

/* ---- snapshot (host) ---------------------------------------------------- */

/*
 * Copy ring @index's data area into @buf (@buf_size >= data size) without
 * consuming anything, and prepare to iterate.  Overwrite ring: records from
 * data_head, newest first; after the copy the writer's frontier is re-read
 * and whatever it may have overwritten meanwhile is cut and counted.
 * Normal ring: the records between data_tail and data_head, oldest first.
 * -rse_invalid, -rse_too_small.
 */
int rs_snapshot_take(struct rs_snapshot *s, const struct rs_region *region,
		     uint32_t index, void *buf, uint64_t buf_size);

/* Next record into *@rec (a private copy).  1 record, 0 end. */
int rs_snapshot_next(struct rs_snapshot *s, const struct rs_perf_header **rec);

const struct rs_snap_stats *rs_snapshot_stats(const struct rs_snapshot *s);

struct rs_snapshot *rs_snapshot_alloc(void);
void rs_snapshot_free(struct rs_snapshot *s);

/*
 * Copy the valid part of ring @index's AUX area into @buf (@buf_size >= AUX
 * size), oldest byte first.  Snapshot mode: the bytes the writer may have
 * overwritten during the copy are cut.  Normal mode: [aux_tail, aux_head).
 * -rse_invalid, -rse_mode (no AUX area), -rse_too_small, -rse_corrupt
 * (normal mode: heads and tails that cannot be true).
 */
int rs_snapshot_aux(struct rs_aux_snapshot *a, const struct rs_region *region,
		    uint32_t index, void *buf, uint64_t buf_size);

/* ---- records ------------------------------------------------------------ */

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

#endif /* RINGSIDE_RING_H */
