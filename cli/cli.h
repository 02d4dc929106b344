/* SPDX-License-Identifier: MIT */
/*
 * The ringside command: its subcommands and what they share.
 *
 * Everything in cli/ is the command layer, and only it prints: main.c,
 * the cmd_*.c files, cli.c, file_cmd.c and domain_cmd.c (what several
 * commands share), print*.c (the words for what the libraries found).
 * The libraries below (ringside/capture.h, ringside/introspect.h,
 * perfdata, the VMM's, the libvirt ones) return a negative error code,
 * and where failures come from several libraries, the code with the
 * errstr of the library that returned it (struct cap_err); a session
 * says which step failed (struct cap_failure).  Options are parsed and
 * --help printed from one table per command (ringside/opt.h).
 */
#ifndef RINGSIDE_CLI_H
#define RINGSIDE_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "ringside/opt.h"

enum cli_exit {
	CLI_EXIT_OK    = 0,  /* success */
	CLI_EXIT_FAIL  = 1,  /* a runtime failure: the message says what */
	CLI_EXIT_USAGE = OPT_EXIT_USAGE, /* bad usage: the message says what to type */
	CLI_EXIT_CORRUPT = 3, /* done, and the file (if any) is whole, but the
			       * source was corrupt or damaged (records
			       * discarded, a region header or control page
			       * not as the host laid it out) or its claims
			       * implausible: stderr says what, and what was
			       * recovered */
};

/* A command's name as its messages and help say it: "ringside record". */
#define CLI_PROG(cmd) "ringside " cmd

/* One subcommand.  @run gets argv[0] = the subcommand's name and returns
 * an enum cli_exit value. */
struct cli_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int cmd_record(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_hook(int argc, char **argv);

#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* "ringside CMD: message" on stderr. */
void cli_err(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);
void cli_verr(const char *cmd, const char *fmt, va_list ap) CLI_PRINTF(2, 0);

/*
 * A usage error found after opt_parse() (options that do not go together,
 * operands): the message, a pointer to --help; returns CLI_EXIT_USAGE.
 * Errors in single options are opt_parse()'s.
 */
int cli_usage(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/*
 * What the option tables of several commands share: the operands of those
 * that read a region (record, snapshot, stat) and of those that change a
 * libvirt domain (enable, disable: CLI_DOMAIN_CMD, domain_cmd.h), --vm
 * SOCKET with a command's own words on what it does there (a string
 * literal), --connect URI.
 */
extern const struct opt_arg cli_region_args[];
/* In a struct opt_cmd: one operand, described by @args, @missing when it
 * is not there. */
#define CLI_OPERAND(args_, missing_) \
	.args = (args_), .min_args = 1, .max_args = 1, .missing = (missing_)
/* The same for an operand of one command's own: @name ("FILE") and @help
 * its line in --help (a table that lives as long as the struct opt_cmd). */
#define CLI_OPERAND_OF(name_, help_, missing_) \
	CLI_OPERAND(((const struct opt_arg[]){ { (name_), (help_) }, \
					       { NULL, NULL } }), missing_)
/* The fields of a command (CMD) of that one operand: its name, the
 * operand; and of one that changes a libvirt domain (enable, disable). */
#define CLI_OPERAND_CMD(name_, help_, missing_) \
	.prog = CLI_PROG(CMD), CLI_OPERAND_OF(name_, help_, missing_)
#define CLI_DOMAIN_CMD \
	CLI_OPERAND_CMD("DOMAIN", "the libvirt domain's name", \
			"which domain? give its libvirt name")
#define CLI_OPT_VM(dest, more) \
	OPT_STRING(0, "vm", dest, "SOCKET", "the region of the ringside VMM " \
		   "serving the control socket SOCKET ('ringside run --control " \
		   "SOCKET')" more)
/* enable and disable: --live-only, the running domain alone. */
#define CLI_OPT_LIVE_ONLY(dest, more) \
	OPT_FLAG(0, "live-only", dest, "as --live, and leave the persistent " \
		 "XML as it is" more)
/* The fields of a command that reads one region (REGION, DOMAIN or --vm
 * SOCKET: cli_region_operand): its name, the operands' help, any count
 * (the operand check says what is wrong). */
#define CLI_REGION_CMD \
	.prog = CLI_PROG(CMD), .args = cli_region_args, .max_args = OPT_ANY_ARGS
/* Its usage, the same @tail after REGION|DOMAIN and --vm SOCKET. */
#define CLI_REGION_USAGE(tail) \
	"REGION|DOMAIN " tail "\n--vm SOCKET " tail

/* record's and snapshot's: the process table at the head of @where, and
 * --quiet (@what it hides). */
#define CLI_OPT_NO_PSTATE(dest, where) \
	OPT_FLAG(0, "no-process-state", dest, "do not file the guest's live " \
		 "processes and their mappings (its agent's process state " \
		 "table) at the head of " where)
#define CLI_OPT_QUIET(dest, what) \
	OPT_FLAG('q', "quiet", dest, what " (corruption is still reported " \
		 "on stderr)")
/* Their exit statuses (@cut: what a corrupt region lost). */
#define CLI_NOTES_EXIT(cut) \
	"Exit status: 0 success, 1 failure (FILE is then not created), 2 bad " \
	"usage, 3 FILE is written and whole but the region was corrupt (" cut \
	" discarded, impossible heads) or its records make implausible " \
	"claims: stderr says what, --quiet or not."
#define CLI_OPT_CONNECT(dest) \
	OPT_STRING('c', "connect", dest, "URI", "libvirt URI (default: " \
		   "libvirt's, qemu:///system as root)")

/*
 * The one region a command reads, from its operands @args[0 .. @nargs-1]:
 * either --vm SOCKET (@vm) or one REGION operand (path, fd:N, libvirt
 * DOMAIN).  Sets *@region; returns 0, or CLI_EXIT_USAGE after saying what
 * is wrong.
 */
int cli_region_operand(const char *cmd, int nargs, char **args, const char *vm,
		       const char **region);

struct cap_source;
/*
 * Open the region a command reads with @flags (ringside/cap_source.h)
 * into *@mp: the VM's behind control socket @vm (--vm), else @region;
 * then make sure @output (NULL: none) is not the region's own file.  0
 * (cap_source_free frees it), or CLI_EXIT_FAIL after saying what is wrong
 * and what to do (*@mp is then NULL).
 */
int cli_region_open(const char *cmd, struct cap_source **mp, const char *vm,
		    const char *region, unsigned flags, const char *output);

/* The full command line, for the perf.data header. */
void cli_set_argv(int argc, char **argv);
int cli_argc(void);
char *const *cli_argv(void);

#endif /* RINGSIDE_CLI_H */
