/* SPDX-License-Identifier: MIT */
/*
 * Descriptors a control-socket exchange may leave open by mistake:
 * sockets, and copies of the region memfd passed with SCM_RIGHTS.  Only
 * those are counted: the sanitizers open pipes of their own (to the
 * symbolizer) at times no input decides.
 */
#ifndef RINGSIDE_FUZZ_FDS_H
#define RINGSIDE_FUZZ_FDS_H

#include <sys/stat.h>

/* Sockets below fd 256, and descriptors other than @like of the same
 * file as @like (-1: none). */
static inline unsigned fz_open_fds(int like)
{
	struct stat ref, st;
	unsigned n = 0;

	if (like >= 0 && fstat(like, &ref) < 0)
		like = -1;
	for (int fd = 0; fd < 256; fd++) {
		if (fstat(fd, &st) < 0)
			continue;
		if (S_ISSOCK(st.st_mode) ||
		    (like >= 0 && fd != like && st.st_dev == ref.st_dev &&
		     st.st_ino == ref.st_ino))
			n++;
	}
	return n;
}

#endif /* RINGSIDE_FUZZ_FDS_H */
