/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ringside/cap_source.h"
#include "ringside/ring.h"

#include "cli.h"
#include "print.h"

static int saved_argc;
static char **saved_argv;

void cli_set_argv(int argc, char **argv)
{
	saved_argc = argc;
	saved_argv = argv;
}

int cli_argc(void)
{
	return saved_argc;
}

char *const *cli_argv(void)
{
	return saved_argv;
}

void cli_verr(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "ringside %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verr(cmd, fmt, ap);
	va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	char prog[64];
	va_list ap;

	snprintf(prog, sizeof(prog), CLI_PROG("%s"), cmd);
	va_start(ap, fmt);
	opt_vusage(prog, fmt, ap);
	va_end(ap);
	return CLI_EXIT_USAGE;
}

const struct opt_arg cli_region_args[] = {
	{ "REGION", "the region: a path (/dev/shm/NAME) or fd:N" },
	{ "DOMAIN", "the region of running libvirt domain DOMAIN (looked up "
		    "through libvirt when no file of that name exists)" },
	{ NULL, NULL },
};

int cli_region_operand(const char *cmd, int nargs, char **args, const char *vm,
		       const char **region)
{
	if (vm && nargs > 0)
		return cli_usage(cmd, "give a REGION or --vm SOCKET, not both ('%s')",
				 args[0]);
	if (!vm && nargs < 1)
		return cli_usage(cmd, "which region? give its path, fd:N, a libvirt "
				 "DOMAIN or --vm SOCKET");
	if (nargs > 1)
		return cli_usage(cmd, "one region only; '%s' is extra", args[1]);
	*region = vm ? vm : args[0];
	return 0;
}

/* Why region @spec could not be opened (@e from cap_source_open). */
static void region_error(const char *cmd, const char *spec,
			 const struct cap_source *m, const struct cap_err *e)
{
	int is_fd = !strncmp(spec, "fd:", 3);
	int err = cap_err_from(e, cap_err_sys) ? e->code : 0;

	switch (cap_err_from(e, rs_error_str) ? -e->code : 0) {
	case rse_magic:
		cli_err(cmd, "%s is not a ringside trace region (no RINGSIDE "
			"magic in its first page); give the region file the VM "
			"was started with", spec);
		return;
	case rse_version:
		cli_err(cmd, "%s is a ringside region of ABI version %u; this "
			"ringside speaks version %u: use a matching ringside",
			spec, cap_source_abi_version(m), RS_ABI_VERSION);
		return;
	case rse_too_small:
		cli_err(cmd, "%s is too small to be a ringside region; give the "
			"region file the VM was started with", spec);
		if (!strchr(spec, '/'))
			cli_err(cmd, "(a file named %s in the current directory "
				"is read before a domain of that name: to reach "
				"the domain, run from another directory)", spec);
		return;
	case rse_geometry:
		cli_err(cmd, "%s is not a valid ringside region (its layout does "
			"not add up); was it created by ringside?", spec);
		return;
	default:
		break;
	}
	if (err == -ENOENT)
		cli_err(cmd, "region %s does not exist; is the VM running and "
			"its trace region enabled?", spec);
	else if (is_fd && err == -EBADF)
		cli_err(cmd, "%s: not an open file descriptor (use fd:N with "
			"N inherited from the caller)", spec);
	else if (is_fd && err == -EACCES)
		cli_err(cmd, "%s: descriptor lacks the access needed (record "
			"needs it open read-write, e.g. 3<>PATH)", spec);
	else if (err == -EWOULDBLOCK)
		cli_err(cmd, "another consumer (ringside record) is draining %s; "
			"stop it first, or take a snapshot instead", spec);
	else if (err == -ENODEV || err == -EISDIR)
		cli_err(cmd, "%s is not a region file (not a regular file or "
			"memfd)", spec);
	else
		cli_err(cmd, "cannot map region %s: %s", spec, cap_err_str(e));
}

/* The same for the region of a VM behind control socket @sock (@e from
 * cap_source_open_vm): connection and protocol errors, then region errors. */
static void vm_error(const char *cmd, const char *sock, const struct cap_source *m,
		     const struct cap_err *e)
{
	switch (cap_err_from(e, cap_err_sys) ? e->code : 0) {
	case -ENOENT:
		cli_err(cmd, "no control socket %s; start the VM with 'ringside "
			"run PAYLOAD --control %s'", sock, sock);
		break;
	case -ECONNREFUSED:
		cli_err(cmd, "nothing listens on %s (a stale socket, or not a "
			"socket); is the VM's 'ringside run --control' still "
			"running?", sock);
		break;
	case -EPROTOTYPE:
	case -EPROTO:
	case -ECONNRESET:
		cli_err(cmd, "%s is not a ringside VMM control socket (%s); give "
			"the --control socket of 'ringside run'", sock, cap_err_str(e));
		break;
	case -ETIMEDOUT:
		cli_err(cmd, "%s did not answer; it is not a ringside VMM control "
			"socket, or the VMM is stuck", sock);
		break;
	case -EACCES:
		cli_err(cmd, "no permission to connect to %s (it is 0660: run as "
			"its owner or group)", sock);
		break;
	case -EINVAL:
		cli_err(cmd, "%s: not a usable socket path (too long?)", sock);
		break;
	default:
		region_error(cmd, sock, m, e);
	}
}

int cli_region_open(const char *cmd, struct cap_source **mp, const char *vm,
		    const char *region, unsigned flags, const char *output)
{
	struct cap_err e = { 0 };
	struct cap_source *m;

	*mp = NULL;
	if (cap_source_new(&m)) {
		cli_err(cmd, "out of memory");
		return CLI_EXIT_FAIL;
	}
	if (vm ? cap_source_open_vm(m, vm, flags, &e) :
		 cap_source_open(m, region, flags, &e)) {
		if (vm)
			vm_error(cmd, vm, m, &e);
		else
			region_error(cmd, region, m, &e);
		cap_source_free(m);
		return CLI_EXIT_FAIL;
	}
	if (output && cap_source_is_file(m, output)) {
		cli_err(cmd, "-o %s is the region itself; choose another output "
			"file", output);
		cap_source_free(m);
		return CLI_EXIT_FAIL;
	}
	/* Always on stderr, --quiet or not: the command's exit status says
	 * it too (CLI_EXIT_CORRUPT). */
	print_source_damage(cmd, m, vm ? vm : region);
	*mp = m;
	return 0;
}
