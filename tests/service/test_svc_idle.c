/* SPDX-License-Identifier: MIT */
/* The recorders' backoff while their rings are idle (svc_idle_*): the
 * next sleep after a pass, and the longest sleep a region's rings allow,
 * which must be `ringside enable`'s arithmetic (dom_cfg_hold) turned
 * around: no ring that was empty when the recorder fell asleep can fill
 * before it wakes. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/domain.h"
#include "ringside/ring.h"
#include "ringside/service_idle.h"

/* A domain's rings as `enable` lays them out: @pages data pages, @freq Hz,
 * samples traced. */
static struct svc_idle_rings rings(uint32_t pages, uint64_t freq)
{
	return (struct svc_idle_rings){
		.min_data_bytes = (uint64_t)pages * RS_PAGE_SIZE,
		.sample_freq = freq,
		.samples = 1,
	};
}

/* Found nothing: the sleep doubles from the interval up to the bound,
 * and stays there; found something: the interval at once. */
START_TEST(doubles_then_resets)
{
	static const uint32_t want[] = { 100, 200, 400, 800, 1000, 1000, 1000 };
	uint32_t ms = 0;

	ms = svc_idle_next(ms, 0, 100, 1000);
	ck_assert_uint_eq(ms, 100);   /* the first sleep: the interval */
	for (unsigned i = 1; i < sizeof(want) / sizeof(want[0]); i++) {
		ms = svc_idle_next(ms, 0, 100, 1000);
		ck_assert_uint_eq(ms, want[i]);
	}
	ck_assert_uint_eq(svc_idle_next(ms, 1, 100, 1000), 100);
	ck_assert_uint_eq(svc_idle_next(400, 1, 100, 1000), 100);
	/* a bound not a power-of-two multiple of the interval: reached,
	 * never passed */
	ck_assert_uint_eq(svc_idle_next(200, 0, 100, 229), 229);
	ck_assert_uint_eq(svc_idle_next(229, 0, 100, 229), 229);
}
END_TEST

/* A bound below the interval never shortens the interval; a last sleep
 * below it (a sleep cut short, none yet) starts from it; no overflow. */
START_TEST(edges)
{
	ck_assert_uint_eq(svc_idle_next(100, 0, 100, 50), 100);
	ck_assert_uint_eq(svc_idle_next(100, 0, 100, 0), 100);
	ck_assert_uint_eq(svc_idle_next(30, 0, 100, 1000), 100);
	ck_assert_uint_eq(svc_idle_next(UINT32_MAX - 1, 0, 100, UINT32_MAX),
			  UINT32_MAX);
	ck_assert_uint_eq(svc_idle_next(0, 0, 10, 80), 10);
	ck_assert_uint_eq(svc_idle_next(10, 0, 10, 80), 20);
}
END_TEST

/* The hold time is enable's: dom_cfg_hold's time at the largest samples. */
START_TEST(hold_is_enables)
{
	static const uint32_t pages[] = { 1, 16, 64, 256, 1024 };
	static const uint32_t freqs[] = { 1, 99, 1000, 4000, 10000, 100000 };

	for (unsigned i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		for (unsigned k = 0; k < sizeof(freqs) / sizeof(freqs[0]); k++) {
			struct svc_idle_rings r = rings(pages[i], freqs[k]);
			struct dom_cfg c;
			struct dom_hold h;

			dom_cfg_default(&c);
			c.data_pages = pages[i];
			c.freq = freqs[k];
			dom_cfg_hold(&c, 0, &h);
			ck_assert_uint_eq(svc_idle_hold_ms(&r),
					  h.hold_us_max / 1000u);
		}
	/* the default ring, 256 KiB at 1000 Hz: 239 ms, less the 10 ms
	 * stall */
	{
		struct svc_idle_rings r = rings(64, 1000);

		ck_assert_uint_eq(svc_idle_hold_ms(&r), 239);
		ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 229);
		ck_assert_uint_eq(svc_idle_bound(&r, 100, 39), 200);
	}
}
END_TEST

/* The safety of the bound: a ring empty when the recorder falls asleep,
 * written from that moment at the region's rate with the largest
 * samples, holds what comes during the longest sleep and the host's
 * stall after it; or the bound is the interval (nothing gained, nothing
 * lost against today's pass). */
START_TEST(bound_is_safe)
{
	const uint64_t sample = dom_cfg_sample_bytes(DOM_CHAIN_FRAMES_MAX);

	for (uint32_t pages = 1; pages <= 4096; pages <<= 1)
		for (uint64_t freq = 1; freq <= 100000; freq = freq * 3 + 1)
			for (uint32_t stall = 1; stall <= 200; stall *= 7) {
				struct svc_idle_rings r = rings(pages, freq);
				uint32_t b = svc_idle_bound(&r, 100, stall);
				uint64_t bytes;

				ck_assert_uint_ge(b, 100);
				ck_assert_uint_le(b, SVC_IDLE_MAX_MS);
				if (b == 100)
					continue;
				/* what the rate writes in b + stall ms */
				bytes = freq * sample * (b + stall) / 1000u;
				ck_assert_uint_le(bytes, r.min_data_bytes);
			}
}
END_TEST

