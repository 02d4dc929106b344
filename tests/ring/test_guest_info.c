/* SPDX-License-Identifier: MIT */
/*
 * Who the guest is: the guest's writer of the header's guest info block
 * (rs_guest_info_publish) and the host's one copy (rs_guest_info_read),
 * including a guest that leaves the block half written, lies in its frame,
 * fills it with noise, or rewrites it while the host copies.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static void params(struct rs_region_params *p)
{
	ck_assert_int_eq(rs_region_params_init(p, 2, 4, 0, RS_MODE_NORMAL,
					       RS_MODE_NORMAL), 0);
}

static struct rs_guest_info *block(const struct fx_region *f)
{
	return &fx_header(f)->info;
}

/* A block whose every field says @gen. */
static void fill(struct rs_guest_info *gi, uint8_t gen)
{
	memset(gi, 0, sizeof(*gi));
	gi->nr_cpus_online = gen;
	gi->nr_cpus_avail = gen + 1u;
	gi->mem_total_kib = (uint64_t)gen << 20;
	gi->sample_period = 1000u + gen;
	gi->sample_flags = RS_SAMPLE_FREQ;
	gi->sample_type_id = 1;
	gi->sample_config = gen;
	snprintf(gi->hostname, sizeof(gi->hostname), "guest-%u", gen);
	snprintf(gi->os_release, sizeof(gi->os_release), "6.1.0-%u-amd64", gen);
	snprintf(gi->arch, sizeof(gi->arch), "x86_64");
	/* a whole field, no NUL: it reaches the host as stored */
	memset(gi->cpu_desc, 'A' + gen % 26, sizeof(gi->cpu_desc));
}

/* @got is generation @gen of fill(), whole. */
static void check_gen(const struct rs_guest_info *got, uint8_t gen)
{
	struct rs_guest_info want;

	fill(&want, gen);
	FX_CHECK(got->magic == RS_GUEST_INFO_MAGIC, "magic %#x", got->magic);
	FX_CHECK(got->seq && !(got->seq & 1u), "seq %u", got->seq);
	want.magic = got->magic;
	want.seq = got->seq;
	FX_CHECK(!memcmp(&want, got, sizeof(want)),
		 "a copy that is not generation %u whole", gen);
}

START_TEST(never_written)
{
	struct rs_region_params p;
	struct rs_guest_info got;
	struct fx_region f;

	params(&p);
	fx_region_init(&f, &p, FX_GUARD);
	memset(&got, 0x5a, sizeof(got));
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), 0);
	ck_assert_uint_eq(got.magic, 0);
	ck_assert_uint_eq(got.nr_cpus_online, 0);
	ck_assert_uint_eq((uint8_t)got.hostname[0], 0);
	fx_region_fini(&f);
}
END_TEST

START_TEST(publish_then_read)
{
	struct rs_region_params p;
	struct rs_guest_info gi, got;
	struct fx_region f;
	uint8_t before[RS_PAGE_SIZE];
	uint32_t seq;

	params(&p);
	fx_region_init(&f, &p, FX_GUARD);
	memcpy(before, fx_header(&f), sizeof(before));
	fill(&gi, 7);
	gi.magic = 0x12345678u;      /* the caller's magic and seq are ignored */
	gi.seq = 41;
	ck_assert_int_eq(rs_guest_info_publish(&f.region, &gi), 0);
	/* nothing of the header outside the block is touched */
	ck_assert(!memcmp(before, fx_header(&f), RS_GUEST_INFO_OFFSET));
	ck_assert(!memcmp(before + RS_GUEST_INFO_OFFSET + sizeof(gi),
			  (uint8_t *)fx_header(&f) + RS_GUEST_INFO_OFFSET +
			  sizeof(gi),
			  RS_PAGE_SIZE - RS_GUEST_INFO_OFFSET - sizeof(gi)));
	ck_assert_uint_eq(block(&f)->magic, RS_GUEST_INFO_MAGIC);
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), 1);
	check_gen(&got, 7);
	ck_assert_uint_eq((uint8_t)got.cpu_desc[sizeof(got.cpu_desc) - 1], 'H');
	seq = got.seq;
	/* published again: a new generation, a new seq */
	fill(&gi, 8);
	ck_assert_int_eq(rs_guest_info_publish(&f.region, &gi), 0);
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), 1);
	check_gen(&got, 8);
	ck_assert_uint_eq(got.seq, seq + 2);
	fx_region_fini(&f);
}
END_TEST

START_TEST(half_written_and_bad_frame)
{
	struct rs_region_params p;
	struct rs_guest_info gi, got;
	struct fx_region f;

	params(&p);
	fx_region_init(&f, &p, FX_GUARD);
	fill(&gi, 3);
	ck_assert_int_eq(rs_guest_info_publish(&f.region, &gi), 0);
	/* a writer that stopped halfway: seq odd, no copy */
	block(&f)->seq |= 1u;
	memset(&got, 0x5a, sizeof(got));
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), -rse_busy);
	ck_assert_uint_eq(got.magic, 0);
	/* settled, but no writer's magic */
	block(&f)->seq += 1u;
	block(&f)->magic = RS_SIDEBAND_MAGIC;
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), -rse_corrupt);
	ck_assert_uint_eq(got.nr_cpus_online, 0);
	block(&f)->magic = 0;
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), -rse_corrupt);
	/* the guest writes it anew: read again */
	ck_assert_int_eq(rs_guest_info_publish(&f.region, &gi), 0);
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), 1);
	check_gen(&got, 3);
	fx_region_fini(&f);
}
END_TEST

