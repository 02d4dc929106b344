// SPDX-License-Identifier: MIT
/*
 * vmm/client.c without KVM, against a stand-in server on a
 * socketpair: a signal that interrupts the client's wait does not end the
 * call.  The order is forced, not timed: the server holds its reply until
 * /proc says the client thread sleeps in recvmsg, signals it there (a
 * handler without SA_RESTART, as the CLI installs for SIGINT), waits for
 * the handler to have run, and only then replies.  The same for connect,
 * held by a listening socket whose backlog is full.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "ringside/vmm_client.h"

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
	(void)sig;
	signalled++;
}

struct client {
	int sock;
	int tid;                  /* set before the request goes out */
	int ret;
	struct rs_vmm_vcpu_info info;
};

static void *client_main(void *arg)
{
	struct client *c = arg;

	__atomic_store_n(&c->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	c->ret = vmm_client_status(c->sock, 1, &c->info);
	return NULL;
}

/* Until thread @tid sleeps in system call @nr.  /proc shows the number
 * only while the thread is blocked ("running" otherwise). */
static void wait_in_syscall(int tid, long nr)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	for (;;) {
		FILE *f = fopen(path, "r");
		long got = -1;

		ck_assert_ptr_nonnull(f);
		if (fscanf(f, "%ld", &got) != 1)
			got = -1;
		fclose(f);
		if (got == nr)
			return;
		sched_yield();
	}
}

START_TEST(status_signal_in_recvmsg)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct rs_vmm_vcpu_info info = { 0 };
	struct client c = { .tid = 0 };
	struct rs_ctl_msg req;
	pthread_t th;
	int sv[2], tid;
	ssize_t n;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;          /* no SA_RESTART: recvmsg fails with EINTR */
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
	c.sock = sv[0];
	ck_assert_int_eq(pthread_create(&th, NULL, client_main, &c), 0);

	n = recv(sv[1], &req, sizeof(req), 0);
	ck_assert_int_eq(n, sizeof(req));
	ck_assert_uint_eq(req.op, RS_CTL_STATUS);
	ck_assert_uint_eq(req.arg, 1);
	tid = __atomic_load_n(&c.tid, __ATOMIC_ACQUIRE);
	ck_assert_int_gt(tid, 0);
	wait_in_syscall(tid, SYS_recvmsg);
	ck_assert_int_eq(pthread_kill(th, SIGUSR1), 0);
	while (!signalled)
		sched_yield();

	info.state = RS_VCPU_HALTED;
	info.rip = 0x1000b5;
	ck_assert_int_eq(vmm_ctl_reply(sv[1], RS_CTL_STATUS, 0, &info,
					  sizeof(info), NULL, 0), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(c.ret, 0);
	ck_assert_int_eq(signalled, 1);
	ck_assert_uint_eq(c.info.state, RS_VCPU_HALTED);
	ck_assert_uint_eq(c.info.rip, 0x1000b5);
	/* the request went out once */
	n = recv(sv[1], &req, sizeof(req), MSG_DONTWAIT);
	ck_assert_int_eq(n, -1);
	ck_assert_int_eq(errno, EAGAIN);

	sigaction(SIGUSR1, &old, NULL);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

struct connector {
	const char *path;
	int tid;
	int ret;
};

static void *connect_main(void *arg)
{
	struct connector *c = arg;

	__atomic_store_n(&c->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	c->ret = vmm_client_connect(c->path);
	return NULL;
}

START_TEST(connect_signal_while_backlog_full)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/rs-client.XXXXXX";
	struct connector c = { .tid = 0 };
	pthread_t th;
	int lsock, first, a1, a2, tid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/ctl", dir);
	lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(lsock, 0);
	ck_assert_int_eq(bind(lsock, (struct sockaddr *)&addr, sizeof(addr)), 0);
	ck_assert_int_eq(listen(lsock, 0), 0);
	/* backlog 0 holds one pending connection: the next one waits */
	first = vmm_client_connect(addr.sun_path);
	ck_assert_int_ge(first, 0);
	signalled = 0;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
	c.path = addr.sun_path;
	ck_assert_int_eq(pthread_create(&th, NULL, connect_main, &c), 0);
	while (!(tid = __atomic_load_n(&c.tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	wait_in_syscall(tid, SYS_connect);
	ck_assert_int_eq(pthread_kill(th, SIGUSR1), 0);
	while (!signalled)
		sched_yield();
	/* room in the backlog: the connect made again goes through */
	a1 = accept(lsock, NULL, NULL);
	ck_assert_int_ge(a1, 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(signalled, 1);
	ck_assert_int_ge(c.ret, 0);
	a2 = accept(lsock, NULL, NULL);
	ck_assert_int_ge(a2, 0);
	ck_assert_int_eq(send(c.ret, "x", 1, 0), 1);
	ck_assert_int_eq(recv(a2, &(char){ 0 }, 1, 0), 1);

	sigaction(SIGUSR1, &old, NULL);
	close(c.ret);
	close(first);
	close(a1);
	close(a2);
	close(lsock);
	unlink(addr.sun_path);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm_client");
	TCase *tc = tcase_create("client");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, status_signal_in_recvmsg);
	tcase_add_test(tc, connect_signal_while_backlog_full);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
