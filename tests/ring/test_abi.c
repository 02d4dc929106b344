/* SPDX-License-Identifier: MIT */
/*
 * ringside's perf definitions are written out by hand so that the ring
 * library builds freestanding; here they meet the host's kernel headers.
 */
#include <linux/perf_event.h>
#include <stddef.h>
#include <string.h>

#include "fixture.h"

#define SAME_OFFSET(field) \
	ck_assert_uint_eq(offsetof(struct rs_ctrl_page, field), \
			  offsetof(struct perf_event_mmap_page, field))

#define SAME_SIZE(field) \
	ck_assert_uint_eq(sizeof(((struct rs_ctrl_page *)0)->field), \
			  sizeof(((struct perf_event_mmap_page *)0)->field))

START_TEST(ctrl_page_ring_fields)
{
	SAME_OFFSET(data_head);
	SAME_OFFSET(data_tail);
	SAME_OFFSET(data_offset);
	SAME_OFFSET(data_size);
	SAME_OFFSET(aux_head);
	SAME_OFFSET(aux_tail);
	SAME_OFFSET(aux_offset);
	SAME_OFFSET(aux_size);
	SAME_SIZE(data_head);
	SAME_SIZE(data_tail);
	SAME_SIZE(data_offset);
	SAME_SIZE(data_size);
	SAME_SIZE(aux_head);
	SAME_SIZE(aux_tail);
	SAME_SIZE(aux_offset);
	SAME_SIZE(aux_size);
}
END_TEST

START_TEST(ctrl_page_time_fields)
{
	SAME_OFFSET(time_shift);
	SAME_OFFSET(time_mult);
	SAME_OFFSET(time_zero);
	SAME_OFFSET(time_offset);
	SAME_OFFSET(time_cycles);
	SAME_OFFSET(time_mask);
	SAME_OFFSET(time_enabled);
	SAME_OFFSET(time_running);
	SAME_SIZE(time_shift);
	SAME_SIZE(time_mult);
	SAME_SIZE(time_zero);
	SAME_SIZE(time_offset);
}
END_TEST

START_TEST(ctrl_page_other_fields)
{
	SAME_OFFSET(version);
	SAME_OFFSET(compat_version);
	SAME_OFFSET(lock);
	SAME_OFFSET(index);
	SAME_OFFSET(offset);
	SAME_OFFSET(capabilities);
	SAME_OFFSET(pmc_width);
	SAME_OFFSET(size);
	SAME_SIZE(capabilities);
	SAME_SIZE(pmc_width);
}
END_TEST

START_TEST(ctrl_page_ext_in_perf_reserved)
{
	size_t perf_res = offsetof(struct perf_event_mmap_page, __reserved);
	size_t perf_res_end = perf_res +
		sizeof(((struct perf_event_mmap_page *)0)->__reserved);
	size_t ext = offsetof(struct rs_ctrl_page, ext);

	/* ringside's extension must sit where perf promises nothing. */
	ck_assert_uint_ge(ext, perf_res);
	ck_assert_uint_le(ext + sizeof(struct rs_ctrl_ext), perf_res_end);
	/* Everything perf defines fits in the page, before ringside's tail. */
	ck_assert_uint_eq(offsetof(struct rs_ctrl_page, reserved_3),
			  sizeof(struct perf_event_mmap_page));
	ck_assert_uint_le(sizeof(struct perf_event_mmap_page),
			  sizeof(struct rs_ctrl_page));
	ck_assert_uint_eq(sizeof(struct rs_ctrl_page), RS_PAGE_SIZE);
}
END_TEST

START_TEST(ctrl_page_cap_bits)
{
	struct perf_event_mmap_page pg;

	/* perf defines these as bitfields; compare through its union */
	memset(&pg, 0, sizeof(pg));
	pg.cap_user_time = 1;
	ck_assert_uint_eq(pg.capabilities, RS_CAP_USER_TIME);
	memset(&pg, 0, sizeof(pg));
	pg.cap_user_time_zero = 1;
	ck_assert_uint_eq(pg.capabilities, RS_CAP_USER_TIME_ZERO);
}
END_TEST

