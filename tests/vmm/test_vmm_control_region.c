// SPDX-License-Identifier: MIT
/*
 * vmm/ctl.c without KVM: struct rs_region_params to the
 * control socket's REGION payload and back, and what the way back refuses
 * in a peer's answer.
 */
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "ringside/vmm_client.h"

/* Every field set, and set apart from the others. */
static void full_params(struct rs_region_params *p, uint64_t *size)
{
	ck_assert_int_eq(rs_region_params_init(p, 3, 4, 8, RS_MODE_OVERWRITE,
					       RS_MODE_NORMAL), 0);
	p->data_watermark = 4096;
	p->aux_watermark = 8192;
	p->trace_mask = RS_TRACE_TEST | RS_TRACE_SAMPLES | RS_TRACE_AUX;
	p->sample_type = RS_PERF_SAMPLE_IP | RS_PERF_SAMPLE_TIME;
	p->sample_freq = 4001;
	p->doorbell_addr = RS_BOOT_DOORBELL_GPA;
	p->sideband_pages = 2;
	ck_assert_int_eq(rs_region_size(p, size), 0);
}

START_TEST(region_params_round_trip)
{
	struct rs_region_params p, back;
	struct rs_ctl_region r;
	uint64_t size;

	full_params(&p, &size);
	memset(&r, 0xa5, sizeof(r));
	ck_assert_int_eq(vmm_ctl_region_from_params(&r, &p, size), 0);
	ck_assert_uint_eq(r.region_size, size);
	ck_assert_uint_eq(r.nr_rings, 3);
	ck_assert_uint_eq(r.data_pages, 4);
	ck_assert_uint_eq(r.aux_pages, 8);
	ck_assert_uint_eq(r.data_mode, RS_MODE_OVERWRITE);
	ck_assert_uint_eq(r.aux_mode, RS_MODE_NORMAL);
	ck_assert_uint_eq(r.data_watermark, 4096);
	ck_assert_uint_eq(r.aux_watermark, 8192);
	ck_assert_uint_eq(r.sideband_pages, 2);
	ck_assert_uint_eq(r.trace_mask, p.trace_mask);
	ck_assert_uint_eq(r.sample_type, p.sample_type);
	ck_assert_uint_eq(r.sample_freq, 4001);
	ck_assert_uint_eq(r.doorbell_addr, RS_BOOT_DOORBELL_GPA);
	/* the guard's fields and the reserved words are not the params' */
	ck_assert_uint_eq(r.header_guarded, 0);
	ck_assert_uint_eq(r.header_refused, 0);
	ck_assert_uint_eq(r.header_applied, 0);
	ck_assert_uint_eq(r.features, p.features);
	ck_assert_uint_eq(r.features, RS_FEATURES_KNOWN);
	for (size_t i = 0; i < sizeof(r.reserved) / sizeof(r.reserved[0]); i++)
		ck_assert_uint_eq(r.reserved[i], 0);

	memset(&back, 0x5a, sizeof(back));
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, &back), 0);
	/* both were zeroed whole before their fields were set */
	ck_assert_mem_eq(&back, &p, sizeof(p));
}
END_TEST

/* The way back ignores the guard's fields; the way there gives them 0. */
START_TEST(region_ctl_round_trip)
{
	struct rs_region_params p;
	struct rs_ctl_region r, back;
	uint64_t size;

	full_params(&p, &size);
	ck_assert_int_eq(vmm_ctl_region_from_params(&r, &p, 2 * size), 0);
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, &p), 0);
	ck_assert_int_eq(vmm_ctl_region_from_params(&back, &p, 2 * size), 0);
	ck_assert_mem_eq(&back, &r, sizeof(r));

	r.header_guarded = 1;
	r.header_refused = 7;
	r.header_applied = 9;
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, &p), 0);
	ck_assert_int_eq(vmm_ctl_region_from_params(&back, &p, 2 * size), 0);
	ck_assert_uint_eq(back.header_guarded, 0);
	ck_assert_uint_eq(back.header_refused, 0);
	ck_assert_uint_eq(back.header_applied, 0);
}
END_TEST

