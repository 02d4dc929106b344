/* SPDX-License-Identifier: MIT */
/*
 * pt-virt's codec: PT packets in and out, on the core's types.  Depends on
 * the core, libipt and Zydis; not on the VMM.  docs/pt-virt.md is the prose.
 *
 *   pv_insn_*     an x86 instruction: its PT class and its text (Zydis)
 *   pv_gen_*      software packet generation with libipt's encoder
 *   pv_decode_*   decoding with libipt's instruction decoder
 *   pv_capture_*  capture files: PT bytes + the guest memory they ran on
 *
 * Errors: enum pv_error (pt_core.h), negated.
 */
#ifndef RINGSIDE_PT_CODEC_H
#define RINGSIDE_PT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/pt_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- instruction classes (x86 decoder: Zydis) ------------------------- */

/* How an instruction changes the flow, in the terms PT packets use. */
enum pv_insn_class {
	PV_INSN_OTHER = 0,
	PV_INSN_JCC,        /* conditional direct: TNT bit */
	PV_INSN_JMP,        /* near direct: no packet */
	PV_INSN_CALL,       /* near direct: no packet, return address pushed */
	PV_INSN_JMP_IND,    /* near indirect: TIP */
	PV_INSN_CALL_IND,   /* near indirect: TIP, return address pushed */
	PV_INSN_RET,        /* near return: TNT (compressed) or TIP */
	PV_INSN_FAR,        /* INT n, INT3, IRET, far jmp/call/ret, SYSCALL: TIP */
};

struct pv_insn {
	uint64_t ip;
	uint64_t target;    /* direct branches */
	uint8_t len;
	uint8_t iclass;     /* enum pv_insn_class */
	bool hlt;
	bool wrmsr;
	bool mem;           /* an explicit memory operand it accesses, not
			     * through the stack pointer */
	int16_t vector;     /* INT3: 3, INT n: n, else -1 */
};

/* Decode the 64-bit instruction in @bytes (@len available) at @ip.
 * -pve_invalid, -pve_insn. */
int pv_insn_classify(const uint8_t *bytes, size_t len, uint64_t ip,
		     struct pv_insn *insn);

/* Can @insn, retiring, pass control to @next by itself?  The fall-through
 * or direct target where the instruction names them; any address for
 * indirect branches, returns and far transfers.  No: an interrupt or
 * exception came between. */
bool pv_insn_can_reach(const struct pv_insn *insn, uint64_t next);

/* Bytes of text that hold any instruction's disassembly. */
#define PV_INSN_TEXT 96

/* The 64-bit instruction in @bytes (@len available) at @ip as AT&T text
 * (what `ringside decode` prints), NUL-terminated in @buf (@size bytes;
 * PV_INSN_TEXT always suffices).  Returns the text's length.
 * -pve_invalid, -pve_insn. */
int pv_insn_disasm(const uint8_t *bytes, size_t len, uint64_t ip, char *buf,
		   size_t size);

/* ---- packet generator (libipt's encoder) ---------------------------------- */

/* Where packet bytes go: returns bytes accepted (fewer: the rest was lost)
 * or < 0. */
typedef int64_t (*pv_sink_fn)(void *arg, const void *buf, uint64_t len);

struct pv_gen_params {
	uint32_t size;
	uint32_t reserved;
	uint64_t psb_period;   /* bytes between PSB+; 0: 4096 */
	bool tsc;              /* TSC packets in PSB+ (CTL.TSCEn) */
	bool no_retcomp;       /* CTL.DisRETC */
	pv_sink_fn sink;
	void *sink_arg;
};

struct pv_gen_stats {
	uint64_t packets;
	uint64_t bytes;        /* offered to the sink */
	uint64_t lost;         /* refused by the sink */
	uint64_t psb, tnt, tip, fup, pge, pgd, mode, tsc, ovf;
	uint64_t insns;
};

struct pv_gen;

/* NULL on bad parameters or no memory. */
struct pv_gen *pv_gen_alloc(const struct pv_gen_params *p);
void pv_gen_free(struct pv_gen *g);

/* Follow a new CTL: PSB period, TSCEn, DisRETC.  -pve_invalid. */
int pv_gen_config(struct pv_gen *g, uint64_t psb_period, bool tsc,
		  bool no_retcomp);

/* PacketEn 0 -> 1 at @ip: PSB+ (TSC, MODE.exec), then TIP.PGE(@ip). */
int pv_gen_enable(struct pv_gen *g, uint64_t ip, uint64_t tsc);

/* @insn retired and the next instruction is at @next: TNT bit, TIP, or
 * nothing; PSB+ (with FUP @next) when the PSB period has passed. */
int pv_gen_insn(struct pv_gen *g, const struct pv_insn *insn, uint64_t next,
		uint64_t tsc);

/* An interrupt or exception before the instruction at @from: FUP(@from),
 * TIP(@to). */
int pv_gen_event(struct pv_gen *g, uint64_t from, uint64_t to);

/* PacketEn 1 -> 0 before the instruction at @ip: FUP(@ip), TIP.PGD. */
int pv_gen_disable(struct pv_gen *g, uint64_t ip);

/* PacketEn 0 -> 1 again at @ip after pv_gen_leave or pv_gen_disable,
 * as a filter region is entered: TIP.PGE(@ip) alone (no PSB+). */
int pv_gen_reenable(struct pv_gen *g, uint64_t ip);

