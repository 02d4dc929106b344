/* SPDX-License-Identifier: MIT */
/*
 * The guest's processes as its state table says (gpstate), filed at the
 * head of a file: a COMM and the MMAP2 records of each, just before the
 * file's first sample, so that perf knows every process still alive
 * before any of its samples, however long ago the ring lost or
 * overwrote the records that described it.  They are the host's records
 * (ringside:state), not a ring's: the file's tally of ring records does
 * not count them.  A record the writer refuses is counted, never a
 * reason to fail.
 */
#include "ringside/capture.h"

int pstate_file(const struct gpstate *g, struct pdf_writer *w, uint64_t time,
		struct pstate_filed *c)
{
	struct pdf_buf rec;
	uint32_t i, j;
	int err = 0;

	if (g->state != GPSTATE_OK)
		return 0;
	pdf_buf_init(&rec);
	for (i = 0; i < g->nr_procs && !err; i++) {
		for (j = 0; j <= g->procs[i].nr_maps && !err; j++) {
			err = j ? gpstate_mmap2(g, i, j - 1, &rec) :
				  gpstate_comm(g, i, &rec);
			if (err)
				break;      /* -ENOMEM */
			err = w ? pdf_writer_add_state(w, 0, time,
						       (const void *)rec.data) : 0;
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
	}
	pdf_buf_fini(&rec);
	return err;
}
