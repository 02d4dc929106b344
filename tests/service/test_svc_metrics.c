/* SPDX-License-Identifier: MIT */
/*
 * The service's metrics: the exposition text of a region file made here
 * (a producer writes into it as a guest would), checked against the text
 * format's rules, and the address of the HTTP endpoint that serves it
 * (test_svc_http.c tests the endpoint).
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ringside/abi.h"
#include "ringside/ring.h"
#include "ringside/service.h"
#include "ringside/service_metrics.h"

#define S 1000000000ull
#define DATA_PAGES 4u

static char path[] = "/tmp/svc-metrics-XXXXXX";
static void *mem;
static uint64_t mem_size;
static int seq_size;          /* bytes of each record written */

/* A region of two rings in @mode; ring 0 gets 3 records, ring 1 none. */
static void make_region(uint32_t mode)
{
	struct rs_region_params params = {
		.size = sizeof(params), .nr_rings = 2, .data_pages = DATA_PAGES,
		.data_mode = mode, .aux_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST,
	};
	struct rs_region region;
	struct rs_producer p;
	_Alignas(8) uint8_t buf[RS_RECORD_MAX];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(rs_region_size(&params, &mem_size), 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)mem_size), 0);
	mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	close(fd);
	ck_assert_int_eq(rs_region_layout(mem, mem_size, &params), 0);
	ck_assert_int_eq(rs_region_enable(mem), 0);
	ck_assert_int_eq(rs_region_open(&region, mem, mem_size), 0);
	ck_assert_int_eq(rs_producer_init(&p, &region, 0), 0);
	for (int i = 0; i < 3; i++) {
		seq_size = rs_seq_build(buf, (uint64_t)i, 1000, 0, 0);
		ck_assert_int_gt(seq_size, 8);
		ck_assert_int_ge(rs_producer_output(&p, RS_RECORD_SEQ, 0, buf + 8,
						    (uint32_t)seq_size - 8), 0);
	}
}

static void setup(void)
{
	make_region(RS_MODE_NORMAL);
}

static void teardown(void)
{
	munmap(mem, mem_size);
	unlink(path);
	strcpy(path, "/tmp/svc-metrics-XXXXXX");
}

static struct rs_guest_status *status(void)
{
	return &((struct rs_region_header *)mem)->status;
}

/* The text's rules: every sample after its family's "# HELP" and
 * "# TYPE", each family once and contiguous, every line ending in a
 * newline, counters named *_total. */
static void check_format(const char *text, size_t len)
{
	char family[128] = "", seen[16384] = " ";
	const char *l = text;

	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(text[len - 1], '\n');
	ck_assert_uint_eq(strlen(text), len);
	while (*l) {
		const char *nl = strchr(l, '\n');
		char name[128], type[32];
		size_t n;

		ck_assert_ptr_nonnull(nl);
		if (!strncmp(l, "# HELP ", 7)) {
			ck_assert_int_eq(sscanf(l + 7, "%127s", name), 1);
			l = nl + 1;
			ck_assert_int_eq(sscanf(l, "# TYPE %127s %31s", family,
						type), 2);
			nl = strchr(l, '\n');
			ck_assert_ptr_nonnull(nl);
			ck_assert_str_eq(name, family);
			ck_assert(!strcmp(type, "counter") ||
				  !strcmp(type, "gauge"));
			if (!strcmp(type, "counter"))
				ck_assert_str_eq(family + strlen(family) - 6,
						 "_total");
			snprintf(name, sizeof(name), " %s ", family);
			ck_assert_msg(!strstr(seen, name), "%s twice", family);
			ck_assert_uint_lt(strlen(seen) + strlen(family) + 2,
					  sizeof(seen));
			strcat(seen, family);
			strcat(seen, " ");
		} else {
			ck_assert_int_ne(l[0], '#');
			n = strcspn(l, "{ ");
			ck_assert_msg(strlen(family) == n &&
				      !strncmp(l, family, n),
				      "sample %.*s outside its family %s",
				      (int)(nl - l), l, family);
		}
		l = nl + 1;
	}
}

/* Two recorded domains: one being recorded with a time sync, two rings;
 * one whose recording ended, its name to be escaped. */
