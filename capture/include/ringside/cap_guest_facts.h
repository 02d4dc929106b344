/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_GUEST_FACTS_H
#define RINGSIDE_CAP_GUEST_FACTS_H

#include <stdint.h>

#include "ringside/perfdata.h"
#include "ringside/ring.h"

/*
 * Who the guest says it is (the region's struct rs_guest_info, written by
 * its agent) made fit for a file's header: struct pdf_guest_facts with
 * every string NUL-terminated and every byte outside printable ASCII
 * replaced by '?', every number outside what a real guest could report
 * left out (0: not said), each such correction counted.  Guest claims
 * all: a file or `stat` shows them as the guest's word.
 */
#define CAP_GUEST_FACTS_MAX_CPUS  8192u            /* Linux's largest NR_CPUS */
#define CAP_GUEST_FACTS_MAX_KIB   (1ull << 42)     /* 4 PiB: 52 physical bits */
#define CAP_GUEST_FACTS_MAX_FREQ  1000000u         /* samples per second */
#define CAP_GUEST_FACTS_MAX_TYPE  5u               /* PERF_TYPE_BREAKPOINT: the
						* last type not a PMU's own */

enum cap_guest_facts_state {
	CAP_GUEST_FACTS_NONE = 0,     /* the guest has published none (yet) */
	CAP_GUEST_FACTS_OK,           /* facts.known 1 */
	CAP_GUEST_FACTS_BUSY,         /* the guest was writing it every try */
	CAP_GUEST_FACTS_CORRUPT,      /* a settled block without its magic */
};

struct cap_guest_facts {
	enum cap_guest_facts_state state;
	uint32_t left_out;        /* numbers implausible, not passed on */
	uint32_t replaced;        /* string bytes replaced by '?' */
	struct pdf_guest_facts facts; /* known 0 unless CAP_GUEST_FACTS_OK */
};

/* Read @region's guest info block once into @g (zeroed first).  Returns
 * g->state, or -rse_invalid (NULL arguments). */
int cap_guest_facts_read(struct cap_guest_facts *g, const struct rs_region *region);

/* The conversion alone, from a block the ring library copied (magic
 * checked): @g->state CAP_GUEST_FACTS_OK. */
void cap_guest_facts_from(struct cap_guest_facts *g, const struct rs_guest_info *in);

#endif /* RINGSIDE_CAP_GUEST_FACTS_H */
