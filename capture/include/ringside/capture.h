/* SPDX-License-Identifier: MIT */
/*
 * ringside-capture: taking a guest's rings off its region, the machinery
 * `ringside record`, `snapshot` and `stat` share with any other program
 * that links it (a host service).  A source is opened by the layout its
 * host laid out (a libvirt DOMAIN, a ringside VMM's control socket, a
 * region file); a record session drains its rings into perf.data files; a
 * snapshot session copies a flight recorder's rings and files them; the
 * guest clock is synced through the region; every record and every loss
 * is tallied, the guest's claims apart from what the host observed.
 *
 * The library never prints: it reports through return values and the
 * structs it fills, and the caller says it in its own words.  Every name
 * is cap_MODULE_*, declared in ringside/cap_MODULE.h and defined in
 * src/cap_MODULE.c; this header includes them all.
 */
#ifndef RINGSIDE_CAPTURE_H
#define RINGSIDE_CAPTURE_H

#include "ringside/cap_err.h"         /* errors handed up, with their errstr */
#include "ringside/cap_time.h"        /* the host's clock */
#include "ringside/cap_stop.h"        /* SIGINT/SIGTERM, waiting on descriptors */
#include "ringside/cap_rinfo.h"       /* a ring's geometry and counters now */
#include "ringside/cap_tally.h"       /* every record and loss, counted */
#include "ringside/cap_vm.h"          /* a ringside VMM's control socket */
#include "ringside/cap_source.h"      /* a region: DOMAIN, --vm SOCKET, PATH */
#include "ringside/cap_sync.h"        /* the guest clock against the host's */
#include "ringside/cap_guest_facts.h" /* who the guest says it is */
#include "ringside/cap_pstate.h"      /* its process table into a file */
#include "ringside/cap_usyms_feed.h"  /* its user symbols into a file */
#include "ringside/cap_host.h"        /* the host's view of the vCPUs */
#include "ringside/cap_recorder.h"    /* record sessions */
#include "ringside/cap_snapper.h"     /* snapshot sessions */
#include "ringside/cap_flight.h"      /* a stopped domain's flight recorder */

#endif /* RINGSIDE_CAPTURE_H */
