/* SPDX-License-Identifier: MIT */
/*
 * Target: the perf.data reader behind `ringside report` and `dump`: the
 * input is the file.  Its header, attrs and features are read at open,
 * then every record of the data section, each examined as report and dump
 * examine it (fuzz_record.c).
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "fuzz_record.h"

/* The reader opens a path: the input becomes a memory file reached
 * through /proc. */
static int input_file(const uint8_t *data, size_t size, char *path,
		      size_t path_len)
{
	int fd = memfd_create("fuzz-perfdata", MFD_CLOEXEC);

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
	struct pdf_rrec_clock clk = { 0 };
	struct pdf_reader *r = NULL;
	struct pdf_event ev;
	char path[64];
	int fd = input_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	if (pdf_reader_open(&r, path) == 0) {
		uint64_t type = pdf_reader_info(r)->sample_type;

		while (pdf_reader_next(r, &ev) == 1)
			fz_record_examine(&clk, ev.rec, type);
		pdf_reader_skipped(r);
	}
	pdf_reader_close(r);
	close(fd);
	return 0;
}