START_TEST(perf_header_layout)
{
	ck_assert_uint_eq(sizeof(struct rs_perf_header),
			  sizeof(struct perf_event_header));
	ck_assert_uint_eq(offsetof(struct rs_perf_header, type),
			  offsetof(struct perf_event_header, type));
	ck_assert_uint_eq(offsetof(struct rs_perf_header, misc),
			  offsetof(struct perf_event_header, misc));
	ck_assert_uint_eq(offsetof(struct rs_perf_header, size),
			  offsetof(struct perf_event_header, size));
	ck_assert_uint_eq(sizeof(((struct rs_perf_header *)0)->size),
			  sizeof(((struct perf_event_header *)0)->size));
}
END_TEST

START_TEST(perf_record_types)
{
	ck_assert_int_eq(RS_PERF_RECORD_LOST, PERF_RECORD_LOST);
	ck_assert_int_eq(RS_PERF_RECORD_SAMPLE, PERF_RECORD_SAMPLE);
	ck_assert_int_eq(RS_PERF_RECORD_AUX, PERF_RECORD_AUX);
	ck_assert_int_eq(RS_PERF_RECORD_ITRACE_START, PERF_RECORD_ITRACE_START);
	ck_assert_int_eq(RS_PERF_RECORD_LOST_SAMPLES, PERF_RECORD_LOST_SAMPLES);
	ck_assert_int_eq(RS_PERF_RECORD_MMAP, PERF_RECORD_MMAP);
	ck_assert_int_eq(RS_PERF_RECORD_COMM, PERF_RECORD_COMM);
	ck_assert_int_eq(RS_PERF_RECORD_EXIT, PERF_RECORD_EXIT);
	ck_assert_int_eq(RS_PERF_RECORD_FORK, PERF_RECORD_FORK);
	ck_assert_int_eq(RS_PERF_RECORD_MMAP2, PERF_RECORD_MMAP2);
	/* ringside's own types must never collide with perf's. */
	ck_assert_int_gt(RS_RECORD_SEQ, PERF_RECORD_MAX);
	ck_assert_int_gt(RS_RECORD_MARKER, PERF_RECORD_MAX);
	ck_assert_int_ge(RS_RECORD_SEQ, 64);
	ck_assert_int_ne(RS_RECORD_SEQ, RS_RECORD_MARKER);
}
END_TEST

START_TEST(perf_aux_flags)
{
	ck_assert_int_eq(RS_PERF_AUX_FLAG_TRUNCATED, PERF_AUX_FLAG_TRUNCATED);
	ck_assert_int_eq(RS_PERF_AUX_FLAG_OVERWRITE, PERF_AUX_FLAG_OVERWRITE);
	ck_assert_int_eq(RS_PERF_AUX_FLAG_PARTIAL, PERF_AUX_FLAG_PARTIAL);
	ck_assert_int_eq(RS_PERF_AUX_FLAG_COLLISION, PERF_AUX_FLAG_COLLISION);
}
END_TEST

START_TEST(perf_sample_bits)
{
	ck_assert_uint_eq(RS_PERF_SAMPLE_IP, PERF_SAMPLE_IP);
	ck_assert_uint_eq(RS_PERF_SAMPLE_TID, PERF_SAMPLE_TID);
	ck_assert_uint_eq(RS_PERF_SAMPLE_TIME, PERF_SAMPLE_TIME);
	ck_assert_uint_eq(RS_PERF_SAMPLE_ADDR, PERF_SAMPLE_ADDR);
	ck_assert_uint_eq(RS_PERF_SAMPLE_ID, PERF_SAMPLE_ID);
	ck_assert_uint_eq(RS_PERF_SAMPLE_CPU, PERF_SAMPLE_CPU);
	ck_assert_uint_eq(RS_PERF_SAMPLE_PERIOD, PERF_SAMPLE_PERIOD);
	ck_assert_uint_eq(RS_PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_CALLCHAIN);
	ck_assert_uint_eq(RS_PERF_SAMPLE_RAW, PERF_SAMPLE_RAW);
}
END_TEST

START_TEST(perf_misc_values)
{
	ck_assert_int_eq(RS_PERF_MISC_KERNEL, PERF_RECORD_MISC_KERNEL);
	ck_assert_int_eq(RS_PERF_MISC_USER, PERF_RECORD_MISC_USER);
	ck_assert_int_eq(RS_PERF_MISC_GUEST_KERNEL, PERF_RECORD_MISC_GUEST_KERNEL);
	ck_assert_int_eq(RS_PERF_MISC_GUEST_USER, PERF_RECORD_MISC_GUEST_USER);
	ck_assert_int_eq(RS_PERF_MISC_COMM_EXEC, PERF_RECORD_MISC_COMM_EXEC);
	ck_assert_int_eq(RS_PERF_MISC_MMAP_BUILD_ID,
			 PERF_RECORD_MISC_MMAP_BUILD_ID);
}
END_TEST

