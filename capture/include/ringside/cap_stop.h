/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_STOP_H
#define RINGSIDE_CAP_STOP_H

#include <stdint.h>

/* SIGINT/SIGTERM as a request to finish, and waiting for work. */

/* Make SIGINT and SIGTERM set the stop flag instead of killing.  -errno. */
int cap_stop_install(void);

/* The signal that asked to stop, 0 if none. */
int cap_stop_requested(void);

/* A descriptor to wake on while waiting. */
struct cap_stop_fd {
	int fd;                /* < 0: not watched */
	int hangup_only;       /* wake only when it hangs up (a peer's socket) */
	int hung_up;           /* it hung up or failed: no longer watched */
	uint64_t count;        /* eventfd counts read from it so far */
	uint64_t wakeups;      /* waits it ended */
};

/*
 * Sleep @timeout_ms (< 0: until woken), less if a signal arrives or one of
 * the @n descriptors in @fds becomes readable or hangs up.  A readable one
 * is read: an eventfd (such as a KVM_IOEVENTFD doorbell) resets and its
 * count is added to ->count; a pipe just gets drained.  One that hung up or
 * failed gets ->hung_up and is not watched again.  Returns the number of
 * descriptors that fired, 0 on timeout or signal.
 */
int cap_stop_wait_fds(struct cap_stop_fd *fds, unsigned n, int timeout_ms);

/* Read what the descriptors hold right now, without waiting (the last
 * doorbell counts at the end, a stop request or not). */
void cap_stop_collect_fds(struct cap_stop_fd *fds, unsigned n);

#endif /* RINGSIDE_CAP_STOP_H */
