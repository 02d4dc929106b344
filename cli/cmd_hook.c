/* SPDX-License-Identifier: MIT */
/*
 * ringside hook install|uninstall|run: the libvirt hook that creates a
 * domain's trace region before QEMU opens it and removes it afterwards.
 *
 * libvirt runs /etc/libvirt/hooks/qemu.d/ringside with DOMAIN OPERATION
 * SUB-OPERATION EXTRA and the domain XML on stdin.  The installed script
 * execs ringside-hook (libvirt/hook_main.c), a small program of its own
 * that links neither libvirt nor the VMM; 'ringside hook run' does the same
 * work in this process (dom_hook_run), for whoever lays a region out by
 * hand.  Neither calls back into libvirt (libvirtd holds the domain's lock
 * while it waits).
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/domain_hook.h"

#include "cli.h"

#define CMD "hook"
#define HOOK_PROGRAM "ringside-hook"

struct hook_opts {
	const char *action;     /* install, uninstall, run */
	const char *dir;        /* hooks directory */
	const char *group;      /* owner group of region files */
	const char *program;    /* ringside-hook, as the script runs it */
	int legacy;             /* DIR/qemu instead of DIR/qemu.d/ringside */
	const char *capture_dir; /* stopped domains' captures (NULL: the
				  * hook's CAP_FLIGHT_DIR) */
	uint32_t keep, keep_mb;  /* per domain (0: the hook's default) */
	int force;
	char **args;            /* run: DOMAIN OPERATION SUB-OPERATION ... */
	int nargs;
};

