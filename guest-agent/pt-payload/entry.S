/* SPDX-License-Identifier: MIT */
/*
 * The PT payload's entry and exception stubs.  The VMM enters in long mode
 * with a stack; this installs an IDT (#BP, #GP, the injected interrupt)
 * and calls pt_main.  A #GP handler skips the faulting 2-byte WRMSR.
 */
	.section .text.entry, "ax"
	.code64
	.globl _start
_start:
	cld
	xorl %ebp, %ebp
	call pt_idt_init
	lidt idtr(%rip)
	call pt_main
1:	cli
	hlt
	jmp 1b

	.text
	.globl pt_bp_stub
pt_bp_stub:
	lock incl pt_bp_count(%rip)
	iretq

	.globl pt_gp_stub
pt_gp_stub:
	lock incl pt_gp_count(%rip)
	addq $8, %rsp            /* the error code */
	addq $2, (%rsp)          /* past WRMSR / RDMSR */
	iretq

	.globl pt_irq_stub
pt_irq_stub:
	lock incl pt_irq_count(%rip)
	iretq

	.data
	.balign 16
	.globl pt_idt
pt_idt:
	.fill 256, 16, 0
idtr:
	.word 256 * 16 - 1
	.quad pt_idt

	.section .note.GNU-stack, "", @progbits
