/* SPDX-License-Identifier: MIT */
/*
 * Samples the guest kernel wrote into its own perf buffers that the agent
 * had not copied into a ring when the guest stopped (a panic stops the
 * agent's vCPU before its last drain): the agent published where the
 * buffers are (docs/abi.md, "The guest kernel's perf buffers"); the host
 * reads those guest-physical pages, read-only, through a peek function
 * (libvirt's virDomainMemoryPeek for a DOMAIN; anything in tests), and
 * takes the records between the agent's data_tail and the kernel's
 * data_head.  Every address, position and record is a guest claim
 * (docs/threat-model.md): checked before use, counted when refused.
 */
#ifndef RINGSIDE_CLI_GUEST_KBUF_H
#define RINGSIDE_CLI_GUEST_KBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

/* The RAM ranges of an x86 QEMU guest of @bytes: below 2 GiB (every
 * machine type has RAM there), and from 4 GiB what is certainly above its
 * low part (q35 splits at 2 GiB, pc at 3 GiB). */
void gkbuf_x86_ram(uint64_t ram[2][2], uint64_t bytes);

/* Read @len (<= 4096) bytes of guest-physical memory at @gpa into @buf.
 * 0, or a negative code @errstr names. */
typedef int (*gkbuf_peek_fn)(void *ctx, uint64_t gpa, void *buf, size_t len);

struct gkbuf_src {
	gkbuf_peek_fn peek;
	void *ctx;
	const char *(*errstr)(int err);
	/* guest RAM the host reads, [start, end) pairs: only pages wholly
	 * inside one (never MMIO: a device read may have side effects) */
	uint64_t ram[2][2];
};

enum gkbuf_state {
	GKBUF_ABSENT = 0,  /* no sideband area, or no source to read from */
	GKBUF_NONE,        /* the agent published no table */
	GKBUF_BUSY,        /* it was being written */
	GKBUF_CORRUPT,     /* a descriptor no agent writes */
	GKBUF_MISMATCH,    /* the buffers' sample_type is not the region's */
	GKBUF_OK,          /* read: see the counts */
};

struct gkbuf {
	enum gkbuf_state state;
	struct rs_kbuf_info info;
	uint32_t cpus;            /* rows looked at */
	uint32_t cpus_recovered;  /* rows that gave records */
	uint32_t bad_rows;        /* refused: CPU number, an address outside
				   * guest RAM or not page-aligned */
	uint32_t bad_pages;       /* control pages refused: data_size not the
				   * table's, tail beyond head, more than
				   * a buffer between them */
	uint32_t peek_failed;     /* rows whose pages could not be read */
	int peek_err;             /* the last failure, src->errstr's */
	const char *(*errstr)(int err);
	uint64_t records;         /* recovered */
	uint64_t bytes;
	uint64_t corrupt;         /* records refused: size 0, unaligned, past
				   * head; the rest of that buffer with it */
	uint64_t other;           /* records of types not carried (THROTTLE..) */
	uint64_t duplicates;      /* the agent had forwarded them already
				   * (gkbuf_dedup) */
	struct pdf_buf stash;     /* records, per CPU oldest first */
	struct pdf_buf offs;      /* per record: u64 offset in stash, u64 CPU */
};

void gkbuf_init(struct gkbuf *g);
void gkbuf_fini(struct gkbuf *g);

/*
 * Read the table in @region's sideband and, through @src, every published
 * buffer's unread records.  Never fails on what the guest wrote: the
 * state and counts say.  -ENOMEM only.
 */
int gkbuf_recover(struct gkbuf *g, const struct rs_region *region,
		  const struct gkbuf_src *src, uint64_t sample_type);

/* Record @i (< gkbuf_count): its CPU and bytes. */
size_t gkbuf_count(const struct gkbuf *g);
const struct rs_perf_header *gkbuf_record(const struct gkbuf *g, size_t i,
					  uint32_t *cpu);

/* Mark record @i as one the agent forwarded (a copy is in its ring). */
void gkbuf_drop(struct gkbuf *g, size_t i);
int gkbuf_dropped(const struct gkbuf *g, size_t i);

/* "guest perf buffers: ..." lines on @out; @why (NULL: none) says why
 * nothing could be read (the source could not be reached). */
void gkbuf_summary(FILE *out, const struct gkbuf *g, const char *why,
		   uint64_t refused);

#endif /* RINGSIDE_CLI_GUEST_KBUF_H */
