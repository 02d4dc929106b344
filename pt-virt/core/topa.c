// SPDX-License-Identifier: MIT
/*
 * ToPA tables over an AUX area: consecutive regions, END entries chaining
 * the tables into a ring, and the STOP/INT markers that follow the AUX
 * ring's head and tail the way Linux's intel_pt driver places them.
 */
#include "pv_internal.h"

#define TABLE_ALIGN 4096u

static uint32_t per_table(const struct pv_topa_params *p)
{
	if (p->flags & PV_TOPA_SINGLE)
		return 1;
	return p->entries_per_table ? p->entries_per_table :
	       TABLE_ALIGN / PV_TOPA_ENTRY_SIZE - 1;
}

/* Everything pv_topa_build needs to know, checked once. */
static int geometry(const struct pv_topa_params *p, uint64_t *region,
		    uint32_t *regions, uint32_t *tables, uint32_t *tbytes)
{
	uint64_t r, n, per, maxphy;

	if (!p || p->size < sizeof(*p))
		return -pve_invalid;
	r = (p->flags & PV_TOPA_SINGLE) ? p->aux_size : p->region_size;
	if (!rs_is_pow2(p->aux_size) || !rs_is_pow2(r) || r < 4096 ||
	    r > PV_TOPA_REGION_BYTES(PV_TOPA_MAX_SIZE_CODE) || r > p->aux_size)
		return -pve_geometry;
	if ((p->aux_gpa & (r - 1)) || (p->table_gpa & (TABLE_ALIGN - 1)))
		return -pve_geometry;
	per = per_table(p);
	n = p->aux_size / r;
	if (n > UINT32_MAX || per > PV_MASK_TABLE_MASK)
		return -pve_geometry;
	maxphy = pv_above_maxphys(p->maxphyaddr ? p->maxphyaddr :
				  PV_DEFAULT_MAXPHYADDR);
	*region = r;
	*regions = (uint32_t)n;
	*tables = (uint32_t)((n + per - 1) / per);
	*tbytes = (uint32_t)(((per + 1) * PV_TOPA_ENTRY_SIZE + TABLE_ALIGN - 1) &
			     ~(uint64_t)(TABLE_ALIGN - 1));
	if (((p->aux_gpa + p->aux_size - 1) & maxphy) ||
	    ((p->table_gpa + (uint64_t)*tables * *tbytes - 1) & maxphy))
		return -pve_geometry;
	return 0;
}

int pv_topa_table_bytes(const struct pv_topa_params *p, uint64_t *bytes)
{
	uint64_t r;
	uint32_t n, tables, tbytes;
	int ret;

	if (!bytes)
		return -pve_invalid;
	ret = geometry(p, &r, &n, &tables, &tbytes);
	if (ret < 0)
		return ret;
	*bytes = (uint64_t)tables * tbytes;
	return 0;
}

static uint64_t *slot(const struct pv_topa *t, uint32_t table, uint32_t index)
{
	return (uint64_t *)(t->tables + (uint64_t)table * t->table_bytes) + index;
}

uint64_t pv_topa_entry(const struct pv_topa *t, uint32_t table, uint32_t index)
{
	uint64_t e;

	if (!t || table >= t->nr_tables || index > t->per_table)
		return 0;
	memcpy(&e, slot(t, table, index), sizeof(e));
	return e;
}

