/* SPDX-License-Identifier: MIT */
/*
 * Boot contract between the ringside VMM and its freestanding guest payload.
 *
 * The VMM enters the payload directly in 64-bit long mode with paging on
 * (identity map of the low 4 GiB, 2 MiB pages), interrupts off and no IDT.
 * At the entry point of every vCPU:
 *
 *   rdi  guest-physical address of struct rs_boot_info (read-only for the guest)
 *   rsi  vCPU index, which is also the index of the vCPU's ring
 *   rdx  guest-physical address of the trace region
 *   rcx  number of rings in the region
 *   rsp  top of a private 16 KiB stack, 16-byte aligned
 *
 * The guest reports progress in its struct rs_guest_report (one per vCPU,
 * in guest RAM at boot_info.report_gpa) so the host can read what the guest
 * attempted even after the guest hung or crashed.  docs/vmm.md is the prose.
 */
#ifndef RINGSIDE_GUEST_BOOT_H
#define RINGSIDE_GUEST_BOOT_H

#include <stddef.h>
#include <stdint.h>

/* Guest-physical memory map. */
#define RS_BOOT_GDT_GPA       0x1000ull
#define RS_BOOT_INFO_GPA      0x2000ull
#define RS_BOOT_PML4_GPA      0x3000ull
#define RS_BOOT_PDPT_GPA      0x4000ull
#define RS_BOOT_PD_GPA        0x5000ull   /* 4 pages, one per GiB */
#define RS_BOOT_REPORT_GPA    0x9000ull   /* RS_MAX_VCPUS reports */
#define RS_BOOT_LOAD_GPA      0x100000ull /* payload must start at or above */
#define RS_BOOT_STACK_SIZE    0x4000ull   /* per vCPU, at the top of RAM */
#define RS_BOOT_REGION_GPA    0x80000000ull /* trace region, up to 1 GiB */
#define RS_BOOT_REGION_MAX    0x40000000ull
#define RS_BOOT_DOORBELL_GPA  0xd0000000ull /* 4-byte MMIO write of the ring index */
#define RS_BOOT_IDMAP_END     0x100000000ull

#define RS_MAX_VCPUS          1024u /* vCPUs of ringside's own VMM (RS_MAX_RINGS) */

/* I/O ports the guest may write; each write is an exit to user space. */
enum rs_guest_port {
	RS_PORT_CONSOLE = 0xe9,   /* 1 byte: debug text */
	RS_PORT_DONE    = 0x501,  /* 4 bytes: records attempted (low 32 bits) */
	RS_PORT_ERROR   = 0x502,  /* 4 bytes: negative rs_error of a failure */
	RS_PORT_READY   = 0x503,  /* 4 bytes, vCPU 0: the region is open,
				   * start the others (they wait until then) */
};

/* What the payload does; rs_boot_info.workload. */
enum rs_workload {
	RS_WL_STEADY = 0,  /* records, then RS_PORT_DONE and hlt */
	RS_WL_BURST  = 1,  /* records without waiting: overruns a small ring */
	RS_WL_HANG   = 2,  /* records, then cli; jmp . */
	RS_WL_HALT   = 3,  /* records, then cli; hlt forever */
	RS_WL_CRASH  = 4,  /* records, then null IDT + int3: triple fault */
	RS_WL_SCRIBBLE = 5, /* records, then vCPU 0 zeroes the region's header
			     * page (8-byte stores), then as HANG */
	RS_WL_CORRUPT = 6, /* records, then one more whose header says 12
			    * bytes (no record's size), then as STEADY */
	RS_WL_MAX
};

#define RS_BOOT_MAGIC   0x544f4f4245444953ull /* "SIDEBOOT" */
#define RS_BOOT_VERSION 1u

struct rs_boot_info {
	uint64_t magic;
	uint32_t version;
	uint32_t size;            /* sizeof(struct rs_boot_info) */
	uint64_t region_gpa;
	uint64_t region_size;
	uint64_t report_gpa;
	uint32_t nr_vcpus;
	uint32_t nr_rings;
	/* the workload, identical on every vCPU */
	uint32_t workload;        /* enum rs_workload */
	uint32_t records;         /* RS_RECORD_SEQ records per vCPU */
	uint32_t fill;            /* pattern bytes per SEQ record */
	uint32_t sample_every;    /* a SAMPLE record every N SEQ records, 0 none */
	uint32_t aux_every;       /* an AUX output every N SEQ records, 0 none */
	uint32_t aux_bytes;       /* bytes per AUX output */
	uint32_t wait_enabled;    /* spin until config.enabled (else fail) */
	uint32_t wait_space;      /* tests only: before each record, spin until
				   * the host freed room for it (bounded) */
	uint32_t data_batch;      /* bytes per data_head publication
				   * (rs_producer_set_batch), at most half the
				   * data area: the agent lowers a larger one
				   * to that; 0: at every record */
	uint32_t reserved0;
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct rs_boot_info) == 112, "rs_boot_info layout");

/* rs_guest_report.phase */
enum rs_guest_phase {
	RS_PHASE_BOOT     = 0, /* not reached the agent yet */
	RS_PHASE_RUNNING  = 1,
	RS_PHASE_FLUSHING = 2, /* workload written; waiting to place a LOST record */
	RS_PHASE_DONE     = 3, /* every record attempted and accounted */
	RS_PHASE_FAILED   = 4, /* error holds the negative rs_error */
};

/*
 * Written by the guest, one per vCPU; the host reads it as a hint (stable
 * once the vCPU is paused or stopped).  "attempted" counts every record the
 * agent tried to put in the ring (SEQ, SAMPLE, AUX); each either arrives or
 * is counted in the ring's LOST records.
 */
struct rs_guest_report {
	uint32_t phase;           /* enum rs_guest_phase */
	int32_t error;
	uint64_t attempted;
	uint64_t seq_attempted;   /* next sequence number */
	uint64_t samples;
	uint64_t aux_outputs;
	uint64_t aux_bytes;       /* AUX bytes actually written */
	uint64_t dropped;         /* reservations refused for lack of room */
	uint64_t doorbells;       /* doorbell writes, data and AUX */
	uint64_t aux_doorbells;   /* ... of which rs_aux_end asked for */
	uint64_t first_tsc;
	uint64_t last_tsc;
	uint64_t space_waits;     /* wait_space: records that had to wait */
	uint64_t space_gave_up;   /* ... and waited in vain, then were tried */
	uint64_t reserved[3];
};
_Static_assert(sizeof(struct rs_guest_report) == 128, "rs_guest_report layout");
_Static_assert(RS_BOOT_REPORT_GPA + RS_MAX_VCPUS * sizeof(struct rs_guest_report)
	       <= RS_BOOT_LOAD_GPA, "reports fit below the payload");

/* The byte at position @pos of vCPU @id's AUX stream: the agent writes
 * it, the host checks it. */
static inline uint8_t rs_guest_aux_byte(uint32_t id, uint64_t pos)
{
	return (uint8_t)(pos * 7 + id * 13 + (pos >> 8));
}

#endif /* RINGSIDE_GUEST_BOOT_H */
