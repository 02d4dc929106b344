/* SPDX-License-Identifier: MIT */
/*
 * ringside hook install|uninstall|run: the libvirt hook that creates a
 * domain's trace region before QEMU opens it and removes it afterwards.
 *
 * libvirt runs /etc/libvirt/hooks/qemu.d/ringside with DOMAIN OPERATION
 * SUB-OPERATION EXTRA and the domain XML on stdin.  The installed script
 * execs 'ringside hook run', which reads only that XML: a hook must never
 * call back into libvirt (libvirtd holds the domain's lock while it waits).
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "domain_cmd.h"
#include "domain_hook.h"
#include "err.h"

#define CMD "hook"
#define DEFAULT_GROUP "libvirt-qemu"

struct hook_opts {
	const char *action;     /* install, uninstall, run */
	const char *dir;        /* hooks directory */
	const char *group;      /* owner group of region files */
	const char *binary;     /* ringside, as the script runs it */
	int legacy;             /* DIR/qemu instead of DIR/qemu.d/ringside */
	int force;
	char **args;            /* run: DOMAIN OPERATION SUB-OPERATION ... */
	int nargs;
};

static void help(void)
{
	printf("usage: ringside hook install [--dir DIR] [--group G] [--legacy] [--force]\n"
	       "       ringside hook uninstall [--dir DIR] [--legacy]\n"
	       "       ringside hook run [--group G] DOMAIN OPERATION SUB-OPERATION [EXTRA]\n\n"
	       "install writes DIR/qemu.d/ringside (DIR/qemu with --legacy), a script\n"
	       "that libvirt runs for every QEMU domain.  For a domain opted in with\n"
	       "'ringside enable' it creates /dev/shm/ringside-DOMAIN at 'prepare begin'\n"
	       "(laid out, exact size, mode 0660, owner root, group G) and removes it\n"
	       "at 'release end'.  Other domains are left alone.  libvirtd looks for\n"
	       "hooks when it starts: restart it after installing.\n\n"
	       "  -d, --dir DIR     libvirt's hooks directory (default " DOM_HOOK_DIR ")\n"
	       "  -g, --group G     group of the QEMU processes (default " DEFAULT_GROUP ")\n"
	       "  -l, --legacy      install as DIR/qemu (libvirt without qemu.d support)\n"
	       "  -f, --force       replace a hook file ringside did not write\n"
	       "  -r, --ringside P  the ringside the hook runs (default: this one)\n"
	       "  -h, --help        this text\n\n"
	       "run is what libvirt calls; it reads the domain XML on stdin and never\n"
	       "calls libvirt.  Exit status: 0 success, 1 failure (at 'prepare' libvirt\n"
	       "then refuses to start the domain, with this message), 2 bad usage.\n");
}

