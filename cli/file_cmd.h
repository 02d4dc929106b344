/* SPDX-License-Identifier: MIT */
/* What report and dump share: their FILE operand, opening a ringside
 * perf.data file with a message that says what is wrong, and walking it to
 * the end. */
#ifndef RINGSIDE_CLI_FILE_CMD_H
#define RINGSIDE_CLI_FILE_CMD_H

#include "ringside/opt.h"
#include "ringside/perfdata.h"

/* Open @path for @cmd; prints why not (pdf_error_str).  0 or CLI_EXIT_FAIL. */
int file_cmd_open(const char *cmd, const char *path, struct pdf_reader **r);

/* Report @err, a pdf_reader_next() failure at @ev->offset; returns
 * CLI_EXIT_FAIL. */
int file_cmd_read_error(const char *cmd, const char *path,
			const struct pdf_event *ev, int err);

/* The command line of report and dump: @opts (NULL: none) and one FILE;
 * @usage and @about for --help.  0, OPT_HELP after --help, or
 * CLI_EXIT_USAGE after saying what is wrong. */
int file_cmd_parse(const char *prog, const char *usage, const char *about,
		   const struct opt *opts, int argc, char **argv,
		   const char **path);

#endif /* RINGSIDE_CLI_FILE_CMD_H */
