/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gi_kbuf.h"


/* perf's record types the agent carries besides SAMPLE and LOST (forward.c),
 * and the one it reads for its process table (pstate.c) */
enum { REC_MMAP = 1, REC_COMM = 3, REC_FORK = 7, REC_MMAP2 = 10 };

void gi_kbuf_init(struct gi_kbuf *g)
{
	memset(g, 0, sizeof(*g));
	pdf_buf_init(&g->stash);
	pdf_buf_init(&g->offs);
	pdf_buf_init(&g->fork_buf);
}

void gi_kbuf_fini(struct gi_kbuf *g)
{
	pdf_buf_fini(&g->stash);
	pdf_buf_fini(&g->offs);
	pdf_buf_fini(&g->fork_buf);
}

/* A guest-physical page the host may read: aligned, inside guest RAM. */
static int gpa_ok(const struct gi_kbuf_src *src, uint64_t gpa)
{
	if (gpa & (RS_PAGE_SIZE - 1))
		return 0;
	for (int i = 0; i < 2; i++)
		if (gpa >= src->ram[i][0] && gpa < src->ram[i][1] &&
		    src->ram[i][1] - gpa >= RS_PAGE_SIZE)
			return 1;
	return 0;
}

void gi_kbuf_x86_ram(uint64_t ram[2][2], uint64_t bytes)
{
	const uint64_t g = 1ull << 30;

	ram[0][0] = 0;
	ram[0][1] = bytes < 2 * g ? bytes : 2 * g;
	ram[1][0] = 4 * g;
	ram[1][1] = bytes > 3 * g ? 4 * g + (bytes - 3 * g) : 4 * g;
}

/* @len bytes at buffer position @pos out of the private copy, wrapping. */
static void copy_out(const uint8_t *data, uint64_t size, uint64_t pos,
		     void *dst, size_t len)
{
	size_t off = (size_t)(pos & (size - 1));
	size_t first = len < size - off ? len : (size_t)(size - off);

	memcpy(dst, data + off, first);
	memcpy((uint8_t *)dst + first, data, len - first);
}

static void keep(struct gi_kbuf *g, uint32_t cpu, const void *rec, size_t len)
{
	pdf_buf_add_u64(&g->offs, g->stash.len);
	pdf_buf_add_u64(&g->offs, cpu);
	pdf_buf_add(&g->stash, rec, len);
	g->records++;
	g->bytes += len;
}

/* The records in [tail, head) of a copy of the data area, into the stash
 * as the agent would have forwarded them.  Returns the count. */
static uint64_t walk(struct gi_kbuf *g, uint32_t cpu, const uint8_t *data,
		     uint64_t size, uint64_t tail, uint64_t head, uint8_t *rec)
{
	uint64_t pos = tail, n = 0;

	while (pos < head) {     /* each step advances by >= 8 */
		struct rs_perf_header h;

		if (head - pos < sizeof(h)) {
			g->corrupt++;
			break;
		}
		copy_out(data, size, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || (h.size & 7u) || h.size > head - pos) {
			g->corrupt++;    /* nothing after it can be trusted */
			break;
		}
		copy_out(data, size, pos, rec, h.size);
		pos += h.size;
		switch (h.type) {
		case REC_COMM:
		case REC_MMAP2:
		case RS_PERF_RECORD_LOST_SAMPLES: {
			/* without the sample_id trailer the agent's events
			 * give them: byte for byte what it forwards */
			size_t body = pdf_rrec_perf_body((const void *)rec);

			if (body && body < h.size - sizeof(h)) {
				h.size = (uint16_t)(sizeof(h) + body);
				memcpy(rec, &h, sizeof(h));
			}
		}
			/* fall through */
		case RS_PERF_RECORD_SAMPLE:
		case REC_MMAP:
			keep(g, cpu, rec, h.size);
			n++;
			break;
		case REC_FORK: {    /* a new process, apart: not a record */
			struct rs_perf_task_body t;
			struct gi_kbuf_fork f;

			if (h.size < sizeof(h) + sizeof(t)) {
				g->corrupt++;
				break;
			}
			memcpy(&t, rec + sizeof(h), sizeof(t));
			if (t.pid == t.ppid || t.pid != t.tid || !t.pid ||
			    !t.ppid || t.pid == UINT32_MAX ||
			    t.ppid == UINT32_MAX) {
				g->other++;   /* a thread's, or no process's */
				break;
			}
			memset(&f, 0, sizeof(f));
			f.cpu = cpu;
			f.pid = t.pid;
			f.ppid = t.ppid;
			f.time = t.time;
			pdf_buf_add(&g->fork_buf, &f, sizeof(f));
			g->forks++;
			break;
		}
		case RS_PERF_RECORD_LOST: {   /* as forward.c: LOST_SAMPLES */
			struct rs_perf_lost_samples l;

			if (h.size < sizeof(struct rs_perf_lost)) {
				g->corrupt++;
				break;
			}
			memcpy(&l.lost, rec + offsetof(struct rs_perf_lost, lost),
			       sizeof(l.lost));
			l.header.type = RS_PERF_RECORD_LOST_SAMPLES;
			l.header.misc = 0;
			l.header.size = sizeof(l);
			keep(g, cpu, &l, sizeof(l));
			n++;
			break;
		}
		default:
			g->other++;
			break;
		}
	}
	return n;
}

