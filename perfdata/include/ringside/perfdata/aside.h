/* SPDX-License-Identifier: MIT */
/*
 * Files written aside and renamed into place (perfdata/src/pdf_aside.c).
 */
#ifndef RINGSIDE_PERFDATA_ASIDE_H
#define RINGSIDE_PERFDATA_ASIDE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every file ringside writes (perf.data files, pprof profiles, archives,
 * the service's sidecars) is written as PATH.tmp.XXXXXX and renamed over
 * PATH when whole.  The six characters are random, and the file is made
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 (less the umask), in PATH's own
 * directory: in a directory other users may write (/tmp, a sticky
 * shared one) no name they planted, link or file, is ever opened,
 * truncated or left readable to them, and the rename replaces PATH
 * itself (a link there too), never what it points to.
 */
#define PDF_ASIDE_SUFFIX ".tmp.XXXXXX"

/* Create the temporary file of @path, its name into @tmp (at least
 * strlen(@path) + sizeof(PDF_ASIDE_SUFFIX) bytes).  The descriptor
 * (O_RDWR, O_CLOEXEC), -EINVAL, -ENAMETOOLONG, -EEXIST (100 names
 * taken), -errno of open. */
int pdf_aside_open(const char *path, char *tmp, size_t size);

/* fsync and close @fd, rename @tmp to @path.  0, or -errno with @tmp
 * removed; @fd is closed either way. */
int pdf_aside_commit(int fd, const char *tmp, const char *path);

/* Close @fd (if >= 0) and remove @tmp. */
void pdf_aside_discard(int fd, const char *tmp);

/* @len bytes at @buf as the whole of file @path: pdf_aside_open, the
 * write, pdf_aside_commit.  0, -errno. */
int pdf_aside_write(const char *path, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_PERFDATA_ASIDE_H */
