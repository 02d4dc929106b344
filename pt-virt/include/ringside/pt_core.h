/* SPDX-License-Identifier: MIT */
/*
 * pt-virt's core: Intel PT output virtualized into ToPA regions over a
 * ringside AUX ring, the hardware's side of it only.  Depends on the ring
 * library alone (no libipt, no Zydis, no VMM).  docs/pt-virt.md is the prose.
 *
 *   pv_topa_*   ToPA tables over an AUX area: builder, markers, validator
 *   pv_msr_*    the RTIT MSRs and their write rules; pv_cpuid_* leaf 0x14
 *   pv_out_*    the output engine: packet bytes through the ToPA into guest
 *               memory, as the hardware writes them
 *   pv_aux_*    the AUX side of a perf driver: aux_head follows the engine,
 *               PERF_RECORD_AUX records, STOP/INT markers follow aux_tail
 *
 * The codec (pt_codec.h) and the tracer (pt_tracer.h) build on it.  In all
 * three, every function returning int returns >= 0 on success (or a count)
 * and the negation of an enum pv_error on failure; nothing prints or exits.
 * The ToPA validator's verdict is an error of the same enum: 0, or
 * -pve_topa_* / -pve_unmapped for the operational error the hardware would
 * raise.
 */
#ifndef RINGSIDE_PT_CORE_H
#define RINGSIDE_PT_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/rtit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The errors of the core, the codec and the tracer: one enum. */
enum pv_error {
	pve_ok = 0,
	pve_internal,   /* a library invariant broke */
	pve_invalid,    /* the caller passed nonsense */
	pve_nomem,
	pve_geometry,   /* sizes that are not powers of two or do not fit */
	pve_gp,         /* the MSR access raises #GP */
	pve_no_msr,     /* not an RTIT MSR */
	pve_unmapped,   /* a guest-physical range outside guest memory (as a
			 * ToPA error: the SDM's restricted-memory case) */
	pve_no_space,   /* normal mode: no free region left for output */
	/* The operational errors of "ToPA Errors" (SDM 36.2.6.2): the
	 * validator's verdict and the output engine's fault. */
	pve_topa_rsvd,             /* a reserved bit set: 1, 3, 5, 11:10 */
	pve_topa_maxphys,          /* base sets bits at or above MAXPHYADDR */
	pve_topa_table_align,      /* table base not 4 KiB aligned */
	pve_topa_region_align,     /* region base not aligned to its size */
	pve_topa_offset,           /* OutputOffset >= region size, Stopped=0 */
	pve_topa_end_flags,        /* STOP or INT on an END entry */
	pve_topa_end_first,        /* END in entry 0 of a table */
	pve_topa_single_not_end,   /* single-entry CPU: entry 1 has END=0 */
	pve_topa_single_base,      /* single-entry CPU: END not back to table */
	/* The codec's. */
	pve_insn,       /* the x86 decoder could not decode an instruction */
	pve_encode,     /* libipt's encoder refused a packet */
	pve_decode,     /* libipt's decoder failed */
	pve_format,     /* a capture file is malformed */
	pve_io,
	/* The tracer's. */
	pve_kvm,        /* a KVM call failed */
	pve_max
};

/* Never NULL. */
const char *pv_error_str(int err);

/* ---- guest memory --------------------------------------------------------- */

/* Host address of guest-physical [gpa, gpa + len), or NULL when any of it
 * is outside guest memory. */
typedef void *(*pv_mem_fn)(void *arg, uint64_t gpa, uint64_t len);

struct pv_mem {
	pv_mem_fn ptr;
	void *arg;
};

/* ---- ToPA ------------------------------------------------------------------ */

/* pv_topa_params.flags */
enum pv_topa_flag {
	PV_TOPA_SNAPSHOT = 1u << 0, /* no STOP, no INT: the buffer wraps */
	PV_TOPA_SINGLE   = 1u << 1, /* one region over the whole AUX area */
};

