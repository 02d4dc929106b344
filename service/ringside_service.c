/* SPDX-License-Identifier: MIT */
/*
 * ringside-service: the host service.  It follows libvirt's events and
 * captures an opted-in domain's flight recorder by itself when its guest
 * crashes, its watchdog fires or its agent stops beating, or when root
 * asks; it records the domains its configuration selects and serves
 * metrics (ringside/service.h, docs/service.md).  It runs in the
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
#include "ringside/service_client.h"
#include "ringside/service_config.h"
#include "ringside/service_http.h"

#define PREFIX "ringside-service: "

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void log_stderr(void *arg, int level, const char *fmt, va_list ap)
{
	(void)arg;
	(void)level;   /* every line: the journal keeps them all */
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* Every key's value, a `key = value` line each (from the keys' table):
 * what a file with these lines would say. */
static void print_config(const struct svc_config *c)
{
	char v[4096];

	for (size_t i = 0; i < svc_config_nkeys(); i++) {
		const char *k = svc_config_key(i);
		uint32_t n = 0;

		while (svc_config_value(c, i, n, v, sizeof(v)) > 0) {
			printf("%s = %s\n", k, v);
			n++;
		}
		if (!n)
			printf("# %s: not set (%s)\n", k, svc_config_unset(i));
	}
}

static int usage(FILE *to)
{
	size_t col = 0;

	fprintf(to, "usage: ringside-service [--config FILE] [--capture-dir DIR] "
		"[--uri URI]\n                        [--check-config]\n\n"
		"ringside's host service.  Follows libvirt's domain events and, "
		"when the guest\nof a domain opted in with 'ringside enable' "
		"crashes, its watchdog fires, its\nagent's heartbeat stops for "
		"%u s (a hang) or root asks ('ringside capture\nDOMAIN', over "
		SVC_SOCKET_PATH "), captures the domain's flight\nrecorder as "
		"DIR/DOMAIN/TIME-NNN-REASON.data (DIR: " CAP_FLIGHT_DIR "\nunless "
		"configured), at most %u per domain in %u s.  Records the domains "
		"the\nconfiguration selects, and serves metrics for Prometheus at\n"
		"http://" SVC_METRICS_ADDR "/metrics.  Runs in the foreground, "
		"logging to stderr.\n\n"
		"FILE (default " SVC_CONFIG_PATH ", optional) holds `key = value`\n"
		"lines; --capture-dir and --uri override it.  Its keys:\n",
		SVC_HANG_AFTER_S, SVC_BURST, SVC_WINDOW_S);
	for (size_t i = 0; i < svc_config_nkeys(); i++) {
		const char *k = svc_config_key(i);
		size_t w = strlen(k) + 2;

		if (!col || col + w > 78) {
			fputs(col ? "\n  " : "  ", to);
			col = 2;
		} else {
			fputc(' ', to);
			col++;
		}
		fprintf(to, "%s%s", k, i + 1 < svc_config_nkeys() ? "," : "");
		col += w - 1;
	}
	fprintf(to, "\n--check-config reads it, prints the value of every key "
		"and exits.\n");
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
	const struct svc_env env = { log_stderr, NULL, argc, argv };
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
		print_config(&c);
		svc_config_fini(&c);
		return 0;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	err = svc_open(&s, &c, &env);
	if (err) {
		fprintf(stderr, PREFIX "cannot start: %s\n", dom_error_str(err));
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
