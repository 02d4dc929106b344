/* SPDX-License-Identifier: MIT */
/*
 * Who the guest says it is (capture/src/cap_guest_facts.c): its block made
 * fit for a file's header (strings ended and cleaned, implausible
 * numbers left out and counted), read from a region in every state the
 * guest can leave it, and taken by a recording whether the guest spoke
 * before it began or during it, and by a snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "ringside/capture.h"
#include "ringside/ring.h"

static void fill(struct rs_guest_info *gi)
{
	memset(gi, 0, sizeof(*gi));
	gi->nr_cpus_online = 2;
	gi->nr_cpus_avail = 4;
	gi->mem_total_kib = 2014276;
	gi->sample_period = 1000;
	gi->sample_flags = RS_SAMPLE_FREQ;
	gi->sample_type_id = 1;
	gi->sample_config = 0;
	strcpy(gi->hostname, "guest-vm");
	strcpy(gi->os_release, "6.1.0-41-amd64");
	strcpy(gi->arch, "x86_64");
	strcpy(gi->cpu_desc, "QEMU Virtual CPU version 2.5+");
}

START_TEST(plain_claims_pass)
{
	struct rs_guest_info gi;
	struct cap_guest_facts g;

	fill(&gi);
	cap_guest_facts_from(&g, &gi);
	ck_assert_int_eq(g.state, CAP_GUEST_FACTS_OK);
	ck_assert_uint_eq(g.facts.known, 1);
	ck_assert_uint_eq(g.left_out, 0);
	ck_assert_uint_eq(g.replaced, 0);
	ck_assert_str_eq(g.facts.hostname, "guest-vm");
	ck_assert_str_eq(g.facts.os_release, "6.1.0-41-amd64");
	ck_assert_str_eq(g.facts.arch, "x86_64");
	ck_assert_str_eq(g.facts.cpu_desc, "QEMU Virtual CPU version 2.5+");
	ck_assert_uint_eq(g.facts.nr_cpus_online, 2);
	ck_assert_uint_eq(g.facts.nr_cpus_avail, 4);
	ck_assert_uint_eq(g.facts.mem_total_kib, 2014276);
	ck_assert_uint_eq(g.facts.sample_period, 1000);
	ck_assert_uint_eq(g.facts.sample_flags, RS_SAMPLE_FREQ);
	ck_assert_uint_eq(g.facts.sample_type_id, 1);
}
END_TEST

/* Whole fields without a NUL end at the field; control and high bytes
 * become '?', each counted; what follows a NUL is padding. */
START_TEST(strings_ended_and_cleaned)
{
	struct rs_guest_info gi;
	struct cap_guest_facts g;

	fill(&gi);
	memset(gi.hostname, 'h', sizeof(gi.hostname));
	memset(gi.arch, 'a', sizeof(gi.arch));
	memcpy(gi.os_release, "6.1\n\033[31m\xff", 11);
	memcpy(gi.cpu_desc, "cpu\0\x01\x02hidden", 13);
	cap_guest_facts_from(&g, &gi);
	ck_assert_uint_eq(strlen(g.facts.hostname), sizeof(gi.hostname));
	ck_assert_uint_eq(strlen(g.facts.arch), sizeof(gi.arch));
	ck_assert_str_eq(g.facts.os_release, "6.1??[31m?");
	ck_assert_str_eq(g.facts.cpu_desc, "cpu");
	ck_assert_uint_eq(g.replaced, 3);
	ck_assert_uint_eq(g.left_out, 0);
}
END_TEST

/* Numbers no real guest reports are left out (0), never clamped. */
START_TEST(numbers_bounded)
{
	struct rs_guest_info gi;
	struct cap_guest_facts g;

	fill(&gi);
	gi.nr_cpus_online = CAP_GUEST_FACTS_MAX_CPUS + 1;
	gi.nr_cpus_avail = UINT32_MAX;
	gi.mem_total_kib = CAP_GUEST_FACTS_MAX_KIB + 1;
	cap_guest_facts_from(&g, &gi);
	ck_assert_uint_eq(g.facts.nr_cpus_online, 0);
	ck_assert_uint_eq(g.facts.nr_cpus_avail, 0);
	ck_assert_uint_eq(g.facts.mem_total_kib, 0);
	ck_assert_uint_eq(g.left_out, 3);
	ck_assert_uint_eq(g.facts.sample_period, 1000);   /* the rest stands */
	/* more online than there are */
	fill(&gi);
	gi.nr_cpus_online = 8;
	gi.nr_cpus_avail = 4;
	cap_guest_facts_from(&g, &gi);
	ck_assert_uint_eq(g.facts.nr_cpus_online, 8);
	ck_assert_uint_eq(g.facts.nr_cpus_avail, 0);
	ck_assert_uint_eq(g.left_out, 1);
	/* the largest plausible values pass */
	fill(&gi);
	gi.nr_cpus_online = gi.nr_cpus_avail = CAP_GUEST_FACTS_MAX_CPUS;
	gi.mem_total_kib = CAP_GUEST_FACTS_MAX_KIB;
	cap_guest_facts_from(&g, &gi);
	ck_assert_uint_eq(g.left_out, 0);
	ck_assert_uint_eq(g.facts.mem_total_kib, CAP_GUEST_FACTS_MAX_KIB);
}
END_TEST

