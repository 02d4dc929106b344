/* SPDX-License-Identifier: MIT */
/*
 * ringside snapshot REGION -o FILE: copy every ring now, without consuming.
 *
 * Live (copy, then verify): the producer keeps writing; whatever it may
 * have overwritten during the copy is cut and reported.  Stable (--stable,
 * a source that can pause its writers: --vm, a libvirt domain): the vCPUs
 * are paused for the copy and resumed before the file is written.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"
#include "region_map.h"
#include "snapper.h"
#include "vm_conn.h"

#define CMD "snapshot"

struct snap_opts {
	const char *region;
	const char *vm;            /* --vm SOCKET instead of REGION */
	const char *output;
	int stable;
	int quiet;
};

static void help(void)
{
	printf("usage: ringside snapshot REGION -o FILE [--quiet]\n"
	       "       ringside snapshot DOMAIN|--vm SOCKET [--stable] -o FILE [--quiet]\n\n"
	       "Copy every ring of a trace region into FILE (perf.data) now, without\n"
	       "consuming anything: the flight recorder's view.  By default the copy\n"
	       "is live: the guest keeps running, and records it may have overwritten\n"
	       "during the copy are cut and counted.\n\n"
	       "  REGION             the region: a path (/dev/shm/NAME) or fd:N\n"
	       "  DOMAIN             the region of running libvirt domain DOMAIN (looked\n"
	       "                     up through libvirt when no file of that name exists)\n"
	       "      --vm SOCKET    the region of the ringside VMM serving the control\n"
	       "                     socket SOCKET ('ringside run --control SOCKET'); works\n"
	       "                     on a hung or crashed guest too\n"
	       "  -s, --stable       stop the guest for the copy, resume it after: nothing\n"
	       "                     is cut.  --vm pauses the vCPUs; a DOMAIN is suspended\n"
	       "                     through libvirt (one already paused stays so).  Not\n"
	       "                     for a path or fd:N: nothing can stop their writers\n"
	       "  -o, --output FILE  the perf.data file to write\n"
	       "  -q, --quiet        no summary\n"
	       "  -h, --help         this text\n\n"
	       "Exit status: 0 success, 1 failure (FILE is then not created), 2 bad usage.\n");
}

static int parse(int argc, char **argv, struct snap_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "vm",     required_argument, NULL, 'V' },
		{ "stable", no_argument,       NULL, 's' },
		{ "quiet",  no_argument,       NULL, 'q' },
		{ "help",   no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:sqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'V':
			o->vm = optarg;
			break;
		case 's':
			o->stable = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			help();
			return -1;
		default:
			return cli_bad_option(CMD, argv, c);
		}
	}
	if (cli_region_operand(CMD, argc, argv, o->vm, &o->region))
		return CLI_EXIT_USAGE;
	if (!o->output)
		return cli_usage(CMD, "where to? give the output file with -o FILE");
	return 0;
}

/* The vCPUs as the VMM sees them: did the guest hang, halt or crash? */
static void vm_status(struct vm_conn *v)
{
	struct rs_vmm_vcpu_info info;

	for (uint32_t i = 0; i < v->nr_vcpus; i++) {
		if (vm_conn_status(v, i, &info))
			continue;
		printf("  vCPU %u: %s, %" PRIu64 " records attempted", i,
		       rs_vmm_state_name(info.state), info.report.attempted);
		if (info.state == RS_VCPU_SHUTDOWN || info.state == RS_VCPU_FAILED)
			printf(", last rip %#" PRIx64, info.rip);
		putchar('\n');
	}
}

/* Copy under a pause when asked; resume before anything is written. */
static int copy(struct snapper *s, struct rmap *m, int stable)
{
	int err, ret;

	if (stable && (err = rmap_pause(m))) {
		if (err == -EOPNOTSUPP)
			return cli_usage(CMD, "--stable needs a source whose writers can "
					 "be paused (--vm SOCKET or a libvirt DOMAIN); "
					 "%s is a plain region", s->source);
		cli_err(CMD, "cannot pause the vCPUs of %s: %s", s->source,
			err_str(err));
		return CLI_EXIT_FAIL;
	}
	s->stable = stable;
	ret = snapper_copy(s, &m->region);
	if (stable && (err = rmap_resume(m))) {
		cli_err(CMD, "cannot resume the vCPUs of %s: %s (closing the "
			"connection resumes them)", s->source, err_str(err));
		ret = CLI_EXIT_FAIL;
	}
	return ret;
}

int cmd_snapshot(int argc, char **argv)
{
	struct snapper *s = NULL;
	struct snap_opts o;
	struct rmap m;
	int err, ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	err = o.vm ? rmap_open_vm(&m, o.vm, 0) : rmap_open(&m, o.region, 0);
	if (err)
		return o.vm ? cli_vm_error(CMD, o.vm, &m, err)
			    : cli_region_error(CMD, o.region, &m, err);
	if (rmap_is_file(&m, o.output)) {
		cli_err(CMD, "-o %s is the region itself; choose another output file",
			o.output);
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	s = malloc(sizeof(*s));
	if (!s) {
		cli_err(CMD, "out of memory");
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	snapper_init(s, CMD, o.region);
	s->output = o.output;
	ret = copy(s, &m, o.stable);
	if (ret == CLI_EXIT_OK)
		ret = snapper_write(s);
	if (ret == CLI_EXIT_OK && !o.quiet) {
		snapper_summary(s);
		if (m.vm)
			vm_status(m.vm);
	}
	snapper_fini(s);
out:
	free(s);
	rmap_close(&m);
	return ret;
}