/* Grows at the end; callers set size = sizeof(struct pv_topa_params). */
struct pv_topa_params {
	uint32_t size;
	uint32_t flags;            /* enum pv_topa_flag */
	uint64_t aux_gpa;          /* AUX area, aligned to region_size */
	uint64_t aux_size;         /* power of two, >= region_size */
	uint64_t region_size;      /* 4 KiB << n, n <= 15; ignored if SINGLE */
	uint64_t table_gpa;        /* tables, 4 KiB aligned, consecutive */
	uint32_t entries_per_table;/* output entries before each END; 0: 511 */
	uint32_t maxphyaddr;       /* 0: 46 */
	uint64_t watermark;        /* INT at multiples of it (normal mode) */
};

/* Builder state: where the tables are and where the markers sit now. */
struct pv_topa {
	struct pv_topa_params p;
	uint8_t *tables;           /* host view of table_gpa */
	uint64_t tables_size;
	uint64_t region_size;
	uint32_t nr_regions;
	uint32_t per_table;
	uint32_t nr_tables;
	uint32_t table_bytes;      /* per table, 4 KiB multiple */
	int64_t stop_idx;          /* region with STOP, -1 none */
	int64_t int_idx;           /* region with INT, -1 none */
};

/* Bytes of table memory @p needs.  -pve_invalid, -pve_geometry. */
int pv_topa_table_bytes(const struct pv_topa_params *p, uint64_t *bytes);

/*
 * Write the tables for @p into @tables (host view of p->table_gpa,
 * @tables_size bytes): output entries for consecutive regions of the AUX
 * area, END entries chaining table i to table i + 1 and the last back to
 * the first.  No markers yet (pv_topa_markers places them).
 * -pve_invalid, -pve_geometry, -pve_nomem (@tables_size too small).
 */
int pv_topa_build(struct pv_topa *t, const struct pv_topa_params *p,
		  void *tables, uint64_t tables_size);

/*
 * Place STOP and INT for an AUX ring whose producer is at @head and
 * consumer at @tail (absolute positions), as Linux's intel_pt does: STOP
 * (with INT) on the last region that ends at or before tail + aux_size, INT
 * on the region whose fill crosses the next watermark after @head.
 * Snapshot mode places none.  -pve_no_space: the region holding @head
 * cannot be filled without overwriting unconsumed data (the caller stops
 * output and reports TRUNCATED); the markers are still placed on it.
 */
int pv_topa_markers(struct pv_topa *t, uint64_t head, uint64_t tail);

/* Guest-physical address of the table and entry index for region @i. */
int pv_topa_locate(const struct pv_topa *t, uint32_t region, uint64_t *table,
		   uint32_t *index);

/* Region index of an (OUTPUT_BASE, table index) pair, or -pve_invalid. */
int pv_topa_region_of(const struct pv_topa *t, uint64_t table, uint32_t index);

/* The entry as stored (for tests and dumps). */
uint64_t pv_topa_entry(const struct pv_topa *t, uint32_t table, uint32_t index);

/*
 * Validator.  One entry in isolation: @index is its position in its
 * table, @table its table's base, @single for CPUs that allow one output
 * entry per table (CPUID.(14H,0):ECX.MENTRY = 0).  0 if the entry is
 * valid there, else its operational error: -pve_topa_*.
 */
int pv_topa_check_entry(uint64_t entry, uint64_t table, uint32_t index,
			uint32_t maxphyaddr, bool single);

struct pv_topa_fault {
	int err;                   /* 0, -pve_topa_* or -pve_unmapped */
	uint64_t table;            /* table of the offending entry */
	uint32_t index;
	uint64_t entry;
};

/*
 * Walk the ToPA as the hardware would from OUTPUT_BASE @base and
 * OUTPUT_MASK_PTRS @mask_ptrs (@stopped: STATUS.Stopped), following END
 * entries, through at most @max_entries entries or until back at the
 * start.  0 if the walk finds no error, else the first operational error
 * (details in @fault, may be NULL): -pve_topa_*, or -pve_unmapped for a
 * table or region outside guest memory (also when @mem is NULL).
 */
int pv_topa_check(const struct pv_mem *mem, uint64_t base, uint64_t mask_ptrs,
		  bool stopped, uint32_t maxphyaddr, bool single,
		  uint32_t max_entries, struct pv_topa_fault *fault);