static struct svc_rec_ring_stats rings_a[2] = {
	{ .records = 1234, .bytes = 98720, .aux_bytes = 4096, .lost = 17,
	  .corrupt = 2, .corrupt_bytes = 640, .not_written = 1 },
	{ .records = 5, .bytes = 400 },
};
static struct svc_rec_ring_stats rings_b[1] = { { .records = 77, .bytes = 7700 } };
static struct svc_rec_domain rec_doms[2] = {
	{ .domain = (char *)"rec-a", .recording = 1, .started = 1, .files = 6,
	  .rotations = 5, .pruned = 3, .pruned_bytes = 300000, .synced = 1,
	  .sync_bound_ns = 21500, .nr_rings = 2, .ring = rings_a },
	{ .domain = (char *)"rec\"b\\", .started = 2, .failed = 1,
	  .files = 1, .discarded = 9, .synced = 1, .sync_bound_ns = 999,
	  .nr_rings = 1, .ring = rings_b },
};

static char *text_of(struct svc_metrics *m, const struct svc_metrics_domain *d,
		     size_t nr, uint64_t now, size_t *len)
{
	struct svc_stats st = { .failed = 2, .rate_limited = 5, .hangs = 1,
				.requests = 4, .reconnects = 3,
				.rec = { .recording = 1, .files = 9,
					 .rotations = 8, .records = 40000,
					 .pprof_ok = 9, .discarded = 7,
					 .domains_dropped = 4 },
				.rec_domains = rec_doms, .nr_rec_domains = 2,
				.http_answers = { [SVC_HTTP_OK] = 11,
						  [SVC_HTTP_NOT_FOUND] = 2 },
				.http_dropped = 3 };
	char *text;

	ck_assert_int_eq(svc_metrics_text(m, &st, 1, d, nr, now, &text, len), 0);
	check_format(text, *len);
	return text;
}

#define DOM "vm\"a\\b\nc"
#define DOM_L "domain=\"vm\\\"a\\\\b\\nc\""

