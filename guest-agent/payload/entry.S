/* SPDX-License-Identifier: MIT */
/*
 * First instruction of every vCPU.  The VMM already set up long mode, the
 * stack and the arguments (rdi boot info, rsi vCPU, rdx region, rcx rings),
 * which are exactly agent_main's four SysV arguments.
 */
	.section .text.entry, "ax"
	.code64
	.globl _start
_start:
	cld
	xorl %ebp, %ebp
	call agent_main
1:	cli
	hlt
	jmp 1b

	.section .note.GNU-stack, "", @progbits