/* The page reads one row may make: its control page and each data page
 * once (docs/threat-model.md).  Every read of a row goes through here, so
 * the bound holds whatever positions the guest wrote. */
struct row_reads {
	const struct gi_kbuf_src *src;
	uint32_t left;
};

static int read_page(struct gi_kbuf *g, struct row_reads *r, uint64_t gpa,
		     void *buf, size_t len)
{
	int err = -E2BIG;   /* over the bound: unreachable while one_cpu is right */

	if (r->left) {
		r->left--;
		g->page_reads++;
		err = r->src->peek(r->src->ctx, gpa, buf, len);
	}
	if (err) {
		g->peek_failed++;
		g->peek_err = err;
	}
	return err;
}

/* One row of the table: check it, read its control page and the data
 * pages holding [tail, head), take the records. */
static void one_cpu(struct gi_kbuf *g, const struct gi_kbuf_src *src,
		    const uint64_t *row, uint8_t *data, uint8_t *rec)
{
	uint32_t pages = g->info.data_pages, i;
	uint64_t size = (uint64_t)pages * RS_PAGE_SIZE, head, tail, first, span;
	struct row_reads reads = { .src = src, .left = 1 + pages };
	struct rs_ctrl_page ctrl;

	g->cpus++;
	if (row[0] >= RS_KBUF_MAX_CPUS) {
		g->bad_rows++;
		return;
	}
	for (i = 0; i < 1 + pages; i++)
		if (!gpa_ok(src, row[1 + i])) {
			g->bad_rows++;
			return;
		}
	if (read_page(g, &reads, row[1], &ctrl, sizeof(ctrl)))
		return;
	head = ctrl.data_head;
	tail = ctrl.data_tail;
	/* the kernel writes data_size and data_offset (Linux >= 4.1) */
	if ((ctrl.data_size && ctrl.data_size != size) || tail > head ||
	    head - tail > size) {
		g->bad_pages++;
		return;
	}
	if (head == tail)
		return;
	/* Only the pages [tail, head) touches, counted from tail's page, not
	 * walked by position: head may sit just below 2^64, where a position
	 * stepping by pages wraps.  At most the whole buffer, each page once. */
	first = tail / RS_PAGE_SIZE;
	span = (head - 1) / RS_PAGE_SIZE - first + 1;
	if (span > pages)
		span = pages;
	for (uint64_t k = 0; k < span; k++) {
		uint64_t idx = (first + k) & (pages - 1);

		if (read_page(g, &reads, row[2 + idx],
			      data + idx * RS_PAGE_SIZE, RS_PAGE_SIZE))
			return;
	}
	if (walk(g, (uint32_t)row[0], data, size, tail, head, rec))
		g->cpus_recovered++;
}

