/* SPDX-License-Identifier: MIT */
/* Whole writes and reads on file descriptors: 0 or -errno. */
#ifndef RINGSIDE_CLI_FILEIO_H
#define RINGSIDE_CLI_FILEIO_H

#include <stddef.h>
#include <stdint.h>

int fio_write_all(int fd, const void *buf, size_t len);
int fio_pwrite_all(int fd, const void *buf, size_t len, uint64_t offset);
/* Exactly @len bytes at @offset; -EIO (short) at end of file. */
int fio_pread_all(int fd, void *buf, size_t len, uint64_t offset);

#endif /* RINGSIDE_CLI_FILEIO_H */