START_TEST(region_and_counters)
{
	struct svc_metrics *m;
	struct svc_metrics_domain d[2] = {
		{ DOM, path }, { "gone", "/nonexistent/region" } };
	char line[256], *t;
	size_t len;

	status()->attached = 1;
	status()->heartbeat = 41;
	ck_assert_int_eq(svc_metrics_new(&m), 0);
	ck_assert_int_eq(svc_metrics_capture(m, "d1", "panic", 1700000000.5), 0);
	ck_assert_int_eq(svc_metrics_capture(m, "d1", "panic", 1700000100.25), 0);
	ck_assert_int_eq(svc_metrics_capture(m, "d1", "hang", 1700000001.0), 0);
	t = text_of(m, d, 2, 100 * S, &len);
	snprintf(line, sizeof(line), "\nringside_ring_size_bytes{%s,ring=\"0\"} %u\n",
		 DOM_L, DATA_PAGES * RS_PAGE_SIZE);
	ck_assert_msg(strstr(t, line), "no %s in\n%s", line, t);
	snprintf(line, sizeof(line), "\nringside_ring_size_bytes{%s,ring=\"1\"} %u\n",
		 DOM_L, DATA_PAGES * RS_PAGE_SIZE);
	ck_assert(strstr(t, line));
	snprintf(line, sizeof(line), "\nringside_guest_claimed_produced_records_total"
		 "{%s,ring=\"0\"} 3\n", DOM_L);
	ck_assert_msg(strstr(t, line), "no %s in\n%s", line, t);
	snprintf(line, sizeof(line), "\nringside_guest_claimed_produced_records_total"
		 "{%s,ring=\"1\"} 0\n", DOM_L);
	ck_assert(strstr(t, line));
	/* 3 records, none consumed */
	snprintf(line, sizeof(line), "\nringside_ring_data_head_bytes{%s,ring=\"0\"} %d\n",
		 DOM_L, 3 * seq_size);
	ck_assert_msg(strstr(t, line), "no %s in\n%s", line, t);
	snprintf(line, sizeof(line), "\nringside_ring_fill_bytes{%s,ring=\"0\"} %d\n",
		 DOM_L, 3 * seq_size);
	ck_assert(strstr(t, line));
	snprintf(line, sizeof(line), "\nringside_agent_attached{%s} 1\n", DOM_L);
	ck_assert(strstr(t, line));
	snprintf(line, sizeof(line), "\nringside_guest_claimed_agent_heartbeats_total"
		 "{%s} 41\n", DOM_L);
	ck_assert(strstr(t, line));
	snprintf(line, sizeof(line), "\nringside_agent_heartbeat_age_seconds{%s} "
		 "0.000000\n", DOM_L);
	ck_assert(strstr(t, line));
	snprintf(line, sizeof(line), "\nringside_region_size_bytes{%s} %llu\n",
		 DOM_L, (unsigned long long)mem_size);
	ck_assert(strstr(t, line));
	ck_assert(strstr(t, "\nringside_region_mapped{domain=\"gone\"} 0\n"));
	ck_assert(!strstr(t, "ringside_ring_size_bytes{domain=\"gone\""));
	ck_assert(strstr(t, "\nringside_domains_enabled 1\n"));
	ck_assert(strstr(t, "\nringside_domains_watched 1\n"));
	ck_assert(strstr(t, "\nringside_captures_total{domain=\"d1\",reason=\"panic\"} 2\n"));
	ck_assert(strstr(t, "\nringside_captures_total{domain=\"d1\",reason=\"hang\"} 1\n"));
	ck_assert(strstr(t, "\nringside_last_capture_timestamp_seconds{domain=\"d1\","
			 "reason=\"panic\"} 1700000100.250000\n"));
	ck_assert(strstr(t, "\nringside_capture_failures_total 2\n"));
	ck_assert(strstr(t, "\nringside_capture_triggers_rate_limited_total 5\n"));
	ck_assert(strstr(t, "\nringside_hangs_total 1\n"));
	ck_assert(strstr(t, "\nringside_capture_requests_total 4\n"));
	ck_assert(strstr(t, "\nringside_recordings 1\n"));
	ck_assert(strstr(t, "\nringside_recording_files_total 9\n"));
	ck_assert(strstr(t, "\nringside_recording_rotations_total 8\n"));
	ck_assert(strstr(t, "\nringside_recording_records_total 40000\n"));
	ck_assert(strstr(t, "\nringside_recording_profiles_total 9\n"));
	ck_assert(strstr(t, "\nringside_recording_discarded_records_total 7\n"));
	ck_assert(strstr(t, "\nringside_libvirt_reconnects_total 3\n"));
	/* each recorded domain's recorder, per ring and per domain */
	ck_assert(strstr(t, "\nringside_recorder_records_total{domain=\"rec-a\","
			 "ring=\"0\"} 1234\n"));
	ck_assert(strstr(t, "\nringside_recorder_records_total{domain=\"rec-a\","
			 "ring=\"1\"} 5\n"));
	ck_assert(strstr(t, "\nringside_recorder_records_total{domain=\"rec\\\"b"
			 "\\\\\",ring=\"0\"} 77\n"));
	ck_assert(strstr(t, "\nringside_recorder_bytes_total{domain=\"rec-a\","
			 "ring=\"0\"} 98720\n"));
	ck_assert(strstr(t, "\nringside_recorder_aux_bytes_total{domain=\"rec-a\","
			 "ring=\"0\"} 4096\n"));
	ck_assert(strstr(t, "\nringside_recorder_guest_claimed_lost_records_total"
			 "{domain=\"rec-a\",ring=\"0\"} 17\n"));
	ck_assert(strstr(t, "\nringside_recorder_corrupt_total{domain=\"rec-a\","
			 "ring=\"0\"} 2\n"));
	ck_assert(strstr(t, "\nringside_recorder_corrupt_bytes_total{domain=\"rec-a\","
			 "ring=\"0\"} 640\n"));
	ck_assert(strstr(t, "\nringside_recorder_unwritable_records_total"
			 "{domain=\"rec-a\",ring=\"0\"} 1\n"));
	ck_assert(strstr(t, "\nringside_recorder_recording{domain=\"rec-a\"} 1\n"));
	ck_assert(strstr(t, "\nringside_recorder_recording{domain=\"rec\\\"b"
			 "\\\\\"} 0\n"));
	ck_assert(strstr(t, "\nringside_recorder_files_total{domain=\"rec-a\"} 6\n"));
	ck_assert(strstr(t, "\nringside_recorder_rotations_total{domain=\"rec-a\"} 5\n"));
	ck_assert(strstr(t, "\nringside_recorder_pruned_files_total{domain=\"rec-a\"} 3\n"));
	ck_assert(strstr(t, "\nringside_recorder_pruned_bytes_total{domain=\"rec-a\"} "
			 "300000\n"));
	ck_assert(strstr(t, "\nringside_recorder_started_total{domain=\"rec\\\"b"
			 "\\\\\"} 2\n"));
	ck_assert(strstr(t, "\nringside_recorder_failed_total{domain=\"rec\\\"b"
			 "\\\\\"} 1\n"));
	ck_assert(strstr(t, "\nringside_recorder_discarded_records_total{domain="
			 "\"rec\\\"b\\\\\"} 9\n"));
	ck_assert(strstr(t, "\nringside_recorder_domains_dropped_total 4\n"));
	/* the sync's bound of the domain recorded now only */
	ck_assert_msg(strstr(t, "\nringside_time_sync_error_bound_seconds{domain="
			     "\"rec-a\"} 0.000021500\n"), "%s", t);
	ck_assert(!strstr(t, "\nringside_time_sync_error_bound_seconds{domain=\"rec\\"));
	ck_assert(strstr(t, "\n# TYPE ringside_time_sync_error_bound_seconds gauge\n"));
	/* the endpoint's answers, every code */
	ck_assert(strstr(t, "\nringside_http_responses_total{code=\"200\"} 11\n"));
	ck_assert(strstr(t, "\nringside_http_responses_total{code=\"404\"} 2\n"));
	ck_assert(strstr(t, "\nringside_http_responses_total{code=\"431\"} 0\n"));
	ck_assert(strstr(t, "\nringside_http_connections_dropped_total 3\n"));
	ck_assert(strstr(t, "\n# TYPE process_cpu_seconds_total counter\n"));
	ck_assert(strstr(t, "\nprocess_resident_memory_bytes "));
	ck_assert(!strstr(t, "process_resident_memory_bytes 0\n"));
	free(t);

	/* the heartbeat's age: since a scrape first saw its value */
	t = text_of(m, d, 2, 105 * S, &len);
	snprintf(line, sizeof(line), "\nringside_agent_heartbeat_age_seconds{%s} "
		 "5.000000\n", DOM_L);
	ck_assert_msg(strstr(t, line), "no %s in\n%s", line, t);
	free(t);
	status()->heartbeat = 42;
	t = text_of(m, d, 2, 107 * S, &len);
	snprintf(line, sizeof(line), "\nringside_agent_heartbeat_age_seconds{%s} "
		 "0.000000\n", DOM_L);
	ck_assert(strstr(t, line));
	free(t);
	/* a domain no longer listed is forgotten: listed again, it starts
	 * at 0 */
	t = text_of(m, d + 1, 1, 110 * S, &len);
	free(t);
	t = text_of(m, d, 1, 120 * S, &len);
	ck_assert(strstr(t, line));
	free(t);
	svc_metrics_free(m);
}
END_TEST

