/* SPDX-License-Identifier: MIT */
/*
 * Target: the VMM's side of the control socket (vmm/control.c), which
 * parses requests from any local process that may connect.  The VMM is a
 * stand-in with one halted vCPU and one ring (no KVM); the control thread
 * and its parser are the real ones.  The input is a sequence of packets
 * (a length byte, then that many bytes), each sent as one request; every
 * request must get exactly one well-formed reply, and the received
 * descriptors are closed again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz_fds.h"
#include "fuzz_input.h"
#include "ringside/vmm_control.h"
#include "vmm_internal.h"

static struct vmm vm;
static char sock_path[108];
static int conn = -1;

static void remove_socket(void)
{
	unlink(sock_path);
}

static void fake_vmm(void)
{
	static struct vmm_vcpu vcpu;
	int err;

	pthread_mutex_init(&vm.lock, NULL);
	pthread_cond_init(&vm.cond, NULL);
	vcpu.vm = &vm;
	vcpu.state = RS_VCPU_HALTED;
	vm.vcpus = &vcpu;
	vm.nr_vcpus = 1;
	vm.nr_rings = 1;
	vm.region_fd = memfd_create("fuzz-region", MFD_CLOEXEC);
	vm.region_size = 1 << 16;
	vm.doorbells[0].fd = eventfd(0, EFD_CLOEXEC);
	if (vm.region_fd < 0 || vm.doorbells[0].fd < 0 ||
	    ftruncate(vm.region_fd, (off_t)vm.region_size) < 0)
		abort();
	snprintf(sock_path, sizeof(sock_path), "/tmp/ringside-fuzz-ctl-%d.sock",
		 (int)getpid());
	err = vmm_control_listen(&vm, sock_path);
	if (err < 0) {
		fprintf(stderr, "fuzz_ctl_server: control socket %s: %s\n",
			sock_path, strerror(-err));
		abort();
	}
	atexit(remove_socket);
}

static void connect_vmm(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
	conn = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (conn < 0 || connect(conn, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		abort();
}

/* Receive one reply; check it; close what it carried.  0 a reply,
 * -1 the VMM hung up. */
static int take_reply(void)
{
	uint8_t buf[1024];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * (RS_CTL_MAX_FDS + 4))];
	} cbuf;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct rs_ctl_reply rep;
	ssize_t n;

	/* libFuzzer's timer signal may interrupt the wait for the reply. */
	do
		n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
	     cm = CMSG_NXTHDR(&msg, cm))
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	if ((size_t)n < sizeof(rep) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		abort();
	memcpy(&rep, buf, sizeof(rep));
	if (rep.magic != RS_CTL_MAGIC || rep.version != RS_CTL_VERSION ||
	    (size_t)n != sizeof(rep) + rep.len || rep.status > 0)
		abort();
	return 0;
}

/* Undo what this input left (pauses), so that inputs do not depend on
 * the ones before. */
static void settle(void)
{
	struct rs_ctl_msg m = { RS_CTL_MAGIC, RS_CTL_VERSION, RS_CTL_RESUME, 0, 0 };
	struct rs_ctl_reply rep;

	for (;;) {
		ssize_t n;

		if (send(conn, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
			n = -1;
		else
			do
				n = recv(conn, &rep, sizeof(rep), 0);
			while (n < 0 && errno == EINTR);
		if (n != sizeof(rep)) {
			close(conn);
			conn = -1;
			return;
		}
		if (rep.status == -EALREADY)
			return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned fds_before;
	struct fz_in in;

	if (!vm.vcpus)
		fake_vmm();
	if (conn < 0)
		connect_vmm();
	fz_in_init(&in, data, size);
	for (unsigned i = 0; i < 32 && in.left; i++) {
		uint8_t pkt[64];
		size_t len = fz_take(&in, pkt, fz_u8(&in) % sizeof(pkt));

		if (send(conn, pkt, len, MSG_NOSIGNAL) != (ssize_t)len ||
		    take_reply() < 0) {
			/* Only an empty packet (end of stream) may be hung up on. */
			if (len)
				abort();
			close(conn);
			conn = -1;
			break;
		}
	}
	if (conn >= 0)
		settle();
	/* Once settled, the VMM has accepted this connection and closed any
	 * before it: the count is the same after every input. */
	if (conn >= 0 && !fds_before)
		fds_before = fz_open_fds(vm.region_fd);
	if (conn >= 0 && fz_open_fds(vm.region_fd) != fds_before)
		abort(); /* a descriptor the exchange leaked */
	return 0;
}
