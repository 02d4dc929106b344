/* SPDX-License-Identifier: MIT */
/* Names for the guest's frames, from perf's build-id cache alone: the
 * kernel's kallsyms table under the file's kernel build id, a user
 * binary's ELF symbol file under its MMAP2's build id (pprof_uelf.c reads
 * those).  Never a host file found by path. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/io.h"

#include "pprof_int.h"

void pprof_names_hex(char *dst, const uint8_t *id, uint32_t len)
{
	static const char digits[] = "0123456789abcdef";
	uint32_t i;

	for (i = 0; i < len; i++) {
		dst[2 * i] = digits[id[i] >> 4];
		dst[2 * i + 1] = digits[id[i] & 15];
	}
	dst[2 * len] = 0;
}

int pprof_names_read(const char *dir, const char *rel, uint64_t max,
		     uint8_t **datap, size_t *lenp)
{
	char path[PATH_MAX];
	struct stat st;
	uint8_t *data;
	int fd, err = 0;

	/* never perf's own cache (no @dir): what it holds under a build id a
	 * guest claims may be the host's own binary */
	if (!dir)
		return -ENOENT;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
	} else if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
	} else if ((uint64_t)st.st_size > max) {
		err = -EFBIG;
	}
	if (err) {
		close(fd);
		return err;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	/* -EIO: the file ended before its size */
	err = rs_io_pread_all(fd, data, (size_t)st.st_size, 0);
	close(fd);
	if (err) {
		free(data);
		return err;
	}
	*datap = data;
	*lenp = (size_t)st.st_size;
	return 0;
}

int pprof_names_ksyms(struct pdf_ksyms **kp, const char *dir,
		      const uint8_t *id, uint32_t id_len)
{
	char rel[sizeof("[kernel.kallsyms]//kallsyms") + 2 * PDF_BUILD_ID_SIZE],
	     hex[2 * PDF_BUILD_ID_SIZE + 1];
	uint8_t *text;
	size_t len;
	int err;

	*kp = NULL;
	if (!id_len || id_len > PDF_BUILD_ID_SIZE)
		return -ENODATA;
	pprof_names_hex(hex, id, id_len);
	snprintf(rel, sizeof(rel), "[kernel.kallsyms]/%s/kallsyms", hex);
	err = pprof_names_read(dir, rel, PDF_KSYMS_MAX_BYTES, &text, &len);
	if (err)
		return err;
	err = pdf_ksyms_parse(kp, text, len);
	free(text);
	return err;
}
