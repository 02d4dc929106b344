/* SPDX-License-Identifier: MIT */
/* ringside report FILE [--json]: per ring, what a ringside file holds. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "ringside/capture.h"
#include "ringside/introspect.h"
#include "ringside/pprof.h"

#include "cli.h"
#include "file_cmd.h"
#include "print.h"

#define CMD "report"

struct report_opts {
	int json;
	const char *symfs;
	uint32_t top;
	const char *pprof, *domain;
};

static int parse(int argc, char **argv, struct report_opts *o, const char **path)
{
	const struct opt opts[] = {
		OPT_FLAG(0, "json", &o->json, "one JSON object instead of text"),
		OPT_STRING(0, "symfs", &o->symfs, "DIR", "name the guest's user "
			   "functions from the ELF files under DIR (a copy of the "
			   "guest's files, at the guest's paths)"),
		OPT_U32(0, "top", &o->top, "N", 0, 1000, "functions", "show the "
			"N functions with the most user samples (default 10; 0: "
			"none)"),
		OPT_STRING(0, "pprof", &o->pprof, "OUT", "write the guest's "
			   "samples to OUT as a gzipped pprof profile instead "
			   "(docs/pprof.md): call chains, kernel and user "
			   "functions named from the build-id cache beside "
			   "FILE (" PDF_CACHE_NAME ")"),
		OPT_STRING(0, "domain", &o->domain, "NAME", "with --pprof: "
			   "the domain label of every sample"),
		OPT_END
	};

	return file_cmd_parse(CLI_PROG(CMD), "FILE [--json] [--symfs DIR] [--top N] "
			      "[--pprof OUT [--domain NAME]]",
			      "Summarize a perf.data file written by ringside "
			      "record or snapshot, per ring: what the host "
			      "observed reading the rings (corruption, bytes "
			      "discarded, AUX bytes taken and stored), then what "
			      "the guest's records claim: records by type, "
			      "records lost (the sum of the LOST records), AUX "
			      "records and how many were truncated, the time span "
			      "and the rate.  Claims no honest guest could make "
			      "(a LOST count above one per nanosecond the ring "
			      "could have run, an AUX size above the AUX area, a "
			      "time outside the host's recording window) are "
			      "flagged and left out of the sums.  ringside's own "
			      "records are decoded "
			      "from the events that carry them.  Then the guest's "
			      "user-mode samples by function: the file and offset "
			      "from the guest's MMAP2 records, the name from the "
			      "file's symbols under --symfs (text output only).",
			      opts, argc, argv, path);
}

/* The user samples' table after the tallies. */
static int report_usyms(struct pdf_reader *r, const char *path,
			const struct report_opts *o)
{
	struct gi_symfs_summary sum;
	struct gi_symfs_row *rows;
	struct pdf_event ev;
	struct gi_symfs *u;
	uint64_t type = pdf_reader_info(r)->sample_type;
	int n, ret;

	rows = calloc(o->top ? o->top : 1, sizeof(*rows));
	if (!rows || gi_symfs_new(&u, o->symfs)) {
		free(rows);
		cli_err(CMD, "out of memory");
		return CLI_EXIT_FAIL;
	}
	while ((n = pdf_reader_next(r, &ev)) == 1)
		gi_symfs_add(u, ev.rec, type);
	if (n < 0) {
		ret = file_cmd_read_error(CMD, path, &ev, n);
	} else if ((n = gi_symfs_top(u, rows, o->top, &sum)) < 0) {
		cli_err(CMD, "out of memory");
		ret = CLI_EXIT_FAIL;
	} else {
		if (sum.samples)
			print_usyms(stdout, &sum, rows, n, o->symfs);
		ret = CLI_EXIT_OK;
	}
	gi_symfs_free(u);
	free(rows);
	return ret;
}

