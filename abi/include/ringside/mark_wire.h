/* SPDX-License-Identifier: MIT */
/*
 * The marker socket: how a guest program hands the ringside Linux guest
 * agent an application marker ("checkout done", id 3).  The agent writes it
 * into the trace region as an RS_RECORD_MARKER record (ringside/abi.h),
 * stamped with the sender's pid (from the kernel, SCM_CREDENTIALS), the tid
 * it claims, and CLOCK_MONOTONIC nanoseconds, the clock of the guest's
 * samples.  The marker library (ringside/mark.h) speaks it; so may any
 * program that does not link the library.
 *
 * One datagram per marker on the AF_UNIX SOCK_DGRAM socket RS_MARK_SOCKET
 * (or the path in $RINGSIDE_MARK_SOCKET): struct rs_mark_msg, then len
 * bytes of text (no NUL), little-endian, nothing else.  The agent takes
 * what waits there at each of its passes over the kernel's buffers (its
 * beat, a second or two by default, or sooner): a marker costs it no wake
 * of its own, and one sent less than a pass before a crash may be lost.
 *
 * With RS_MARK_SYNC in flags the agent answers a sender bound to an
 * address with the 4 bytes RS_MARK_ACK once the marker is in the ring: the
 * marker then survives a crash right after.  Such a sender wakes the agent
 * for it: after the marker, any datagram to the wake socket, the marker
 * socket's path with RS_MARK_WAKE_SUFFIX appended.  The agent then takes
 * every marker waiting, in the order they were sent.  A SYNC marker with
 * no wake is answered at the agent's next pass.
 *
 * Ids RS_MARK_ID_AGENT and above are the agent's own (what it traces,
 * tracepoint ids, attach/detach); the agent refuses them from programs,
 * and writes them itself.
 */
#ifndef RINGSIDE_MARK_WIRE_H
#define RINGSIDE_MARK_WIRE_H

#include <stdint.h>

#define RS_MARK_SOCKET    "/run/ringside/mark.sock"
#define RS_MARK_ENV       "RINGSIDE_MARK_SOCKET"
#define RS_MARK_WAKE_SUFFIX ".wake"    /* the wake socket: the path + this */
#define RS_MARK_MAGIC     0x4b4d5352u   /* "RSMK" */
#define RS_MARK_ACK       0x4b434152u   /* "RACK" */
#define RS_MARK_TEXT_MAX  4000u
#define RS_MARK_ID_AGENT  0xffff0000u

enum rs_mark_flag {
	RS_MARK_SYNC = 1u << 0,  /* answer with RS_MARK_ACK once written */
};

/* The agent's own marker ids. */
enum rs_mark_agent_id {
	RS_MARK_AGENT_ATTACH     = RS_MARK_ID_AGENT + 1, /* "attached: ..." */
	RS_MARK_AGENT_TRACEPOINT = RS_MARK_ID_AGENT + 2, /* "sched:sched_switch id=N" */
	RS_MARK_AGENT_DETACH     = RS_MARK_ID_AGENT + 3, /* "detached" */
	RS_MARK_AGENT_CONFIG     = RS_MARK_ID_AGENT + 4, /* host changed the config */
};

struct rs_mark_msg {
	uint32_t magic;      /* RS_MARK_MAGIC */
	uint32_t id;         /* the application's marker id, < RS_MARK_ID_AGENT */
	uint64_t time;       /* CLOCK_MONOTONIC ns; 0: the agent stamps it */
	uint32_t tid;        /* the sender's thread (a claim); 0: its pid */
	uint32_t flags;      /* enum rs_mark_flag */
	uint32_t len;        /* text bytes that follow, <= RS_MARK_TEXT_MAX */
	uint32_t reserved;   /* 0 */
};
_Static_assert(sizeof(struct rs_mark_msg) == 32, "rs_mark_msg layout");

#endif /* RINGSIDE_MARK_WIRE_H */
