// SPDX-License-Identifier: MIT
/*
 * The control socket: a consumer in a separate process gets the region
 * memfd and the doorbell eventfds over SCM_RIGHTS, drains every ring, takes
 * stable snapshots through PAUSE/RESUME, and accounts for every record.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ringside/vmm_client.h"
#include "vmm_fixture.h"

#define NR_VCPUS 2

static struct vt t;
static char sock_path[64];

static void setup(void)
{
	snprintf(sock_path, sizeof(sock_path), "/tmp/rs-vmm-test-%d.sock", getpid());
}

static void teardown(void)
{
	vt_fini(&t);
	unlink(sock_path);
}

/* What the remote consumer reports back through a pipe. */
struct remote_result {
	int32_t error;            /* 0, or the line that failed */
	uint32_t snapshots;
	uint64_t doorbells[NR_VCPUS];
	struct vt_ring rings[NR_VCPUS];
	uint64_t cons_lost[NR_VCPUS];
	uint64_t corrupt[NR_VCPUS];
};

#define REMOTE_CHECK(c) do { if (!(c)) return __LINE__; } while (0)

static int remote_connect(void)
{
	for (int i = 0; i < 3000; i++) {
		int fd = vmm_client_connect(sock_path);

		if (fd >= 0)
			return fd;
		usleep(10000);
	}
	return -1;
}

static int all_stopped(int sock, uint32_t n)
{
	struct rs_vmm_vcpu_info info;

	for (uint32_t i = 0; i < n; i++) {
		if (vmm_client_status(sock, i, &info) < 0 ||
		    info.state == RS_VCPU_RUNNING)
			return 0;
	}
	return 1;
}

static int remote_snapshot(int sock, const struct rs_region *region,
			   uint64_t size, struct remote_result *res)
{
	struct rs_snapshot *snap = rs_snapshot_alloc();
	const struct rs_perf_header *rec;
	void *buf = malloc(size);
	int ok = snap && buf;

	ok = ok && vmm_client_pause(sock) == 0;
	ok = ok && rs_snapshot_take(snap, region, 0, buf, size) == 0;
	ok = ok && vmm_client_resume(sock) == 0;
	if (ok) {
		struct vt_ring s = { .id = 0 };

		while (rs_snapshot_next(snap, &rec) == 1)
			vt_on_record(rec, &s);
		ok = s.bad == 0 && s.order_errors == 0;
		res->snapshots++;
	}
	rs_snapshot_free(snap);
	free(buf);
	return ok;
}

static int remote_consumer(struct remote_result *res)
{
	struct rs_consumer *cons[NR_VCPUS];
	struct pollfd pfd[NR_VCPUS];
	struct rs_ctl_hello hello;
	struct rs_region region;
	int fds[RS_CTL_MAX_FDS], sock, n, done = 0;
	uint64_t size;
	void *mem;

	sock = remote_connect();
	REMOTE_CHECK(sock >= 0);
	n = vmm_client_hello(sock, &hello, fds, RS_CTL_MAX_FDS);
	REMOTE_CHECK(n == 1 + NR_VCPUS && hello.nr_rings == NR_VCPUS);
	REMOTE_CHECK(vmm_client_map(fds[0], &mem, &size) == 0);
	REMOTE_CHECK(size == hello.region_size);
	REMOTE_CHECK(rs_region_open(&region, mem, size) == 0);
	for (uint32_t r = 0; r < NR_VCPUS; r++) {
		cons[r] = rs_consumer_alloc(&region, r);
		REMOTE_CHECK(cons[r]);
		res->rings[r].id = r;
		pfd[r] = (struct pollfd){ .fd = fds[1 + r], .events = POLLIN };
	}
	for (int iter = 0; !done; iter++) {
		done = all_stopped(sock, NR_VCPUS);
		poll(pfd, NR_VCPUS, 10);
		for (uint32_t r = 0; r < NR_VCPUS; r++) {
			uint64_t bells;

			if (read(fds[1 + r], &bells, sizeof(bells)) == sizeof(bells))
				res->doorbells[r] += bells;
			REMOTE_CHECK(rs_consumer_drain(cons[r], vt_on_record,
						       &res->rings[r]) >= 0);
		}
		if (iter % 20 == 0)
			REMOTE_CHECK(remote_snapshot(sock, &region,
						     hello.region_size, res));
	}
	for (uint32_t r = 0; r < NR_VCPUS; r++) {
		res->cons_lost[r] = rs_consumer_stats(cons[r])->lost;
		res->corrupt[r] = rs_consumer_stats(cons[r])->corrupt;
		rs_consumer_free(cons[r]);
	}
	munmap(mem, size);
	close(sock);
	return 0;
}

