// SPDX-License-Identifier: MIT
/*
 * The AUX side: the engine writing through the ToPA into a real ring's AUX
 * area, aux_head following it, PERF_RECORD_AUX records (TRUNCATED at a
 * ToPA STOP), markers following aux_tail, and snapshot mode wrapping.
 */
#include "ringside/ring.h"
#include "pt_fixture.h"

#define AUX_SIZE 0x4000u

static struct fx_mem mem;
static uint8_t *tables, *region_mem;
static struct rs_region region;
static struct rs_producer prod;
static struct rs_consumer *cons;
static struct pv_msr msr;
static struct pv_out out;
static struct pv_aux aux;
static uint8_t pattern[0x10000];
static struct rs_perf_aux recs[64];
static int nrecs;

static void ring_setup(uint32_t aux_mode)
{
	struct rs_region_params rp = {
		.size = sizeof(rp), .nr_rings = 1, .data_pages = 4,
		.aux_pages = AUX_SIZE / 4096, .aux_mode = aux_mode,
		.aux_watermark = 0x2000,
	};
	struct pv_topa_params tp = {
		.size = sizeof(tp), .region_size = 0x1000,
		.table_gpa = FX_TABLE_GPA, .entries_per_table = 2,
		.watermark = 0x2000,
	};
	struct rs_ring ring;
	struct pv_mem pm;
	uint64_t size, base, mask;

	memset(&mem, 0, sizeof(mem));
	ck_assert_int_eq(rs_region_size(&rp, &size), 0);
	region_mem = aligned_alloc(4096, size);
	ck_assert_int_eq(rs_region_layout(region_mem, size, &rp), 0);
	ck_assert_int_eq(rs_region_enable(region_mem), 0);
	ck_assert_int_eq(rs_region_open(&region, region_mem, size), 0);
	ck_assert_int_eq(rs_region_ring(&region, 0, &ring), 0);
	ck_assert_int_eq(rs_producer_init(&prod, &region, 0), 0);
	if (aux_mode == RS_MODE_NORMAL) {
		cons = rs_consumer_alloc(&region, 0);
		ck_assert_ptr_nonnull(cons);
	}
	tables = fx_mem_add(&mem, FX_TABLE_GPA, 0x10000);
	mem.w[mem.n++] = (struct fx_window){ FX_AUX_GPA, AUX_SIZE, NULL };
	mem.w[mem.n - 1].mem = ring.aux;

	pv_msr_init(&msr, NULL);
	pm = fx_pv_mem(&mem);
	pv_out_init(&out, &msr, &pm, NULL, NULL);
	ck_assert_int_eq(pv_aux_init(&aux, &prod, &out, FX_AUX_GPA, &tp, tables,
				     0x10000), 0);
	ck_assert_int_eq(pv_aux_output_msrs(&aux, &base, &mask), 0);
	ck_assert_uint_eq(base, FX_TABLE_GPA);
	ck_assert_uint_eq(mask, PV_MASK_PTRS(0, 0));
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_OUTPUT_BASE, base), 0);
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_OUTPUT_MASK_PTRS, mask), 0);
	ck_assert_int_eq(pv_msr_write(&msr, PV_MSR_RTIT_CTL, PV_CTL_TRACEEN |
				      PV_CTL_TOPA | PV_CTL_BRANCHEN), 1);
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + (i >> 9));
	nrecs = 0;
}

static void teardown(void)
{
	/* The AUX window belongs to the region. */
	mem.n--;
	fx_mem_free(&mem);
	rs_consumer_free(cons);
	cons = NULL;
	free(region_mem);
}

static int on_record(const struct rs_perf_header *rec, void *arg)
{
	(void)arg;
	if (rec->type == RS_PERF_RECORD_AUX && nrecs < 64)
		memcpy(&recs[nrecs++], rec, sizeof(recs[0]));
	return 0;
}

static uint8_t drained[0x20000];
static uint64_t ndrained;

static int on_aux(const void *chunk, uint64_t len, uint64_t pos, void *arg)
{
	(void)arg;
	(void)pos;
	memcpy(drained + ndrained, chunk, len);
	ndrained += len;
	return 0;
}

static void normal_setup(void)
{
	ring_setup(RS_MODE_NORMAL);
	ndrained = 0;
}

static void snapshot_setup(void)
{
	ring_setup(RS_MODE_OVERWRITE);
}

