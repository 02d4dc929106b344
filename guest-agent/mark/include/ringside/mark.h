/* SPDX-License-Identifier: MIT */
/*
 * The ringside marker library (libringside-mark, pkg-config ringside-mark):
 * application markers for the ringside Linux guest agent.
 *
 * A guest program marks a point in its run ("checkout done", id 3); the
 * agent writes it into the trace region as an RS_RECORD_MARKER record.
 * `ringside-mark ID TEXT` is the same thing from a shell.  The socket
 * protocol underneath is ringside/mark_wire.h.
 */
#ifndef RINGSIDE_MARK_H
#define RINGSIDE_MARK_H

#include <stdint.h>

#include "ringside/mark_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sender: one socket, reused for every marker. */
struct rs_marker {
	int fd;
	int bound;           /* has an address the agent can answer */
};

/*
 * Open a sender for @path (NULL: $RINGSIDE_MARK_SOCKET, else
 * RS_MARK_SOCKET).  -errno.
 */
int rs_mark_open(struct rs_marker *m, const char *path);

/*
 * Send marker @id with @len bytes of @text (more than RS_MARK_TEXT_MAX are
 * cut).  The agent takes it at its next pass (its beat by default: a
 * second in overwrite mode, two in normal mode), without waking for it.  @flags RS_MARK_SYNC wakes the agent
 * and waits up to a second for it to write the marker.  -errno:
 * -ECONNREFUSED (no agent), -ETIMEDOUT (no answer to SYNC), -EINVAL (an id
 * of the agent's).
 */
int rs_mark_send(struct rs_marker *m, uint32_t id, const char *text,
		 uint32_t len, uint32_t flags);

/* Accepts a never-opened or closed marker. */
void rs_mark_close(struct rs_marker *m);

#ifdef __cplusplus
}
#endif

#endif /* RINGSIDE_MARK_H */
