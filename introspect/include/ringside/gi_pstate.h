/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_PSTATE_H
#define RINGSIDE_GI_PSTATE_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * The guest's live processes and their executable mappings, as its agent
 * keeps them in the sideband (docs/abi.md, "Process state"): the newest
 * complete copy, copied once, every process entry checked as a guest
 * claim, the good ones turned into the COMM and MMAP2 records a snapshot
 * writes at its head, the others refused and counted.
 */
enum gi_pstate_state {
	GI_PSTATE_ABSENT = 0, /* the region has no sideband area */
	GI_PSTATE_NONE,       /* no table, or no copy complete yet */
	GI_PSTATE_BUSY,       /* its first copy being written (or the guest
			     * died writing it) */
	GI_PSTATE_CORRUPT,    /* a descriptor or copy head no agent writes */
	GI_PSTATE_OK,
};

/* Why the last refused process entry was refused. */
enum gi_pstate_why {
	GI_PSTATE_WHY_NONE = 0,
	GI_PSTATE_WHY_LENGTH,
	GI_PSTATE_WHY_PID,
	GI_PSTATE_WHY_DUPLICATE,
	GI_PSTATE_WHY_COUNTS,
	GI_PSTATE_WHY_BUILD_ID,
	GI_PSTATE_WHY_RANGE,
	GI_PSTATE_WHY_NAME,
};

struct gi_pstate_map {
	uint64_t start, len, pgoff;
	uint32_t prot, flags, maj, min;
	uint64_t ino;
	uint8_t build_id_len;     /* 0: none (maj, min, ino instead) */
	uint8_t build_id[RS_PSTATE_BUILD_ID_MAX];
	uint16_t name_len;        /* 1 .. RS_PSTATE_NAME_MAX */
	const char *name;         /* into gi_pstate.table, no NUL */
};

struct gi_pstate_proc {
	uint32_t pid;
	uint32_t ppid;            /* its parent's, 0: not known (or none a
				   * process has) */
	uint32_t flags;           /* RS_PSTATE_PROC_*, the bits known */
	uint32_t nr_maps;
	uint32_t first_map;       /* its maps: maps[first_map ..] */
	char comm[RS_PSTATE_COMM_LEN + 1]; /* printable, NUL-terminated */
};

struct gi_pstate_stats {
	uint32_t claimed;         /* processes the copy's head says */
	uint32_t ended;           /* of the kept, ended (RS_PSTATE_PROC_ENDED) */
	uint32_t refused;         /* process entries refused (checks failed) */
	enum gi_pstate_why why;     /* of the last refused */
	uint32_t names_refused;   /* mappings of kept processes left out for
				   * their name alone (GI_PSTATE_WHY_NAME) */
};

struct gi_pstate {
	enum gi_pstate_state state;
	struct rs_pstate_info info; /* the copy's head: left-out counts */
	uint8_t *table;           /* info.head.length bytes, a copy of its own */
	uint32_t nr_procs, nr_maps;
	struct gi_pstate_proc *procs;
	struct gi_pstate_map *maps;
	struct gi_pstate_stats st;
};

/* Copy @region's newest complete copy once and check it (@g zeroed first,
 * or read before).  0 (g->state says what was found); -ENOMEM, -EINVAL. */
int gi_pstate_read(struct gi_pstate *g, const struct rs_region *region);

/* Check @len bytes of process entries (@procs claimed) into @g; the names
 * stay in @table, which must outlive @g's use.  -ENOMEM, -EINVAL. */
int gi_pstate_parse(struct gi_pstate *g, const uint8_t *table, uint64_t len,
		    uint32_t procs);

/* Process @proc's PERF_RECORD_COMM (pid = tid), and its mapping @map's
 * PERF_RECORD_MMAP2 (misc USER, MMAP_BUILD_ID with a build id), bare
 * (no sample id), into @out (emptied first).  0, -EINVAL, -ENOMEM. */
int gi_pstate_comm(const struct gi_pstate *g, uint32_t proc, struct pdf_buf *out);
int gi_pstate_mmap2(const struct gi_pstate *g, uint32_t proc, uint32_t map,
		    struct pdf_buf *out);

const char *gi_pstate_why_str(enum gi_pstate_why why);

void gi_pstate_fini(struct gi_pstate *g);

#endif /* RINGSIDE_GI_PSTATE_H */
