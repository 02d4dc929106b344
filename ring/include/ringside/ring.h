/* SPDX-License-Identifier: MIT */
/*
 * ringside ring protocol: region layout, producer, AUX, consumer, snapshot.
 *
 * Every header of the ring library, one per module of ring/src; new code
 * includes the ones it uses.  Every function returns an int: >= 0 success
 * (or a count), < 0 the negation of an enum rs_error (ring_error.h).
 * Nothing prints, exits, allocates (except rs_consumer_alloc /
 * rs_snapshot_alloc on the host) or calls libc beyond memcpy/memset, so
 * the same code builds for the host, a Linux guest and a freestanding
 * guest.  The structs a freestanding guest places in static storage or
 * on its stack are defined in full, but their fields are private: use
 * the functions, never the fields (struct rs_ring's are public, read-only).
 *
 * Threads: a producer is used by one CPU at a time (nested writers from
 * interrupt or signal context on that CPU are allowed).  A consumer is used
 * by one host thread.  Producer and consumer run concurrently in different
 * address spaces; the shared state is hostile to the consumer.
 */
#ifndef RINGSIDE_RING_H
#define RINGSIDE_RING_H

#include "ringside/abi.h"
#include "ringside/ring_error.h"    /* enum rs_error, rs_error_str */
#include "ringside/ring_region.h"   /* layout, open, the host's switch */
#include "ringside/ring_ctrl.h"     /* a ring's state and clock */
#include "ringside/ring_guest.h"    /* the agent's status, who the guest is */
#include "ringside/ring_producer.h" /* records (guest) */
#include "ringside/ring_aux.h"      /* AUX output (guest) */
#include "ringside/ring_consumer.h" /* draining a ring (host) */
#include "ringside/ring_snapshot.h" /* copying a ring (host) */
#include "ringside/ring_sideband.h" /* the sideband area */
#include "ringside/ring_kbuf.h"     /* the guest kernel's perf buffers */
#include "ringside/ring_usyms.h"    /* the guest's user symbols */
#include "ringside/ring_pstate.h"   /* the guest's processes */
#include "ringside/ring_tsync.h"    /* time synchronization */
#include "ringside/ring_seq.h"      /* RS_RECORD_SEQ records */

#endif /* RINGSIDE_RING_H */
