/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guest_stack.h"

#define PAGE           4096u
#define KERNEL_HALF    0xffff800000000000ull
#define TEXT_PAGES     32u      /* code pages kept while checking calls */
#define MAX_CANDIDATES 512u     /* per stack */

struct text_cache {
	uint64_t page[TEXT_PAGES];
	int state[TEXT_PAGES];    /* 0 empty, 1 read, -1 unreadable */
	uint8_t bytes[TEXT_PAGES][PAGE];
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
	const struct gstack_src *src;
	struct text_cache *text;
	uint8_t *stack;
	struct candidate *cand;
	struct gstack *st;
};

int gstack_is_text(const struct pdf_ksyms *k, uint64_t addr,
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
	c->state[slot] = w->src->peek(w->src->ctx, page, c->bytes[slot], PAGE)
			 ? -1 : 1;
	return c->state[slot] > 0 ? c->bytes[slot] : NULL;
}

/* The 8 code bytes before @ret into @b (they may span two pages). */
static int code_before(struct walk *w, uint64_t ret, uint8_t b[8])
{
	for (unsigned i = 0; i < 8; i++) {
		uint64_t a = ret - 8 + i;
		const uint8_t *p = text_page(w, a & ~(uint64_t)(PAGE - 1));

		if (!p)
			return 0;
		b[i] = p[a & (PAGE - 1)];
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

static int fits(const struct candidate *c, const struct pdf_ksym *below)
{
	if (!c->direct || (c->has_target && is_trampoline(&c->target)))
		return 1;
	return c->has_target && same_function(&c->target, below);
}

/* A later frame that called @c's function vouches for @c. */
static int vouched(const struct candidate *c, const struct candidate *later,
		   uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		if (later[j].direct && later[j].has_target &&
		    same_function(&later[j].target, &c->sym))
			return 1;
	return 0;
}

/* Read the stack from @sp up to its end: the first page that cannot be
 * read (a vmalloc'ed stack has a guard page above it), or the limit.
 * Bytes read from @sp's page; *@at_guard says which end it was. */
static size_t read_stack(struct walk *w, uint64_t sp, int *at_guard)
{
	uint64_t page = sp & ~(uint64_t)(PAGE - 1);
	size_t len = 0;

	*at_guard = 0;
	while (len < GSTACK_STACK_MAX) {
		if (w->src->peek(w->src->ctx, page + len, w->stack + len, PAGE)) {
			*at_guard = 1;
			break;
		}
		len += PAGE;
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
		if (v < KERNEL_HALF || !gstack_is_text(w->src->ksyms, v - 1, &c->sym) ||
		    !code_before(w, v, b) || !call_at(b, v, &c->direct, &target))
			continue;
		c->ret = v;
		c->has_target = c->direct &&
				gstack_is_text(w->src->ksyms, target, &c->target);
		n++;
	}
	return n;
}

static int walk_stacks(struct walk *w, uint64_t sp, struct pdf_ksym below)
{
	struct gstack *st = w->st;

	while (st->stacks < GSTACK_MAX_STACKS && st->nr < GSTACK_MAX_FRAMES) {
		uint64_t base = sp & ~(uint64_t)(PAGE - 1), up;
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
		for (i = 0; i < n && st->nr < GSTACK_MAX_FRAMES; i++) {
			const struct candidate *c = &w->cand[i];

			if (!fits(c, &below) && !vouched(c, c + 1, n - i - 1)) {
				st->refused++;
				continue;
			}
			st->ip[st->nr++] = c->ret - 1;
			below = c->sym;
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

int gstack_walk(const struct gstack_src *src, uint64_t rip, uint64_t rsp,
		struct gstack *st)
{
	struct walk w = { .src = src, .st = st };
	struct pdf_ksym below;
	int err = 0;

	memset(st, 0, sizeof(*st));
	st->ip[st->nr++] = rip;
	if (!gstack_is_text(src->ksyms, rip, &below))
		return 0;
	w.text = calloc(1, sizeof(*w.text));
	w.stack = malloc(GSTACK_STACK_MAX);
	w.cand = malloc(MAX_CANDIDATES * sizeof(*w.cand));
	if (!w.text || !w.stack || !w.cand)
		err = -ENOMEM;
	else
		err = walk_stacks(&w, rsp, below);
	free(w.text);
	free(w.stack);
	free(w.cand);
	return err;
}