/* @insn retired and branched to @next outside the filter: its TNT bit if
 * conditional, then TIP.PGD(@next) as the branch's own packet. */
int pv_gen_leave(struct pv_gen *g, const struct pv_insn *in, uint64_t next);

/* Everything known so far to the sink now: the branch outcomes waiting
 * for a full TNT packet (a shorter TNT is as valid), then the packets
 * buffered here.  For a tracer whose CPU stops (halts, is paused): the
 * decoder then sees every branch that retired before it stopped. */
int pv_gen_flush(struct pv_gen *g);

/* Packets were lost; tracing goes on at @ip: OVF, FUP(@ip). */
int pv_gen_overflow(struct pv_gen *g, uint64_t ip);

/* PSB+ now, with FUP(@ip) if PacketEn: a sync point after lost bytes. */
int pv_gen_psb(struct pv_gen *g, uint64_t ip, uint64_t tsc);

const struct pv_gen_stats *pv_gen_stats(const struct pv_gen *g);

/* ---- decoding (libipt's instruction decoder) ------------------------------ */

enum pv_decode_kind {
	PV_DEC_INSN = 0,
	PV_DEC_ENABLED,       /* tracing (re)starts at ip */
	PV_DEC_DISABLED,      /* tracing stops (ip: where, if known) */
	PV_DEC_INTERRUPT,     /* asynchronous branch from ip to to */
	PV_DEC_OVERFLOW,      /* packets lost; resumes at ip */
	PV_DEC_ERROR,         /* decode error (code: libipt's) at offset */
	PV_DEC_SYNC,          /* (re)synchronized at the PSB at offset */
};

/* PV_DEC_ERROR's code when PV_DEC_STALL instructions in a row decoded
 * without a byte of trace: code that needs no packet and never ends (a
 * jump to itself), which the trace's own code never was; the decoder
 * would loop forever (a hostile trace, or code that is not what ran). */
#define PV_DEC_ERR_STALL (-1000)
#define PV_DEC_STALL     (1u << 20)

struct pv_decode_item {
	uint32_t kind;        /* enum pv_decode_kind */
	int32_t code;         /* PV_DEC_ERROR: negative pt_error_code, or
			       * PV_DEC_ERR_STALL */
	uint64_t ip;
	uint64_t to;
	uint64_t offset;      /* trace offset */
	uint8_t size;         /* PV_DEC_INSN */
	uint8_t iclass;       /* libipt's enum pt_insn_class */
	uint8_t raw[15];
};

typedef int (*pv_decode_fn)(void *arg, const struct pv_decode_item *item);

struct pv_decode_params {
	uint32_t size;
	bool from_last_psb;   /* snapshot data: start at the last PSB */
	const uint8_t *trace;
	uint64_t len;
	struct pv_mem code;   /* guest memory to read instructions from */
	pv_decode_fn fn;         /* < 0 stops the decode with that value */
	void *arg;
};

struct pv_decode_stats {
	uint64_t insns, enabled, disabled, interrupts, overflows;
	uint64_t errors, syncs;
	uint64_t first_sync;  /* offset of the first PSB used */
	int32_t last_error;   /* libipt code of the last error, 0 none */
};

/* Decode the whole buffer; errors resynchronize at the next PSB and are
 * counted.  -pve_invalid, -pve_nomem, or fn's negative return. */
int pv_decode_run(const struct pv_decode_params *p, struct pv_decode_stats *st);

/* ---- capture files: trace + guest memory, for `ringside decode` ---------- */

enum pv_capture_section {
	PV_CAP_TRACE = 1,     /* PT bytes; addr: AUX position of the first */
	PV_CAP_MEM   = 2,     /* guest memory; addr: its (identity) address */
	PV_CAP_TRUTH = 3,     /* u64 IPs the single-stepped guest retired */
	PV_CAP_INFO  = 4,     /* struct pv_capture_info */
};

struct pv_capture_info {
	uint32_t snapshot;    /* the AUX ring was in snapshot mode */
	uint32_t truncated;   /* an AUX record said TRUNCATED */
	uint64_t psb_period;
	uint64_t reserved[6];
};

struct pv_capture_sec {
	uint32_t type;
	uint32_t reserved;
	uint64_t addr;
	uint64_t len;
	uint8_t *data;
};

struct pv_capture {
	struct pv_capture_sec *secs;
	uint32_t nr;
	uint32_t cap;
};

/* Append a section (the data is copied).  -pve_invalid, -pve_nomem. */
int pv_capture_add(struct pv_capture *c, uint32_t type, uint64_t addr,
	       const void *data, uint64_t len);
/* The first section of @type, or NULL. */
const struct pv_capture_sec *pv_capture_find(const struct pv_capture *c, uint32_t type);
/* pv_capture_write: the capture to @fd, from its position (the caller opens
 * the file: pdf_aside_open, never a name someone else chose, and closes
 * it).  pv_capture_read: the file at @path.  -pve_invalid, -pve_io,
 * -pve_format, -pve_nomem. */
int pv_capture_write(const struct pv_capture *c, int fd);
int pv_capture_read(struct pv_capture *c, const char *path);
void pv_capture_fini(struct pv_capture *c);
/* A pv_mem over the capture's PV_CAP_MEM sections. */
struct pv_mem pv_capture_mem(const struct pv_capture *c);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PT_CODEC_H */