/* --pprof: the profile and one line on what it holds. */
static int report_pprof(const char *path, const struct report_opts *o)
{
	const struct pprof_params p = { .size = sizeof(p), .domain = o->domain };
	struct pprof_stats st;
	int err = pprof_file_write(path, o->pprof, &p, &st);

	if (err) {
		cli_err(CMD, "%s -> %s: %s", path, o->pprof, pdf_error_str(err));
		return CLI_EXIT_FAIL;
	}
	const char *why = st.ksyms_err == -ENODATA ? "the file names no kernel" :
			  st.ksyms_err == -ENOENT ? "not in the build-id cache" :
			  pdf_error_str(st.ksyms_err);

	printf("%s: %" PRIu64 " samples, %" PRIu32 " functions, %" PRIu32
	       " locations; unnamed frames: kernel %" PRIu64 " of %" PRIu64
	       "%s%s%s, user %" PRIu64 " of %" PRIu64 " (%" PRIu64
	       " unmapped, %" PRIu32 " binaries without symbols)\n",
	       o->pprof, st.samples, st.functions, st.locations,
	       st.kernel_unnamed, st.kernel_frames,
	       st.ksyms_err ? " (no guest kallsyms: " : "",
	       st.ksyms_err ? why : "",
	       st.ksyms_err ? ")" : "", st.user_unnamed + st.user_unmapped,
	       st.user_frames, st.user_unmapped, st.ubins_missing);
	if (st.bad_samples || st.frames_cut || st.maps_dropped || st.comms_dropped)
		printf("%s: left out: %" PRIu64 " samples that do not parse, %"
		       PRIu64 " frames past %u, %" PRIu64 " mappings, %" PRIu64
		       " thread names (over the bounds, docs/pprof.md)\n",
		       o->pprof, st.bad_samples, st.frames_cut, PPROF_MAX_FRAMES,
		       st.maps_dropped, st.comms_dropped);
	return CLI_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct pdf_reader *r = NULL;
	struct pdf_event ev;
	struct report_opts o = { .top = 10 };
	struct cap_host_view *hv;
	const char *path;
	struct cap_tally *t;
	int ret, n;

	ret = parse(argc, argv, &o, &path);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (o.domain && !o.pprof)
		return cli_usage(CMD, "--domain labels a profile: give --pprof OUT");
	if (o.pprof)
		return report_pprof(path, &o);
	ret = file_cmd_open(CMD, path, &r);
	if (ret)
		return ret;
	t = malloc(sizeof(*t));
	hv = malloc(sizeof(*hv));
	if (!t || !hv) {
		cli_err(CMD, "out of memory");
		free(t);
		free(hv);
		pdf_reader_close(r);
		return CLI_EXIT_FAIL;
	}
	cap_tally_init(t, pdf_reader_info(r)->nr_rings, pdf_reader_info(r)->sample_type);
	cap_tally_bounds_from_info(&t->bounds, pdf_reader_info(r));
	cap_host_view_init(hv);
	pdf_reader_want_host(r, 1);
	while ((n = pdf_reader_next(r, &ev)) == 1) {
		if (!ev.host)
			cap_tally_event(t, &ev);
		else if (cap_host_view_feed(hv, &ev))
			n = -ENOMEM;
		if (n < 0)
			break;
	}
	cap_host_view_finish(hv);
	/* the guest's records around the host's preemptions: a walk of
	 * their own (the host's come after them in the file) */
	if (n == 0 && hv->records && !o.json) {
		struct pdf_reader *r2;

		if (!pdf_reader_open(&r2, path)) {
			while (pdf_reader_next(r2, &ev) == 1)
				cap_host_view_guest(hv, &ev);
			pdf_reader_close(r2);
		}
	}
	if (n == -ENOMEM) {
		cli_err(CMD, "out of memory");
		ret = CLI_EXIT_FAIL;
	} else if (n < 0) {
		ret = file_cmd_read_error(CMD, path, &ev, n);
	} else {
		if (o.json)
			print_report_json(stdout, path, pdf_reader_info(r), t, hv);
		else
			print_report_text(stdout, path, pdf_reader_info(r), t);
		if (!o.json && pdf_reader_has_host(r))
			print_host_report(stdout, hv);
		ret = CLI_EXIT_OK;
	}
	cap_host_view_fini(hv);
	free(hv);
	free(t);
	pdf_reader_close(r);
	/* a second pass: the mappings and samples, in file order */
	if (ret == CLI_EXIT_OK && !o.json && o.top) {
		ret = file_cmd_open(CMD, path, &r);
		if (ret)
			return ret;
		ret = report_usyms(r, path, &o);
		pdf_reader_close(r);
	}
	return ret;
}