/* An overwrite ring's head counts down from 0: exposed signed, as
 * `ringside stat` shows it. */
START_TEST(overwrite_head)
{
	struct svc_metrics *m;
	struct svc_metrics_domain d = { "ow", path };
	char line[160], *t;
	size_t len;

	teardown();
	make_region(RS_MODE_OVERWRITE);
	ck_assert_int_eq(svc_metrics_new(&m), 0);
	t = text_of(m, &d, 1, S, &len);
	snprintf(line, sizeof(line), "\nringside_ring_data_head_bytes{domain=\"ow\","
		 "ring=\"0\"} -%d\n", 3 * seq_size);
	ck_assert_msg(strstr(t, line), "no %s in\n%s", line, t);
	snprintf(line, sizeof(line), "\nringside_ring_fill_bytes{domain=\"ow\","
		 "ring=\"0\"} %d\n", 3 * seq_size);
	ck_assert_msg(strstr(t, line), "no %s in\n%s", line, t);
	ck_assert(strstr(t, "\nringside_ring_data_head_bytes{domain=\"ow\",ring=\"1\"} 0\n"));
	free(t);
	svc_metrics_free(m);
}
END_TEST

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

/* The host's steal per vCPU thread of a domain's VMM, from schedstat:
 * here this process plays the VMM with a thread named as QEMU names
 * vCPU 3's; a domain whose QEMU is not found has none. */