/* ---- RTIT MSRs and CPUID leaf 0x14 ---------------------------------------- */

/* What the virtual CPU advertises. */
struct pv_caps {
	uint32_t leaf0[4];         /* CPUID.(14H,0): EAX EBX ECX EDX */
	uint32_t leaf1[4];         /* CPUID.(14H,1) */
	uint32_t maxphyaddr;
};

/* ringside's software PT: ToPA with multiple entries, CR3 filtering,
 * configurable PSB frequency, IP filtering with 2 ranges; no MTC, CYC
 * thresholds 0 only, no PTWRITE, no power events, no single-range output,
 * no trace transport.  maxphyaddr 46. */
void pv_cpuid_default(struct pv_caps *caps);

/* CPUID.(14H, @subleaf) into @out (EAX..EDX; zeros past the last subleaf). */
void pv_cpuid_14(const struct pv_caps *caps, uint32_t subleaf,
		 uint32_t out[4]);

struct pv_msr {
	struct pv_caps caps;
	uint64_t ctl;
	uint64_t status;
	uint64_t output_base;
	uint64_t output_mask;
	uint64_t cr3_match;
	uint64_t addr[2 * PV_RTIT_MAX_RANGES];
};

/* Reset values (all zero; OUTPUT_MASK_PTRS reads 7FH in its low bits). */
void pv_msr_init(struct pv_msr *m, const struct pv_caps *caps);

/* 1 if @index is one of the RTIT MSRs this CPU has. */
bool pv_msr_exists(const struct pv_msr *m, uint32_t index);

/*
 * WRMSR with the SDM's rules: reserved bits or encodings, a change while
 * TraceEn=1 (other than a write to CTL that clears TraceEn, or writes CTL's
 * own value back), unsupported features, misaligned or non-canonical
 * addresses: -pve_gp and nothing changes.  -pve_no_msr for other indices.
 * Returns 1 when TraceEn changed, 0 otherwise.
 */
int pv_msr_write(struct pv_msr *m, uint32_t index, uint64_t value);

/* RDMSR.  -pve_gp for an RTIT MSR this CPU lacks, -pve_no_msr. */
int pv_msr_read(const struct pv_msr *m, uint32_t index, uint64_t *value);

/* PSB period in bytes for the CTL's PSBFreq: 2K << PSBFreq. */
uint64_t pv_msr_psb_period(const struct pv_msr *m);

/* ---- output engine ------------------------------------------------------- */

struct pv_out;

/* Called after a region with INT=1 filled (also when STOP=1 stops). */
typedef void (*pv_pmi_fn)(void *arg, struct pv_out *o);

struct pv_out_stats {
	uint64_t bytes;            /* stored in guest memory */
	uint64_t dropped;          /* offered while stopped, in error, or off */
	uint64_t regions;          /* regions filled */
	uint64_t ends;             /* END entries followed */
	uint64_t pmis;
	uint64_t stops;
	uint64_t errors;
};

struct pv_out {
	struct pv_msr *msr;
	struct pv_mem mem;
	pv_pmi_fn pmi;
	void *pmi_arg;
	struct pv_out_stats stats;
	struct pv_topa_fault fault; /* the last operational error */
};

void pv_out_init(struct pv_out *o, struct pv_msr *msr, const struct pv_mem *mem,
		 pv_pmi_fn pmi, void *pmi_arg);

/*
 * Store @len packet bytes at the output position the MSRs describe,
 * advancing OUTPUT_BASE / OUTPUT_MASK_PTRS exactly as the hardware does:
 * a full region moves to the next entry, END entries switch tables, INT
 * calls the PMI, STOP sets STATUS.Stopped (OutputOffset = region size) and
 * drops the rest, an invalid entry sets STATUS.Error and drops the rest.
 * Returns bytes stored.  Needs TraceEn and ToPA in CTL (else stores none).
 * -pve_invalid.
 */
int64_t pv_out_write(struct pv_out *o, const void *buf, uint64_t len);

