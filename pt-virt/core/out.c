// SPDX-License-Identifier: MIT
/*
 * The output engine: packet bytes go through the ToPA into guest memory
 * exactly where the hardware would put them, and the output MSRs move as
 * the hardware moves them.  OUTPUT_BASE is the current table,
 * OUTPUT_MASK_PTRS[31:7] the entry index and [63:32] the offset in the
 * region.  A filled region advances the index; an END entry is followed
 * when the next byte needs a region (so after the last region of a table
 * the index sits on the END entry until then).
 */
#include "pv_internal.h"

/* An END entry followed by an END entry is an operational error (END in
 * entry 0), so reaching an output entry takes at most this many hops. */
#define MAX_HOPS 2

void pv_out_init(struct pv_out *o, struct pv_msr *msr, const struct pv_mem *mem,
		 pv_pmi_fn pmi, void *pmi_arg)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->msr = msr;
	if (mem)
		o->mem = *mem;
	o->pmi = pmi;
	o->pmi_arg = pmi_arg;
}

bool pv_out_active(const struct pv_out *o)
{
	uint64_t need = PV_CTL_TRACEEN | PV_CTL_TOPA;

	return o && o->msr && (o->msr->ctl & need) == need &&
	       !(o->msr->status & (PV_STATUS_STOPPED | PV_STATUS_ERROR));
}

static uint32_t cur_index(const struct pv_msr *m)
{
	return (uint32_t)((m->output_mask >> PV_MASK_TABLE_SHIFT) &
			  PV_MASK_TABLE_MASK);
}

static uint64_t cur_offset(const struct pv_msr *m)
{
	return m->output_mask >> PV_MASK_OFFSET_SHIFT;
}

static void set_ptrs(struct pv_msr *m, uint32_t index, uint64_t offset)
{
	m->output_mask = PV_MASK_PTRS(index, offset);
}

/* Record operational error @err (-pve_topa_*, -pve_unmapped) and set
 * STATUS.Error; returns @err. */
static int operr(struct pv_out *o, int err, uint64_t entry)
{
	struct pv_msr *m = o->msr;

	o->fault.err = err;
	o->fault.table = m->output_base;
	o->fault.index = cur_index(m);
	o->fault.entry = entry;
	m->status |= PV_STATUS_ERROR;
	o->stats.errors++;
	return err;
}

/* Resolve the current output entry, following END entries.  0 and the
 * entry in @e, or the operational error (STATUS.Error set). */
static int current_entry(struct pv_out *o, uint64_t *e)
{
	struct pv_msr *m = o->msr;
	bool single = !(m->caps.leaf0[2] & PV_CAP0_ECX_MENTRY);
	int err;

	if (m->output_base & 0xfff)
		return operr(o, -pve_topa_table_align, 0);
	for (int hop = 0; hop <= MAX_HOPS; hop++) {
		uint64_t gpa = m->output_base + (uint64_t)cur_index(m) * 8;

		if (pv_entry_load(&o->mem, gpa, e) < 0)
			return operr(o, -pve_unmapped, 0);
		err = pv_topa_check_entry(*e, m->output_base, cur_index(m),
					  m->caps.maxphyaddr, single);
		if (err)
			return operr(o, err, *e);
		if (!(*e & PV_TOPA_END))
			return 0;
		m->output_base = pv_entry_base(*e);
		set_ptrs(m, 0, 0);
		o->stats.ends++;
	}
	return operr(o, -pve_topa_end_first, *e);
}

int64_t pv_out_write(struct pv_out *o, const void *buf, uint64_t len)
{
	const uint8_t *src = buf;
	uint64_t done = 0;

	if (!o || !o->msr || !o->mem.ptr || (!buf && len))
		return -pve_invalid;
	while (done < len && pv_out_active(o)) {
		struct pv_msr *m = o->msr;
		uint64_t e, size, off, n;
		uint8_t *dst;

		if (current_entry(o, &e) < 0)
			break;
		size = pv_entry_bytes(e);
		off = cur_offset(m);
		if (off >= size) {
			operr(o, -pve_topa_offset, e);
			break;
		}
		dst = o->mem.ptr(o->mem.arg, pv_entry_base(e), size);
		if (!dst) {
			operr(o, -pve_unmapped, e);
			break;
		}
		n = len - done < size - off ? len - done : size - off;
		memcpy(dst + off, src + done, n);
		done += n;
		off += n;
		o->stats.bytes += n;
		if (off < size) {
			set_ptrs(m, cur_index(m), off);
			break;
		}
		/* The region is full. */
		o->stats.regions++;
		if (e & PV_TOPA_STOP) {
			/* Offset stays at the region size (SDM "ToPA STOP"). */
			set_ptrs(m, cur_index(m), size);
			m->status |= PV_STATUS_STOPPED;
			o->stats.stops++;
		} else {
			set_ptrs(m, cur_index(m) + 1, 0);
		}
		if (e & PV_TOPA_INT) {
			o->stats.pmis++;
			if (o->pmi)
				o->pmi(o->pmi_arg, o);
		}
		/* Whatever the PMI handler does, the rest of this output was
		 * generated while stopped: it is lost, as in hardware. */
		if (e & PV_TOPA_STOP)
			break;
	}
	o->stats.dropped += len - done;
	return (int64_t)done;
}