START_TEST(control_remote_consumer)
{
	struct remote_result res;
	int pipefd[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(pipefd), 0);
	/* Fork before the VM exists: the child is a plain process that knows
	 * nothing but the socket path. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		memset(&res, 0, sizeof(res));
		close(pipefd[0]);
		res.error = remote_consumer(&res);
		_exit(write(pipefd[1], &res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(pipefd[1]);

	vt_params(&t.p);
	t.p.nr_vcpus = NR_VCPUS;
	t.p.data_pages = 4;
	t.p.boot.records = 1500;
	vt_boot(&t, 0);
	ck_assert_int_eq(vmm_control_listen(t.vm, sock_path), 0);
	ck_assert_int_eq(vmm_start(t.vm), 0);
	/* This process does not drain: the other one does.  The child ends
	 * once every vCPU stopped, or early if it failed. */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(read(pipefd[0], &res, sizeof(res)), sizeof(res));
	close(pipefd[0]);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child died");
	ck_assert_msg(res.error == 0, "remote consumer failed at line %d", res.error);
	ck_assert_int_eq(vmm_wait(t.vm, 0), 0);
	ck_assert_uint_gt(res.snapshots, 0);
	for (uint32_t r = 0; r < NR_VCPUS; r++) {
		const struct vt_ring *s = &res.rings[r];
		struct rs_vmm_vcpu_info info;

		ck_assert_int_eq(vmm_cpu_info(t.vm, r, &info), 0);
		ck_assert_uint_eq(s->bad + s->order_errors + res.corrupt[r], 0);
		ck_assert_uint_eq(s->lost, res.cons_lost[r]);
		ck_assert_uint_eq(s->seq + s->samples + s->aux_recs + s->lost,
				  info.report.attempted);
		ck_assert_uint_eq(res.doorbells[r], info.report.doorbells);
		ck_assert_uint_eq(info.exits.mmio, 0);
	}
}
END_TEST

/* A client that pauses and disappears must not leave the guest frozen: a
 * guest that never stops writing stays put while paused, and moves on
 * once the client is gone. */
START_TEST(control_pause_undone_on_close)
{
	struct rs_vmm_vcpu_info a, b;
	struct vt_ring s;
	int sock;

	vt_params(&t.p);
	t.p.data_mode = RS_MODE_OVERWRITE;
	t.p.boot.records = UINT32_MAX;
	vt_boot(&t, 0);
	ck_assert_int_eq(vmm_control_listen(t.vm, sock_path), 0);
	ck_assert_int_eq(vmm_control_listen(t.vm, sock_path), -EBUSY);
	ck_assert_int_eq(vmm_start(t.vm), 0);
	sock = vmm_client_connect(sock_path);
	ck_assert_int_ge(sock, 0);
	vt_wait_seq(&t, 0, 0);
	ck_assert_int_eq(vmm_client_pause(sock), 0);
	ck_assert_int_eq(vmm_client_pause(sock), 0);   /* nests */
	ck_assert_int_eq(vmm_cpu_info(t.vm, 0, &a), 0);
	usleep(50000);
	ck_assert_int_eq(vmm_cpu_info(t.vm, 0, &b), 0);
	ck_assert_uint_eq(a.report.attempted, b.report.attempted);
	ck_assert_uint_eq(b.state, RS_VCPU_RUNNING);
	close(sock);
	vt_wait_seq(&t, 0, b.report.seq_attempted);
	ck_assert_int_eq(vmm_stop(t.vm), 0);
	s = vt_snapshot(&t, 0, 1);
	ck_assert_uint_gt(s.seq, 0);
}
END_TEST

