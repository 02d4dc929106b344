/* SPDX-License-Identifier: MIT */
/* What report and dump share: opening a ringside perf.data file with a
 * message that says what is wrong, and walking it to the end. */
#ifndef RINGSIDE_CLI_FILE_CMD_H
#define RINGSIDE_CLI_FILE_CMD_H

#include "ringside/perfdata.h"

/* Open @path for @cmd; prints why not.  0 or CLI_EXIT_FAIL. */
int file_cmd_open(const char *cmd, const char *path, struct pdf_reader **r);

/* Report a pdf_reader_next() failure at @ev->offset; returns CLI_EXIT_FAIL. */
int file_cmd_read_error(const char *cmd, const char *path,
			const struct pdf_event *ev, int err);

/* Parse "[--json] FILE" style arguments shared by report and dump.  Returns
 * 0, CLI_EXIT_USAGE, or -1 after printing @help (exit 0). */
int file_cmd_parse(const char *cmd, int argc, char **argv, void (*help)(void),
		   int *json, const char **path);

#endif /* RINGSIDE_CLI_FILE_CMD_H */
