// SPDX-License-Identifier: MIT
/*
 * Instruction classes with Zydis, in the categories libipt's decoder uses
 * to ask for trace: conditional branches want a TNT bit, indirect branches
 * and far transfers a TIP, near returns either.  A direct call to the next
 * instruction is still a call here; the generator mirrors libipt in not
 * counting it for return compression.  And the AT&T text of an
 * instruction, for `ringside decode`.
 */
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "ringside/pt_codec.h"

static uint8_t far_or(const ZydisDecodedInstruction *in, uint8_t near_class)
{
	return in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR ? PV_INSN_FAR :
	       near_class;
}

int pv_insn_classify(const uint8_t *bytes, size_t len, uint64_t ip,
		     struct pv_insn *insn)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	bool rel;

	if (!bytes || !insn)
		return -pve_invalid;
	memset(insn, 0, sizeof(*insn));
	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64)))
		return -pve_internal;
	if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&dec, NULL, bytes, len, &in)))
		return -pve_insn;
	insn->ip = ip;
	insn->len = in.length;
	rel = in.raw.imm[0].is_relative;
	if (rel)
		insn->target = ip + in.length + (uint64_t)in.raw.imm[0].value.s;
	switch (in.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		insn->iclass = PV_INSN_JCC;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		insn->iclass = far_or(&in, rel ? PV_INSN_JMP : PV_INSN_JMP_IND);
		break;
	case ZYDIS_CATEGORY_CALL:
		insn->iclass = far_or(&in, rel ? PV_INSN_CALL : PV_INSN_CALL_IND);
		break;
	case ZYDIS_CATEGORY_RET:
		insn->iclass = in.mnemonic == ZYDIS_MNEMONIC_RET ?
			       far_or(&in, PV_INSN_RET) : PV_INSN_FAR;
		break;
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
		insn->iclass = PV_INSN_FAR;
		break;
	default:
		if (in.mnemonic == ZYDIS_MNEMONIC_SYSENTER ||
		    in.mnemonic == ZYDIS_MNEMONIC_SYSEXIT ||
		    in.mnemonic == ZYDIS_MNEMONIC_IRETQ ||
		    in.mnemonic == ZYDIS_MNEMONIC_IRETD ||
		    in.mnemonic == ZYDIS_MNEMONIC_IRET)
			insn->iclass = PV_INSN_FAR;
		else
			insn->iclass = PV_INSN_OTHER;
		break;
	}
	insn->vector = -1;
	if (in.mnemonic == ZYDIS_MNEMONIC_INT3)
		insn->vector = 3;
	else if (in.mnemonic == ZYDIS_MNEMONIC_INT)
		insn->vector = (int16_t)(in.raw.imm[0].value.u & 0xff);
	/* An explicit memory operand it accesses, not on the stack: what
	 * can fault and be fixed up (the kernel's stack does not fault; a
	 * ModRM memory form that is an address (LEA) or a hint (NOP,
	 * prefetch) accesses nothing). */
	insn->mem = (in.attributes & ZYDIS_ATTRIB_HAS_MODRM) &&
		    in.raw.modrm.mod != 3 && in.mnemonic != ZYDIS_MNEMONIC_LEA &&
		    in.mnemonic != ZYDIS_MNEMONIC_NOP &&
		    in.meta.category != ZYDIS_CATEGORY_PREFETCH &&
		    !((in.attributes & ZYDIS_ATTRIB_HAS_SIB) &&
		      in.raw.sib.base == 4 && !in.raw.rex.B);
	insn->hlt = in.mnemonic == ZYDIS_MNEMONIC_HLT;
	insn->wrmsr = in.mnemonic == ZYDIS_MNEMONIC_WRMSR;
	return 0;
}

_Static_assert(sizeof(((ZydisDisassembledInstruction *)0)->text) <=
	       PV_INSN_TEXT, "PV_INSN_TEXT holds Zydis' text");

int pv_insn_disasm(const uint8_t *bytes, size_t len, uint64_t ip, char *buf,
		   size_t size)
{
	ZydisDisassembledInstruction d;

	if (!bytes || !buf || !size)
		return -pve_invalid;
	if (ZYAN_FAILED(ZydisDisassembleATT(ZYDIS_MACHINE_MODE_LONG_64, ip,
					    bytes, len, &d)))
		return -pve_insn;
	return snprintf(buf, size, "%s", d.text);
}

bool pv_insn_can_reach(const struct pv_insn *in, uint64_t next)
{
	uint64_t fall = in->ip + in->len;

	switch (in->iclass) {
	case PV_INSN_OTHER:
		return next == fall;
	case PV_INSN_JCC:
		return next == fall || next == in->target;
	case PV_INSN_JMP:
	case PV_INSN_CALL:
		return next == in->target;
	default:
		return true;
	}
}