/* The sampling event is passed on whole or not at all. */
enum { EV_FREQ, EV_ZERO, EV_FLAGS, EV_BOTH_EXCL, EV_TYPE, EV_PERIOD,
       NR_BAD_EVENTS };

START_TEST(event_all_or_nothing)
{
	struct rs_guest_info gi;
	struct cap_guest_facts g;

	fill(&gi);
	switch (_i) {
	case EV_FREQ:
		gi.sample_period = CAP_GUEST_FACTS_MAX_FREQ + 1;
		break;
	case EV_ZERO:
		gi.sample_period = 0;
		break;
	case EV_FLAGS:
		gi.sample_flags |= 1u << 7;
		break;
	case EV_BOTH_EXCL:
		gi.sample_flags |= RS_SAMPLE_EXCLUDE_USER |
				   RS_SAMPLE_EXCLUDE_KERNEL;
		break;
	case EV_TYPE:
		gi.sample_type_id = CAP_GUEST_FACTS_MAX_TYPE + 1;
		break;
	case EV_PERIOD:
		gi.sample_flags = 0;
		gi.sample_period = 1ull << 63;
		break;
	}
	cap_guest_facts_from(&g, &gi);
	ck_assert_uint_eq(g.left_out, 1);
	ck_assert_uint_eq(g.facts.sample_period, 0);
	ck_assert_uint_eq(g.facts.sample_flags, 0);
	ck_assert_uint_eq(g.facts.sample_type_id, 0);
	ck_assert_uint_eq(g.facts.sample_config, 0);
	ck_assert_str_eq(g.facts.hostname, "guest-vm");
}
END_TEST

START_TEST(event_plausible)
{
	struct rs_guest_info gi;
	struct cap_guest_facts g;

	fill(&gi);
	gi.sample_flags = RS_SAMPLE_EXCLUDE_KERNEL;   /* a period */
	gi.sample_period = 1000000;
	gi.sample_type_id = 0;
	gi.sample_config = 0;
	cap_guest_facts_from(&g, &gi);
	ck_assert_uint_eq(g.left_out, 0);
	ck_assert_uint_eq(g.facts.sample_period, 1000000);
	ck_assert_uint_eq(g.facts.sample_flags, RS_SAMPLE_EXCLUDE_KERNEL);
	/* nothing said of it: nothing left out */
	fill(&gi);
	gi.sample_period = gi.sample_flags = gi.sample_type_id = 0;
	gi.sample_config = 0;
	cap_guest_facts_from(&g, &gi);
	ck_assert_uint_eq(g.left_out, 0);
	ck_assert_uint_eq(g.facts.sample_period, 0);
}
END_TEST

/* ---- regions ---- */

struct fixture {
	void *mem;
	uint64_t size;
	struct rs_region region;
	struct rs_region_header *hdr;
};

static void region_make(struct fixture *f)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = 4,
		.data_mode = RS_MODE_NORMAL,
		.aux_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST,
	};

	ck_assert_int_eq(rs_region_size(&params, &f->size), 0);
	f->mem = aligned_alloc(RS_PAGE_SIZE, f->size);
	ck_assert_ptr_nonnull(f->mem);
	ck_assert_int_eq(rs_region_layout(f->mem, f->size, &params), 0);
	ck_assert_int_eq(rs_region_enable(f->mem), 0);
	ck_assert_int_eq(rs_region_open(&f->region, f->mem, f->size), 0);
	f->hdr = f->mem;
}

static void publish(struct fixture *f)
{
	struct rs_guest_info gi;

	fill(&gi);
	gi.cpu_desc[0] = '\t';
	ck_assert_int_eq(rs_guest_info_publish(&f->region, &gi), 0);
}

START_TEST(read_every_state)
{
	struct cap_guest_facts g;
	struct fixture f;

	region_make(&f);
	ck_assert_int_eq(cap_guest_facts_read(&g, &f.region), CAP_GUEST_FACTS_NONE);
	ck_assert_uint_eq(g.facts.known, 0);
	publish(&f);
	ck_assert_int_eq(cap_guest_facts_read(&g, &f.region), CAP_GUEST_FACTS_OK);
	ck_assert_str_eq(g.facts.os_release, "6.1.0-41-amd64");
	ck_assert_uint_eq(g.facts.cpu_desc[0], '?');
	ck_assert_uint_eq(g.replaced, 1);
	f.hdr->info.seq |= 1u;      /* a writer that stopped halfway */
	ck_assert_int_eq(cap_guest_facts_read(&g, &f.region), CAP_GUEST_FACTS_BUSY);
	ck_assert_uint_eq(g.facts.known, 0);
	ck_assert_uint_eq((uint8_t)g.facts.hostname[0], 0);
	f.hdr->info.seq++;
	f.hdr->info.magic ^= 1u;
	ck_assert_int_eq(cap_guest_facts_read(&g, &f.region), CAP_GUEST_FACTS_CORRUPT);
	ck_assert_uint_eq(g.facts.known, 0);
	ck_assert_int_eq(cap_guest_facts_read(NULL, &f.region), -rse_invalid);
	ck_assert_int_eq(cap_guest_facts_read(&g, NULL), -rse_invalid);
	free(f.mem);
}
END_TEST