/* A caller built against the first version of the params has no
 * sideband, whatever lies past its struct. */
START_TEST(region_from_params_v1)
{
	struct rs_region_params p;
	struct rs_ctl_region r;
	uint64_t size;

	full_params(&p, &size);
	p.size = RS_REGION_PARAMS_SIZE_V1;
	ck_assert_int_eq(vmm_ctl_region_from_params(&r, &p, size), 0);
	ck_assert_uint_eq(r.sideband_pages, 0);
	ck_assert_uint_eq(r.nr_rings, 3);
	ck_assert_uint_eq(r.doorbell_addr, RS_BOOT_DOORBELL_GPA);
}
END_TEST

/* The region the layout needs is larger than the one the peer made. */
START_TEST(region_params_too_small)
{
	struct rs_region_params p, back;
	struct rs_ctl_region r;
	uint64_t size;

	full_params(&p, &size);
	ck_assert_int_eq(vmm_ctl_region_from_params(&r, &p, size - 1), 0);
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, &back), -EPROTO);
	/* filled all the same, for a message that names the fields */
	ck_assert_mem_eq(&back, &p, sizeof(p));
	r.region_size = 0;
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, &back), -EPROTO);
	r.region_size = size;
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, &back), 0);
}
END_TEST

/* Geometry the ring library refuses, whatever the region's size. */
START_TEST(region_params_bad_geometry)
{
	struct rs_region_params p, back;
	struct rs_ctl_region r, bad;
	uint64_t size;

	full_params(&p, &size);
	ck_assert_int_eq(vmm_ctl_region_from_params(&r, &p, UINT64_MAX), 0);
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, &back), 0);

	bad = r;
	bad.nr_rings = 0;
	ck_assert_int_eq(vmm_ctl_region_to_params(&bad, &back), -EPROTO);
	bad = r;
	bad.nr_rings = RS_MAX_RINGS + 1;
	ck_assert_int_eq(vmm_ctl_region_to_params(&bad, &back), -EPROTO);
	bad = r;
	bad.data_pages = 3;
	ck_assert_int_eq(vmm_ctl_region_to_params(&bad, &back), -EPROTO);
	bad = r;
	bad.aux_pages = 6;
	ck_assert_int_eq(vmm_ctl_region_to_params(&bad, &back), -EPROTO);
	bad = r;
	bad.data_mode = RS_MODE_OVERWRITE + 1;
	ck_assert_int_eq(vmm_ctl_region_to_params(&bad, &back), -EPROTO);
	bad = r;
	bad.data_watermark = bad.data_pages * RS_PAGE_SIZE;
	ck_assert_int_eq(vmm_ctl_region_to_params(&bad, &back), -EPROTO);
	bad = r;
	bad.sideband_pages = UINT32_MAX;
	ck_assert_int_eq(vmm_ctl_region_to_params(&bad, &back), -EPROTO);
}
END_TEST

START_TEST(region_from_params_null)
{
	struct rs_region_params p;
	struct rs_ctl_region r;
	uint64_t size;

	full_params(&p, &size);
	ck_assert_int_eq(vmm_ctl_region_from_params(NULL, &p, size), -EINVAL);
	ck_assert_int_eq(vmm_ctl_region_from_params(&r, NULL, size), -EINVAL);
}
END_TEST

START_TEST(region_params_null)
{
	struct rs_region_params p;
	struct rs_ctl_region r;
	uint64_t size;

	full_params(&p, &size);
	ck_assert_int_eq(vmm_ctl_region_from_params(&r, &p, size), 0);
	ck_assert_int_eq(vmm_ctl_region_to_params(NULL, &p), -EINVAL);
	ck_assert_int_eq(vmm_ctl_region_to_params(&r, NULL), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm_control_region");
	TCase *tc = tcase_create("control_region");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, region_params_round_trip);
	tcase_add_test(tc, region_ctl_round_trip);
	tcase_add_test(tc, region_from_params_v1);
	tcase_add_test(tc, region_params_too_small);
	tcase_add_test(tc, region_params_bad_geometry);
	tcase_add_test(tc, region_from_params_null);
	tcase_add_test(tc, region_params_null);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
