/* SPDX-License-Identifier: MIT */
/* Producer clock to ns (time.c, ring.c): rs_time_to_ns,
 * rs_ring_time_publish and rs_ring_time_read, including a guest that
 * scribbles on the fields. */
#include <stdint.h>
#include <string.h>

#include "fixture.h"

static struct fx_region f;
static struct rs_ring ring;

static void setup(void)
{
	struct rs_region_params p;

	fx_params(&p, 1, 0);
	fx_region_init(&f, &p, 0);
	ck_assert_int_eq(rs_region_ring(&f.region, 0, &ring), 0);
}

static void teardown(void)
{
	fx_region_fini(&f);
}

/* A 3 GHz clock: shift 31, mult = (1e6 << 31) / 3e6. */
static const struct rs_time_conv ghz3 = {
	.time_zero = 1000, .time_mult = 715827882, .time_shift = 31,
};

START_TEST(time_to_ns_scales)
{
	/* 3e9 ticks are one second, give or take the multiplier's rounding */
	uint64_t ns = rs_time_to_ns(&ghz3, 3000000000ull) - 1000;

	ck_assert_uint_ge(ns, 999999990ull);
	ck_assert_uint_le(ns, 1000000000ull);
	ck_assert_uint_eq(rs_time_to_ns(&ghz3, 0), 1000);
	/* large values: quot/rem split keeps the product from overflowing */
	ns = rs_time_to_ns(&ghz3, 3000000000ull * 3600 * 24) - 1000;
	ck_assert_uint_ge(ns, 86399999000000ull);
	ck_assert_uint_le(ns, 86400000000000ull);
}
END_TEST

START_TEST(time_to_ns_identity)
{
	struct rs_time_conv none = { 0 };
	struct rs_time_conv bad = ghz3;

	bad.time_shift = 64;
	ck_assert_uint_eq(rs_time_to_ns(NULL, 12345), 12345);
	ck_assert_uint_eq(rs_time_to_ns(&none, 12345), 12345);
	ck_assert_uint_eq(rs_time_to_ns(&bad, 12345), 12345);
}
END_TEST

START_TEST(time_publish_read)
{
	struct rs_ctrl_page *c = fx_ctrl(&f, 0);
	struct rs_time_conv tc;

	memset(&tc, 0xa5, sizeof(tc));
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 0);
	ck_assert_uint_eq(tc.time_mult, 0);
	ck_assert_int_eq(rs_ring_time_publish(&ring, &ghz3), 0);
	ck_assert_uint_eq(c->lock % 2, 0);
	ck_assert_uint_ne(c->lock, 0);
	ck_assert_uint_eq(c->time_shift, 31);
	ck_assert_uint_eq(c->time_mult, ghz3.time_mult);
	ck_assert_uint_eq(c->time_zero, 1000);
	ck_assert_uint_eq(c->capabilities & (RS_CAP_USER_TIME | RS_CAP_USER_TIME_ZERO),
			  RS_CAP_USER_TIME | RS_CAP_USER_TIME_ZERO);
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 1);
	ck_assert_uint_eq(tc.time_zero, ghz3.time_zero);
	ck_assert_uint_eq(tc.time_mult, ghz3.time_mult);
	ck_assert_uint_eq(tc.time_shift, ghz3.time_shift);
}
END_TEST

/* What the guest can do to the page: every variant reads as "none". */
START_TEST(time_read_hostile)
{
	struct rs_ctrl_page *c = fx_ctrl(&f, 0);
	struct rs_time_conv tc;

	ck_assert_int_eq(rs_ring_time_publish(&ring, &ghz3), 0);
	c->lock |= 1;                       /* a writer that never finishes */
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 0);
	ck_assert_uint_eq(tc.time_mult, 0);
	c->lock++;
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 1);
	c->time_shift = 64;                 /* shift by 64 would be undefined */
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 0);
	c->time_shift = 31;
	c->time_mult = 0;
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 0);
	c->time_mult = ghz3.time_mult;
	c->capabilities &= ~(uint64_t)RS_CAP_USER_TIME_ZERO;
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 0);
}
END_TEST

START_TEST(time_null)
{
	struct rs_time_conv tc = ghz3;
	struct rs_ring none = { 0 };

	ck_assert_int_eq(rs_ring_time_read(NULL, &tc), -rse_invalid);
	ck_assert_int_eq(rs_ring_time_read(&ring, NULL), -rse_invalid);
	ck_assert_int_eq(rs_ring_time_read(&none, &tc), -rse_invalid);
	ck_assert_int_eq(rs_ring_time_publish(NULL, &tc), -rse_invalid);
	ck_assert_int_eq(rs_ring_time_publish(&ring, NULL), -rse_invalid);
	tc.time_mult = 0;
	ck_assert_int_eq(rs_ring_time_publish(&ring, &tc), -rse_invalid);
	tc = ghz3;
	tc.time_shift = 64;
	ck_assert_int_eq(rs_ring_time_publish(&ring, &tc), -rse_invalid);
	ck_assert_int_eq(rs_ring_time_read(&ring, &tc), 0);  /* nothing published */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("time");
	TCase *tc = fx_tcase(s, "time");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, time_to_ns_scales);
	tcase_add_test(tc, time_to_ns_identity);
	tcase_add_test(tc, time_publish_read);
	tcase_add_test(tc, time_read_hostile);
	tcase_add_test(tc, time_null);
	return fx_run(s);
}