START_TEST(record_layouts)
{
	/* Bodies as perf_event_open(2) documents them: u64 fields after the
	 * header, in this order. */
	ck_assert_uint_eq(offsetof(struct rs_perf_lost, id), sizeof(struct perf_event_header));
	ck_assert_uint_eq(offsetof(struct rs_perf_lost, lost),
			  offsetof(struct rs_perf_lost, id) + sizeof(uint64_t));
	ck_assert_uint_eq(offsetof(struct rs_perf_aux, aux_offset), sizeof(struct perf_event_header));
	ck_assert_uint_eq(offsetof(struct rs_perf_aux, aux_size),
			  offsetof(struct rs_perf_aux, aux_offset) + sizeof(uint64_t));
	ck_assert_uint_eq(offsetof(struct rs_perf_aux, flags),
			  offsetof(struct rs_perf_aux, aux_size) + sizeof(uint64_t));
	ck_assert_uint_eq(offsetof(struct rs_perf_lost_samples, lost),
			  sizeof(struct perf_event_header));
	ck_assert_uint_eq(offsetof(struct rs_perf_itrace_start, tid),
			  offsetof(struct rs_perf_itrace_start, pid) + sizeof(uint32_t));
	ck_assert_uint_eq(sizeof(struct rs_perf_lost) % RS_RECORD_ALIGN, 0);
	ck_assert_uint_eq(sizeof(struct rs_perf_aux) % RS_RECORD_ALIGN, 0);
	ck_assert_uint_eq(sizeof(struct rs_rec_seq) % RS_RECORD_ALIGN, 0);
}
END_TEST

START_TEST(region_constants)
{
	char magic[8];
	uint64_t m = RS_REGION_MAGIC;

	/* The magic reads "RINGSIDE" in a hex dump of a little-endian host. */
	memcpy(magic, &m, sizeof(magic));
	ck_assert_int_eq(memcmp(magic, "RINGSIDE", sizeof(magic)), 0);
	/* RS_RECORD_MAX: the largest size a u16 header can carry, aligned. */
	ck_assert_uint_eq(RS_RECORD_MAX % RS_RECORD_ALIGN, 0);
	ck_assert_uint_le(RS_RECORD_MAX, UINT16_MAX);
	ck_assert_uint_gt(RS_RECORD_MAX + RS_RECORD_ALIGN, UINT16_MAX);
	ck_assert_uint_eq(sizeof(((struct rs_region_header *)0)->rings) /
			  sizeof(struct rs_ring_desc), RS_HDR_RINGS);
	/* the ring table's descriptors are the header's, in whole pages */
	ck_assert_uint_eq(rs_ring_table_size(RS_HDR_RINGS), 0);
	ck_assert_uint_eq(rs_ring_table_size(RS_HDR_RINGS + 1), RS_PAGE_SIZE);
	ck_assert_uint_eq(rs_ring_table_size(RS_HDR_RINGS + 64), RS_PAGE_SIZE);
	ck_assert_uint_eq(rs_ring_table_size(RS_HDR_RINGS + 65), 2 * RS_PAGE_SIZE);
	ck_assert_uint_eq(rs_ring_table_size(RS_MAX_RINGS), 16 * RS_PAGE_SIZE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("abi");
	TCase *tc = fx_tcase(s, "abi");

	tcase_add_test(tc, ctrl_page_ring_fields);
	tcase_add_test(tc, ctrl_page_time_fields);
	tcase_add_test(tc, ctrl_page_other_fields);
	tcase_add_test(tc, ctrl_page_ext_in_perf_reserved);
	tcase_add_test(tc, ctrl_page_cap_bits);
	tcase_add_test(tc, perf_header_layout);
	tcase_add_test(tc, perf_record_types);
	tcase_add_test(tc, perf_aux_flags);
	tcase_add_test(tc, perf_sample_bits);
	tcase_add_test(tc, perf_misc_values);
	tcase_add_test(tc, record_layouts);
	tcase_add_test(tc, region_constants);
	return fx_run(s);
}
