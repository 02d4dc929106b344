/* SPDX-License-Identifier: MIT */
/*
 * Whole writes: every byte, over short writes and EINTR, for the
 * libraries and programs that write files (perf.data, profiles,
 * sidecars) and sockets (the service's control socket).
 */
#ifndef RINGSIDE_IO_H
#define RINGSIDE_IO_H

#include <stddef.h>

/* Write the @len bytes at @buf to @fd.  0, -errno, or -EIO when the
 * kernel took nothing. */
int rs_io_write_all(int fd, const void *buf, size_t len);

/* The same on a socket (send, MSG_NOSIGNAL): a peer that went away is
 * -EPIPE, never a SIGPIPE. */
int rs_io_send_all(int fd, const void *buf, size_t len);

#endif /* RINGSIDE_IO_H */