/* 1 while output is possible (TraceEn, no Stopped, no Error). */
bool pv_out_active(const struct pv_out *o);

/* ---- the AUX side of the driver ------------------------------------------ */

struct rs_producer;

struct pv_aux_stats {
	uint64_t records;          /* PERF_RECORD_AUX emitted */
	uint64_t truncated;        /* ... with TRUNCATED */
	uint64_t partial;          /* ... with PARTIAL */
	uint64_t pmis;
	uint64_t wakeups;          /* PMIs whose flush asked for a wakeup */
	uint64_t restarts;         /* output resumed after a ToPA STOP */
	uint64_t no_space;         /* marker placements that found no room */
};

/*
 * The VMM plays the AUX half of the guest's perf driver for one ring: it
 * owns the ring's producer (the guest must not produce on that ring), its
 * ToPA tables, and turns engine progress into aux_head and
 * PERF_RECORD_AUX records.  Fields are private.
 */
struct pv_aux {
	struct rs_producer *prod;
	struct pv_topa topa;
	struct pv_out *out;
	uint64_t aux_size;
	uint64_t head;             /* absolute AUX position of the next byte */
	uint64_t flushed;          /* AUX records cover everything below */
	uint64_t out_bytes;        /* out->stats.bytes at head */
	uint64_t out_dropped;      /* out->stats.dropped at the last flush */
	bool snapshot;
	bool resync;               /* bytes were lost: the generator needs a PSB */
	bool stop_reported;        /* the TRUNCATED record of this STOP is out */
	bool no_records;           /* publish aux_head only (pv_aux_no_records) */
	bool writing;              /* inside pv_out_write: a PMI waits ... */
	bool pmi_pending;          /* ... and is taken after it */
	void (*wake)(void *arg);   /* a PMI's record crossed the watermark */
	void *wake_arg;
	struct pv_aux_stats stats;
};

/*
 * Build the ToPA for ring @prod's AUX area (guest-physical @aux_gpa) into
 * @tables (host view of @tp->table_gpa), place the markers, and take over
 * @out's PMI.  @tp's aux_gpa and aux_size are filled in here; its flags say
 * SNAPSHOT if the ring's AUX mode is overwrite.
 * -pve_invalid, -pve_geometry, -pve_nomem.
 */
int pv_aux_init(struct pv_aux *a, struct rs_producer *prod, struct pv_out *out,
		uint64_t aux_gpa, struct pv_topa_params *tp, void *tables,
		uint64_t tables_size);

/* Call @fn when a PMI's flush says the consumer should be woken (the
 * host's doorbell).  NULL turns it off. */
void pv_aux_on_wake(struct pv_aux *a, void (*fn)(void *arg), void *arg);

/* From now on, flushes publish aux_head without PERF_RECORD_AUX records:
 * for a VMM that plays the hardware beside a guest agent that owns the
 * ring's data area (the QEMU plugin).  The flags such a record would have
 * carried are still counted in the stats. */
void pv_aux_no_records(struct pv_aux *a);

/* OUTPUT_BASE and OUTPUT_MASK_PTRS for the current head: what the guest's
 * driver writes before it sets TraceEn. */
int pv_aux_output_msrs(const struct pv_aux *a, uint64_t *base, uint64_t *mask);

/* pv_out_write, then account the bytes; in snapshot mode publishes head
 * every half buffer, or, without records (pv_aux_no_records), at every
 * write, with the write limit announced before it.  Returns bytes stored,
 * or pv_out_write's errors. */
int64_t pv_aux_write(struct pv_aux *a, const void *buf, uint64_t len);

/*
 * Publish aux_head and emit one PERF_RECORD_AUX for the bytes since the
 * last one, flagged TRUNCATED if output is Stopped, PARTIAL if bytes were
 * dropped meanwhile, plus @flags.  Then move the markers to the consumer's
 * aux_tail and, if a ToPA STOP left room behind it, resume output at the
 * next region (setting resync).  Returns 1 when the consumer should be
 * woken (the ring's watermark), 0 otherwise.  -pve_invalid.
 */
int pv_aux_flush(struct pv_aux *a, uint64_t flags);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PT_CORE_H */
