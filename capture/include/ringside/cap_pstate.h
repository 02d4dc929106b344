/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_PSTATE_H
#define RINGSIDE_CAP_PSTATE_H

#include <stdint.h>

#include "ringside/gi_pstate.h"
#include "ringside/perfdata.h"

/*
 * The guest's process table (ringside/gi_pstate.h) at the head of a
 * file: a COMM per process and an MMAP2 per mapping, filed as the host's
 * own records before the first sample, so that perf names the samples
 * of processes that started before the recording.
 */

/* What was filed of it. */
struct cap_pstate_filed {
	uint64_t comms;           /* COMM records, one per process */
	uint64_t mmaps;           /* MMAP2 records, one per mapping */
	uint64_t refused;         /* records the writer refused */
	uint64_t born;            /* processes born after the agent's last
				   * read, filed as their parents were */
};

/*
 * @g's processes, a COMM (of those with a name) and their MMAP2
 * records, to @w (if any) at @time, as the host's own records
 * (pdf_writer_add_state), counted into @c.  0, -ENOMEM, or the
 * writer's -errno (the file, not a record).
 */
int cap_pstate_file(const struct gi_pstate *g, struct pdf_writer *w, uint64_t time,
		    struct cap_pstate_filed *c);

/*
 * Process @child, born of @parent at @time (a FORK the guest kernel's
 * buffer held, gi_kbuf_fork: the agent never met the child), filed as the
 * kernel made it: @parent's name and mappings in @g as the child's, a
 * COMM and MMAP2 records of @child to @w (if any), counted into @c
 * (born, comms, mmaps).  1 filed; 0 when @g has @child (the agent knew
 * it) or not @parent; -ENOMEM, or the writer's -errno.
 */
int cap_pstate_file_child(const struct gi_pstate *g, struct pdf_writer *w,
			  uint32_t parent, uint32_t child, uint64_t time,
			  struct cap_pstate_filed *c);

#endif /* RINGSIDE_CAP_PSTATE_H */
