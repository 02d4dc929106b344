/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_KBUF_H
#define RINGSIDE_GI_KBUF_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

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

/* The RAM ranges of an x86 QEMU guest of @bytes: below 2 GiB (every
 * machine type has RAM there), and from 4 GiB what is certainly above its
 * low part (q35 splits at 2 GiB, pc at 3 GiB). */
void gi_kbuf_x86_ram(uint64_t ram[2][2], uint64_t bytes);

/* Read @len (<= 4096) bytes of guest-physical memory at @gpa into @buf.
 * 0, or a negative code @errstr names. */
typedef int (*gi_kbuf_peek_fn)(void *ctx, uint64_t gpa, void *buf, size_t len);

struct gi_kbuf_src {
	gi_kbuf_peek_fn peek;
	void *ctx;
	const char *(*errstr)(int err);
	/* guest RAM the host reads, [start, end) pairs: only pages wholly
	 * inside one (never MMIO: a device read may have side effects) */
	uint64_t ram[2][2];
	/* at most this many page reads in all (0: no bound); a buffer the
	 * rest cannot read whole is left (gi_kbuf.cpus_unread), so that a
	 * guest of many CPUs costs a bounded time */
	uint64_t max_page_reads;
};

enum gi_kbuf_state {
	GI_KBUF_ABSENT = 0,  /* no sideband area, or no source to read from */
	GI_KBUF_NONE,        /* the agent published no table */
	GI_KBUF_BUSY,        /* it was being written */
	GI_KBUF_CORRUPT,     /* a descriptor no agent writes */
	GI_KBUF_MISMATCH,    /* the buffers' sample_type is not the region's */
	GI_KBUF_OK,          /* read: see the counts */
};

struct gi_kbuf {
	enum gi_kbuf_state state;
	struct rs_kbuf_info info;
	uint32_t cpus;            /* rows looked at */
	uint32_t cpus_recovered;  /* rows that gave records */
	uint32_t bad_rows;        /* refused: CPU number, an address outside
				   * guest RAM or not page-aligned */
	uint32_t bad_pages;       /* control pages refused: data_size not the
				   * table's, tail beyond head, more than
				   * a buffer between them */
	uint32_t peek_failed;     /* rows whose pages could not be read */
	uint32_t cpus_unread;     /* rows left for src->max_page_reads */
	int peek_err;             /* the last failure, src->errstr's */
	const char *(*errstr)(int err);
	uint64_t records;         /* recovered */
	uint64_t page_reads;      /* peeks made: at most (1 + data_pages)
				   * per row, whatever the guest wrote */
	uint64_t bytes;
	uint64_t corrupt;         /* records refused: size 0, unaligned, past
				   * head; the rest of that buffer with it */
	uint64_t other;           /* records of types not carried (THROTTLE..) */
	uint64_t duplicates;      /* the agent had forwarded them already
				   * (gkbuf_dedup) */
	struct pdf_buf stash;     /* records, per CPU oldest first */
	struct pdf_buf offs;      /* per record: u64 offset in stash, u64 CPU */
	uint64_t forks;           /* new processes' FORK records (gi_kbuf_fork) */
	struct pdf_buf fork_buf;  /* a struct gi_kbuf_fork each */
};

/* A new process the guest kernel's buffer told of after the agent's last
 * read (its FORK: the agent never met it, so no ring and no table
 * describes it): the host describes it as its parent was.  Guest claims
 * (the pid and parent are a process's: neither 0 nor -1, not the same). */
struct gi_kbuf_fork {
	uint32_t cpu;             /* the buffer's */
	uint32_t pid, ppid;
	uint32_t reserved;
	uint64_t time;            /* the guest's clock, ns */
};

void gi_kbuf_init(struct gi_kbuf *g);
void gi_kbuf_fini(struct gi_kbuf *g);

/*
 * Read the table in @region's sideband and, through @src, every published
 * buffer's unread records.  Never fails on what the guest wrote: the
 * state and counts say.  -ENOMEM only.
 */
int gi_kbuf_recover(struct gi_kbuf *g, const struct rs_region *region,
		    const struct gi_kbuf_src *src, uint64_t sample_type);

/* Record @i (< gi_kbuf_count): its CPU and bytes. */
size_t gi_kbuf_count(const struct gi_kbuf *g);
const struct rs_perf_header *gi_kbuf_record(const struct gi_kbuf *g, size_t i,
					    uint32_t *cpu);

/* The new processes' FORK records, per CPU oldest first: how many, and
 * the @i-th into @f (0; -EINVAL past the last). */
size_t gi_kbuf_fork_count(const struct gi_kbuf *g);
int gi_kbuf_fork_get(const struct gi_kbuf *g, size_t i, struct gi_kbuf_fork *f);

/* Mark record @i as one the agent forwarded (a copy is in its ring). */
void gi_kbuf_drop(struct gi_kbuf *g, size_t i);
int gi_kbuf_dropped(const struct gi_kbuf *g, size_t i);

#endif /* RINGSIDE_GI_KBUF_H */
