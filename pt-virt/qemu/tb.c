// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Translated blocks, interned: QEMU hands each translation's callbacks one
 * pointer, and a block flushed and translated again must not cost memory
 * again, so blocks are kept by (start, code bytes) for the plugin's life.
 * The last instruction is classified once here; flow.c reads nothing else
 * of the code at run time.
 */
#include <stdlib.h>
#include <string.h>

#include "qpt.h"

#define BUCKETS (1u << 16)

int qpt_tb_init(struct qpt *q)
{
	q->buckets = calloc(BUCKETS, sizeof(*q->buckets));
	if (!q->buckets)
		return -pve_nomem;
	return pthread_mutex_init(&q->tb_lock, NULL) ? -pve_internal : 0;
}

bool qpt_inside(const struct qpt *q, uint64_t ip)
{
	return q->o.filter_all || ip >= QPT_KERNEL_BASE;
}

static uint64_t hash(uint64_t start, const uint8_t *b, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ start;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* A REP-prefixed string instruction: TCG runs one iteration per block
 * execution and branches back to the instruction itself until done. */
static bool rep_string(const uint8_t *b, uint32_t len)
{
	bool rep = false;
	uint32_t i = 0;

	for (; i < len; i++) {
		uint8_t c = b[i];

		if (c == 0xf2 || c == 0xf3)
			rep = true;
		else if (!(c == 0x66 || c == 0x67 || c == 0x2e || c == 0x36 ||
			   c == 0x3e || c == 0x26 || c == 0x64 || c == 0x65 ||
			   c == 0xf0 || (c >= 0x40 && c <= 0x4f)))
			break;
	}
	if (!rep || i == len)
		return false;
	return (b[i] >= 0x6c && b[i] <= 0x6f) || (b[i] >= 0xa4 && b[i] <= 0xa7) ||
	       (b[i] >= 0xaa && b[i] <= 0xaf);
}

static struct qpt_tb *make(const struct qpt *q, uint64_t start,
			   const uint8_t *bytes, uint32_t nbytes,
			   const uint8_t *lens, uint32_t n)
{
	struct qpt_tb *t = calloc(1, sizeof(*t));
	uint32_t off = nbytes - lens[n - 1];

	if (!t)
		return NULL;
	t->lens = malloc(n);
	t->bytes = malloc(nbytes);
	if (!t->lens || !t->bytes) {
		free(t->lens);
		free(t->bytes);
		free(t);
		return NULL;
	}
	memcpy(t->lens, lens, n);
	memcpy(t->bytes, bytes, nbytes);
	t->start = start;
	t->end = start + nbytes;
	t->n = n;
	t->nbytes = nbytes;
	t->inside = qpt_inside(q, start);
	/* Code outside the filter is never decoded (and may not be 64-bit:
	 * firmware, real mode), so it is not classified. */
	if (!t->inside ||
	    pv_insn_classify(bytes + off, lens[n - 1], start + off, &t->last) < 0) {
		memset(&t->last, 0, sizeof(t->last));
		t->last.ip = start + off;
		t->last.len = lens[n - 1];
		t->last.iclass = PV_INSN_OTHER;
		t->last.vector = -1;
		t->bad = t->inside;
	}
	t->rep = rep_string(bytes + off, lens[n - 1]);
	if (t->last.iclass == PV_INSN_RET) {
		uint64_t a = start;

		for (uint32_t i = 0; i + 1 < n && t->nmem < QPT_MEM_WATCH;
		     a += lens[i++]) {
			struct pv_insn in;

			if (pv_insn_classify(bytes + (a - start), lens[i], a,
					     &in) == 0 && in.mem)
				t->mem_ip[t->nmem++] = a;
		}
	}
	return t;
}

struct qpt_tb *qpt_tb_get(struct qpt *q, uint64_t start,
				const uint8_t *bytes, uint32_t nbytes,
				const uint8_t *lens, uint32_t n, bool *fresh)
{
	uint64_t h;
	struct qpt_tb **b, *t;

	*fresh = false;
	if (!n || !nbytes)
		return NULL;
	h = hash(start, bytes, nbytes);
	pthread_mutex_lock(&q->tb_lock);
	b = &q->buckets[h % BUCKETS];
	for (t = *b; t; t = t->next)
		if (t->hash == h && t->start == start && t->nbytes == nbytes &&
		    t->n == n && !memcmp(t->bytes, bytes, nbytes))
			break;
	if (!t && (t = make(q, start, bytes, nbytes, lens, n))) {
		t->hash = h;
		t->next = *b;
		*b = t;
		q->ntb++;
		*fresh = true;
	}
	pthread_mutex_unlock(&q->tb_lock);
	return t;
}
