/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "file_cmd.h"

int file_cmd_parse(const char *prog, const char *usage, const char *about,
		   const struct opt *opts, int argc, char **argv,
		   const char **path)
{
	const struct opt_cmd cmd = {
		.prog = prog,
		.usage = usage,
		.about = about,
		.opts = opts,
		.notes = "Exit status: 0 success, 1 unreadable file, 2 bad usage.",
		CLI_OPERAND_OF("FILE", "a perf.data file written by ringside "
			       "record or snapshot",
			       "which file? give a perf.data file ringside wrote"),
	};
	int first, ret;

	ret = opt_parse(&cmd, argc, argv, &first);
	if (!ret)
		*path = argv[first];
	return ret;
}

int file_cmd_open(const char *cmd, const char *path, struct pdf_reader **r)
{
	int err = pdf_reader_open(r, path);

	if (!err)
		return 0;
	if (err == -ENOENT)
		cli_err(cmd, "%s does not exist; give a file written by 'ringside "
			"record' or 'ringside snapshot'", path);
	else if (err == PDF_ERR(pdfe_magic))
		cli_err(cmd, "%s is not a perf.data file; give a file written by "
			"'ringside record' or 'ringside snapshot'", path);
	else if (err == PDF_ERR(pdfe_not_ringside))
		cli_err(cmd, "%s is a perf.data file without ringside's events; "
			"read it with perf, or give a file ringside wrote", path);
	else
		cli_err(cmd, "cannot read %s: %s", path, pdf_error_str(err));
	return CLI_EXIT_FAIL;
}

int file_cmd_read_error(const char *cmd, const char *path,
			const struct pdf_event *ev, int err)
{
	cli_err(cmd, "%s: %s at offset %" PRIu64 "; the records before it were "
		"read", path, pdf_error_str(err), ev->offset);
	return CLI_EXIT_FAIL;
}
