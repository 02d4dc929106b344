/* SPDX-License-Identifier: MIT */
/*
 * The process model (pstate.c) into the region's process state table
 * (abi.h, struct rs_pstate_desc; docs/abi.md, "Process state").
 *
 * When the model changed, after each pass over the kernel's records (and
 * within one, agent_pstate_due), it is written whole into the
 * table's idle copy, built there in place (rs_pstate_open, then
 * rs_pstate_close): the live processes first (the
 * ones sampled, then the others with code), then the ended ones sampled,
 * newest first; bounded by the copy's bytes and RS_PSTATE_MAX_MAPS
 * mappings each, what did not fit counted in the copy's head and in the
 * model's stats.
 */
#include <stdlib.h>
#include <string.h>

#include "pstate_int.h"

static uint32_t map_bytes(const struct pmap *m)
{
	return (uint32_t)((sizeof(struct rs_pstate_map) + m->name->len + 7u) &
			  ~(size_t)7u);
}

/* Where @p goes in the copy: 0 live and sampled, 1 live with code,
 * 2 ended and sampled; 3: not at all. */
static int rank(const struct pproc *p)
{
	if (!(p->flags & P_ENDED))
		return (p->flags & P_SAMPLED) ? 0 : p->nr_maps ? 1 : 3;
	return (p->flags & P_SAMPLED) ? 2 : 3;
}

static int by_rank(const void *a, const void *b)
{
	const struct pproc *p = ps.proc[*(const uint32_t *)a];
	const struct pproc *q = ps.proc[*(const uint32_t *)b];
	int rp = rank(p), rq = rank(q);

	if (rp != rq)
		return rp - rq;
	if (rp == 2)             /* the newest end first */
		return p->end_seq < q->end_seq ? 1 : p->end_seq > q->end_seq ? -1 : 0;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

/* One process entry at @o (@len bytes, counted before). */
static void put_proc(uint8_t *o, const struct pproc *p, uint64_t len)
{
	struct rs_pstate_proc e;
	uint32_t j;

	memset(&e, 0, sizeof(e));
	e.length = (uint32_t)len;
	e.pid = p->pid;
	e.nr_maps = (uint16_t)p->nr_maps;
	e.flags = (p->flags & P_ENDED) ? RS_PSTATE_PROC_ENDED : 0;
	e.ppid = p->ppid;
	memcpy(e.comm, p->comm, sizeof(e.comm));
	memcpy(o, &e, sizeof(e));
	o += sizeof(e);
	for (j = 0; j < p->nr_maps; j++) {
		const struct pmap *m = &p->map[j];
		struct rs_pstate_map r;
		uint32_t mb = map_bytes(m);

		memset(&r, 0, sizeof(r));
		r.start = m->start;
		r.len = m->len;
		r.pgoff = m->pgoff;
		r.prot = m->prot;
		r.flags = m->flags;
		r.maj = m->maj;
		r.min = m->min;
		r.ino = m->ino;
		r.name_len = m->name->len;
		r.build_id_len = m->bid_len;
		memcpy(r.build_id, m->bid, m->bid_len);
		memcpy(o, &r, sizeof(r));
		memset(o + sizeof(r), 0, mb - sizeof(r));
		memcpy(o + sizeof(r), m->name->s, m->name->len);
		o += mb;
	}
}

/* The model into @out, @room bytes (the table's open copy): @h's counts. */
static void build(struct rs_pstate_copy *h, uint8_t *out, uint64_t room)
{
	uint32_t i, j, n = 0;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < ps.nr; i++)
		if (rank(ps.proc[i]) < 3)
			ps.order[n++] = i;
	qsort(ps.order, n, sizeof(ps.order[0]), by_rank);
	ps.st.ended_kept = 0;
	for (i = 0; i < n; i++) {
		const struct pproc *p = ps.proc[ps.order[i]];
		uint64_t len = sizeof(struct rs_pstate_proc);

		for (j = 0; j < p->nr_maps; j++)
			len += map_bytes(&p->map[j]);
		h->maps_left_out += p->maps_over;
		if (len > room - h->length) {
			h->procs_left_out++;
			h->maps_left_out += p->nr_maps;
			continue;
		}
		put_proc(out + h->length, p, len);
		h->length += (uint32_t)len;
		h->nr_procs++;
		h->nr_maps += p->nr_maps;
		if (p->flags & P_ENDED)
			ps.st.ended_kept++;
	}
	if (h->procs_left_out || h->maps_left_out)
		h->flags = RS_PSTATE_TRUNCATED;
}

void agent_pstate_table_publish(uint64_t now)
{
	struct rs_pstate_copy h;
	uint64_t room;
	uint8_t *out;

	if (!ps.on || !ps.dirty)
		return;
	/* built where the host reads it: no second copy of the table */
	out = rs_pstate_open(&ps.w, &room);
	if (!out)
		return;            /* never: one writer, closed below */
	build(&h, out, room);
	h.time = now;                           /* agent_markers_now's clock */
	if (rs_pstate_close(&ps.w, &h))
		return;            /* never: build bounds it by the copy */
	ps.dirty = 0;
	ps.st.publishes++;
	ps.st.procs = h.nr_procs;
	ps.st.maps = h.nr_maps;
	ps.st.procs_left_out = h.procs_left_out;
	ps.st.maps_left_out = h.maps_left_out;
}
