/* SPDX-License-Identifier: MIT */
/*
 * Test and benchmark driver of the service's continuous recording
 * without libvirt: records region files as domains, with the recorders
 * the service runs (svc_rec_*), until FILE exists (each domain then
 * stopped: reason "stop") or until SIGTERM or SIGINT (then svc_rec_free,
 * as the service ends at either: reason "shutdown").
 *
 *   svc-rec-multi [--rotate-bytes N] [--rotate-s S] [--keep-bytes N]
 *                 [--total-bytes N] [--retry-ms MS] [--room-bytes N]
 *                 [--interval-ms MS] [--no-pprof] [--until FILE]
 *                 [--status FILE] DIR NAME=REGION...
 *
 * --status FILE: the counts line below, written anew (aside, then
 * renamed) about every 100 ms, so a script waits for what it checks
 * (a full disk, a file) and never for a time.  At the end, on stdout:
 *   started S failed F recording R files N rotations T records C lost L
 *   disk_full D salvaged V disk_files_lost W disk_lost X disk_lost_lost Y
 *   disk_pruned P pruned Q cpu_s U maxrss_kb M wall_s E
 * cpu_s is the process's user and system CPU time from its start.
 *
 *   svc-rec-multi --flight DIR DOMAIN REGION
 *
 * captures REGION's flight recorder into DIR/DOMAIN/ as the service
 * does on a trigger (cap_flight_capture, reason "request"): "ok PATH
 * records N", or "error WHY" and exit status 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/service_record.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void logf_(void *arg, int level, const char *fmt, va_list ap)
{
	(void)arg;
	(void)level;
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* The loop's own pace: the service's loop runs every 500 ms; this one
 * every 50 ms, for the tests' waits, still little beside the recorders. */
static void nap(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static void line(FILE *f, const struct svc_rec_stats *st, double wall)
{
	struct rusage ru;
	double cpu = 0.0;
	long rss = 0;

	if (!getrusage(RUSAGE_SELF, &ru)) {
		cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		      (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		rss = ru.ru_maxrss;
	}
	fprintf(f, "started %" PRIu64 " failed %" PRIu64 " recording %" PRIu32
		" files %" PRIu64 " rotations %" PRIu64 " records %" PRIu64
		" lost %" PRIu64 " disk_full %" PRIu64 " salvaged %" PRIu64
		" disk_files_lost %" PRIu64 " disk_lost %" PRIu64
		" disk_lost_lost %" PRIu64 " disk_pruned %" PRIu64
		" pruned %" PRIu64 " cpu_s %.3f maxrss_kb %ld wall_s %.3f\n",
		st->started, st->failed, st->recording, st->files,
		st->rotations, st->records, st->lost, st->disk_full,
		st->disk_salvaged, st->disk_files_lost, st->disk_lost,
		st->disk_lost_lost, st->disk_pruned, st->pruned, cpu, rss,
		wall);
}

static void status(const char *path, const struct svc_rec_stats *st,
		   double wall)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	line(f, st, wall);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static int flight(const char *dir, const char *domain, const char *region,
		  int argc, char **argv)
{
	struct cap_flight_result res;
	struct cap_flight_req q = {
		.domain = domain, .region_path = region, .dir = dir,
		.keep = CAP_FLIGHT_KEEP, .keep_bytes = CAP_FLIGHT_KEEP_BYTES,
		.argc = argc, .argv = argv, .reason = "request",
	};
	int err = cap_flight_capture(&q, &res);

	if (err) {
		printf("error %s\n", cap_err_str(&res.fail.e));
		return 1;
	}
	printf("ok %s records %" PRIu64 "\n", res.path, res.records);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: svc-rec-multi [--rotate-bytes N] [--rotate-s S] "
		"[--keep-bytes N] [--total-bytes N] [--retry-ms MS] "
		"[--room-bytes N] [--interval-ms MS] [--no-pprof] "
		"[--until FILE] [--status FILE] DIR NAME=REGION...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const struct svc_env env = { logf_, NULL, argc, argv };
	const char *until = NULL, *stat_path = NULL;
	struct svc_rec_config c;
	struct svc_rec_stats st;
	struct svc_rec *rp;
	double t0 = cap_time_now(), last = 0.0;
	int i, err, signalled = 0;

	if (argc == 5 && !strcmp(argv[1], "--flight"))
		return flight(argv[2], argv[3], argv[4], argc, argv);
	svc_rec_config_default(&c);
	c.interval_ms = 10;
	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--no-pprof")) {
			c.pprof = 0;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (!strcmp(a, "--rotate-bytes"))
			c.rotate_bytes = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--rotate-s"))
			c.rotate_s = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--keep-bytes"))
			c.keep_bytes = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--total-bytes"))
			c.total_bytes = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--retry-ms"))
			c.full_retry_ms = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--room-bytes"))
			c.room_bytes = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--interval-ms"))
			c.interval_ms = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--until"))
			until = v;
		else if (!strcmp(a, "--status"))
			stat_path = v;
		else
			return usage();
	}
	if (argc - i < 2)
		return usage();
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	err = svc_rec_new(&rp, &c, argv[i], &env);
	if (err) {
		fprintf(stderr, "svc-rec-multi: %s\n", strerror(-err));
		return 1;
	}
	for (i++; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			return usage();
		*eq = '\0';
		err = svc_rec_start(rp, argv[i], "00000000-0000-4000-8000-000000000001",
				    eq + 1, NULL);
		if (err) {
			fprintf(stderr, "svc-rec-multi: cannot record %s: %d\n",
				eq + 1, err);
			svc_rec_free(rp, "shutdown");
			return 1;
		}
	}
	while (!stop && !(until && !access(until, F_OK))) {
		double now = cap_time_now();

		svc_rec_poll(rp, cap_time_now_ns());
		if (stat_path && now - last >= 0.1) {
			svc_recstats_get(svc_rec_counts(rp), &st);
			status(stat_path, &st, now - t0);
			last = now;
		}
		nap();
	}
	signalled = stop;
	if (!signalled) {
		/* each domain stops; the recorders complete their files */
		svc_rec_keep_only(rp, NULL, 0, "stop");
		for (;;) {
			svc_rec_poll(rp, cap_time_now_ns());
			svc_recstats_get(svc_rec_counts(rp), &st);
			if (!st.recording)
				break;
			nap();
		}
	}
	/* as the service at SIGTERM: every open file completed */
	svc_recstats_get(svc_rec_counts(rp), &st);
	svc_rec_free(rp, "shutdown");
	/* the counts of the files svc_rec_free completed are lost with it:
	 * the log's summary line has them; the status has the last */
	if (stat_path)
		status(stat_path, &st, cap_time_now() - t0);
	line(stdout, &st, cap_time_now() - t0);
	svc_rec_config_fini(&c);
	return 0;
}
