/* SPDX-License-Identifier: MIT */
/*
 * The process model of pstate.c, shared with pstate_table.c, which writes
 * it into the region's process state table.  Internal to those two.
 */
#ifndef RS_AGENT_PSTATE_INT_H
#define RS_AGENT_PSTATE_INT_H

#include "agent.h"

#define PSTATE_PROCS    4096u   /* processes the model holds */
#define HASH_SLOTS      8192u   /* pid -> process, a power of two */
#define PSTATE_COPY_MAX (1u << 20) /* bytes of one copy */

/* A mapping's file name, shared by the mappings that have it: a child's
 * mappings, taken at its FORK, are its parent's, names and all (a process
 * forked and exec'd at once would otherwise copy each name only to free
 * it).  Freed with its last mapping. */
struct pname {
	uint32_t refs;
	uint16_t len;
	char s[];                     /* len bytes and a NUL */
};

struct pmap {
	uint64_t start, len, pgoff, ino;
	uint32_t prot, flags, maj, min;
	uint8_t bid_len;
	uint8_t bid[RS_PSTATE_BUILD_ID_MAX];
	struct pname *name;
};

/* struct pproc.flags */
enum {
	P_COMPLETE = 1u << 0,   /* its mappings are all of its code's */
	P_LOOKED   = 1u << 1,   /* /proc was read for it (whatever it said) */
	P_SAMPLED  = 1u << 2,   /* a ring has its samples */
	P_ENDED    = 1u << 3,   /* its EXIT was seen, or it was found gone */
	P_FORKED   = 1u << 4,   /* its FORK was seen: fork_time holds */
};

struct pproc {
	uint32_t pid, ppid;
	uint32_t flags;
	uint32_t nr_maps, cap;
	uint32_t maps_over;           /* mappings past RS_PSTATE_MAX_MAPS */
	uint64_t gen;                 /* this incarnation's number */
	uint64_t fork_time;           /* the kernel's times, ns */
	uint64_t exit_time;           /* 0: not known */
	uint64_t exit_epoch;          /* ps.epoch when it ended */
	uint64_t end_seq;             /* the order in which they ended */
	char comm[RS_PSTATE_COMM_LEN];
	struct pmap *map;
};

struct agent_pstate_model {
	int on;                       /* a table to publish into */
	int dirty;
	struct rs_pstate_writer w;
	uint32_t nr;
	uint32_t hash[HASH_SLOTS];    /* index + 1 into proc, 0: free */
	uint32_t cursor;              /* the next slot a look goes to */
	int look_due;                 /* records were lost: look for ends */
	uint64_t looked;              /* when the last round was, 0: none */
	uint64_t gens;                /* incarnations numbered so far */
	uint64_t epoch;               /* agent_pstate_epoch calls */
	uint64_t ends;                /* processes ended so far */
	uint64_t ends_at_tick;        /* ... as of the last tick */
	uint32_t unsampled_new;       /* ended never sampled, since the last
				   * tick */
	uint32_t unsampled_due;       /* ... before it: dropped at this one */
	uint32_t nr_ended;            /* of the model's, ended */
	struct pproc *proc[PSTATE_PROCS];
	uint32_t order[PSTATE_PROCS]; /* build's: which process goes where */
	struct agent_pstate_stats st;
};

/* The one model; "ps" in pstate*.c. */
extern struct agent_pstate_model agent_pstate_model;
#define ps agent_pstate_model

/* The model written into the table's idle copy if it changed (the tick). */
void agent_pstate_table_publish(uint64_t now);

#endif
