/* SPDX-License-Identifier: MIT */
/*
 * ringside-service: the host service.  It follows libvirt's events and
 * captures an opted-in domain's flight recorder by itself when its guest
 * crashes or its watchdog fires (ringside/service.h).  It runs in the
 * foreground, logging to stderr: under systemd (ringside-service.service)
 * the journal keeps its lines; on a host without systemd start it from
 * any supervisor, or `ringside-service &`.  SIGTERM or SIGINT stops it
 * with a summary line.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ringside/capture.h"
#include "ringside/domain.h"
#include "ringside/service.h"
#include "ringside/service_metrics.h"

#define PREFIX "ringside-service: "

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void log_stderr(void *arg, const char *fmt, va_list ap)
{
	(void)arg;
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static int usage(FILE *to)
{
	fprintf(to, "usage: ringside-service [--config FILE] [--capture-dir DIR] "
		"[--uri URI] [--check-config]\n\n"
		"ringside's host service.  Follows libvirt's domain events and, "
		"when the guest\nof a domain opted in with 'ringside enable' "
		"crashes, its watchdog fires, its\nagent's heartbeat stops for "
		"%u s (a hang) or root asks ('ringside capture\nDOMAIN', over "
		SVC_SOCKET_PATH "), captures the domain's flight\nrecorder as "
		"DIR/DOMAIN/TIME-REASON.data (default DIR\n" FLIGHT_DIR "), at "
		"most %u per domain in %u s.  Runs in the foreground,\nlogging "
		"to stderr.  FILE (default " SVC_CONFIG_PATH ", optional) "
		"holds\n`key = value` lines: uri, capture-dir, keep, keep-mb, "
		"capture-on, rate-limit,\nhang-after, socket, metrics; the options "
		"override it.  --check-config reads\nit and exits.  "
		"Serves metrics for Prometheus at\nhttp://" SVC_METRICS_ADDR
		"/metrics unless the file says otherwise (metrics =\nHOST:PORT, "
		"or none).\n",
		SVC_HANG_AFTER_S, SVC_BURST, SVC_WINDOW_S);
	return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config",       required_argument, NULL, 'c' },
		{ "capture-dir",  required_argument, NULL, 'd' },
		{ "uri",          required_argument, NULL, 'u' },
		{ "check-config", no_argument,       NULL, 'C' },
		{ "help",         no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *dir = NULL, *uri = NULL, *why;
	struct sigaction sa = { .sa_handler = on_signal };
	const struct svc_stats *st;
	struct svc_config c;
	struct svc *s;
	unsigned line;
	int opt, check = 0, err;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 'd': dir = optarg; break;
		case 'u': uri = optarg; break;
		case 'C': check = 1; break;
		case 'h': return usage(stdout);
		default:
			fprintf(stderr, PREFIX "bad option '%s'\n", argv[optind - 1]);
			return usage(stderr);
		}
	}
	if (optind != argc) {
		fprintf(stderr, PREFIX "no operands wanted, not '%s'\n", argv[optind]);
		return usage(stderr);
	}
	svc_config_default(&c);
	err = svc_config_load(&c, config ? config : SVC_CONFIG_PATH, &line, &why);
	if (err == -ENOENT && !config)
		err = 0;     /* the default file is optional */
	if (err) {
		if (line)
			fprintf(stderr, PREFIX "%s:%u: %s\n", config ? config :
				SVC_CONFIG_PATH, line, why);
		else
			fprintf(stderr, PREFIX "%s: %s\n", config ? config :
				SVC_CONFIG_PATH, why ? why : strerror(-err));
		svc_config_fini(&c);
		return 2;
	}
	if (dir && (dir[0] != '/' || !(c.capture_dir = strdup(dir)))) {
		fprintf(stderr, PREFIX "--capture-dir: an absolute path\n");
		svc_config_fini(&c);
		return 2;
	}
	if (uri && !(c.uri = strdup(uri))) {
		svc_config_fini(&c);
		return 1;
	}
	if (check) {
		printf("uri %s\ncapture-dir %s\nkeep %u\nkeep-mb %llu\n"
		       "capture-on%s%s%s%s\nrate-limit %u/%u\nhang-after %u\n"
		       "socket %s\n",
		       c.uri ? c.uri : "(libvirt's default)",
		       c.capture_dir ? c.capture_dir : FLIGHT_DIR, c.keep,
		       (unsigned long long)(c.keep_bytes >> 20),
		       c.capture_on & SVC_ON_CRASH ? " crash" : "",
		       c.capture_on & SVC_ON_WATCHDOG ? " watchdog" : "",
		       c.capture_on & SVC_ON_HANG ? " hang" : "",
		       c.capture_on ? "" : " none", c.burst, c.window_s,
		       c.hang_after_s, c.socket ? (c.socket[0] ? c.socket :
		       "none") : SVC_SOCKET_PATH);
		printf("metrics %s\n", c.metrics ? (c.metrics[0] ? c.metrics :
		       "none") : SVC_METRICS_ADDR);
		printf("record");
		if (c.rec.all)
			printf(" all");
		for (uint32_t i = 0; i < c.rec.nr_domains; i++)
			printf(" %s", c.rec.domains[i]);
		printf("%s\nrecord-dir %s\nrotate-mb %llu\nrotate-seconds %u\n"
		       "record-keep-mb %llu\nrecord-total-mb %llu\n"
		       "post-command %s\npost-tries %u\npprof %s\n",
		       c.rec.all || c.rec.nr_domains ? "" : " none",
		       c.rec.dir ? c.rec.dir : SVC_REC_DIR,
		       (unsigned long long)(c.rec.rotate_bytes >> 20),
		       c.rec.rotate_s,
		       (unsigned long long)(c.rec.keep_bytes >> 20),
		       (unsigned long long)(c.rec.total_bytes >> 20),
		       c.rec.post_command ? c.rec.post_command : "none",
		       c.rec.post_tries, c.rec.pprof ? "yes" : "no");
		for (uint32_t i = 0; i < c.rec.nr_regions; i++)
			printf("record-region %s %s\n", c.rec.region_names[i],
			       c.rec.region_paths[i]);
		svc_config_fini(&c);
		return 0;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	err = svc_open(&s, &c, log_stderr, NULL, argc, argv);
	if (err) {
		fprintf(stderr, PREFIX "cannot start: %s\n", dom_errstr(err));
		svc_config_fini(&c);
		return 1;
	}
	while (!stop)
		svc_run(s, 500);
	st = svc_stats(s);
	fprintf(stderr, PREFIX "stopping: %llu events, %llu captures, %llu "
		"rate-limited, %llu failed, %llu dropped, %llu hangs, %llu "
		"requests, %u reconnects\n",
		(unsigned long long)st->events, (unsigned long long)st->captures,
		(unsigned long long)st->rate_limited,
		(unsigned long long)st->failed, (unsigned long long)st->dropped,
		(unsigned long long)st->hangs,
		(unsigned long long)st->requests, st->reconnects);
	svc_close(s);
	svc_config_fini(&c);
	return 0;
}