int pv_topa_build(struct pv_topa *t, const struct pv_topa_params *p,
		  void *tables, uint64_t tables_size)
{
	uint32_t code, i;
	int ret;

	if (!t || !tables)
		return -pve_invalid;
	memset(t, 0, sizeof(*t));
	ret = geometry(p, &t->region_size, &t->nr_regions, &t->nr_tables,
		       &t->table_bytes);
	if (ret < 0)
		return ret;
	if (tables_size < (uint64_t)t->nr_tables * t->table_bytes)
		return -pve_nomem;
	memcpy(&t->p, p, sizeof(t->p));
	t->tables = tables;
	t->tables_size = tables_size;
	t->per_table = per_table(p);
	t->stop_idx = t->int_idx = -1;
	code = pv_log2(t->region_size) - 12;

	memset(tables, 0, (uint64_t)t->nr_tables * t->table_bytes);
	for (i = 0; i < t->nr_regions; i++) {
		uint64_t e = PV_TOPA_MK(p->aux_gpa + (uint64_t)i * t->region_size,
					code, 0);

		memcpy(slot(t, i / t->per_table, i % t->per_table), &e, sizeof(e));
	}
	for (i = 0; i < t->nr_tables; i++) {
		uint32_t used = i + 1 < t->nr_tables ? t->per_table :
				t->nr_regions - i * t->per_table;
		uint32_t next = (i + 1) % t->nr_tables;
		uint64_t e = PV_TOPA_MK(p->table_gpa +
					(uint64_t)next * t->table_bytes, 0,
					PV_TOPA_END);

		memcpy(slot(t, i, used), &e, sizeof(e));
	}
	return 0;
}

int pv_topa_locate(const struct pv_topa *t, uint32_t region, uint64_t *table,
		   uint32_t *index)
{
	if (!t || region >= t->nr_regions)
		return -pve_invalid;
	if (table)
		*table = t->p.table_gpa +
			 (uint64_t)(region / t->per_table) * t->table_bytes;
	if (index)
		*index = region % t->per_table;
	return 0;
}

int pv_topa_region_of(const struct pv_topa *t, uint64_t table, uint32_t index)
{
	uint64_t k;

	if (!t || table < t->p.table_gpa)
		return -pve_invalid;
	k = (table - t->p.table_gpa) / t->table_bytes;
	if ((table - t->p.table_gpa) % t->table_bytes || k >= t->nr_tables ||
	    index > t->per_table)
		return -pve_invalid;
	/* The END slot of a table stands for the next table's entry 0. */
	if (k * t->per_table + index > t->nr_regions)
		return -pve_invalid;
	return (int)((k * t->per_table + index) % t->nr_regions);
}

static void mark(struct pv_topa *t, int64_t region, uint64_t set, uint64_t clear)
{
	uint64_t *s, e;

	if (region < 0)
		return;
	s = slot(t, (uint32_t)region / t->per_table,
		 (uint32_t)region % t->per_table);
	memcpy(&e, s, sizeof(e));
	e = (e & ~clear) | set;
	memcpy(s, &e, sizeof(e));
}

int pv_topa_markers(struct pv_topa *t, uint64_t head, uint64_t tail)
{
	uint64_t r, n, h, stop_abs, wm, wake, int_abs;
	int ret = 0;

	if (!t || !t->tables)
		return -pve_invalid;
	mark(t, t->stop_idx, 0, PV_TOPA_STOP | PV_TOPA_INT);
	mark(t, t->int_idx, 0, PV_TOPA_INT);
	t->stop_idx = t->int_idx = -1;
	if (t->p.flags & PV_TOPA_SNAPSHOT)
		return 0;
	if (head - tail > t->p.aux_size)
		return -pve_invalid;

	r = t->region_size;
	n = t->nr_regions;
	h = head / r;
	/* The last whole region that ends at or before the consumer's data. */
	stop_abs = (tail + t->p.aux_size) / r;
	if (stop_abs <= h) {
		stop_abs = h;
		ret = -pve_no_space;
	} else {
		stop_abs--;
	}
	wm = t->p.watermark ? t->p.watermark : t->p.aux_size / 2;
	wake = (head / wm + 1) * wm;
	int_abs = (wake - 1) / r;

	t->stop_idx = (int64_t)(stop_abs % n);
	mark(t, t->stop_idx, PV_TOPA_STOP | PV_TOPA_INT, 0);
	if (int_abs < stop_abs) {
		t->int_idx = (int64_t)(int_abs % n);
		mark(t, t->int_idx, PV_TOPA_INT, 0);
	}
	return ret;
}
