/* SPDX-License-Identifier: MIT */
/*
 * The ground-truth file of the QEMU PT plugin's test mode (truth=FILE):
 * what a test decodes against, without a guest memory source.
 *
 *   8 bytes     PV_TRUTH_MAGIC
 *   records     struct pv_truth_rec, then len bytes, padded to 8
 *
 * PV_TRUTH_CODE: one translated block at virtual address addr, in
 * translation order: a u64, the number of instructions vCPU vcpu (the one
 * that translated it) had started then, and the code bytes.  A later
 * translation may show patched code; it holds from that count on.
 * PV_TRUTH_IPS: traced instructions vCPU vcpu started, oldest first, as
 * u64 addresses; addr is the index of the first one among all it started.
 * Up to two per vCPU: the first truth_max / 2 (addr 0), and the latest
 * ones after those (up to the rest of truth_max).  An instruction started
 * again at once (a REP iteration, a block QEMU left early) is there once.
 * PV_TRUTH_FAULTS: u64 indices (as above) of instructions that started and
 * faulted (an exception part-way through a block): they did not retire.
 */
#ifndef RINGSIDE_PT_TRUTH_H
#define RINGSIDE_PT_TRUTH_H

#include <stdint.h>

#define PV_TRUTH_MAGIC "RSPTTRU1"

enum pv_truth_type {
	PV_TRUTH_CODE = 1,
	PV_TRUTH_IPS = 2,
	PV_TRUTH_FAULTS = 3,
};

struct pv_truth_rec {
	uint32_t type;
	uint32_t vcpu;
	uint64_t addr;
	uint64_t len;
};

#endif
