/* SPDX-License-Identifier: MIT */
/* Private to pt-virt/core/: small helpers its files share. */
#ifndef PV_INTERNAL_H
#define PV_INTERNAL_H

#include <string.h>

#include "ringside/pt_core.h"
#include "ringside/ring.h"

static inline unsigned pv_log2(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

/* Bits at or above MAXPHYADDR. */
static inline uint64_t pv_above_maxphys(uint32_t maxphyaddr)
{
	return maxphyaddr >= 64 ? 0 : ~0ull << maxphyaddr;
}

static inline uint64_t pv_entry_base(uint64_t e)
{
	return e & ~0xfffull;
}

static inline uint64_t pv_entry_bytes(uint64_t e)
{
	return PV_TOPA_REGION_BYTES((e & PV_TOPA_SIZE_MASK) >> PV_TOPA_SIZE_SHIFT);
}

/* Load / store one ToPA entry through the guest memory view. */
static inline int pv_entry_load(const struct pv_mem *mem, uint64_t gpa,
				uint64_t *e)
{
	const void *p = mem->ptr(mem->arg, gpa, sizeof(*e));

	if (!p)
		return -pve_unmapped;
	memcpy(e, p, sizeof(*e));
	return 0;
}

#define PV_DEFAULT_MAXPHYADDR 46u

#endif /* PV_INTERNAL_H */
