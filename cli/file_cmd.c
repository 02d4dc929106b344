/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "err.h"
#include "file_cmd.h"

int file_cmd_open(const char *cmd, const char *path, struct pdf_reader **r)
{
	int err = pdf_reader_open(r, path);

	if (!err)
		return 0;
	if (err == -ENOENT)
		cli_err(cmd, "%s does not exist; give a file written by 'ringside "
			"record' or 'ringside snapshot'", path);
	else if (err == -(ERR_PDF + pdfe_magic))
		cli_err(cmd, "%s is not a perf.data file; give a file written by "
			"'ringside record' or 'ringside snapshot'", path);
	else if (err == -(ERR_PDF + pdfe_not_ringside))
		cli_err(cmd, "%s is a perf.data file without ringside's events; "
			"read it with perf, or give a file ringside wrote", path);
	else
		cli_err(cmd, "cannot read %s: %s", path, err_str(err));
	return CLI_EXIT_FAIL;
}

int file_cmd_read_error(const char *cmd, const char *path,
			const struct pdf_event *ev, int err)
{
	cli_err(cmd, "%s: %s at offset %" PRIu64 "; the records before it were "
		"read", path, err_str(err), ev->offset);
	return CLI_EXIT_FAIL;
}

int file_cmd_parse(const char *cmd, int argc, char **argv, void (*help)(void),
		   int *json, const char **path)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, json ? ":jh" : ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			help();
			return -1;
		}
		if (c == 'j' && json) {
			*json = 1;
			continue;
		}
		if (c == 'j')
			return cli_usage(cmd, "unknown option '--json'");
		return cli_bad_option(cmd, argv, c);
	}
	if (optind >= argc)
		return cli_usage(cmd, "which file? give a perf.data file ringside wrote");
	if (argc - optind > 1)
		return cli_usage(cmd, "one file only; '%s' is extra", argv[optind + 1]);
	*path = argv[optind];
	return 0;
}
