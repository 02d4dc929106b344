/* SPDX-License-Identifier: MIT */
/*
 * ringside-hook: what libvirtd runs, through the script `ringside hook
 * install` writes, for every QEMU domain:
 *
 *   ringside-hook [--group G] DOMAIN OPERATION SUB-OPERATION [EXTRA]
 *
 * with the domain XML on stdin.  It runs as root inside libvirtd, so it
 * links only what it needs: the ring library (to lay the region out) and
 * libxml2 (to read the XML), never libvirt, whose daemon is waiting for it.
 * Exit status 0 success, 1 failure (at "prepare" libvirt then refuses to
 * start the domain, with the message), 2 bad usage.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "ringside/domain_hook.h"

/* The messages read as those of `ringside hook run`, the same code. */
#define PREFIX "ringside hook: "

static void log_stderr(void *arg, const char *fmt, va_list ap)
{
	(void)arg;
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static int usage(FILE *to)
{
	fprintf(to, "usage: ringside-hook [--group G] DOMAIN OPERATION "
		"SUB-OPERATION [EXTRA]\n\n"
		"libvirt's hook for QEMU domains, with the domain XML on stdin.\n"
		"For a domain opted in with 'ringside enable' it creates\n"
		DOM_SHM_DIR "/" DOM_SHM_PREFIX "DOMAIN at 'prepare begin' (group G,\n"
		"default " DOM_HOOK_GROUP ") and removes it at 'release end'.\n"
		"Install it with 'ringside hook install'.\n");
	return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "group", required_argument, NULL, 'g' },
		{ "help",  no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dom_hook_call call = { .xml_fd = STDIN_FILENO };
	int c;

	opterr = 0;
	/* '+': stop at the first operand, so a DOMAIN "-x" stays one */
	while ((c = getopt_long(argc, argv, "+:g:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			call.group = optarg;
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
	call.domain = argv[optind];
	call.op = argv[optind + 1];
	call.subop = argv[optind + 2];
	return dom_hook_run(&call, log_stderr, NULL) ? 1 : 0;
}
