/* SPDX-License-Identifier: MIT */
/*
 * Intel PT hardware facts, as the Intel SDM (Vol. 3C, "Intel Processor
 * Trace") defines them: RTIT MSR indices and bit fields, the ToPA entry
 * format, CPUID leaf 0x14.  Constants only: a freestanding guest payload
 * includes this header too.
 *
 * 64-bit fields are macros (an enum constant must fit an int in C11).
 */
#ifndef RINGSIDE_RTIT_H
#define RINGSIDE_RTIT_H

#include <stdint.h>

/* MSR indices. */
enum pv_msr_index {
	PV_MSR_RTIT_OUTPUT_BASE      = 0x560,
	PV_MSR_RTIT_OUTPUT_MASK_PTRS = 0x561,
	PV_MSR_RTIT_CTL              = 0x570,
	PV_MSR_RTIT_STATUS           = 0x571,
	PV_MSR_RTIT_CR3_MATCH        = 0x572,
	PV_MSR_RTIT_ADDR0_A          = 0x580,  /* ADDRn_A = 0x580 + 2n, */
	PV_MSR_RTIT_ADDR3_B          = 0x587,  /* ADDRn_B = 0x581 + 2n  */
};
#define PV_RTIT_MAX_RANGES 4u

/* IA32_RTIT_CTL (Table 36-6). */
#define PV_CTL_TRACEEN      (1ull << 0)
#define PV_CTL_CYCEN        (1ull << 1)
#define PV_CTL_OS           (1ull << 2)
#define PV_CTL_USER         (1ull << 3)
#define PV_CTL_PWREVTEN     (1ull << 4)
#define PV_CTL_FUPONPTW     (1ull << 5)
#define PV_CTL_FABRICEN     (1ull << 6)
#define PV_CTL_CR3FILTER    (1ull << 7)
#define PV_CTL_TOPA         (1ull << 8)
#define PV_CTL_MTCEN        (1ull << 9)
#define PV_CTL_TSCEN        (1ull << 10)
#define PV_CTL_DISRETC      (1ull << 11)
#define PV_CTL_PTWEN        (1ull << 12)
#define PV_CTL_BRANCHEN     (1ull << 13)
#define PV_CTL_MTCFREQ_SHIFT   14   /* 17:14 */
#define PV_CTL_CYCTHRESH_SHIFT 19   /* 22:19 */
#define PV_CTL_PSBFREQ_SHIFT   24   /* 27:24 */
#define PV_CTL_ADDR_CFG_SHIFT(n) (32 + 4 * (n))  /* 35:32, 39:36, ... */
#define PV_CTL_FIELD4(v, shift) (((v) >> (shift)) & 0xfull)
/* Bits the SDM defines at all; everything else is reserved. */
#define PV_CTL_DEFINED      0x0000ffff0f7bffffull

/* ADDRn_CFG encodings. */
enum pv_addr_cfg {
	PV_ADDR_CFG_OFF    = 0,
	PV_ADDR_CFG_FILTER = 1,  /* trace only inside [A, B] */
	PV_ADDR_CFG_STOP   = 2,  /* TraceStop when entering [A, B] */
};

/* IA32_RTIT_STATUS. */
#define PV_STATUS_FILTEREN     (1ull << 0)  /* writes ignored */
#define PV_STATUS_CONTEXTEN    (1ull << 1)  /* writes ignored */
#define PV_STATUS_TRIGGEREN    (1ull << 2)  /* writes ignored */
#define PV_STATUS_ERROR        (1ull << 4)
#define PV_STATUS_STOPPED      (1ull << 5)
#define PV_STATUS_PENDPSB      (1ull << 6)
#define PV_STATUS_PENDTOPAPMI  (1ull << 7)
#define PV_STATUS_BYTECNT_SHIFT 32          /* 48:32 PacketByteCnt */
#define PV_STATUS_BYTECNT_MASK (0x1ffffull << PV_STATUS_BYTECNT_SHIFT)

