// SPDX-License-Identifier: MIT
/*
 * Software PT: packets for a stream of retired instructions, encoded with
 * libipt's encoder and handed to a sink (the output engine).
 *
 * The decoder's view is mirrored exactly where the packet choice depends
 * on it: the last IP (IP compression), reset at every PSB; the return
 * stack for RET compression (pushed by every call but a direct call to
 * the next instruction, popped only by compressed returns, as libipt does);
 * and TNT bits, which are always flushed before an IP packet or a PSB.
 */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/pt_codec.h"

#define RETSTACK 64
#define BUF_SIZE 4096
#define TNT_MAX 6        /* bits in a short TNT packet */

struct pv_gen {
	struct pv_gen_params p;
	struct pt_encoder *enc;
	uint8_t buf[BUF_SIZE];
	struct pv_gen_stats st;
	bool enabled;        /* PacketEn */
	uint64_t last_ip;
	bool have_ip;
	uint64_t psb_bytes;  /* offered since the last PSB */
	uint64_t tnt;
	uint8_t tnt_bits;
	uint64_t ret[RETSTACK];
	uint32_t ret_top;    /* entries, saturating: the oldest is overwritten */
	uint32_t ret_n;
};

struct pv_gen *pv_gen_alloc(const struct pv_gen_params *p)
{
	struct pt_config cfg;
	struct pv_gen *g;

	if (!p || p->size < sizeof(*p) || !p->sink)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->p = *p;
	if (!g->p.psb_period)
		g->p.psb_period = 4096;
	pt_config_init(&cfg);
	cfg.begin = g->buf;
	cfg.end = g->buf + sizeof(g->buf);
	g->enc = pt_alloc_encoder(&cfg);
	if (!g->enc) {
		free(g);
		return NULL;
	}
	return g;
}

int pv_gen_config(struct pv_gen *g, uint64_t psb_period, bool tsc,
		  bool no_retcomp)
{
	if (!g || !psb_period)
		return -pve_invalid;
	g->p.psb_period = psb_period;
	g->p.tsc = tsc;
	g->p.no_retcomp = no_retcomp;
	return 0;
}

void pv_gen_free(struct pv_gen *g)
{
	if (!g)
		return;
	pt_free_encoder(g->enc);
	free(g);
}

const struct pv_gen_stats *pv_gen_stats(const struct pv_gen *g)
{
	return g ? &g->st : NULL;
}

/* Hand what the encoder holds to the sink. */
static int drain(struct pv_gen *g)
{
	uint64_t off;
	int64_t n;

	if (pt_enc_get_offset(g->enc, &off) < 0)
		return -pve_internal;
	if (!off)
		return 0;
	n = g->p.sink(g->p.sink_arg, g->buf, off);
	g->st.bytes += off;
	g->psb_bytes += off;
	if (n < 0)
		return (int)n;
	g->st.lost += off - (uint64_t)n;
	pt_enc_sync_set(g->enc, 0);
	return 0;
}

static int put(struct pv_gen *g, const struct pt_packet *pkt)
{
	uint64_t off;
	int ret;

	/* Keep room for the largest packet (PSB is 16 bytes). */
	if (pt_enc_get_offset(g->enc, &off) < 0)
		return -pve_internal;
	if (off > BUF_SIZE - 32 && (ret = drain(g)) < 0)
		return ret;
	if (pt_enc_next(g->enc, pkt) < 0)
		return -pve_encode;
	g->st.packets++;
	return 0;
}

static int simple(struct pv_gen *g, enum pt_packet_type type)
{
	struct pt_packet pkt = { .type = type };

	return put(g, &pkt);
}

