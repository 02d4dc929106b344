/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_GI_STACK_H
#define RINGSIDE_GI_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/perfdata.h"

/*
 * The call chain of a stopped guest vCPU, from its registers and its
 * kernel stack, read by the host (no help from the guest: it may have
 * panicked or hung).  The guest kernel is built without frame pointers
 * (Debian's uses ORC, whose tables the host does not have), so the stack is
 * scanned: a word is a candidate only if it points into a kernel function
 * (by the guest's own symbols) just after a call instruction.  Of the
 * candidates, the chain kept is the one that scores best: each frame
 * counts, a direct call to the function of the frame below it counts
 * most, an indirect call (not checkable) a little, a direct call to
 * another function (a tail call in between, or a stale word) against.
 * Stale return addresses left in locals can still pass, mostly among the
 * outer frames; frames reached by a tail call are missed.
 *
 * A vCPU on an interrupt stack: the word at the top of that stack (where
 * x86-64 Linux saves the interrupted stack pointer) leads to the next one,
 * up to GI_STACK_MAX_STACKS stacks.  Everything read is guest memory: bounded,
 * never trusted beyond naming.
 */

#define GI_STACK_MAX_FRAMES 64u
#define GI_STACK_MAX_STACKS 3u
#define GI_STACK_STACK_MAX  (32u << 10)  /* bytes read of one stack, at most */

/* Read @len (<= 4096) bytes at guest-virtual @gva.  0 or a negative code. */
typedef int (*gi_stack_peek_fn)(void *ctx, uint64_t gva, void *buf, size_t len);

struct gi_stack_src {
	gi_stack_peek_fn peek;
	void *ctx;
	const struct pdf_ksyms *ksyms;   /* the guest kernel's symbols */
};

struct gi_stack {
	/* [0] the vCPU's RIP; then each caller's call site, as the
	 * kernel's own backtraces name it: the byte before the return
	 * address (a call to a function that does not return, panic(), can
	 * be the last instruction of its caller) */
	uint64_t ip[GI_STACK_MAX_FRAMES];
	uint32_t nr;
	uint32_t stacks;          /* stacks scanned */
	uint64_t bytes;           /* of stack read */
	uint32_t candidates;      /* words after a call into kernel text */
	uint32_t refused;         /* of them, not fitting the chain */
	int peek_err;             /* the stack could not be read at RSP */
};

/*
 * Walk the kernel stack of a vCPU at @rip, @rsp into @st.  @rip outside
 * the guest kernel's text gives a chain of that address alone.  0;
 * -ENOMEM.
 */
int gi_stack_walk(const struct gi_stack_src *src, uint64_t rip, uint64_t rsp,
		  struct gi_stack *st);

/* 1 when @addr is in a kernel or module function (types T t W w). */
int gi_stack_is_text(const struct pdf_ksyms *k, uint64_t addr,
		     struct pdf_ksym *sym);

#endif /* RINGSIDE_GI_STACK_H */
