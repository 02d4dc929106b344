/* SPDX-License-Identifier: MIT */
/*
 * ringside's own build-id caches, where a file's guest names go
 * (perfdata/src/pdf_cache.c), and the one perf reads, where they never go.
 */
#ifndef RINGSIDE_PERFDATA_CACHE_H
#define RINGSIDE_PERFDATA_CACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bytes of a build id at most (perf's BUILD_ID_SIZE). */
#define PDF_BUILD_ID_SIZE     20u

/*
 * ringside's own build-id cache of a perf.data file it wrote: the
 * directory PDF_CACHE_NAME beside it (the file's directory/.ringside-debug),
 * where the writer puts the guest's kernel symbols and code and its user
 * binaries' symbols, and where `ringside report --pprof`, `archive` and
 * `decode` read them; perf reads it with `perf --buildid-dir DIR`.  The
 * files of one directory share it: the service and the libvirt hook keep
 * one directory per domain.  0, -ENAMETOOLONG, PDF_ERR(pdfe_invalid).
 */
#define PDF_CACHE_NAME ".ringside-debug"
int pdf_cache_dir_of(const char *file, char *dst, size_t size);

/*
 * The build-id cache a plain perf 6.1 reads: "dir" of section [buildid] in
 * the perfconfig perf reads ($PERF_CONFIG alone if set, else
 * /etc/perfconfig then $HOME/.perfconfig), else $HOME/.debug.  perf does
 * not read PERF_BUILDID_DIR (it sets it for the programs it runs), so
 * neither does this.  -ENAMETOOLONG, -ENOENT (no HOME).  ringside never
 * writes there: what names the host's own programs for the host's perf
 * is no place for a guest's claims (docs/perfdata.md, "Where guest names
 * go").
 */
int pdf_cache_perf_dir(char *dst, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_CACHE_H */