START_TEST(host_steal_per_vcpu)
{
	struct svc_metrics *m;
	struct svc_metrics_domain d[2] = {
		{ "me", path, (int32_t)getpid(), 0 },
		{ "gone-nowhere", "/nonexistent/region", 0, 0 } };
	const char *want = "\nringside_host_steal_seconds_total{domain=\"me\","
			   "vcpu=\"3\"} ";
	char *t, *at, *end;
	pthread_t th;
	size_t len;
	double v;

	ck_assert_int_eq(pthread_create(&th, NULL, idle, NULL), 0);
	ck_assert_int_eq(pthread_setname_np(th, "CPU 3/TCG"), 0);
	ck_assert_int_eq(svc_metrics_new(&m), 0);
	t = text_of(m, d, 2, S, &len);
	ck_assert(strstr(t, "# TYPE ringside_host_steal_seconds_total counter\n"));
	at = strstr(t, want);
	ck_assert_msg(at, "no %s in\n%s", want + 1, t);
	v = strtod(at + strlen(want), &end);
	ck_assert(end > at + strlen(want) && *end == '\n' && v >= 0);
	/* one thread named as a vCPU: one sample; none of the other domain */
	ck_assert_msg(!strstr(end, "ringside_host_steal_seconds_total{"),
		      "%s", at);
	ck_assert_ptr_null(strstr(t, "domain=\"gone-nowhere\",vcpu"));
	free(t);
	svc_metrics_free(m);
	pthread_cancel(th);
	pthread_join(th, NULL);
}
END_TEST

/* Capture series are bounded: one more is counted, not kept. */
START_TEST(series_bounded)
{
	struct svc_metrics *m;
	char name[32], *t;
	size_t len;

	ck_assert_int_eq(svc_metrics_new(&m), 0);
	for (unsigned i = 0; i <= SVC_METRICS_SERIES; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		ck_assert_int_eq(svc_metrics_capture(m, name, "hang", 1.0), 0);
	}
	t = text_of(m, NULL, 0, S, &len);
	ck_assert(strstr(t, "\nringside_metrics_series_dropped_total 1\n"));
	snprintf(name, sizeof(name), "{domain=\"d%u\"", SVC_METRICS_SERIES - 1);
	ck_assert(strstr(t, name));
	snprintf(name, sizeof(name), "{domain=\"d%u\"", SVC_METRICS_SERIES);
	ck_assert(!strstr(t, name));
	free(t);
	svc_metrics_free(m);
}
END_TEST

/* ---- the endpoint's address ---- */

START_TEST(addresses)
{
	struct svc_config c;
	uint32_t ip;
	uint16_t port;
	unsigned line;
	const char *why;
	const char *bad[] = { "localhost:9477", "127.0.0.1", "127.0.0.1:",
			      ":9477", "127.0.0.1:65536", "127.0.0.1:-1",
			      "127.0.0.1:94x", "[::1]:9477", "1.2.3:4" };

	ck_assert_int_eq(svc_http_addr("127.0.0.1:9477", &ip, &port), 0);
	ck_assert_uint_eq(port, 9477);
	ck_assert_uint_eq(ip, htonl(INADDR_LOOPBACK));
	ck_assert_int_eq(svc_http_addr("0.0.0.0:1", &ip, &port), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(svc_http_addr(bad[i], &ip, &port) == -EINVAL,
			      "%s taken", bad[i]);
	svc_config_default(&c);
	ck_assert_ptr_null(c.metrics);
	ck_assert_int_eq(svc_config_parse(&c, "metrics = 10.0.0.1:9100\n", 24,
					  &line, &why), 0);
	ck_assert_str_eq(c.metrics, "10.0.0.1:9100");
	ck_assert_int_eq(svc_config_parse(&c, "metrics = none\n", 15, &line,
					  &why), 0);
	ck_assert_str_eq(c.metrics, "");
	ck_assert_int_eq(svc_config_parse(&c, "\nmetrics = 127.0.0.1:0\n", 23,
					  &line, &why), -EINVAL);
	ck_assert_uint_eq(line, 2);
	ck_assert(strstr(why, "metrics"));
	ck_assert_int_eq(svc_config_parse(&c, "metrics = host:80\n", 18, &line,
					  &why), -EINVAL);
	svc_config_fini(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_metrics");
	TCase *tc = tcase_create("text");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, region_and_counters);
	tcase_add_test(tc, overwrite_head);
	tcase_add_test(tc, host_steal_per_vcpu);
	suite_add_tcase(s, tc);
	tc = tcase_create("bounds");
	tcase_add_test(tc, series_bounded);
	suite_add_tcase(s, tc);
	tc = tcase_create("http");
	tcase_add_test(tc, addresses);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
