/* SPDX-License-Identifier: MIT */
/* ringside report FILE [--json]: per ring, what a ringside file holds. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "file_cmd.h"
#include "report_out.h"
#include "tally.h"

#define CMD "report"

static int parse(int argc, char **argv, int *json, const char **path)
{
	const struct opt opts[] = {
		OPT_FLAG(0, "json", json, "one JSON object instead of text"),
		OPT_END
	};

	return file_cmd_parse(CLI_PROG(CMD), "FILE [--json]",
			      "Summarize a perf.data file written by ringside "
			      "record or snapshot, per ring: records by type, "
			      "records lost (the sum of the LOST records), AUX "
			      "records and how many were truncated, the time span "
			      "and the rate.  ringside's own records are decoded "
			      "from the events that carry them.",
			      opts, argc, argv, path);
}

int cmd_report(int argc, char **argv)
{
	struct pdf_reader *r = NULL;
	struct pdf_event ev;
	const char *path;
	struct tally *t;
	int json = 0, ret, n;

	ret = parse(argc, argv, &json, &path);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	ret = file_cmd_open(CMD, path, &r);
	if (ret)
		return ret;
	t = malloc(sizeof(*t));
	if (!t) {
		cli_err(CMD, "out of memory");
		pdf_reader_close(r);
		return CLI_EXIT_FAIL;
	}
	tally_init(t, pdf_reader_info(r)->nr_rings, pdf_reader_info(r)->sample_type);
	while ((n = pdf_reader_next(r, &ev)) == 1)
		tally_add(t, ev.ring, ev.time, ev.rec);
	if (n < 0) {
		ret = file_cmd_read_error(CMD, path, &ev, n);
	} else {
		if (json)
			report_json(stdout, path, pdf_reader_info(r), t);
		else
			report_text(stdout, path, pdf_reader_info(r), t);
		ret = CLI_EXIT_OK;
	}
	free(t);
	pdf_reader_close(r);
	return ret;
}
