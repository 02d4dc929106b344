/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The QEMU TCG plugin that plays Intel PT for a Linux guest (docs/pt-virt.md,
 * "PT for QEMU/libvirt Linux guests").  Internal to the plugin: QEMU's API
 * stays in plugin.c, everything else is plain C over ringside's libraries.
 *
 *   plugin.c   QEMU's side: install, arguments, callbacks, the summary
 *   tb.c       translated blocks: their instructions and last instruction
 *   flow.c     block transitions to packets, events held until resolved
 *   output.c   the region file: a ToPA over each vCPU's AUX area
 *   truth.c    test mode: executed instructions and code bytes to a file
 */
#ifndef RINGSIDE_QPT_H
#define RINGSIDE_QPT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ringside/pt_codec.h"
#include "ringside/pt_core.h"
#include "ringside/ring.h"

/* filter=kernel: the canonical upper half, where Linux's kernel lives. */
#define QPT_KERNEL_BASE 0xffff800000000000ull

/* Blocks held while an event waits for its resume point (flow.c); past
 * this the event is resolved by a guess, counted. */
#define QPT_HOLD_MAX (1u << 16)

/* Memory instructions watched per RET-ending block. */
#define QPT_MEM_WATCH 4

/* Entry points remembered per vCPU (open addressing). */
#define QPT_HANDLERS 256
#define QPT_EXC_ENTRIES 16

struct qpt_opts {
	const char *region;
	const char *truth;
	uint64_t truth_max;       /* instructions kept per vCPU */
	uint64_t psb;             /* PSB period in bytes */
	uint64_t wait_s;          /* wait=: longest wait for AUX room, 0 off */
	bool filter_all;
};

/* A translated block: immutable once made, shared by every vCPU, never
 * freed (tb.c interns them, so a retranslation reuses its twin). */
struct qpt_tb {
	uint64_t start;
	uint64_t end;             /* the byte after the last instruction */
	struct pv_insn last;      /* classified (PV_INSN_OTHER if it failed) */
	bool inside;              /* the filter traces it */
	bool bad;                 /* the last instruction did not decode */
	bool rep;                 /* ... is a REP string instruction */
	uint32_t n;               /* instructions */
	/* A block that ends in a RET: its instructions that access memory
	 * (pv_insn.mem), in order; their completions are watched (flow.c,
	 * "A fault fixed up elsewhere"). */
	uint8_t nmem;
	uint64_t mem_ip[QPT_MEM_WATCH];
	uint32_t nbytes;
	uint64_t hash;
	struct qpt_tb *next;      /* hash chain */
	uint8_t *lens;            /* n lengths */
	uint8_t *bytes;           /* nbytes of code */
};

/* A block executed while an event was held, and ntruth then. */
struct qpt_held {
	const struct qpt_tb *tb;
	uint64_t mark;
	uint64_t pfault;          /* fault_in() of the block before it, live */
};

/* One vCPU's trace: touched only by that vCPU's thread (plus the summary
 * at exit, after the vCPUs stopped). */
struct qpt_vcpu {
	unsigned index;
	bool out_ok;              /* an AUX area is there to write */
	bool en;                  /* PacketEn */
	bool started;             /* the first PSB+ went out */
	const struct qpt_tb *prev;
	/* An event held until its resume point is known. */
	bool pending;
	const struct qpt_tb *ev_at;      /* the block it interrupted */
	const struct qpt_tb *ev_to;      /* the handler's first block */
	uint64_t ev_mark;                /* ntruth when the handler began */
	uint64_t ev_fault;               /* its watched instruction that did
					  * not complete, 0 none or unknown */
	uint32_t depth;                  /* nested events while held */
	const struct qpt_tb *hold_prev;  /* the last block held */
	struct qpt_held *hold;
	uint32_t nhold, hold_cap;
	/* Handler entry points seen (event targets, filter entries). */
	uint64_t handlers[QPT_HANDLERS];
	uint64_t exc[QPT_EXC_ENTRIES];   /* exception entries among them */
	/* Output. */
	struct rs_producer prod;
	struct pv_msr msr;
	struct pv_out out;
	struct pv_aux aux;
	void *tables;
	uint64_t tables_size;
	struct pv_gen *gen;
	/* Counters for the summary. */
	uint64_t blocks, events, exceptions, guessed, enables, leaves;
	uint64_t overflows, gen_errors, restarts;
	uint64_t idles, idle_guessed;
	uint64_t fixups;          /* faults fixed up elsewhere */
	/* The last watched memory access that completed: its instruction,
	 * and `blocks` then (the block it was in). */
	uint64_t mem_ip, mem_seq;
	bool replaying;           /* resolve() replays held blocks ... */
	uint64_t replay_pfault;   /* ... and this is the held one's pfault */
	/* wait= (output.c): AUX room known without reading aux_tail below
	 * this position, whether a consumer was ever seen, the waits. */
	uint64_t room_limit, tail0;
	bool consumer;
	uint64_t waits, wait_ns, wait_gaveup;
	/* Truth (test mode). */
	uint64_t *truth;
	uint64_t ntruth;          /* started in all (qpt_truth_insn) */
	uint64_t truth_last;      /* the address logged last */
	uint64_t *faults;         /* truth indices that faulted */
	uint64_t nfaults, faults_cap;
};

