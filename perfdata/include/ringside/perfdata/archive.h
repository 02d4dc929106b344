/* SPDX-License-Identifier: MIT */
/*
 * A file's build-id cache entries in one tar (perfdata/src/pdf_archive.c),
 * what `perf archive` bundles.
 */
#ifndef RINGSIDE_PERFDATA_ARCHIVE_H
#define RINGSIDE_PERFDATA_ARCHIVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What became of one HEADER_BUILD_ID entry of the file. */
enum pdf_archive_what {
	PDF_ARCHIVE_FOUND,     /* its cache entry is in the archive */
	PDF_ARCHIVE_MISSING,   /* the cache has no entry for it */
	PDF_ARCHIVE_REFUSED,   /* a name that is no path under the cache */
};

struct pdf_archive_stats {
	uint32_t ids;          /* HEADER_BUILD_ID entries of the file */
	uint32_t found;        /* of them with a cache entry, archived */
	uint32_t refused;      /* of them with a name not archived */
	uint32_t files;        /* regular files in the archive */
	uint32_t links;        /* .build-id links in the archive */
	uint64_t bytes;        /* the files' bytes */
};

/* Told of each entry: its name in the file, its id in hex. */
typedef void (*pdf_archive_fn)(void *arg, const char *name, const char *hex,
			       enum pdf_archive_what what);

/*
 * Write @tar_path (a ustar archive, written aside and renamed into place)
 * holding, for every HEADER_BUILD_ID entry of perf.data file @perf_data,
 * what the build-id cache (@buildid_dir; NULL: a ringside file's own,
 * pdf_cache_dir_of(), any other perf.data file's perf's,
 * pdf_cache_perf_dir()) has of it: every regular file of DIR/NAME/HEX
 * and the link DIR/.build-id/XX/REST to it, named relative to DIR (what
 * `perf archive` bundles: unpacked into the cache beside the file on
 * another machine, perf and hotspot name the file's samples there).  Any perf.data file, ringside's or not.  -errno,
 * PDF_ERR(pdfe_invalid | pdfe_magic | pdfe_format | pdfe_truncated),
 * -ENAMETOOLONG, -EFBIG (a file over ustar's 8 GiB).
 */
int pdf_archive_write(const char *perf_data, const char *tar_path,
		      const char *buildid_dir, struct pdf_archive_stats *st,
		      pdf_archive_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_ARCHIVE_H */