/* ---- a recording and a snapshot ---- */

struct late {
	struct fixture *f;
	int calls;
	int publish_at;           /* the finished call that publishes (-1) */
};

/* The producer ends at its third look; it publishes at @publish_at. */
static int finished(void *arg)
{
	struct late *l = arg;

	if (l->calls == l->publish_at)
		publish(l->f);
	return ++l->calls >= 3 ? CAP_RECORDER_GONE : CAP_RECORDER_HERE;
}

static void out_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/rs-test-gfacts-%d.data",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
}

static struct cap_recorder *record(struct fixture *f, struct late *l,
				   const char *output)
{
	struct cap_recorder_config c;
	struct cap_recorder *r;

	cap_recorder_config_init(&c);
	c.source = "test";
	c.output = output;
	c.interval_ms = 1;
	c.finished = finished;
	c.finished_arg = l;
	l->f = f;
	ck_assert_int_eq(cap_recorder_new(&r, &c), 0);
	ck_assert_int_eq(cap_recorder_run(r, &f->region), 0);
	ck_assert_int_eq(cap_recorder_stats(r)->fail.what, CAP_FAIL_NONE);
	return r;
}

START_TEST(recording_takes_it)
{
	struct late l = { .publish_at = -1 };
	struct cap_recorder *r;
	struct fixture f;
	char path[256];

	out_path(path, sizeof(path));
	/* published before the start: in the file from its opening */
	region_make(&f);
	publish(&f);
	r = record(&f, &l, path);
	ck_assert_int_eq(cap_recorder_stats(r)->guest.state, CAP_GUEST_FACTS_OK);
	ck_assert_int_eq(cap_recorder_stats(r)->guest_late, 0);
	ck_assert_str_eq(cap_recorder_stats(r)->guest.facts.hostname, "guest-vm");
	ck_assert_int_eq(access(path, F_OK), 0);
	unlink(path);
	cap_recorder_free(r);
	free(f.mem);
	/* published while it records: set in the file later */
	region_make(&f);
	l = (struct late){ .publish_at = 1 };
	r = record(&f, &l, path);
	ck_assert_int_eq(cap_recorder_stats(r)->guest.state, CAP_GUEST_FACTS_OK);
	ck_assert_int_eq(cap_recorder_stats(r)->guest_late, 1);
	ck_assert_str_eq(cap_recorder_stats(r)->guest.facts.os_release, "6.1.0-41-amd64");
	unlink(path);
	cap_recorder_free(r);
	free(f.mem);
	/* never published: the file says nothing of the guest */
	region_make(&f);
	l = (struct late){ .publish_at = -1 };
	r = record(&f, &l, path);
	ck_assert_int_eq(cap_recorder_stats(r)->guest.state, CAP_GUEST_FACTS_NONE);
	ck_assert_uint_eq(cap_recorder_stats(r)->guest.facts.known, 0);
	ck_assert_int_eq(cap_recorder_stats(r)->guest_late, 0);
	unlink(path);
	cap_recorder_free(r);
	free(f.mem);
}
END_TEST

START_TEST(snapshot_takes_it)
{
	struct cap_snapper_config c;
	struct cap_snapper *s;
	struct fixture f;
	char path[256];

	out_path(path, sizeof(path));
	region_make(&f);
	publish(&f);
	cap_snapper_config_init(&c);
	c.source = "test";
	c.output = path;
	ck_assert_int_eq(cap_snapper_new(&s, &c), 0);
	ck_assert_int_eq(cap_snapper_copy(s, &f.region), 0);
	ck_assert_int_eq(cap_snapper_stats(s)->guest.state, CAP_GUEST_FACTS_OK);
	ck_assert_uint_eq(cap_snapper_stats(s)->guest.facts.mem_total_kib, 2014276);
	ck_assert_int_eq(cap_snapper_write(s), 0);
	unlink(path);
	cap_snapper_free(s);
	free(f.mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("guest_facts");
	TCase *tc = tcase_create("guest_facts");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, plain_claims_pass);
	tcase_add_test(tc, strings_ended_and_cleaned);
	tcase_add_test(tc, numbers_bounded);
	tcase_add_loop_test(tc, event_all_or_nothing, 0, NR_BAD_EVENTS);
	tcase_add_test(tc, event_plausible);
	tcase_add_test(tc, read_every_state);
	tcase_add_test(tc, recording_takes_it);
	tcase_add_test(tc, snapshot_takes_it);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