/* Nothing bounds the rate: no backoff.  Long rings: the cap. */
START_TEST(no_bound_no_backoff)
{
	struct svc_idle_rings r = rings(64, 0);

	ck_assert_uint_eq(svc_idle_hold_ms(&r), UINT32_MAX);
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 100);
	r = rings(64, 1000);
	r.samples = 0;             /* markers alone: at no stated rate */
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 100);
	r = rings(64, 1000);
	r.aux_normal = 1;          /* PT bytes: at no stated rate */
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 100);
	r = rings(1, 1000);        /* 4 KiB: 3 ms, less than the interval */
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 100);
	r = rings(4096, 1000);     /* 16 MiB: 15 s, capped */
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), SVC_IDLE_MAX_MS);
	r = rings(256, 1000);      /* 1 MiB: 956 ms - 10 */
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 946);
	r = rings(64, UINT64_MAX); /* a region's nonsense rate */
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 100);
	r = rings(0, 1000);        /* no ring */
	ck_assert_uint_eq(svc_idle_bound(&r, 100, 0), 100);
}
END_TEST

/* A region laid out with @aux_pages AUX pages in @aux_mode, tracing
 * @mask at 1000 Hz, read back as its recorder reads it. */
static struct svc_idle_rings of_region(uint32_t aux_pages, uint32_t aux_mode,
				       uint64_t mask)
{
	struct rs_region_params params;
	struct svc_idle_rings r;
	struct rs_region region;
	uint64_t size;
	void *mem;

	ck_assert_int_eq(rs_region_params_init(&params, 2, 16, aux_pages,
					       RS_MODE_NORMAL, aux_mode), 0);
	params.trace_mask = mask;
	params.sample_freq = 1000;
	ck_assert_int_eq(rs_region_size(&params, &size), 0);
	mem = aligned_alloc(RS_PAGE_SIZE, size);
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(rs_region_layout(mem, size, &params), 0);
	ck_assert_int_eq(rs_region_enable(mem), 0);
	ck_assert_int_eq(rs_region_open(&region, mem, size), 0);
	memset(&r, 0xa5, sizeof(r));
	svc_idle_rings_of(&region, &r);
	free(mem);
	return r;
}

/* What the recorders bound their sleeps by comes from the region: its
 * rings' data areas, its rate, whether it samples, a normal-mode AUX
 * area. */
START_TEST(rings_of_region)
{
	struct svc_idle_rings r = of_region(0, RS_MODE_NORMAL,
					    RS_TRACE_SAMPLES);
	struct svc_idle_rings want = rings(16, 1000);

	ck_assert_uint_eq(r.min_data_bytes, want.min_data_bytes);
	ck_assert_uint_eq(r.sample_freq, 1000);
	ck_assert_int_eq(r.samples, 1);
	ck_assert_int_eq(r.aux_normal, 0);
	ck_assert_uint_eq(svc_idle_bound(&r, 10, 0),
			  svc_idle_bound(&want, 10, 0));
	ck_assert_uint_gt(svc_idle_bound(&r, 10, 0), 10);
	/* markers alone: no rate bounds them, no backoff */
	r = of_region(0, RS_MODE_NORMAL, RS_TRACE_MARKERS);
	ck_assert_int_eq(r.samples, 0);
	ck_assert_uint_eq(svc_idle_bound(&r, 10, 0), 10);
	/* PT bytes drained in normal mode: none either */
	r = of_region(4, RS_MODE_NORMAL, RS_TRACE_SAMPLES);
	ck_assert_int_eq(r.aux_normal, 1);
	ck_assert_uint_eq(svc_idle_bound(&r, 10, 0), 10);
	/* an overwrite-mode AUX area is not drained: the data rings bound */
	r = of_region(4, RS_MODE_OVERWRITE, RS_TRACE_SAMPLES);
	ck_assert_int_eq(r.aux_normal, 0);
	ck_assert_uint_eq(svc_idle_bound(&r, 10, 0),
			  svc_idle_bound(&want, 10, 0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_idle");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, doubles_then_resets);
	tcase_add_test(tc, edges);
	tcase_add_test(tc, hold_is_enables);
	tcase_add_test(tc, bound_is_safe);
	tcase_add_test(tc, no_bound_no_backoff);
	tcase_add_test(tc, rings_of_region);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
