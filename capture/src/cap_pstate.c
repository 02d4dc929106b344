/* SPDX-License-Identifier: MIT */
/*
 * The guest's processes as its state table says (gi_pstate), filed at the
 * head of a file: a COMM and the MMAP2 records of each, just before the
 * file's first sample, so that perf knows every process still alive
 * before any of its samples, however long ago the ring lost or
 * overwrote the records that described it.  They are the host's records
 * (ringside:state), not a ring's: the file's tally of ring records does
 * not count them.  A record the writer refuses is counted, never a
 * reason to fail.  A process born after the agent's last read (its FORK
 * recovered from the guest kernel's buffer) is filed the same way, as its
 * parent was: what the kernel copied at its birth.  A process the table
 * gives no name (the agent met its pid, and it had ended before its name
 * could be read) gets its mappings and no COMM: perf says its pid, as
 * for any process it has no name of, where a COMM would claim "".
 */
#include <string.h>

#include "cap_internal.h"

/* Process @i's COMM and MMAP2 records, as @pid's (0: its own), to @w at
 * @time.  0, -ENOMEM, or the writer's -errno. */
static int file_proc(const struct gi_pstate *g, uint32_t i, uint32_t pid,
		     struct pdf_writer *w, uint64_t time, struct pdf_buf *rec,
		     struct cap_pstate_filed *c)
{
	uint32_t j;
	int err = 0;

	for (j = !g->procs[i].comm[0]; j <= g->procs[i].nr_maps && !err; j++) {
		err = j ? gi_pstate_mmap2(g, i, j - 1, rec) :
			  gi_pstate_comm(g, i, rec);
		if (err)
			break;      /* -ENOMEM */
		if (pid) {    /* both bodies begin with pid and tid */
			uint32_t ids[2] = { pid, pid };

			memcpy(rec->data + sizeof(struct rs_perf_header), ids,
			       sizeof(ids));
		}
		err = w ? pdf_writer_add_state(w, 0, time,
					       (const void *)rec->data) : 0;
		if (err && err > -PDF_ERR_BASE)
			break;      /* -errno: the file, not the record */
		if (err) {
			c->refused++;
			err = 0;
			continue;
		}
		if (j)
			c->mmaps++;
		else
			c->comms++;
	}
	return err;
}

int cap_pstate_file(const struct gi_pstate *g, struct pdf_writer *w, uint64_t time,
		    struct cap_pstate_filed *c)
{
	struct pdf_buf rec;
	uint32_t i;
	int err = 0;

	if (g->state != GI_PSTATE_OK)
		return 0;
	pdf_buf_init(&rec);
	for (i = 0; i < g->nr_procs && !err; i++)
		err = file_proc(g, i, 0, w, time, &rec, c);
	pdf_buf_fini(&rec);
	return err;
}

int cap_pstate_file_child(const struct gi_pstate *g, struct pdf_writer *w,
			  uint32_t parent, uint32_t child, uint64_t time,
			  struct cap_pstate_filed *c)
{
	struct pdf_buf rec;
	uint32_t i, p = UINT32_MAX;
	int err;

	if (g->state != GI_PSTATE_OK || !child || child == parent)
		return 0;
	for (i = 0; i < g->nr_procs; i++) {
		if (g->procs[i].pid == child)
			return 0;   /* the agent knew it: its table says */
		if (g->procs[i].pid == parent)
			p = i;
	}
	if (p == UINT32_MAX)
		return 0;
	pdf_buf_init(&rec);
	err = file_proc(g, p, child, w, time, &rec, c);
	pdf_buf_fini(&rec);
	if (err)
		return err;
	c->born++;
	return 1;
}
