/* SPDX-License-Identifier: MIT */
/*
 * The marker socket (ringside/mark_wire.h).  Any guest process may send;
 * the pid of a marker is the kernel's word (SO_PASSCRED), its tid and
 * time the sender's.  Markers are written into ring 0 in arrival order,
 * at each of the agent's passes, and at once when a sender asks for it on
 * the wake socket beside (a RS_MARK_SYNC marker's).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "ringside/mark_wire.h"

#define DRAIN_MAX 1024   /* markers per call: a flood cannot stall the loop */

uint64_t agent_markers_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void make_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	mkdir(dir, 0755);
}

/* A datagram socket bound at @path, mode 0666 (any guest process may
 * send), nonblocking; -errno. */
static int bind_at(const char *path, int passcred)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int one = 1, fd, err;

	strcpy(sa.sun_path, path);
	unlink(path);   /* a socket left by an agent that did not detach */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if ((passcred &&
	     setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(path, 0666)) {
		err = -errno;
		close(fd);
		unlink(path);
		return err;
	}
	return fd;
}

int agent_markers_open(struct agent_markers *mk, const char *path)
{
	size_t n = strlen(path);

	memset(mk, 0, sizeof(*mk));
	mk->fd = mk->wake_fd = -1;
	if (n + sizeof(RS_MARK_WAKE_SUFFIX) > sizeof(mk->path))
		return -ENAMETOOLONG;
	make_dir(path);
	mk->fd = bind_at(path, 1);
	if (mk->fd < 0)
		return mk->fd;
	snprintf(mk->path, sizeof(mk->path), "%s", path);
	snprintf(mk->wake_path, sizeof(mk->wake_path), "%s%s", path,
		 RS_MARK_WAKE_SUFFIX);
	mk->wake_fd = bind_at(mk->wake_path, 0);
	if (mk->wake_fd < 0) {
		int err = mk->wake_fd;

		mk->wake_path[0] = '\0';
		agent_markers_close(mk);
		return err;
	}
	return 0;
}

void agent_markers_close(struct agent_markers *mk)
{
	if (mk->fd >= 0)
		close(mk->fd);
	if (mk->wake_fd >= 0)
		close(mk->wake_fd);
	if (mk->path[0])
		unlink(mk->path);
	if (mk->wake_path[0])
		unlink(mk->wake_path);
	mk->fd = mk->wake_fd = -1;
	mk->path[0] = mk->wake_path[0] = '\0';
}

void agent_markers_woken(struct agent_markers *mk)
{
	uint8_t buf[16];
	int i;

	for (i = 0; mk->wake_fd >= 0 && i < DRAIN_MAX; i++)
		if (recv(mk->wake_fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC) < 0)
			break;
}

int agent_markers_put(struct agent_ring *r, uint32_t id, uint32_t pid,
		     uint32_t tid, uint64_t time, const char *text, uint32_t len)
{
	static uint8_t body[sizeof(struct rs_rec_marker) + RS_MARK_TEXT_MAX + 8];
	struct rs_rec_marker m;
	uint32_t size;

	if (len > RS_MARK_TEXT_MAX)
		len = RS_MARK_TEXT_MAX;
	memset(&m, 0, sizeof(m));
	m.time = time;
	m.pid = pid;
	m.tid = tid;
	m.id = id;
	m.len = len;
	size = (uint32_t)(sizeof(m) + len + 7) & ~7u;
	memset(body, 0, size);
	memcpy(body, &m, sizeof(m));
	memcpy(body + sizeof(m), text, len);
	/* the header is rs_producer_output's to write */
	return agent_ring_put(r, RS_RECORD_MARKER, 0, body + sizeof(m.header),
			      size - (uint32_t)sizeof(m.header));
}

/* One datagram: 1 written, 0 dropped or refused, -EAGAIN none waiting. */
static int take_one(struct agent_markers *mk, struct agent_ring *r, int accept)
{
	static uint8_t buf[sizeof(struct rs_mark_msg) + RS_MARK_TEXT_MAX + 1];
	union {
		struct cmsghdr h;
		uint8_t space[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct sockaddr_un from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = {
		.msg_name = &from, .msg_namelen = sizeof(from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.space, .msg_controllen = sizeof(ctl.space),
	};
	struct rs_mark_msg msg;
	struct cmsghdr *c;
	struct ucred cred = { 0 };
	uint32_t ack = RS_MARK_ACK;
	ssize_t n;
	int have_cred = 0;

	n = recvmsg(mk->fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(cred))) {
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			have_cred = 1;
		}
	if ((size_t)n < sizeof(msg) || (size_t)n > sizeof(buf) || !have_cred) {
		mk->refused++;
		return 0;
	}
	memcpy(&msg, buf, sizeof(msg));
	if (msg.magic != RS_MARK_MAGIC || msg.id >= RS_MARK_ID_AGENT ||
	    msg.len > RS_MARK_TEXT_MAX || msg.len != (size_t)n - sizeof(msg)) {
		mk->refused++;
		return 0;
	}
	mk->received++;
	if (!accept)
		return 0;
	if (agent_markers_put(r, msg.id, (uint32_t)cred.pid,
			     msg.tid ? msg.tid : (uint32_t)cred.pid,
			     msg.time ? msg.time : agent_markers_now(),
			     (const char *)buf + sizeof(msg), msg.len))
		return 0;
	if ((msg.flags & RS_MARK_SYNC) && mh.msg_namelen > sizeof(sa_family_t))
		sendto(mk->fd, &ack, sizeof(ack), MSG_DONTWAIT,
		       (const struct sockaddr *)&from, mh.msg_namelen);
	return 1;
}

int agent_markers_drain(struct agent_markers *mk, struct agent_ring *r,
			int accept)
{
	int i, n = 0, ret;

	if (mk->fd < 0)
		return 0;
	for (i = 0; i < DRAIN_MAX; i++) {
		ret = take_one(mk, r, accept);
		if (ret < 0)
			break;
		n += ret;
	}
	return n;
}
