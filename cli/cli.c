/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ringside/ring.h"

#include "cli.h"
#include "err.h"
#include "region_map.h"

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

int cli_region_error(const char *cmd, const char *spec, const struct rmap *m,
		     int err)
{
	int is_fd = !strncmp(spec, "fd:", 3);

	switch (err_ring_code(err)) {
	case rse_magic:
		cli_err(cmd, "%s is not a ringside trace region (no RINGSIDE "
			"magic in its first page); give the region file the VM "
			"was started with", spec);
		return CLI_EXIT_FAIL;
	case rse_version:
		cli_err(cmd, "%s is a ringside region of ABI version %u; this "
			"ringside speaks version %u: use a matching ringside",
			spec, m->abi_version, RS_ABI_VERSION);
		return CLI_EXIT_FAIL;
	case rse_too_small:
		cli_err(cmd, "%s is too small to be a ringside region; give the "
			"region file the VM was started with", spec);
		return CLI_EXIT_FAIL;
	case rse_geometry:
		cli_err(cmd, "%s is not a valid ringside region (its layout does "
			"not add up); was it created by ringside?", spec);
		return CLI_EXIT_FAIL;
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
		cli_err(cmd, "cannot map region %s: %s", spec, err_str(err));
	return CLI_EXIT_FAIL;
}

int cli_vm_error(const char *cmd, const char *sock, const struct rmap *m,
		 int err)
{
	switch (err) {
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
			"the --control socket of 'ringside run'", sock, err_str(err));
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
		return cli_region_error(cmd, sock, m, err);
	}
	return CLI_EXIT_FAIL;
}

double cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
