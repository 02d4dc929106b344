/* SPDX-License-Identifier: MIT */
/*
 * ringside archive FILE: what names FILE's samples on another machine, in
 * one tar beside it (FILE.tar): every build-id cache entry the file's
 * HEADER_BUILD_ID names (the guest kernel's kallsyms, modules and kcore,
 * the guest's user symbol ELFs), as `perf archive` bundles them
 * (pdf_archive_write(); docs/perfdata.md, "Files on another machine").
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ringside/perfdata.h"

#include "cli.h"

#define CMD "archive"

struct arch_out {
	int quiet;
	unsigned missing;
};

static void on_entry(void *arg, const char *name, const char *hex,
		     enum pdf_archive_what what)
{
	struct arch_out *o = arg;

	if (what == PDF_ARCHIVE_MISSING)
		o->missing++;
	if (o->quiet && what == PDF_ARCHIVE_FOUND)
		return;
	printf("  %s %s: %s\n", hex, name,
	       what == PDF_ARCHIVE_FOUND ? "archived" :
	       what == PDF_ARCHIVE_MISSING ? "not in the build-id cache: "
					     "readers will not name it" :
	       "refused: its name is no path under the cache");
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int cmd_archive(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, *dir = NULL;
	struct arch_out o = { 0 };
	struct pdf_archive_stats st;
	char tar[PATH_MAX];
	int first, ret, err;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &out, "TAR",
			   "the archive to write (default: FILE.tar)"),
		OPT_STRING(0, "buildid-dir", &dir, "DIR",
			   "the build-id cache to take the entries from "
			   "(default: for ringside's files their own, "
			   PDF_CACHE_NAME " beside FILE; for any other "
			   "perf's, ~/.debug or perfconfig's [buildid] dir)"),
		OPT_FLAG('q', "quiet", &o.quiet,
			 "name only the entries that were not archived"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_OPERAND_CMD("FILE", "a perf.data file (of 'ringside record' "
				"or 'ringside snapshot', or any other)",
				"which file? give a perf.data file"),
		.usage = "FILE [-o TAR] [--buildid-dir DIR] [-q]",
		.about = "Write what names FILE's samples on another machine "
			 "into one tar archive, as 'perf archive' does: for "
			 "every build id in FILE's header (the guest kernel's, "
			 "the guest programs' whose symbols the guest sent), "
			 "the build-id cache entry that 'record' or 'snapshot' "
			 "made for it beside FILE (its files and its .build-id "
			 "link).  On the other machine, unpack it beside FILE "
			 "into a cache of its own, never into ~/.debug (the "
			 "guest's names would name that machine's own programs "
			 "of the same build id), and open FILE with perf or "
			 "hotspot:\n"
			 "  mkdir -p " PDF_CACHE_NAME " && tar xf FILE.tar -C "
			 PDF_CACHE_NAME "\n"
			 "  perf --buildid-dir " PDF_CACHE_NAME " report -i FILE\n"
			 "  hotspot --debugPaths \"$PWD/" PDF_CACHE_NAME "\" FILE\n"
			 "Without it, perf shows the guest kernel's samples as "
			 "addresses; hotspot names them after the reading "
			 "host's own kernel unless given the guest's kallsyms "
			 "(see the operator guide).",
		.opts = opts,
		.notes = "Exit status: 0 every entry archived, 1 failure or an "
			 "entry missing from the cache (the archive is written "
			 "with the others), 2 bad usage.",
	};

	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	path = argv[first];
	if (!out) {
		if ((size_t)snprintf(tar, sizeof(tar), "%s.tar", path) >=
		    sizeof(tar))
			return cli_usage(CMD, "%s: name too long", path);
		out = tar;
	}
	err = pdf_archive_write(path, out, dir, &st, on_entry, &o);
	if (err) {
		if (err == PDF_ERR(pdfe_magic))
			cli_err(CMD, "%s is not a perf.data file", path);
		else
			cli_err(CMD, "cannot archive %s into %s: %s", path, out,
				pdf_error_str(err));
		return CLI_EXIT_FAIL;
	}
	printf("ringside archive: %u of %u build ids archived (%u files, "
	       "%" PRIu64 " bytes) in %s\n", st.found, st.ids, st.files,
	       st.bytes, out);
	if (!st.ids)
		printf("  %s names no build id: nothing for readers to find\n",
		       path);
	else
		printf("  on the reading machine, in the directory of %s: "
		       "mkdir -p %s && tar xf %s -C %s; then perf --buildid-dir "
		       "%s report -i %s\n", base(path), PDF_CACHE_NAME, base(out),
		       PDF_CACHE_NAME, PDF_CACHE_NAME, base(path));
	return st.found + st.refused < st.ids || st.refused ? CLI_EXIT_FAIL
							    : CLI_EXIT_OK;
}
