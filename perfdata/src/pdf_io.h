/* SPDX-License-Identifier: MIT */
/* Private to perfdata/: whole writes and reads on files, 0 or -errno. */
#ifndef RINGSIDE_PDF_IO_H
#define RINGSIDE_PDF_IO_H

#include <stddef.h>
#include <stdint.h>

int rs_io_write_all(int fd, const void *buf, size_t len);
int rs_io_pwrite_all(int fd, const void *buf, size_t len, uint64_t offset);
/* Exactly @len bytes at @offset; -EIO (short) at end of file. */
int rs_io_pread_all(int fd, void *buf, size_t len, uint64_t offset);

#endif /* RINGSIDE_PDF_IO_H */
