/* SPDX-License-Identifier: MIT */
/*
 * Target: the CLI's side of the control socket (capture/src/cap_vm.c over the
 * vmm library's client calls): the replies of whatever listens at the
 * socket `--vm` names.  A thread plays that peer: it answers each request
 * with the next reply of the input (a descriptor count byte, a length
 * u16, that many bytes) and hangs up when they run out.  The CLI says
 * HELLO, maps the region, pauses, asks every vCPU's status and resumes,
 * as `snapshot --vm` does; no descriptor may stay open afterwards.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ringside/vmm_client.h"

#include "fuzz_fds.h"
#include "fuzz_input.h"
#include "ringside/capture.h"

static char sock_path[108];
static int listen_fd = -1, memfd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct fz_in replies;     /* under lock */
static int served;               /* under lock: the connection is over */

static void send_reply(int fd, struct fz_in *in)
{
	uint8_t nfds = fz_u8(in) % (RS_CTL_MAX_FDS + 2);
	uint8_t buf[1024];
	size_t len = fz_take(in, buf, fz_u16(in) % sizeof(buf));
	int fds[VMM_CTL_SEND_MAX_FDS];
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	for (unsigned i = 0; i < nfds; i++)
		fds[i] = memfd;   /* the kernel installs fresh copies */
	vmm_ctl_sendmsg(fd, &iov, 1, fds, nfds);
}

static void *peer(void *arg)
{
	sigset_t all;

	/* Signals (libFuzzer's timer) go to the client's thread, never
	 * interrupt the peer halfway through an exchange. */
	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		uint8_t req[64];

		if (fd < 0)
			continue;
		/* One reply per request while the input lasts, then hang up. */
		while (recv(fd, req, sizeof(req), 0) > 0) {
			pthread_mutex_lock(&lock);
			if (!replies.left) {
				pthread_mutex_unlock(&lock);
				break;
			}
			send_reply(fd, &replies);
			pthread_mutex_unlock(&lock);
		}
		close(fd);
		pthread_mutex_lock(&lock);
		served = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void remove_socket(void)
{
	unlink(sock_path);
}

static void start_peer(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	pthread_t t;

	memfd = memfd_create("fuzz-region", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, 1 << 16) < 0)
		abort();
	snprintf(sock_path, sizeof(sock_path), "/tmp/ringside-fuzz-vm-%d.sock",
		 (int)getpid());
	unlink(sock_path);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 ||
	    bind(listen_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(listen_fd, 4) < 0 ||
	    pthread_create(&t, NULL, peer, NULL))
		abort();
	atexit(remove_socket);
}

static void talk(void)
{
	struct rs_vmm_vcpu_info info;
	struct cap_vm *v;
	uint64_t size;
	void *mem;

	if (cap_vm_open(&v, sock_path) < 0)
		return;
	if (vmm_client_map(cap_vm_region_fd(v), &mem, &size) == 0)
		munmap(mem, size);
	if (cap_vm_pause(v) == 0) {
		for (uint32_t i = 0; i < cap_vm_nr_vcpus(v); i++)
			if (cap_vm_status(v, i, &info) < 0)
				break;
		cap_vm_stopped(v);
		cap_vm_resume(v);
	}
	cap_vm_close(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned fds_before;

	if (listen_fd < 0)
		start_peer();
	if (!fds_before)
		fds_before = fz_open_fds(memfd);
	pthread_mutex_lock(&lock);
	fz_in_init(&replies, data, size);
	served = 0;
	pthread_mutex_unlock(&lock);
	talk();
	/* The peer is done with this input only once it saw the hang-up. */
	pthread_mutex_lock(&lock);
	while (!served)
		pthread_cond_wait(&cond, &lock);
	replies.left = 0;
	pthread_mutex_unlock(&lock);
	if (fz_open_fds(memfd) > fds_before)
		abort(); /* a descriptor the client kept */
	return 0;
}