static int32_t raw_call(int sock, const void *req, size_t len)
{
	struct rs_ctl_reply rep;

	ck_assert_int_eq(send(sock, req, len, 0), (ssize_t)len);
	ck_assert_int_ge(recv(sock, &rep, sizeof(rep), 0), (ssize_t)sizeof(rep));
	ck_assert_uint_eq(rep.magic, RS_CTL_MAGIC);
	return rep.status;
}

START_TEST(control_bad_requests)
{
	struct rs_ctl_msg m = { RS_CTL_MAGIC, RS_CTL_VERSION, 99, 0, 0 };
	struct rs_vmm_vcpu_info info;
	int sock;

	vt_params(&t.p);
	vt_boot(&t, 0);
	ck_assert_int_eq(vmm_control_listen(t.vm, sock_path), 0);
	sock = vmm_client_connect(sock_path);
	ck_assert_int_ge(sock, 0);
	ck_assert_int_eq(raw_call(sock, "abc", 3), -EPROTO);
	ck_assert_int_eq(raw_call(sock, &m, sizeof(m)), -EOPNOTSUPP);
	m.magic = 0x12345678;
	m.op = RS_CTL_PAUSE;
	ck_assert_int_eq(raw_call(sock, &m, sizeof(m)), -EPROTO);
	ck_assert_int_eq(vmm_client_resume(sock), -EALREADY);
	ck_assert_int_eq(vmm_client_status(sock, 7, &info), -EINVAL);
	ck_assert_int_eq(vmm_client_status(sock, 0, &info), 0);
	ck_assert_uint_eq(info.state, RS_VCPU_CREATED);
	close(sock);
	ck_assert_int_eq(vmm_client_connect("/nonexistent/sock"), -ENOENT);
}
END_TEST

/* More rings than one message carries doorbells for: HELLO has the
 * region and the first RS_CTL_BATCH, BELLS the others a batch at a time,
 * each the eventfd of its own ring. */
START_TEST(control_bells_in_batches)
{
	enum { RINGS = 2 * RS_CTL_BATCH + 5 };
	struct rs_ctl_hello h;
	struct rs_ctl_bells b;
	int fds[RS_CTL_MAX_FDS], sock, n;
	uint32_t got = 0;

	vt_params(&t.p);
	t.p.nr_rings = RINGS;
	vt_boot(&t, 0);
	ck_assert_int_eq(vmm_control_listen(t.vm, sock_path), 0);
	sock = vmm_client_connect(sock_path);
	ck_assert_int_ge(sock, 0);
	n = vmm_client_hello(sock, &h, fds, RS_CTL_MAX_FDS);
	ck_assert_int_eq(n, RS_CTL_MAX_FDS);
	ck_assert_uint_eq(h.nr_fds, RS_CTL_MAX_FDS);
	ck_assert_uint_eq(h.nr_rings, RINGS);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	got = RS_CTL_BATCH;
	while (got < RINGS) {
		uint64_t one = 1, v = 0;

		n = vmm_client_bells(sock, got, &b, fds, RS_CTL_MAX_FDS);
		ck_assert_int_eq(n, got + RS_CTL_BATCH <= RINGS ? RS_CTL_BATCH :
				    RINGS - got);
		ck_assert_uint_eq(b.first, got);
		/* the first of the batch is ring got's doorbell */
		ck_assert_int_eq(write(fds[0], &one, sizeof(one)), sizeof(one));
		ck_assert_int_eq(read(vmm_doorbell_fd(t.vm, got), &v, sizeof(v)),
				 sizeof(v));
		ck_assert_uint_eq(v, 1);
		for (int i = 0; i < n; i++)
			close(fds[i]);
		got += (uint32_t)n;
	}
	ck_assert_uint_eq(got, RINGS);
	ck_assert_int_eq(vmm_client_bells(sock, RINGS, &b, fds, RS_CTL_MAX_FDS),
			 -ERANGE);
	close(sock);
}
END_TEST