static int parse(int argc, char **argv, struct hook_opts *o)
{
	const struct opt opts[] = {
		OPT_STRING('d', "dir", &o->dir, "DIR", "libvirt's hooks directory "
			   "(default " DOM_HOOK_DIR ")"),
		OPT_STRING('g', "group", &o->group, "G", "group of the QEMU "
			   "processes (default " DOM_HOOK_GROUP ")"),
		OPT_FLAG('l', "legacy", &o->legacy, "install as DIR/qemu (libvirt "
			 "without qemu.d support)"),
		OPT_FLAG('f', "force", &o->force, "replace a hook file ringside did "
			 "not write"),
		OPT_STRING('p', "program", &o->program, "P", "the hook program "
			   "libvirt runs (default: ringside-hook beside this "
			   "ringside)"),
		OPT_STRING('C', "capture-dir", &o->capture_dir, "DIR", "where a "
			   "stopped domain's flight recorder is captured, as "
			   "DIR/DOMAIN/TIME-NNN.data (default " CAP_FLIGHT_DIR ")"),
		OPT_U32('k', "keep", &o->keep, "N", 1, 100000, NULL, "captures "
			"kept per domain, the oldest removed first (default 8)"),
		OPT_U32('m', "keep-mb", &o->keep_mb, "M", 1, 1u << 30, NULL,
			"MiB of captures kept per domain (default 1024)"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		.prog = CLI_PROG(CMD),
		.usage = "install [--dir DIR] [--group G] [--legacy] [--force] "
			 "[--program P] [--capture-dir DIR] [--keep N] "
			 "[--keep-mb M]\n"
			 "uninstall [--dir DIR] [--legacy]\n"
			 "run [--group G] [--capture-dir DIR] [--keep N] [--keep-mb M] "
			 "DOMAIN OPERATION SUB-OPERATION [EXTRA]",
		.about = "install writes DIR/qemu.d/ringside (DIR/qemu with "
			 "--legacy), a script that libvirt runs for every QEMU "
			 "domain; it execs ringside-hook, which links neither "
			 "libvirt nor the VMM.  For a domain opted in with 'ringside "
			 "enable' it creates /dev/shm/ringside-DOMAIN at 'prepare "
			 "begin' (laid out, exact size, mode 0660, owner root, group "
			 "G) and removes it at 'release end', once its rings are "
			 "captured as a perf.data file in DIR/DOMAIN/ (the guest's "
			 "symbols in DIR/DOMAIN/" PDF_CACHE_NAME ", for perf "
			 "--buildid-dir): "
			 "the flight recorder outlives a domain that crashed, was "
			 "destroyed or powered off.  Other domains are left "
			 "alone.  libvirtd looks for hooks when it starts: restart it "
			 "after installing.",
		.opts = opts,
		.notes = "run does what ringside-hook does, in this process: it "
			 "reads the domain XML on stdin and never calls libvirt.  "
			 "Exit status: 0 success, 1 failure (at 'prepare' libvirt "
			 "then refuses to start the domain, with this message), "
			 "2 bad usage.",
		/* options end at DOMAIN, so that a DOMAIN "-x" stays one */
		.flags = OPT_IN_ORDER,
		.max_args = OPT_ANY_ARGS,
	};
	int first, ret, is_run;

	memset(o, 0, sizeof(*o));
	o->dir = DOM_HOOK_DIR;
	o->group = DOM_HOOK_GROUP;
	if (argc < 2)
		return cli_usage(CMD, "install, uninstall or run?");
	o->action = argv[1];
	if (!strcmp(o->action, "-h") || !strcmp(o->action, "--help")) {
		opt_help(&cmd);
		return OPT_HELP;
	}
	is_run = !strcmp(o->action, "run");
	if (!is_run && strcmp(o->action, "install") && strcmp(o->action, "uninstall"))
		return cli_usage(CMD, "'%s': install, uninstall or run?", o->action);
	/* the action is the command line's argv[0] */
	ret = opt_parse(&cmd, argc - 1, argv + 1, &first);
	if (ret)
		return ret;
	o->args = argv + 1 + first;
	o->nargs = argc - 1 - first;
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

/* ringside-hook in the directory of this ringside, into @buf. */
static int program_beside_me(char *buf, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n;
	int k;

	n = readlink("/proc/self/exe", self, sizeof(self));
	if (n < 0)
		return -errno;
	if (n == 0 || (size_t)n >= sizeof(self))
		return -ENAMETOOLONG;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	k = snprintf(buf, len, "%s/%s", self, HOOK_PROGRAM);
	return (k < 0 || (size_t)k >= len) ? -ENAMETOOLONG : 0;
}

static int install(const struct hook_opts *o)
{
	char path[PATH_MAX], sub[PATH_MAX], program[PATH_MAX];
	struct dom_hook_keep keep;
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
	if (o->program)
		err = realpath(o->program, program) ? 0 : -errno;
	else
		err = program_beside_me(program, sizeof(program));
	if (!err && access(program, X_OK))
		err = -errno;
	if (err) {
		cli_err(CMD, "%s: %s; give the hook program with --program PATH",
			o->program ? o->program : program, strerror(-err));
		return CLI_EXIT_FAIL;
	}
	if (strchr(program, '\'') || strchr(o->group, '\'')) {
		cli_err(CMD, "'%s' / '%s': neither may contain a quote", program,
			o->group);
		return CLI_EXIT_FAIL;
	}
	if (!access(path, F_OK) && !dom_hook_file_is_ours(path) && !o->force) {
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
	if (o->capture_dir && (o->capture_dir[0] != '/' ||
			       strchr(o->capture_dir, '\''))) {
		cli_err(CMD, "--capture-dir '%s': an absolute path without a "
			"quote", o->capture_dir);
		return CLI_EXIT_USAGE;
	}
	keep.capture_dir = o->capture_dir;
	keep.keep = o->keep;
	keep.keep_mb = o->keep_mb;
	err = dom_hook_file_write(path, program, o->group, &keep);
	if (err) {
		cli_err(CMD, "cannot write %s: %s", path, dom_error_str(err));
		return CLI_EXIT_FAIL;
	}
	printf("ringside hook: installed %s (runs %s); restart libvirtd so that "
	       "it sees the hook\n", path, program);
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
	if (!dom_hook_file_is_ours(path)) {
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

static void hook_log(void *arg, const char *fmt, va_list ap)
{
	(void)arg;
	cli_verr(CMD, fmt, ap);
}

static int run(const struct hook_opts *o)
{
	struct cap_flight_opts fo = {
		.dir = o->capture_dir,
		.keep = o->keep ? o->keep : CAP_FLIGHT_KEEP,
		.keep_bytes = o->keep_mb ? (uint64_t)o->keep_mb << 20 :
			      CAP_FLIGHT_KEEP_BYTES,
		.argc = cli_argc(),
		.argv = cli_argv(),
	};
	struct dom_hook_call call = {
		.domain = o->args[0],
		.op = o->args[1],
		.subop = o->args[2],
		.group = o->group,
		.xml_fd = STDIN_FILENO,
		.capture = cap_flight_hook,
		.capture_arg = &fo,
	};

	return dom_hook_run(&call, hook_log, NULL) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
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
