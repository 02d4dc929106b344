/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gi_stack.h"

#define KERNEL_HALF    0xffff800000000000ull
#define TEXT_PAGES     32u      /* code pages kept while checking calls */
#define MAX_CANDIDATES 512u     /* per stack */

struct text_cache {
	uint64_t page[TEXT_PAGES];
	int state[TEXT_PAGES];    /* 0 empty, 1 read, -1 unreadable */
	uint8_t bytes[TEXT_PAGES][RS_PAGE_SIZE];
	uint32_t next;
};

struct candidate {
	uint64_t ret;
	struct pdf_ksym sym;      /* the function @ret is in */
	int direct;               /* a call rel32: @target is known */
	struct pdf_ksym target;   /* its callee */
	int has_target;
};

struct walk {
	const struct gi_stack_src *src;
	struct text_cache *text;
	uint8_t *stack;
	struct candidate *cand;
	int32_t *score, *from;
	uint8_t *keep;
	struct gi_stack *st;
};

int gi_stack_is_text(const struct pdf_ksyms *k, uint64_t addr,
		     struct pdf_ksym *sym)
{
	struct pdf_ksym s;

	if (addr < KERNEL_HALF || !pdf_ksyms_find(k, addr, &s))
		return 0;
	if (s.type != 'T' && s.type != 't' && s.type != 'W' && s.type != 'w')
		return 0;
	if (sym)
		*sym = s;
	return 1;
}

static const uint8_t *text_page(struct walk *w, uint64_t page)
{
	struct text_cache *c = w->text;
	uint32_t i, slot;

	for (i = 0; i < TEXT_PAGES; i++)
		if (c->state[i] && c->page[i] == page)
			return c->state[i] > 0 ? c->bytes[i] : NULL;
	slot = c->next++ % TEXT_PAGES;
	c->page[slot] = page;
	c->state[slot] = w->src->peek(w->src->ctx, page, c->bytes[slot], RS_PAGE_SIZE)
			 ? -1 : 1;
	return c->state[slot] > 0 ? c->bytes[slot] : NULL;
}

/* The 8 code bytes before @ret into @b (they may span two pages). */
static int code_before(struct walk *w, uint64_t ret, uint8_t b[8])
{
	for (unsigned i = 0; i < 8; i++) {
		uint64_t a = ret - 8 + i;
		const uint8_t *p = text_page(w, a & ~(uint64_t)(RS_PAGE_SIZE - 1));

		if (!p)
			return 0;
		b[i] = p[a & (RS_PAGE_SIZE - 1)];
	}
	return 1;
}

/* Does a call instruction end at @ret?  The forms x86-64 kernels use:
 * call rel32 (what retpoline thunks and static calls are reached by too),
 * and call through a register or memory operand. */
static int call_at(const uint8_t b[8], uint64_t ret, int *direct,
		   uint64_t *target)
{
	int32_t rel;

	*direct = 0;
	if (b[3] == 0xe8) {
		memcpy(&rel, b + 4, 4);
		*direct = 1;
		*target = ret + (uint64_t)(int64_t)rel;
		return 1;
	}
	if (b[6] == 0xff && (b[7] & 0xf8) == 0xd0)          /* *%reg */
		return 1;
	if (b[5] == 0xff && (b[6] & 0xf8) == 0x50 && b[6] != 0x54)
		return 1;                                   /* *d8(%reg) */
	if (b[4] == 0xff && b[5] == 0x54)                   /* *d8(sib) */
		return 1;
	if (b[2] == 0xff && (b[3] == 0x15 || ((b[3] & 0xf8) == 0x90 &&
					      b[3] != 0x94)))
		return 1;                                   /* *d32(...) */
	if (b[1] == 0xff && b[2] == 0x14)                   /* *d32(sib) */
		return 1;
	return 0;
}

/* One function under two names: "f" and its split-off "f.cold" part. */
static int same_function(const struct pdf_ksym *a, const struct pdf_ksym *b)
{
	size_t la = strcspn(a->name, "."), lb = strcspn(b->name, ".");

	if (la != lb || memcmp(a->name, b->name, la))
		return 0;
	if (!a->module || !b->module)
		return !a->module && !b->module;
	return !strcmp(a->module, b->module);
}

/* Callees that stand for an indirect call: retpoline thunks, static call
 * trampolines. */