int gi_kbuf_recover(struct gi_kbuf *g, const struct rs_region *region,
		    const struct gi_kbuf_src *src, uint64_t sample_type)
{
	uint64_t words, sb = rs_sideband_size(region);
	uint8_t *table = NULL, *data = NULL, *rec = NULL;
	int r, err = 0;

	g->state = GI_KBUF_ABSENT;
	g->errstr = src ? src->errstr : NULL;
	if (!sb || !src || !src->peek)
		return 0;
	table = malloc(sb);
	if (!table)
		return -ENOMEM;
	r = rs_kbuf_read(region, table, sb, &g->info);
	g->state = r == 1 ? GI_KBUF_OK : r == 0 ? GI_KBUF_NONE :
		   r == -rse_busy ? GI_KBUF_BUSY : r == -rse_absent ?
		   GI_KBUF_ABSENT : GI_KBUF_CORRUPT;
	if (g->state == GI_KBUF_OK && g->info.sample_type != sample_type)
		g->state = GI_KBUF_MISMATCH;
	if (g->state != GI_KBUF_OK)
		goto out;
	data = malloc((size_t)g->info.data_pages * RS_PAGE_SIZE);
	rec = malloc(65536);
	if (!data || !rec) {
		err = -ENOMEM;
		goto out;
	}
	words = RS_KBUF_ROW_WORDS(g->info.data_pages);
	for (uint32_t i = 0; i < g->info.nr_cpus; i++) {
		uint64_t *row = (uint64_t *)(void *)table + (uint64_t)i * words;

		/* a row whole (its control page and every data page) within
		 * the bound, or not at all */
		if (src->max_page_reads && src->max_page_reads - g->page_reads <
					   1u + (uint64_t)g->info.data_pages) {
			g->cpus_unread++;
			continue;
		}
		one_cpu(g, src, row, data, rec);
	}
	if (g->stash.err || g->offs.err || g->fork_buf.err)
		err = -ENOMEM;
out:
	free(rec);
	free(data);
	free(table);
	return err;
}

size_t gi_kbuf_count(const struct gi_kbuf *g)
{
	return g->offs.len / (2 * sizeof(uint64_t));
}

const struct rs_perf_header *gi_kbuf_record(const struct gi_kbuf *g, size_t i,
					    uint32_t *cpu)
{
	uint64_t v[2];

	memcpy(v, g->offs.data + i * sizeof(v), sizeof(v));
	if (cpu)
		*cpu = (uint32_t)(v[1] & 0xffffffffu);
	return (const struct rs_perf_header *)(const void *)(g->stash.data + v[0]);
}

size_t gi_kbuf_fork_count(const struct gi_kbuf *g)
{
	return g->fork_buf.len / sizeof(struct gi_kbuf_fork);
}

int gi_kbuf_fork_get(const struct gi_kbuf *g, size_t i, struct gi_kbuf_fork *f)
{
	if (i >= gi_kbuf_fork_count(g))
		return -EINVAL;
	memcpy(f, g->fork_buf.data + i * sizeof(*f), sizeof(*f));
	return 0;
}

/* A dropped record keeps its place; bit 63 of its CPU word says so. */
void gi_kbuf_drop(struct gi_kbuf *g, size_t i)
{
	uint64_t v;

	memcpy(&v, g->offs.data + i * 16 + 8, sizeof(v));
	if (v >> 63)
		return;
	v |= 1ull << 63;
	memcpy(g->offs.data + i * 16 + 8, &v, sizeof(v));
	g->duplicates++;
}

int gi_kbuf_dropped(const struct gi_kbuf *g, size_t i)
{
	uint64_t v;

	memcpy(&v, g->offs.data + i * 16 + 8, sizeof(v));
	return (int)(v >> 63);
}

