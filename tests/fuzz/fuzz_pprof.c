/* SPDX-License-Identifier: MIT */
/*
 * Target: `ringside report FILE --pprof OUT` (pprof_file_write): the input is
 * the perf.data file, its COMM and MMAP2 records and samples with call
 * chains the guest's claims.  The build-id cache is an empty directory
 * (every frame unnamed); the profile is written to a tmpfs directory
 * and removed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ringside/pprof.h"

#include "fuzz_input.h"

static char dir[64];

static void remove_dir(void)
{
	rmdir(dir);
}

static int input_file(const uint8_t *data, size_t size, char *path,
		      size_t path_len)
{
	int fd = memfd_create("fuzz-pprof", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, path_len, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_params p = { .size = sizeof(p), .domain = "fuzz",
				  .interval_ns = 1000 };
	struct pprof_stats st;
	char path[64], out[96];
	int fd;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/dev/shm/rs-fuzz-pprof.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(remove_dir);
	}
	fd = input_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	p.buildid_dir = dir;
	snprintf(out, sizeof(out), "%s/out.pb.gz", dir);
	if (pprof_file_write(path, out, &p, &st) == 0) {
		/* what it counted adds up */
		if (st.kernel_unnamed > st.kernel_frames ||
		    st.user_unmapped + st.user_unnamed > st.user_frames ||
		    st.kernel_frames + st.user_frames != st.frames)
			abort();
		unlink(out);
	}
	close(fd);
	return 0;
}