START_TEST(pmi_publishes_head_and_record)
{
	struct rs_ring_state st;

	ck_assert_int_eq(pv_aux_write(&aux, pattern, 0x1800), 0x1800);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0);           /* no PMI yet */
	/* INT at the watermark (0x2000), inside this write: taken at its
	 * end, so the head never stands inside what one write put out (a
	 * packet) */
	ck_assert_int_eq(pv_aux_write(&aux, pattern + 0x1800, 0x1000), 0x1000);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x2800);
	ck_assert_uint_eq(aux.stats.pmis, 1);
	ck_assert_int_eq(rs_consumer_drain(cons, on_record, NULL), 1);
	ck_assert_int_eq(nrecs, 1);
	ck_assert_uint_eq(recs[0].aux_offset, 0);
	ck_assert_uint_eq(recs[0].aux_size, 0x2800);
	ck_assert_uint_eq(recs[0].flags, 0);
	ck_assert_int_eq(pv_aux_write(&aux, pattern + 0x2800, 0x100), 0x100);
	ck_assert_int_eq(pv_aux_flush(&aux, 0) >= 0, 1);
	ck_assert_int_eq(rs_consumer_drain(cons, on_record, NULL), 1);
	ck_assert_uint_eq(recs[1].aux_offset, 0x2800);
	ck_assert_uint_eq(recs[1].aux_size, 0x100);
	ck_assert_int_eq(rs_consumer_drain_aux(cons, on_aux, NULL), 0x2900);
	ck_assert_mem_eq(drained, pattern, 0x2900);
}
END_TEST

/* pv_aux_no_records (the QEMU plugin): aux_head moves at PMIs and
 * flushes, the data ring gets nothing. */
START_TEST(no_records_publishes_head_only)
{
	struct rs_ring_state st;

	pv_aux_no_records(&aux);
	ck_assert_int_eq(pv_aux_write(&aux, pattern, 0x2000), 0x2000);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x2000);      /* INT at the watermark */
	ck_assert_int_eq(pv_aux_write(&aux, pattern + 0x2000, 0x800), 0x800);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x2000);      /* no PMI: not yet */
	ck_assert_int_eq(pv_aux_flush(&aux, 0), 0);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x2800);
	ck_assert_uint_eq(st.data_head, 0);
	ck_assert_int_eq(rs_consumer_drain(cons, on_record, NULL), 0);
	ck_assert_int_eq(nrecs, 0);
	ck_assert_int_eq(rs_consumer_drain_aux(cons, on_aux, NULL), 0x2800);
	ck_assert_mem_eq(drained, pattern, 0x2800);
}
END_TEST

START_TEST(stop_truncates_then_resumes)
{
	struct rs_ring_state st;
	uint64_t base, mask;

	/* Nobody drains: output stops at the end of the buffer. */
	ck_assert_int_eq(pv_aux_write(&aux, pattern, 0x5000), 0x4000);
	ck_assert(msr.status & PV_STATUS_STOPPED);
	/* Both PMIs (the watermark, the STOP) inside the one write: one
	 * flush at its end */
	ck_assert_uint_eq(aux.stats.pmis, 2);
	ck_assert_int_eq(rs_consumer_drain(cons, on_record, NULL), 1);
	ck_assert_uint_eq(recs[0].aux_offset, 0);
	ck_assert_uint_eq(recs[0].aux_size, 0x4000);
	ck_assert_uint_eq(recs[0].flags & RS_PERF_AUX_FLAG_TRUNCATED,
			  RS_PERF_AUX_FLAG_TRUNCATED);
	ck_assert_uint_eq(aux.stats.truncated, 1);
	/* Still nothing consumed: still stopped, no further record. */
	ck_assert_int_eq(pv_aux_write(&aux, pattern, 0x100), 0);
	ck_assert_int_eq(rs_consumer_drain(cons, on_record, NULL), 0);
	/* The consumer catches up: the next write resumes at region 0. */
	ck_assert_int_eq(rs_consumer_drain_aux(cons, on_aux, NULL), 0x4000);
	ck_assert_mem_eq(drained, pattern, 0x4000);
	ck_assert_int_eq(pv_aux_write(&aux, pattern + 0x8000, 0x100), 0x100);
	ck_assert(aux.resync);
	ck_assert_uint_eq(aux.stats.restarts, 1);
	ck_assert_uint_eq(msr.output_base, FX_TABLE_GPA);
	ck_assert_uint_eq(msr.output_mask, PV_MASK_PTRS(0, 0x100));
	ck_assert_int_eq(pv_aux_flush(&aux, 0) >= 0, 1);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x4100);
	ck_assert_int_eq(pv_aux_output_msrs(&aux, &base, &mask), 0);
	ck_assert_uint_eq(mask, PV_MASK_PTRS(0, 0x100));
}
END_TEST