static int parse(int argc, char **argv, struct hook_opts *o)
{
	static const struct option longopts[] = {
		{ "dir",      required_argument, NULL, 'd' },
		{ "group",    required_argument, NULL, 'g' },
		{ "ringside", required_argument, NULL, 'r' },
		{ "legacy",   no_argument,       NULL, 'l' },
		{ "force",    no_argument,       NULL, 'f' },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, is_run;

	memset(o, 0, sizeof(*o));
	o->dir = DOM_HOOK_DIR;
	o->group = DEFAULT_GROUP;
	if (argc < 2)
		return cli_usage(CMD, "install, uninstall or run?");
	o->action = argv[1];
	if (!strcmp(o->action, "-h") || !strcmp(o->action, "--help")) {
		help();
		return -1;
	}
	is_run = !strcmp(o->action, "run");
	if (!is_run && strcmp(o->action, "install") && strcmp(o->action, "uninstall"))
		return cli_usage(CMD, "'%s': install, uninstall or run?", o->action);
	opterr = 0;
	optind = 2;
	/* '+': stop at the first operand, so a DOMAIN "-x" stays one */
	while ((c = getopt_long(argc, argv, "+:d:g:r:lfh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dir = optarg;
			break;
		case 'g':
			o->group = optarg;
			break;
		case 'r':
			o->binary = optarg;
			break;
		case 'l':
			o->legacy = 1;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'h':
			help();
			return -1;
		default:
			return cli_bad_option(CMD, argv, c);
		}
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	if (is_run && o->nargs < 3)
		return cli_usage(CMD, "run wants DOMAIN OPERATION SUB-OPERATION "
				 "(what libvirt passes)");
	if (!is_run && o->nargs)
		return cli_usage(CMD, "'%s' is extra", o->args[0]);
	return 0;
}

static int hook_path(const struct hook_opts *o, char *buf, size_t len)
{
	int n = o->legacy ?
		snprintf(buf, len, "%s/qemu", o->dir) :
		snprintf(buf, len, "%s/%s/%s", o->dir, DOM_HOOK_SUB, DOM_HOOK_NAME);

	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

/* The script libvirt runs; single quotes around everything variable. */
static int write_script(const char *path, const char *binary,
			const char *group)
{
	char tmp[PATH_MAX + 16];
	FILE *f;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	fprintf(f, "#!/bin/sh\n"
		   DOM_HOOK_MARK " (written by 'ringside hook install').\n"
		   "# libvirt runs it with: DOMAIN OPERATION SUB-OPERATION EXTRA,\n"
		   "# and the domain XML on stdin.  See docs/operator-guide.md.\n"
		   "exec '%s' hook run --group '%s' \"$@\"\n", binary, group);
	if (fflush(f) || fchmod(fd, 0755) || fsync(fd))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int install(const struct hook_opts *o)
{
	char path[PATH_MAX], sub[PATH_MAX], self[PATH_MAX];
	const char *binary = o->binary;
	ssize_t n;
	int err;

	if (hook_path(o, path, sizeof(path))) {
		cli_err(CMD, "--dir %s: path too long", o->dir);
		return CLI_EXIT_FAIL;
	}
	if (!getgrnam(o->group)) {
		cli_err(CMD, "no group '%s' on this host; give the group QEMU runs "
			"as with --group (see 'group' in /etc/libvirt/qemu.conf)",
			o->group);
		return CLI_EXIT_FAIL;
	}
	if (!binary) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			cli_err(CMD, "cannot find my own path; give --ringside PATH");
			return CLI_EXIT_FAIL;
		}
		self[n] = '\0';
		binary = self;
	}
	if (strchr(binary, '\'') || strchr(o->group, '\'') || binary[0] != '/') {
		cli_err(CMD, "'%s' / '%s': the binary must be an absolute path, and "
			"neither may contain a quote", binary, o->group);
		return CLI_EXIT_FAIL;
	}
	if (!access(path, F_OK) && !dom_cmd_is_hook(path) && !o->force) {
		cli_err(CMD, "%s exists and is not ringside's; move it away (or "
			"into %s/%s/) or use --force", path, o->dir, DOM_HOOK_SUB);
		return CLI_EXIT_FAIL;
	}
	snprintf(sub, sizeof(sub), "%s/%s", o->dir, DOM_HOOK_SUB);
	if ((mkdir(o->dir, 0755) && errno != EEXIST) ||
	    (!o->legacy && mkdir(sub, 0755) && errno != EEXIST)) {
		cli_err(CMD, "cannot create %s: %s", o->legacy ? o->dir : sub,
			strerror(errno));
		return CLI_EXIT_FAIL;
	}
	err = write_script(path, binary, o->group);
	if (err) {
		cli_err(CMD, "cannot write %s: %s", path, err_str(err));
		return CLI_EXIT_FAIL;
	}
	printf("ringside hook: installed %s (runs %s); restart libvirtd so that "
	       "it sees the hook\n", path, binary);
	return CLI_EXIT_OK;
}

static int uninstall(const struct hook_opts *o)
{
	char path[PATH_MAX];

	if (hook_path(o, path, sizeof(path)))
		return CLI_EXIT_FAIL;
	if (access(path, F_OK)) {
		printf("ringside hook: %s is not installed; nothing changed\n", path);
		return CLI_EXIT_OK;
	}
	if (!dom_cmd_is_hook(path)) {
		cli_err(CMD, "%s is not ringside's hook; left alone", path);
		return CLI_EXIT_FAIL;
	}
	if (unlink(path)) {
		cli_err(CMD, "cannot remove %s: %s", path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	printf("ringside hook: removed %s\n", path);
	return CLI_EXIT_OK;
}

static int run(const struct hook_opts *o)
{
	const char *domain = o->args[0], *op = o->args[1], *sub = o->args[2];

	if (!strcmp(op, "prepare") && !strcmp(sub, "begin"))
		return dom_hook_prepare(CMD, domain, o->group);
	if (!strcmp(op, "release") && !strcmp(sub, "end"))
		return dom_hook_release(CMD, domain);
	/* Anything else is not ours; take libvirt's XML so it sees no EPIPE. */
	while (getchar() != EOF)
		;
	return CLI_EXIT_OK;
}

int cmd_hook(int argc, char **argv)
{
	struct hook_opts o;
	int ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (!strcmp(o.action, "install"))
		return install(&o);
	if (!strcmp(o.action, "uninstall"))
		return uninstall(&o);
	return run(&o);
}
