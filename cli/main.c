/* SPDX-License-Identifier: MIT */
/*
 * ringside: trace a guest from the host.  Subcommands are rows of the
 * table below; each lives in its own cmd_NAME.c.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef RINGSIDE_VERSION
#define RINGSIDE_VERSION "unknown"
#endif

static const struct cli_cmd commands[] = {
	{ "record",   "drain a live trace region into a perf.data file", cmd_record },
	{ "snapshot", "copy every ring of a region into a perf.data file now", cmd_snapshot },
	{ "report",   "summarize a ringside perf.data file per ring", cmd_report },
	{ "dump",     "print every record of a ringside perf.data file", cmd_dump },
	{ "decode",   "decode a pt-virt capture (Intel PT) with libipt", cmd_decode },
	{ "archive",  "bundle what names a perf.data file's samples elsewhere", cmd_archive },
	{ "capture",  "ask the host service to capture a domain's flight recorder", cmd_capture },
	{ "stat",     "show the rings of a region as they are right now", cmd_stat },
	{ "run",      "boot a payload in the ringside VMM and read its rings", cmd_run },
	{ "enable",   "opt a libvirt domain in (metadata and <shmem> device)", cmd_enable },
	{ "disable",  "take a libvirt domain's ringside opt-in out again", cmd_disable },
	{ "hook",     "install the libvirt hook that creates domains' regions", cmd_hook },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ringside COMMAND [ARGS]\n\n"
		   "Trace a guest through its ringside trace region.\n\n"
		   "commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'ringside COMMAND --help' describes a command.\n"
		   "Exit status: 0 success, 1 failure, 2 bad usage.\n");
}

static const struct cli_cmd *find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cli_cmd *cmd;
	const char *name;

	/* A file size limit must show up as EFBIG from write(), so that the
	 * half-written output is removed, not as a killed process. */
	signal(SIGXFSZ, SIG_IGN);
	cli_set_argv(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("ringside %s\n", RINGSIDE_VERSION);
		return CLI_EXIT_OK;
	}
	if (!strcmp(name, "help")) {
		if (argc < 3) {
			usage(stdout);
			return CLI_EXIT_OK;
		}
		cmd = find(argv[2]);
		if (!cmd) {
			fprintf(stderr, "ringside: no command '%s'; see 'ringside --help'\n",
				argv[2]);
			return CLI_EXIT_USAGE;
		}
		{
			char help_opt[] = "--help";
			char *help_argv[] = { argv[2], help_opt, NULL };

			return cmd->run(2, help_argv);
		}
	}
	cmd = find(name);
	if (!cmd) {
		fprintf(stderr, "ringside: '%s' is not a ringside command; see "
			"'ringside --help'\n", name);
		return CLI_EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