static int is_trampoline(const struct pdf_ksym *s)
{
	static const char *const prefix[] = {
		"__x86_indirect_", "__SCT__", "__static_call",
	};

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(s->name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* What @c adds to a chain whose last frame is in @below: one for being a
 * frame, and for its link a direct call to that very function, strong
 * evidence; an indirect call (through a register, memory, a retpoline
 * thunk or a static-call trampoline), which cannot be checked; or a
 * direct call to another function: a tail call in between (a leaf such
 * as delay_tsc is often reached by one) or a stale word. */
enum { FRAME = 1, LINK_STRONG = 3, LINK_WEAK = 1, LINK_MISMATCH = -2 };

static int link_score(const struct candidate *c, const struct pdf_ksym *below)
{
	if (!c->direct || (c->has_target && is_trampoline(&c->target)))
		return FRAME + LINK_WEAK;
	if (c->has_target && same_function(&c->target, below))
		return FRAME + LINK_STRONG;
	return FRAME + LINK_MISMATCH;
}

/* The chain through the candidates (in stack order) that scores best:
 * stale return addresses left in locals rarely link to the frames around
 * them, real frames do.  O(n^2) over at most MAX_CANDIDATES.  Marks the
 * chosen ones in @keep; their count. */
static uint32_t best_chain(const struct candidate *c, uint32_t n,
			   const struct pdf_ksym *below, int32_t *score,
			   int32_t *from, uint8_t *keep)
{
	int32_t best = 0, end = -1;
	uint32_t i, j, kept = 0;

	for (j = 0; j < n; j++) {
		score[j] = link_score(&c[j], below);
		from[j] = -1;
		for (i = 0; i < j; i++) {
			int32_t v = score[i] + link_score(&c[j], &c[i].sym);

			if (v > score[j]) {
				score[j] = v;
				from[j] = (int32_t)i;
			}
		}
		if (score[j] > best) {
			best = score[j];
			end = (int32_t)j;
		}
	}
	memset(keep, 0, n);
	for (; end >= 0; end = from[end], kept++)
		keep[end] = 1;
	return kept;
}

/* Read the stack from @sp up to its end: the first page that cannot be
 * read (a vmalloc'ed stack has a guard page above it), or the limit.
 * Bytes read from @sp's page; *@at_guard says which end it was. */
static size_t read_stack(struct walk *w, uint64_t sp, int *at_guard)
{
	uint64_t page = sp & ~(uint64_t)(RS_PAGE_SIZE - 1);
	size_t len = 0;

	*at_guard = 0;
	while (len < GI_STACK_STACK_MAX) {
		if (w->src->peek(w->src->ctx, page + len, w->stack + len, RS_PAGE_SIZE)) {
			*at_guard = 1;
			break;
		}
		len += RS_PAGE_SIZE;
	}
	return len;
}

/* The candidates of one stack, from @sp up, into w->cand.  Their count. */
static uint32_t scan(struct walk *w, uint64_t base, uint64_t sp, size_t len)
{
	uint32_t n = 0;

	for (size_t off = (size_t)((sp - base + 7) & ~7ull); off + 8 <= len &&
	     n < MAX_CANDIDATES; off += 8) {
		struct candidate *c = &w->cand[n];
		uint64_t v, target = 0;
		uint8_t b[8];

		memcpy(&v, w->stack + off, 8);
		/* named by the call's last byte: a call to a function
		 * that does not return may end its caller */
		if (v < KERNEL_HALF || !gi_stack_is_text(w->src->ksyms, v - 1, &c->sym) ||
		    !code_before(w, v, b) || !call_at(b, v, &c->direct, &target))
			continue;
		c->ret = v;
		c->has_target = c->direct &&
				gi_stack_is_text(w->src->ksyms, target, &c->target);
		n++;
	}
	return n;
}

static int walk_stacks(struct walk *w, uint64_t sp, struct pdf_ksym below)
{
	struct gi_stack *st = w->st;

	while (st->stacks < GI_STACK_MAX_STACKS && st->nr < GI_STACK_MAX_FRAMES) {
		uint64_t base = sp & ~(uint64_t)(RS_PAGE_SIZE - 1), up;
		int at_guard;
		size_t len = read_stack(w, sp, &at_guard);
		uint32_t n, i;

		if (!len) {
			if (!st->stacks)
				st->peek_err = -EFAULT;
			break;
		}
		st->stacks++;
		st->bytes += len - (sp - base);
		n = scan(w, base, sp, len);
		st->candidates += n;
		best_chain(w->cand, n, &below, w->score, w->from, w->keep);
		for (i = 0; i < n; i++) {
			if (!w->keep[i]) {
				st->refused++;
				continue;
			}
			if (st->nr < GI_STACK_MAX_FRAMES)
				st->ip[st->nr++] = w->cand[i].ret - 1;
			below = w->cand[i].sym;
		}
		/* the interrupted stack's pointer, saved at the top of an
		 * interrupt stack; a task stack ends in user registers */
		if (!at_guard || len < 8)
			break;
		memcpy(&up, w->stack + len - 8, 8);
		if (up < KERNEL_HALF || (up & 7) ||
		    (up >= base && up < base + len))
			break;
		sp = up;
	}
	return 0;
}

int gi_stack_walk(const struct gi_stack_src *src, uint64_t rip, uint64_t rsp,
		  struct gi_stack *st)
{
	struct walk w = { .src = src, .st = st };
	struct pdf_ksym below;
	int err = 0;

	memset(st, 0, sizeof(*st));
	st->ip[st->nr++] = rip;
	if (!gi_stack_is_text(src->ksyms, rip, &below))
		return 0;
	w.text = calloc(1, sizeof(*w.text));
	w.stack = malloc(GI_STACK_STACK_MAX);
	w.cand = malloc(MAX_CANDIDATES * sizeof(*w.cand));
	w.score = malloc(MAX_CANDIDATES * sizeof(*w.score));
	w.from = malloc(MAX_CANDIDATES * sizeof(*w.from));
	w.keep = malloc(MAX_CANDIDATES);
	if (!w.text || !w.stack || !w.cand || !w.score || !w.from || !w.keep)
		err = -ENOMEM;
	else
		err = walk_stacks(&w, rsp, below);
	free(w.text);
	free(w.stack);
	free(w.cand);
	free(w.score);
	free(w.from);
	free(w.keep);
	return err;
}
