/* SPDX-License-Identifier: MIT */
/*
 * ringside-hook: what libvirtd runs, through the script `ringside hook
 * install` writes, for every QEMU domain:
 *
 *   ringside-hook [--group G] DOMAIN OPERATION SUB-OPERATION [EXTRA]
 *
 * with the domain XML on stdin.  It runs as root inside libvirtd, so it
 * links only what it needs: the ring library (to lay the region out),
 * libxml2 (to read the XML) and the capture library's flight recorder
 * capture (to keep a stopped domain's rings; it reads the region file
 * alone), never libvirt, whose daemon is waiting for it.
 * Exit status 0 success, 1 failure (at "prepare" libvirt then refuses to
 * start the domain, with the message), 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/domain_hook.h"

/* The messages read as those of `ringside hook run`, the same code. */
#define PREFIX "ringside hook: "

/*
 * Each line to stderr, which libvirtd keeps only in its debug log (and
 * in its error when the hook fails), and to syslog as ringside-hook,
 * facility daemon: the journal on a host with systemd (journalctl -t
 * ringside-hook), /var/log/syslog where rsyslog runs.
 */
static void log_line(void *arg, const char *fmt, va_list ap)
{
	va_list again;

	(void)arg;
	va_copy(again, ap);
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	vsyslog(LOG_NOTICE, fmt, again);
	va_end(again);
}

/* A decimal count; 0 or -EINVAL. */
static int number(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

static int usage(FILE *to)
{
	fprintf(to, "usage: ringside-hook [--group G] [--capture-dir DIR] "
		"[--keep N] [--keep-mb M]\n"
		"                     DOMAIN OPERATION SUB-OPERATION [EXTRA]\n\n"
		"libvirt's hook for QEMU domains, with the domain XML on stdin.\n"
		"For a domain opted in with 'ringside enable' it creates\n"
		DOM_SHM_DIR "/" DOM_SHM_PREFIX "DOMAIN at 'prepare begin' (group G,\n"
		"default " DOM_HOOK_GROUP ") and removes it at 'release end', once\n"
		"its rings are captured as DIR/DOMAIN/TIME-NNN.data (default DIR\n"
		CAP_FLIGHT_DIR ", the guest's names in DIR/DOMAIN/" PDF_CACHE_NAME "),\n"
		"keeping the newest N captures of M MiB at most per domain (default %u, %llu).\n"
		"Its lines go to stderr (libvirtd keeps them in its debug log) and to\n"
		"syslog as ringside-hook.  Install it with 'ringside hook install'.\n",
		CAP_FLIGHT_KEEP,
		(unsigned long long)(CAP_FLIGHT_KEEP_BYTES >> 20));
	return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "group",       required_argument, NULL, 'g' },
		{ "capture-dir", required_argument, NULL, 'd' },
		{ "keep",        required_argument, NULL, 'k' },
		{ "keep-mb",     required_argument, NULL, 'm' },
		{ "help",        no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cap_flight_opts fo = { .keep = CAP_FLIGHT_KEEP,
				  .keep_bytes = CAP_FLIGHT_KEEP_BYTES };
	struct dom_hook_call call = { .xml_fd = STDIN_FILENO,
				      .capture = cap_flight_hook,
				      .capture_arg = &fo };
	uint64_t n;
	int c;

	opterr = 0;
	/* '+': stop at the first operand, so a DOMAIN "-x" stays one */
	while ((c = getopt_long(argc, argv, "+:g:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			call.group = optarg;
			break;
		case 'd':
			fo.dir = optarg;
			break;
		case 'k':
		case 'm':
			if (number(optarg, &n) || (c == 'm' && n > UINT64_MAX >> 20) ||
			    (c == 'k' && n > UINT32_MAX)) {
				fprintf(stderr, PREFIX "--%s wants a number, not '%s'\n",
					c == 'k' ? "keep" : "keep-mb", optarg);
				return usage(stderr);
			}
			if (c == 'k')
				fo.keep = (uint32_t)n;
			else
				fo.keep_bytes = n << 20;
			break;
		case 'h':
			return usage(stdout);
		default:
			fprintf(stderr, PREFIX "bad option '%s'\n", argv[optind - 1]);
			return usage(stderr);
		}
	}
	if (argc - optind < 3) {
		fprintf(stderr, PREFIX "DOMAIN OPERATION SUB-OPERATION wanted "
			"(what libvirt passes)\n");
		return usage(stderr);
	}
	fo.argc = argc;
	fo.argv = argv;
	call.domain = argv[optind];
	call.op = argv[optind + 1];
	call.subop = argv[optind + 2];
	openlog("ringside-hook", LOG_PID, LOG_DAEMON);
	return dom_hook_run(&call, log_line, NULL) ? 1 : 0;
}