/* What each destroy hook saw when it ran. */
struct hook_seen {
	int order;           /* 1 for the first hook to run */
	int stopped;         /* every vCPU had stopped */
	int sock_there;      /* the control socket still existed */
};

static int hooks_run;

static void hook_seen(struct vmm *vm, void *arg)
{
	struct hook_seen *h = arg;

	h->order = ++hooks_run;
	h->stopped = vmm_wait(vm, 0) == 0;
	h->sock_there = access(sock_path, F_OK) == 0;
}

static void hook_a(struct vmm *vm, void *arg)
{
	hook_seen(vm, arg);
}

static void hook_b(struct vmm *vm, void *arg)
{
	hook_seen(vm, arg);
}

static void hook_c(struct vmm *vm, void *arg)
{
	hook_seen(vm, arg);
}

/* The control server is one destroy hook among others: they run in
 * vmm_destroy once the vCPUs stopped, the latest first, and the server
 * takes its socket and its clients with it. */
START_TEST(control_destroy_hooks)
{
	struct hook_seen a = { 0 }, b = { 0 }, c = { 0 };
	char byte;
	int sock;

	hooks_run = 0;
	vt_params(&t.p);
	t.p.data_mode = RS_MODE_OVERWRITE;
	t.p.boot.records = UINT32_MAX;
	vt_boot(&t, 0);
	ck_assert_int_eq(vmm_destroy_hook(t.vm, hook_a, &a), 0);
	ck_assert_int_eq(vmm_destroy_hook(t.vm, hook_a, &a), -EBUSY);
	ck_assert_int_eq(vmm_control_listen(t.vm, sock_path), 0);
	ck_assert_int_eq(vmm_destroy_hook(t.vm, hook_b, &b), 0);
	ck_assert_int_eq(vmm_destroy_hook(t.vm, hook_c, &c), 0);
	ck_assert_int_eq(vmm_destroy_hook(t.vm, hook_seen, NULL), -ENOSPC);
	ck_assert_int_eq(vmm_control_listen(t.vm, sock_path), -EBUSY);
	ck_assert_int_eq(vmm_destroy_unhook(t.vm, hook_c), 0);
	ck_assert_int_eq(vmm_destroy_unhook(t.vm, hook_c), -ENOENT);
	ck_assert_int_eq(vmm_destroy_hook(t.vm, NULL, NULL), -EINVAL);
	ck_assert_int_eq(vmm_destroy_unhook(t.vm, NULL), -EINVAL);
	vmm_log(t.vm, "through the %s callback", "params'");
	ck_assert_str_eq(t.log, "through the params' callback");

	ck_assert_int_eq(vmm_start(t.vm), 0);
	sock = vmm_client_connect(sock_path);
	ck_assert_int_ge(sock, 0);
	vt_wait_seq(&t, 0, 0);
	ck_assert_int_eq(vmm_client_pause(sock), 0);
	vt_fini(&t);
	ck_assert_int_eq(hooks_run, 2);
	ck_assert_int_eq(b.order, 1);
	ck_assert_int_eq(a.order, 2);
	ck_assert_int_eq(c.order, 0);
	ck_assert(a.stopped && b.stopped);
	ck_assert_int_eq(b.sock_there, 1);    /* before the server's hook */
	ck_assert_int_eq(a.sock_there, 0);    /* after it */
	ck_assert_int_eq(recv(sock, &byte, 1, 0), 0);
	close(sock);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm_control");
	TCase *tc = tcase_create("control");
	SRunner *sr;
	int failed;

	vt_require_kvm();
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, control_remote_consumer);
	tcase_add_test(tc, control_pause_undone_on_close);
	tcase_add_test(tc, control_bad_requests);
	tcase_add_test(tc, control_bells_in_batches);
	tcase_add_test(tc, control_destroy_hooks);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