START_TEST(snapshot_wraps_and_keeps_the_newest)
{
	static uint8_t buf[AUX_SIZE];
	struct rs_aux_snapshot s;

	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(pv_aux_write(&aux, pattern + i * 0x1000, 0x1000),
				 0x1000);
	ck_assert(!(msr.status & PV_STATUS_STOPPED));
	ck_assert_uint_eq(aux.stats.pmis, 0);
	ck_assert_int_eq(pv_aux_flush(&aux, 0), 0);
	ck_assert_int_eq(rs_snapshot_aux(&s, &region, 0, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(s.head, 0xa000);
	ck_assert_uint_eq(s.len, AUX_SIZE);
	ck_assert_mem_eq(buf, pattern + 0xa000 - AUX_SIZE, AUX_SIZE);
}
END_TEST

/* The ringside VMM's flight recorder: PERF_RECORD_AUX every half buffer,
 * so between two the engine overwrites the oldest bytes behind aux_head.
 * A live snapshot then must not return them as they were: the write limit
 * is announced before each write, and the snapshot cuts what it covers. */
START_TEST(snapshot_cuts_what_unpublished_writes_overwrite)
{
	static uint8_t buf[AUX_SIZE];
	struct rs_aux_snapshot s;
	struct rs_ring_state st;

	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pv_aux_write(&aux, pattern + i * 0x1000, 0x1000),
				 0x1000);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x4000);      /* two half-buffer flushes */
	ck_assert_uint_eq(prod.ring.ctrl->ext.aux_write_limit, 0x4000);
	/* 0x1800 more, not yet published: over the ring's first 0x1800 */
	ck_assert_int_eq(pv_aux_write(&aux, pattern + 0x4000, 0x1000), 0x1000);
	ck_assert_int_eq(pv_aux_write(&aux, pattern + 0x5000, 0x800), 0x800);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x4000);
	ck_assert_uint_eq(prod.ring.ctrl->ext.aux_write_limit, 0x5800);
	ck_assert_int_eq(rs_snapshot_aux(&s, &region, 0, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(s.head, 0x4000);
	ck_assert_uint_eq(s.cut_bytes, 0x1800);
	ck_assert_uint_eq(s.len, AUX_SIZE - 0x1800);
	ck_assert_mem_eq(buf, pattern + 0x1800, AUX_SIZE - 0x1800);
	/* published: the limit is back at the head, nothing is cut */
	ck_assert_int_eq(pv_aux_flush(&aux, 0), 0);
	ck_assert_uint_eq(prod.ring.ctrl->ext.aux_write_limit, 0x5800);
	ck_assert_int_eq(rs_snapshot_aux(&s, &region, 0, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(s.head, 0x5800);
	ck_assert_uint_eq(s.cut_bytes, 0);
	ck_assert_mem_eq(buf, pattern + 0x5800 - AUX_SIZE, AUX_SIZE);
}
END_TEST

/* The QEMU plugin's flight recorder: no records, so every write is
 * published at once; a snapshot without any flush sees the newest byte,
 * and the write limit is back at head between writes. */
START_TEST(snapshot_no_records_publishes_every_write)
{
	static uint8_t buf[AUX_SIZE];
	struct rs_aux_snapshot s;
	struct rs_ring_state st;

	pv_aux_no_records(&aux);
	ck_assert_int_eq(pv_aux_write(&aux, pattern, 0x300), 0x300);
	ck_assert_int_eq(rs_ring_state_read(&prod.ring, &st), 0);
	ck_assert_uint_eq(st.aux_head, 0x300);
	ck_assert_uint_eq(prod.ring.ctrl->ext.aux_write_limit, 0x300);
	for (int i = 0; i < 9; i++)
		ck_assert_int_eq(pv_aux_write(&aux, pattern + 0x300 + i * 0x1000,
					      0x1000), 0x1000);
	ck_assert_int_eq(rs_snapshot_aux(&s, &region, 0, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(s.head, 0x9300);
	ck_assert_uint_eq(s.cut_bytes, 0);
	ck_assert_uint_eq(s.len, AUX_SIZE);
	ck_assert_mem_eq(buf, pattern + 0x9300 - AUX_SIZE, AUX_SIZE);
	ck_assert_uint_eq(prod.ring.ctrl->ext.aux_write_limit, 0x9300);
	ck_assert_uint_eq(st.data_head, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt-aux");
	TCase *n = tcase_create("normal");
	TCase *o = tcase_create("snapshot");

	tcase_add_checked_fixture(n, normal_setup, teardown);
	tcase_add_test(n, pmi_publishes_head_and_record);
	tcase_add_test(n, stop_truncates_then_resumes);
	tcase_add_test(n, no_records_publishes_head_only);
	suite_add_tcase(s, n);
	tcase_add_checked_fixture(o, snapshot_setup, teardown);
	tcase_add_test(o, snapshot_wraps_and_keeps_the_newest);
	tcase_add_test(o, snapshot_no_records_publishes_every_write);
	tcase_add_test(o, snapshot_cuts_what_unpublished_writes_overwrite);
	suite_add_tcase(s, o);
	return fx_run(s);
}