/* IP packet with the best compression against the decoder's last IP. */
static int ip_packet(struct pv_gen *g, enum pt_packet_type type, uint64_t ip,
		     bool suppressed)
{
	struct pt_packet pkt = { .type = type };
	enum pt_ip_compression ipc;

	if (suppressed) {
		ipc = pt_ipc_suppressed;
	} else if (g->have_ip && !((ip ^ g->last_ip) >> 16)) {
		ipc = pt_ipc_update_16;
	} else if (g->have_ip && !((ip ^ g->last_ip) >> 32)) {
		ipc = pt_ipc_update_32;
	} else if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip) {
		ipc = pt_ipc_sext_48;
	} else {
		ipc = pt_ipc_full;
	}
	pkt.payload.ip.ipc = ipc;
	pkt.payload.ip.ip = ip;
	if (!suppressed) {
		g->last_ip = ip;
		g->have_ip = true;
	}
	return put(g, &pkt);
}

static int flush_tnt(struct pv_gen *g)
{
	struct pt_packet pkt = { .type = ppt_tnt_8 };

	if (!g->tnt_bits)
		return 0;
	pkt.payload.tnt.bit_size = g->tnt_bits;
	pkt.payload.tnt.payload = g->tnt;
	g->tnt = 0;
	g->tnt_bits = 0;
	g->st.tnt++;
	return put(g, &pkt);
}

static int tnt_bit(struct pv_gen *g, bool taken)
{
	/* The oldest branch is the most significant bit. */
	g->tnt = (g->tnt << 1) | taken;
	if (++g->tnt_bits == TNT_MAX)
		return flush_tnt(g);
	return 0;
}

static int tip(struct pv_gen *g, enum pt_packet_type type, uint64_t ip,
	       bool suppressed)
{
	int ret = flush_tnt(g);

	if (ret < 0)
		return ret;
	switch (type) {
	case ppt_tip: g->st.tip++; break;
	case ppt_fup: g->st.fup++; break;
	case ppt_tip_pge: g->st.pge++; break;
	case ppt_tip_pgd: g->st.pgd++; break;
	default: break;
	}
	return ip_packet(g, type, ip, suppressed);
}

static int psb_plus(struct pv_gen *g, uint64_t ip, uint64_t tsc)
{
	struct pt_packet pkt = { .type = ppt_mode };
	int ret;

	if ((ret = flush_tnt(g)) < 0 || (ret = simple(g, ppt_psb)) < 0)
		return ret;
	g->st.psb++;
	g->have_ip = false;      /* PSB resets the last IP ... */
	g->ret_n = 0;            /* ... and the return stack */
	if (g->p.tsc) {
		struct pt_packet t = { .type = ppt_tsc };

		t.payload.tsc.tsc = tsc;
		if ((ret = put(g, &t)) < 0)
			return ret;
		g->st.tsc++;
	}
	pkt.payload.mode.leaf = pt_mol_exec;
	pkt.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
	if ((ret = put(g, &pkt)) < 0)
		return ret;
	g->st.mode++;
	if (g->enabled) {
		if ((ret = ip_packet(g, ppt_fup, ip, false)) < 0)
			return ret;
		g->st.fup++;
	}
	if ((ret = simple(g, ppt_psbend)) < 0)
		return ret;
	/* Everything up to here counts before the next period starts. */
	ret = drain(g);
	g->psb_bytes = 0;
	return ret;
}

int pv_gen_psb(struct pv_gen *g, uint64_t ip, uint64_t tsc)
{
	if (!g)
		return -pve_invalid;
	return psb_plus(g, ip, tsc);
}

int pv_gen_enable(struct pv_gen *g, uint64_t ip, uint64_t tsc)
{
	int ret;

	if (!g)
		return -pve_invalid;
	g->enabled = false;
	if ((ret = psb_plus(g, ip, tsc)) < 0)
		return ret;
	g->enabled = true;
	if ((ret = tip(g, ppt_tip_pge, ip, false)) < 0)
		return ret;
	return drain(g);
}

static void ret_push(struct pv_gen *g, uint64_t ip)
{
	g->ret_top = (g->ret_top + 1) % RETSTACK;
	g->ret[g->ret_top] = ip;
	if (g->ret_n < RETSTACK)
		g->ret_n++;
}

