/* SPDX-License-Identifier: MIT */
/*
 * ringside trace region, ABI version 1.
 *
 * One contiguous region, power-of-two sized, shared by a guest (producer)
 * and the host (consumer).  Everything in it is addressed by offsets from the
 * region start; nothing holds a pointer.  docs/abi.md is the prose version of
 * this file and the headers it includes; they must agree.
 *
 *   page 0                 struct rs_region_header
 *   ctrl pages             struct rs_ctrl_page, one per ring
 *   data / AUX areas       each naturally aligned to its own size
 *   sideband area          optional, whole pages (sideband_size 0: none)
 *
 * Who writes what:
 *   host   region header layout fields (sideband_offset/size included),
 *          boot_gen, rs_config, data_tail, aux_tail, the time conversion
 *          fields of each control page, rs_ctrl_host
 *   guest  rs_guest_status, rs_usyms_desc, rs_pstate_desc, rs_guest_info,
 *          data_head, aux_head, rs_ctrl_ext, records,
 *          AUX bytes, rs_sideband_desc and the sideband area
 * Each side keeps a private copy of what it owns and treats the other side's
 * values as hints to validate.
 *
 *   abi_region.h   the header page: layout constants, configuration,
 *                  status, guest info, ring descriptors, own records
 *   abi_tables.h   the sideband area's tables (kallsyms, kernel perf
 *                  buffers, user symbols, processes)
 *   abi_tsync.h    the time synchronization cells
 *   abi_ctrl.h     the control page of each ring
 *   perf_format.h  perf's records that travel through a ring
 */
#ifndef RINGSIDE_ABI_H
#define RINGSIDE_ABI_H

#include "ringside/abi_region.h"
#include "ringside/abi_ctrl.h"
#include "ringside/perf_format.h"

#endif /* RINGSIDE_ABI_H */