START_TEST(caller_nonsense)
{
	struct rs_region_params p;
	struct rs_guest_info gi;
	struct rs_region none;
	struct fx_region f;

	params(&p);
	fx_region_init(&f, &p, 0);
	fill(&gi, 1);
	memset(&none, 0, sizeof(none));
	ck_assert_int_eq(rs_guest_info_publish(NULL, &gi), -rse_invalid);
	ck_assert_int_eq(rs_guest_info_publish(&f.region, NULL), -rse_invalid);
	ck_assert_int_eq(rs_guest_info_publish(&none, &gi), -rse_invalid);
	ck_assert_int_eq(rs_guest_info_read(NULL, &gi), -rse_invalid);
	ck_assert_int_eq(rs_guest_info_read(&f.region, NULL), -rse_invalid);
	ck_assert_int_eq(rs_guest_info_read(&none, &gi), -rse_invalid);
	ck_assert_uint_eq(block(&f)->seq, 0);
	fx_region_fini(&f);
}
END_TEST

/* Noise in the block: the read says what the frame is, copies exactly the
 * block's bytes when it accepts it, and reaches nothing outside it (the
 * guard pages would fault). */
START_TEST(hostile_random)
{
	struct rs_region_params p;
	struct rs_guest_info got;
	struct fx_region f;
	unsigned int seed = 24;
	int n[4] = { 0 };

	params(&p);
	fx_region_init(&f, &p, FX_GUARD);
	for (int i = 0; i < 20000; i++) {
		uint8_t *b = (uint8_t *)block(&f);
		int ret;

		for (size_t j = 0; j < sizeof(got); j++)
			b[j] = (uint8_t)rand_r(&seed);
		if (i % 4 == 0)
			block(&f)->magic = RS_GUEST_INFO_MAGIC;
		if (i % 8 == 0)
			block(&f)->seq &= ~1u;
		ret = rs_guest_info_read(&f.region, &got);
		FX_CHECK(ret == 1 || ret == 0 || ret == -rse_busy ||
			 ret == -rse_corrupt, "read %d", ret);
		if (ret == 1) {
			FX_CHECK(!memcmp(&got, b, sizeof(got)),
				 "an accepted copy differs from the block");
			FX_CHECK(got.magic == RS_GUEST_INFO_MAGIC, "magic");
		}
		n[ret == 1 ? 0 : ret == 0 ? 1 : ret == -rse_busy ? 2 : 3]++;
	}
	/* every outcome was reached */
	ck_assert_int_gt(n[0], 0);
	ck_assert_int_gt(n[2], 0);
	ck_assert_int_gt(n[3], 0);
	fx_region_fini(&f);
}
END_TEST

/* A guest that publishes while the host copies: every copy the host
 * accepts is one generation, whole. */
struct race {
	struct fx_region *f;
	volatile int stop;
	uint64_t writes;
};

static void *rewriter(void *arg)
{
	struct race *r = arg;
	struct rs_guest_info gi;
	uint8_t gen = 0;

	while (!r->stop) {
		fill(&gi, ++gen);
		if (rs_guest_info_publish(&r->f->region, &gi))
			break;
		__atomic_store_n(&r->writes, r->writes + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

START_TEST(concurrent_rewrite)
{
	struct rs_region_params p;
	struct rs_guest_info gi, got;
	struct fx_region f;
	struct race r = { .f = &f };
	pthread_t t;
	int good = 0, busy = 0;

	params(&p);
	fx_region_init(&f, &p, 0);
	fill(&gi, 0);
	ck_assert_int_eq(rs_guest_info_publish(&f.region, &gi), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, rewriter, &r), 0);
	/* copies until the writer has written a while (bounded: a writer
	 * that never ran leaves the test to check what it can) */
	for (int i = 0; i < 20000000 && (good < 2000 ||
	     __atomic_load_n(&r.writes, __ATOMIC_RELAXED) < 10000); i++) {
		int ret = rs_guest_info_read(&f.region, &got);

		if (ret == -rse_busy) {
			busy++;
			continue;
		}
		FX_CHECK(ret == 1, "read %d", ret);
		check_gen(&got, (uint8_t)got.nr_cpus_online);
		good++;
	}
	r.stop = 1;
	pthread_join(t, NULL);
	/* once the writer has stopped, a copy must succeed and be whole */
	ck_assert_int_eq(rs_guest_info_read(&f.region, &got), 1);
	check_gen(&got, (uint8_t)got.nr_cpus_online);
	ck_assert_uint_eq(got.seq, 2u * (r.writes + 1));
	fprintf(stderr, "concurrent_rewrite: %d consistent copies, %d busy, "
		"%llu writes\n", good, busy, (unsigned long long)r.writes);
	fx_region_fini(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("guest_info");
	TCase *tc = fx_tcase(s, "guest_info");

	tcase_add_test(tc, never_written);
	tcase_add_test(tc, publish_then_read);
	tcase_add_test(tc, half_written_and_bad_frame);
	tcase_add_test(tc, caller_nonsense);
	tcase_add_test(tc, hostile_random);
	tcase_add_test(tc, concurrent_rewrite);
	return fx_run(s);
}