static int branch(struct pv_gen *g, const struct pv_insn *in, uint64_t next)
{
	uint64_t fall = in->ip + in->len;

	switch (in->iclass) {
	case PV_INSN_JCC:
		return tnt_bit(g, next != fall);
	case PV_INSN_CALL:
		if (in->target != fall)
			ret_push(g, fall);
		return 0;
	case PV_INSN_CALL_IND:
		ret_push(g, fall);
		return tip(g, ppt_tip, next, false);
	case PV_INSN_RET:
		if (!g->p.no_retcomp && g->ret_n && g->ret[g->ret_top] == next) {
			g->ret_top = (g->ret_top + RETSTACK - 1) % RETSTACK;
			g->ret_n--;
			return tnt_bit(g, true);
		}
		return tip(g, ppt_tip, next, false);
	case PV_INSN_JMP_IND:
	case PV_INSN_FAR:
		return tip(g, ppt_tip, next, false);
	default:
		return 0;
	}
}

int pv_gen_insn(struct pv_gen *g, const struct pv_insn *in, uint64_t next,
		uint64_t tsc)
{
	int ret;

	if (!g || !in)
		return -pve_invalid;
	if (!g->enabled)
		return 0;
	g->st.insns++;
	if ((ret = branch(g, in, next)) < 0)
		return ret;
	if ((ret = drain(g)) < 0)
		return ret;
	if (g->psb_bytes >= g->p.psb_period)
		return psb_plus(g, next, tsc);
	return 0;
}

int pv_gen_event(struct pv_gen *g, uint64_t from, uint64_t to)
{
	int ret;

	if (!g)
		return -pve_invalid;
	if (!g->enabled)
		return 0;
	if ((ret = tip(g, ppt_fup, from, false)) < 0 ||
	    (ret = tip(g, ppt_tip, to, false)) < 0)
		return ret;
	return drain(g);
}

int pv_gen_disable(struct pv_gen *g, uint64_t ip)
{
	int ret;

	if (!g)
		return -pve_invalid;
	if (!g->enabled)
		return 0;
	if ((ret = tip(g, ppt_fup, ip, false)) < 0 ||
	    (ret = tip(g, ppt_tip_pgd, 0, true)) < 0)
		return ret;
	g->enabled = false;
	return drain(g);
}

int pv_gen_flush(struct pv_gen *g)
{
	int ret;

	if (!g)
		return -pve_invalid;
	if ((ret = flush_tnt(g)) < 0)
		return ret;
	return drain(g);
}

int pv_gen_overflow(struct pv_gen *g, uint64_t ip)
{
	int ret;

	if (!g)
		return -pve_invalid;
	/* Whatever TNT bits were pending are part of what was lost.  So
	 * were packets this generator made and the output dropped: the
	 * decoder's last IP and return stack are not ours.  The FUP goes
	 * out whole, and a RET is a TIP until the stack is rebuilt. */
	g->tnt = 0;
	g->tnt_bits = 0;
	g->have_ip = false;
	g->ret_n = 0;
	if ((ret = simple(g, ppt_ovf)) < 0)
		return ret;
	g->st.ovf++;
	if (g->enabled && (ret = tip(g, ppt_fup, ip, false)) < 0)
		return ret;
	return drain(g);
}

int pv_gen_reenable(struct pv_gen *g, uint64_t ip)
{
	int ret;

	if (!g)
		return -pve_invalid;
	if (g->enabled)
		return 0;
	g->enabled = true;
	if ((ret = tip(g, ppt_tip_pge, ip, false)) < 0)
		return ret;
	return drain(g);
}

int pv_gen_leave(struct pv_gen *g, const struct pv_insn *in, uint64_t next)
{
	int ret = 0;

	if (!g || !in)
		return -pve_invalid;
	if (!g->enabled)
		return 0;
	g->st.insns++;
	/* A conditional branch still has its bit; any other branch's
	 * packet is the TIP.PGD itself, which carries the target. */
	if (in->iclass == PV_INSN_JCC)
		ret = tnt_bit(g, next != in->ip + in->len);
	else if (in->iclass == PV_INSN_CALL || in->iclass == PV_INSN_CALL_IND)
		ret_push(g, in->ip + in->len);
	if (ret < 0 || (ret = tip(g, ppt_tip_pgd, next, false)) < 0)
		return ret;
	g->enabled = false;
	return drain(g);
}