/* IA32_RTIT_OUTPUT_MASK_PTRS. */
#define PV_MASK_LOWER          0x7full      /* 6:0, forced to 1 */
#define PV_MASK_TABLE_SHIFT    7            /* 31:7 MaskOrTableOffset */
#define PV_MASK_TABLE_MASK     0x1ffffffull
#define PV_MASK_OFFSET_SHIFT   32           /* 63:32 OutputOffset */
#define PV_MASK_PTRS(index, offset) \
	(PV_MASK_LOWER | ((uint64_t)(index) << PV_MASK_TABLE_SHIFT) | \
	 ((uint64_t)(offset) << PV_MASK_OFFSET_SHIFT))

/* ToPA table entry (Table 36-3): one little-endian u64. */
#define PV_TOPA_END            (1ull << 0)
#define PV_TOPA_INT            (1ull << 2)
#define PV_TOPA_STOP           (1ull << 4)
#define PV_TOPA_SIZE_SHIFT     6            /* 9:6: region = 4 KiB << n */
#define PV_TOPA_SIZE_MASK      (0xfull << PV_TOPA_SIZE_SHIFT)
#define PV_TOPA_BASE_SHIFT     12           /* MAXPHYADDR-1:12 */
#define PV_TOPA_RSVD_LOW       ((1ull << 1) | (1ull << 3) | (1ull << 5) | \
				(3ull << 10))
#define PV_TOPA_ENTRY_SIZE     8u
#define PV_TOPA_MAX_SIZE_CODE  15u
#define PV_TOPA_REGION_BYTES(code) (4096ull << (code))
#define PV_TOPA_MK(base, code, flags) \
	(((uint64_t)(base) & ~0xfffull) | \
	 (((uint64_t)(code) & 0xf) << PV_TOPA_SIZE_SHIFT) | (uint64_t)(flags))

_Static_assert(PV_TOPA_MK(0, 0, PV_TOPA_END) == 0x1, "END is bit 0");
_Static_assert(PV_TOPA_MK(0, 0, PV_TOPA_INT) == 0x4, "INT is bit 2");
_Static_assert(PV_TOPA_MK(0, 0, PV_TOPA_STOP) == 0x10, "STOP is bit 4");
_Static_assert(PV_TOPA_MK(0, 15, 0) == 0x3c0, "size is bits 9:6");
_Static_assert(PV_TOPA_MK(0xfffffffff000ull, 0, 0) == 0xfffffffff000ull,
	       "base starts at bit 12");
_Static_assert(PV_TOPA_RSVD_LOW == 0xc2a, "reserved bits 1, 3, 5, 11:10");
_Static_assert(PV_TOPA_REGION_BYTES(9) == 2u << 20, "size code 9 is 2 MiB");
_Static_assert(PV_MASK_PTRS(3, 0x10) == 0x00000010000001ffull,
	       "table offset 31:7, output offset 63:32");
_Static_assert(PV_CTL_ADDR_CFG_SHIFT(3) == 44, "ADDR3_CFG is 47:44");
_Static_assert(PV_CTL_DEFINED == (0x3ffffull | (0xfull << 19) | (0xfull << 24) |
				  (0xffffull << 32)),
	       "CTL: 17:0, 22:19, 27:24, 47:32 defined");

/* CPUID leaf 0x14 (Tables 36-11, 36-12). */
#define PV_CPUID_PT_LEAF       0x14u
#define PV_CPUID7_EBX_PT       (1u << 25)   /* CPUID.(7,0):EBX[25] */
/* sub-leaf 0, EBX */
#define PV_CAP0_EBX_CR3FILTER  (1u << 0)
#define PV_CAP0_EBX_PSB_CYC    (1u << 1)
#define PV_CAP0_EBX_IPFILTER   (1u << 2)
#define PV_CAP0_EBX_MTC        (1u << 3)
#define PV_CAP0_EBX_PTWRITE    (1u << 4)
#define PV_CAP0_EBX_PWREVT     (1u << 5)
/* sub-leaf 0, ECX */
#define PV_CAP0_ECX_TOPA       (1u << 0)
#define PV_CAP0_ECX_MENTRY     (1u << 1)
#define PV_CAP0_ECX_SNGLRNG    (1u << 2)
#define PV_CAP0_ECX_FABRIC     (1u << 3)
#define PV_CAP0_ECX_LIP        (1u << 31)

#endif /* RINGSIDE_RTIT_H */
