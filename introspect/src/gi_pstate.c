/* SPDX-License-Identifier: MIT */
/*
 * The guest's process state (docs/abi.md, "Process state"): the newest
 * complete copy of the table copied once from the sideband
 * (rs_pstate_read), then every process entry judged as the guest's claim
 * it is before it becomes a COMM and MMAP2 records of a file: lengths
 * inside the entry and the copy, counts inside abi.h's bounds, mappings
 * that do not wrap, build ids of a valid length, names printable,
 * bounded, absolute (or "[vdso]"), without a ".." component, the pid a
 * process's (neither 0 nor -1) and given once.  An entry that fails is
 * refused and counted; the others are kept.  A mapping whose name alone
 * fails is left out and counted, its process kept.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gi_pstate.h"

#define PHDR sizeof(struct rs_pstate_proc)
#define MHDR sizeof(struct rs_pstate_map)

_Static_assert(RS_PSTATE_NAME_MAX < PDF_MMAP2_NAME_MAX,
	       "a table's name fits an MMAP2's");

/* Absolute (or "[vdso]"), printable, and what an MMAP2 may carry
 * (pdf_rrec_mmap2_name_ok: no ".." component): the writer encodes every name
 * this accepts. */
static int name_ok(const char *p, size_t n)
{
	size_t i;

	if (n == 6 && !memcmp(p, "[vdso]", 6))
		return 1;
	if (!n || n > RS_PSTATE_NAME_MAX || p[0] != '/')
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] > 0x7e)
			return 0;
	return pdf_rrec_mmap2_name_ok(p, n);
}

/* Process entry @p of @len bytes into @g (its maps after g->nr_maps):
 * 0, or why not.  A mapping whose name alone is refused is left out and
 * counted in *@names: it costs that mapping, not its process. */
static enum gi_pstate_why check(struct gi_pstate *g, const uint8_t *p,
				uint64_t len, struct gi_pstate_proc *gp,
				uint32_t *names)
{
	struct rs_pstate_proc e;
	uint64_t at = PHDR;
	uint32_t i, k, kept = 0;

	memcpy(&e, p, sizeof(e));
	if (!e.pid || e.pid == UINT32_MAX || e.pid > (1u << 22))
		return GI_PSTATE_WHY_PID;      /* PID_MAX_LIMIT */
	for (i = 0; i < g->nr_procs; i++)
		if (g->procs[i].pid == e.pid)
			return GI_PSTATE_WHY_DUPLICATE;
	if (e.nr_maps > RS_PSTATE_MAX_MAPS)
		return GI_PSTATE_WHY_COUNTS;
	memset(gp, 0, sizeof(*gp));
	gp->pid = e.pid;
	/* a parent no process has: not known; flags a later agent may
	 * know, left out (both only describe it) */
	gp->ppid = e.ppid && e.ppid != UINT32_MAX && e.ppid <= (1u << 22) &&
		   e.ppid != e.pid ? e.ppid : 0;
	gp->flags = e.flags & RS_PSTATE_PROC_ENDED;
	for (k = 0; k < RS_PSTATE_COMM_LEN && e.comm[k]; k++)
		gp->comm[k] = (unsigned char)e.comm[k] < 0x20 ||
			      (unsigned char)e.comm[k] > 0x7e ? '?' : e.comm[k];
	gp->first_map = g->nr_maps;
	*names = 0;
	for (i = 0; i < e.nr_maps; i++) {
		struct gi_pstate_map *gm = &g->maps[g->nr_maps + kept];
		struct rs_pstate_map m;
		uint64_t mlen;

		if (len - at < MHDR)
			return GI_PSTATE_WHY_LENGTH;
		memcpy(&m, p + at, sizeof(m));
		mlen = (MHDR + m.name_len + 7u) & ~(uint64_t)7u;
		if (mlen > len - at)
			return GI_PSTATE_WHY_LENGTH;
		if (m.build_id_len > RS_PSTATE_BUILD_ID_MAX)
			return GI_PSTATE_WHY_BUILD_ID;
		if (!m.len || m.start > UINT64_MAX - m.len)
			return GI_PSTATE_WHY_RANGE;
		if (!name_ok((const char *)p + at + MHDR, m.name_len)) {
			(*names)++;
			at += mlen;
			continue;
		}
		memset(gm, 0, sizeof(*gm));
		gm->start = m.start;
		gm->len = m.len;
		gm->pgoff = m.pgoff;
		gm->prot = m.prot;
		gm->flags = m.flags;
		gm->maj = m.maj;
		gm->min = m.min;
		gm->ino = m.ino;
		gm->build_id_len = m.build_id_len;
		memcpy(gm->build_id, m.build_id, m.build_id_len);
		gm->name = (const char *)p + at + MHDR;
		gm->name_len = m.name_len;
		at += mlen;
		kept++;
	}
	if (at != len)
		return GI_PSTATE_WHY_LENGTH;
	gp->nr_maps = kept;
	return GI_PSTATE_WHY_NONE;
}

static void arrays_free(struct gi_pstate *g)
{
	free(g->procs);
	free(g->maps);
	g->procs = NULL;
	g->maps = NULL;
	g->nr_procs = g->nr_maps = 0;
}

