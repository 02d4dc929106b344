/* SPDX-License-Identifier: MIT */
/*
 * Whole writes and reads: every byte, over short transfers and EINTR,
 * for the libraries and programs that write files (perf.data, profiles,
 * sidecars) and sockets (the service's control socket), and read files
 * at an offset (perf.data).  Each returns 0, -errno, or -EIO when the
 * kernel took or gave nothing (for a read: the file ended first).
 * The same on a non-blocking socket, as far as it goes without waiting.
 * And the step that makes a file written under a temporary name the
 * file of its real name, whole or not at all.
 */
#ifndef RINGSIDE_IO_H
#define RINGSIDE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Write the @len bytes at @buf to @fd. */
int rs_io_write_all(int fd, const void *buf, size_t len);

/* The same on a socket (send, MSG_NOSIGNAL): a peer that went away is
 * -EPIPE, never a SIGPIPE. */
int rs_io_send_all(int fd, const void *buf, size_t len);

/* The same at @offset of file @fd (pwrite), and its read: exactly @len
 * bytes from @offset into @buf (pread). */
int rs_io_pwrite_all(int fd, const void *buf, size_t len, uint64_t offset);
int rs_io_pread_all(int fd, void *buf, size_t len, uint64_t offset);

/* On a non-blocking socket, as far as it goes: send the bytes of @buf
 * from *@off to @len, *@off advanced by those sent (MSG_NOSIGNAL, as
 * rs_io_send_all): 0 all sent, -EAGAIN when the socket has no room for
 * the rest, -errno.  And one recv into @buf, over EINTR: the bytes read
 * (0: the peer closed its end), -EAGAIN when none wait, -errno. */
int rs_io_send_some(int fd, const void *buf, size_t len, size_t *off);
ssize_t rs_io_recv_some(int fd, void *buf, size_t len);

/* The file @fd, written under the name @tmp, made @path: fsync, close,
 * rename over @path (a link there replaced, never followed).  0, or
 * -errno with @tmp removed; @fd is closed either way. */
int rs_io_commit(int fd, const char *tmp, const char *path);

#endif /* RINGSIDE_IO_H */