struct qpt {
	struct qpt_opts o;
	unsigned nvcpus;
	struct qpt_vcpu *v;
	/* The region file. */
	void *mem;
	uint64_t mem_size;
	struct rs_region region;
	bool region_ok;
	bool tracing;              /* some vCPU has output, or truth= */
	/* Translated blocks. */
	pthread_mutex_t tb_lock;
	struct qpt_tb **buckets;
	uint64_t ntb;
	/* Traced instructions executed, by inline adds per block: exact with
	 * one vCPU, approximate with more (7.2's inline ops are not atomic). */
	uint64_t insns;
	/* Truth: code bytes as translated, in order. */
	pthread_mutex_t truth_lock;
	int truth_fd;
	uint64_t truth_code_bytes;
	bool truth_failed;
};

/* tb.c */
int qpt_tb_init(struct qpt *q);
/* The interned block for @n instructions of @lens at @start with code
 * @bytes; NULL when out of memory.  Thread-safe. */
struct qpt_tb *qpt_tb_get(struct qpt *q, uint64_t start,
				const uint8_t *bytes, uint32_t nbytes,
				const uint8_t *lens, uint32_t n, bool *fresh);
bool qpt_inside(const struct qpt *q, uint64_t ip);

/* flow.c */
void qpt_flow_block(struct qpt_vcpu *v, const struct qpt_tb *tb,
		    uint64_t mark);
/* The vCPU went idle (halted or paused): everything out, published. */
void qpt_flow_idle(struct qpt_vcpu *v);
void qpt_flow_finish(struct qpt_vcpu *v);
uint64_t qpt_tsc(void);

/* output.c: messages for QEMU's log go to @err (@size bytes), "" if none. */
int qpt_output_open(struct qpt *q, char *err, size_t size);
int qpt_output_vcpu(struct qpt *q, struct qpt_vcpu *v, char *err, size_t size);
void qpt_output_close(struct qpt *q);
/* wait=: before @len bytes go to vCPU @v's AUX area, wait for the
 * consumer to make room for them (normal mode, once a consumer moved
 * aux_tail), at most wait_s seconds. */
void qpt_output_wait(struct qpt *q, struct qpt_vcpu *v, uint64_t len);

/* truth.c */
int qpt_truth_open(struct qpt *q);
/* @vcpu: the vCPU this thread ran last (7.2 does not say who translates). */
void qpt_truth_code(struct qpt *q, const struct qpt_tb *tb, unsigned vcpu);
/* The first half of truth_max kept as they come, the rest a ring of the
 * latest: a test can compare from the start or at the end. */
static inline void qpt_truth_insn(struct qpt *q, struct qpt_vcpu *v,
				  uint64_t ip)
{
	uint64_t head = q->o.truth_max / 2, n;

	/* Started again at once (a REP iteration, a block QEMU left early
	 * and resumed at this instruction): one instruction. */
	if (ip == v->truth_last && v->ntruth)
		return;
	v->truth_last = ip;
	n = v->ntruth++;
	if (n < head)
		v->truth[n] = ip;
	else
		v->truth[head + (n - head) % (q->o.truth_max - head)] = ip;
}
/* Truth entry @index started and faulted: it did not retire. */
void qpt_truth_fault(struct qpt_vcpu *v, uint64_t index);
int qpt_truth_close(struct qpt *q);

#endif