int gi_pstate_parse(struct gi_pstate *g, const uint8_t *table, uint64_t len,
		    uint32_t procs)
{
	uint64_t at = 0, cap;
	uint32_t k;

	if (!g || (!table && len))
		return -EINVAL;
	arrays_free(g);
	memset(&g->st, 0, sizeof(g->st));
	g->st.claimed = procs;
	cap = len / PHDR;          /* no more entries fit, whatever is claimed */
	if (procs < cap)
		cap = procs;
	g->procs = calloc(cap + 1u, sizeof(*g->procs));
	g->maps = calloc(len / MHDR + 1u, sizeof(*g->maps));
	if (!g->procs || !g->maps) {
		arrays_free(g);
		return -ENOMEM;
	}
	for (k = 0; k < procs && at < len; k++) {
		struct gi_pstate_proc *gp = &g->procs[g->nr_procs];
		enum gi_pstate_why why;
		uint32_t elen, names;

		if (len - at < PHDR) {
			g->st.refused++;
			g->st.why = GI_PSTATE_WHY_LENGTH;
			break;
		}
		memcpy(&elen, table + at, sizeof(elen));
		if (elen < PHDR || (elen & 7u) || elen > len - at) {
			g->st.refused++;      /* no length to skip by: the rest */
			g->st.why = GI_PSTATE_WHY_LENGTH;
			break;
		}
		why = check(g, table + at, elen, gp, &names);
		at += elen;
		if (why) {
			memset(gp, 0, sizeof(*gp));
			g->st.refused++;
			g->st.why = why;
			continue;
		}
		g->st.names_refused += names;
		g->nr_maps += gp->nr_maps;
		g->nr_procs++;
		if (gp->flags & RS_PSTATE_PROC_ENDED)
			g->st.ended++;
	}
	if (k < procs && !g->st.refused)
		g->st.refused += procs - k;    /* claimed, never met */
	if (at < len && k == procs)
		g->st.refused++;               /* bytes past the last entry */
	return 0;
}

int gi_pstate_read(struct gi_pstate *g, const struct rs_region *region)
{
	uint64_t size = rs_sideband_size(region);
	uint8_t *buf;
	int err;

	if (!g)
		return -EINVAL;
	gi_pstate_fini(g);
	if (!size) {
		g->state = GI_PSTATE_ABSENT;
		return 0;
	}
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	err = rs_pstate_read(region, buf, size, &g->info);
	if (err <= 0) {
		free(buf);
		g->state = err == 0 ? GI_PSTATE_NONE : err == -rse_busy ?
			   GI_PSTATE_BUSY : err == -rse_absent ? GI_PSTATE_ABSENT :
			   GI_PSTATE_CORRUPT;
		return 0;
	}
	g->table = buf;
	g->state = GI_PSTATE_OK;
	return gi_pstate_parse(g, buf, g->info.head.length, g->info.head.nr_procs);
}

void gi_pstate_fini(struct gi_pstate *g)
{
	if (!g)
		return;
	arrays_free(g);
	free(g->table);
	memset(g, 0, sizeof(*g));
}

/* A bare perf record: header, @body of @len bytes, then @name (@n bytes)
 * with its NUL, padded to 8 as perf pads it. */
static int record(struct pdf_buf *out, uint32_t type, uint16_t misc,
		  const void *body, size_t len, const char *name, size_t n)
{
	static const uint8_t zero[8];
	size_t pad = ((n + 1 + 7) & ~(size_t)7) - n;
	struct rs_perf_header h = {
		.type = type, .misc = misc,
		.size = (uint16_t)(sizeof(h) + len + n + pad),
	};

	out->len = 0;
	pdf_buf_add(out, &h, sizeof(h));
	pdf_buf_add(out, body, len);
	pdf_buf_add(out, name, n);
	pdf_buf_add(out, zero, pad);
	return out->err;
}

int gi_pstate_comm(const struct gi_pstate *g, uint32_t proc, struct pdf_buf *out)
{
	const struct gi_pstate_proc *p;
	struct rs_perf_comm_body id;

	if (!g || !out || proc >= g->nr_procs)
		return -EINVAL;
	p = &g->procs[proc];
	id.pid = id.tid = p->pid;
	return record(out, PERF_RECORD_COMM, 0, &id, sizeof(id), p->comm,
		      strlen(p->comm));
}

int gi_pstate_mmap2(const struct gi_pstate *g, uint32_t proc, uint32_t map,
		    struct pdf_buf *out)
{
	const struct gi_pstate_proc *p;
	const struct gi_pstate_map *m;
	uint16_t misc = PERF_RECORD_MISC_USER;
	struct rs_perf_mmap2_body body;

	if (!g || !out || proc >= g->nr_procs ||
	    map >= g->procs[proc].nr_maps)
		return -EINVAL;
	p = &g->procs[proc];
	m = &g->maps[p->first_map + map];
	memset(&body, 0, sizeof(body));
	body.pid = body.tid = p->pid;
	body.addr = m->start;
	body.len = m->len;
	body.pgoff = m->pgoff;
	if (m->build_id_len) {
		body.u.build_id.size = m->build_id_len;
		memcpy(body.u.build_id.id, m->build_id, m->build_id_len);
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	} else {
		body.u.file.maj = m->maj;
		body.u.file.min = m->min;
		body.u.file.ino = m->ino;
	}
	body.prot = m->prot;
	body.flags = m->flags;
	return record(out, PERF_RECORD_MMAP2, misc, &body, sizeof(body),
		      m->name, m->name_len);
}

const char *gi_pstate_why_str(enum gi_pstate_why why)
{
	switch (why) {
	case GI_PSTATE_WHY_NONE: return "none";
	case GI_PSTATE_WHY_LENGTH: return "a length outside the entry or the table";
	case GI_PSTATE_WHY_PID: return "no process's pid";
	case GI_PSTATE_WHY_DUPLICATE: return "a pid given twice";
	case GI_PSTATE_WHY_COUNTS: return "more mappings than the bound";
	case GI_PSTATE_WHY_BUILD_ID: return "a build id of no valid length";
	case GI_PSTATE_WHY_RANGE: return "a mapping empty or past the address space";
	case GI_PSTATE_WHY_NAME:
		return "a file name unprintable, unbounded, relative or with \"..\"";
	}
	return "unknown";
}
