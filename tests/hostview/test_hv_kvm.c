/* SPDX-License-Identifier: MIT */
/*
 * The host's view of `ringside run`'s threads on a real KVM (through
 * tests/nested/kvm-run: here, or in its nested guest):
 *
 *   test_hv_kvm RINGSIDE PAYLOAD
 *
 * The VMM runs two vCPUs that spin in the guest (--workload hang) until
 * it is told to stop.  The recorder follows its process: the vCPU
 * threads are found by their names ("CPU N/KVM"), recorded with their
 * exits into KVM (kvm:kvm_exit) and to the VMM (kvm:kvm_userspace_exit),
 * the kvm events in buffers of their own.  Stopping the VMM kicks each
 * vCPU that is in KVM_RUN out of it: an exit to the VMM, its thread's
 * last (a thread handling an exit of its own then sees the stop without
 * entering again, which no test here can time), and an exit into KVM
 * wherever KVM traces its exits (kvm_intel, kvm_amd; kvm_pvm's switcher
 * does not).  Then the threads end: each
 * counted gone, the process too.  No step waits for a time: each waits
 * for what it needs, bounded by a count.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ringside/hv_parse.h"
#include "ringside/hv_rec.h"
#include "ringside/hv_track.h"

#define VCPUS 2
#define TRIES 60000      /* 10 ms each: only a hang reaches it */
#define NAMED_TRIES 1000

static pid_t vm = -1;

static void fail(const char *what, const char *detail, int line)
{
	fprintf(stderr, "FAIL: %s: %s (line %d)\n", what, detail, line);
	if (vm > 0)
		kill(vm, SIGKILL);
	exit(1);
}

#define CHECK(cond, what) do { \
	if (!(cond)) \
		fail(what, #cond, __LINE__); \
} while (0)

struct vcpu_seen {
	int tid;
	int index;
	struct hv_track t;
	uint64_t uexit_kick;     /* INTR, or EINTR's restart */
	uint64_t after_kick;     /* exits to the VMM after the last kick */
	uint64_t events;
	int exited;
};

struct seen {
	struct vcpu_seen v[VCPUS];
	uint64_t wrong_tid;
};

static int on_event(void *arg, const struct hv_thread_id *t,
		    const struct hv_ev *ev)
{
	struct seen *s = arg;

	for (int i = 0; i < VCPUS; i++) {
		struct vcpu_seen *v = &s->v[i];

		if (v->tid != t->tid)
			continue;
		v->events++;
		if ((ev->type == HV_EV_KVM_EXIT || ev->type == HV_EV_KVM_UEXIT) &&
		    ev->tid != (uint32_t)t->tid)
			s->wrong_tid++;
		if (ev->type == HV_EV_KVM_UEXIT) {
			if (ev->reason == 10 ||
			    ev->reason == (HV_UEXIT_ERRNO | EINTR)) {
				v->uexit_kick++;
				v->after_kick = 0;
			} else {
				v->after_kick++;
			}
		}
		if (ev->type == HV_EV_EXIT)
			v->exited = 1;
		return hv_track_feed(&v->t, ev);
	}
	return 0;
}

/* tracefs where this kernel has one but nobody mounted it (a fresh
 * machine without systemd, kvm-run's nested guest). */
static void need_tracefs(void)
{
	char dir[256];

	if (hv_tp_tracefs_find(dir, sizeof(dir)) == 0)
		return;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
		fail("no tracefs, and mounting one failed", strerror(errno),
		     __LINE__);
}

static pid_t start_vm(const char *ringside, const char *payload,
		      const char *sock)
{
	pid_t pid = fork();

	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		execl(ringside, ringside, "run", payload, "--vcpus", "2",
		      "--workload", "hang", "--control", sock, "-q",
		      (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Waits until the VMM has started its vCPU threads (the process has
 * its main, control and vCPU threads), then for them to be named: each
 * names itself first thing, so that second wait is short. */
static void wait_vcpus(pid_t pid)
{
	struct hv_thread_id t[16];
	uint32_t found = 0;
	int status, i;

	for (i = 0; i < TRIES; i++) {
		CHECK(waitpid(pid, &status, WNOHANG) == 0, "the VMM ended early");
		if (hv_thread_scan(NULL, pid, HV_KIND_ALL, t, 16, &found) == 0 &&
		    found >= VCPUS + 2)
			break;
		usleep(10000);
	}
	CHECK(i < TRIES, "the VMM started its threads");
	for (i = 0; i < NAMED_TRIES; i++) {
		if (hv_thread_scan(NULL, pid, HV_KIND_VCPU, t, 16, &found) == 0 &&
		    found == VCPUS)
			return;
		usleep(10000);
	}
	fail("vCPU threads named \"CPU N/KVM\"", "not found", __LINE__);
}

/* Waits until every vCPU has run guest code (each has attempted a
 * record, as a snapshot of the VMM's rings says): only then is each in
 * KVM_RUN, for the stop's kick to be seen.  The VMM holds the vCPUs
 * after the first until it has looked at the region, which under an
 * emulated KVM takes a while. */
static void wait_guest(const char *ringside, const char *sock,
		       const char *dir)
{
	char cmd[1024], line[512];

	snprintf(cmd, sizeof(cmd), "'%s' snapshot --vm '%s' -o '%s/w.data' "
		 "2>/dev/null", ringside, sock, dir);
	for (int i = 0; i < TRIES / 10; i++) {
		FILE *f = popen(cmd, "r");
		int ran = 0;

		CHECK(f != NULL, "popen");
		while (fgets(line, sizeof(line), f)) {
			unsigned idx;
			unsigned long long n;
			char state[64];

			if (sscanf(line, " vCPU %u: %63[^,], %llu records attempted",
				   &idx, state, &n) == 3 && n > 0)
				ran++;
		}
		pclose(f);
		if (ran == VCPUS)
			return;
		usleep(100000);
	}
	fail("every vCPU ran guest code", "not seen", __LINE__);
}

int main(int argc, char **argv)
{
	struct hv_rec_opts o = {
		.mode = HV_MODE_FORWARD,
		.data_pages = 64,
		.exit_pages = 64,
		.sources = HV_SRC_BIT(HV_SRC_SWITCH) |
			   HV_SRC_BIT(HV_SRC_KVM_EXIT) |
			   HV_SRC_BIT(HV_SRC_KVM_UEXIT),
	};
	char dir[] = "/tmp/hv-kvm-XXXXXX", sock[64];
	struct seen *s = calloc(1, sizeof(*s));
	struct hv_rec_totals tot;
	struct hv_refresh rf;
	struct hv_probe p;
	struct hv_rec *r;
	int status, n, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: test_hv_kvm RINGSIDE PAYLOAD\n");
		return 2;
	}
	CHECK(s != NULL, "calloc");
	need_tracefs();
	ret = hv_probe(&o, 0, &p);
	if (ret == HV_ERR(hve_perm)) {
		printf("SKIP: %s\n", hv_err_str(ret));
		return 77;
	}
	if (ret)
		fail("perf events", hv_err_str(ret), __LINE__);
	/* KVM works here (kvm-run saw to it): its module's tracepoints are
	 * there, and this host may read them. */
	if (p.src[HV_SRC_KVM_UEXIT] || p.src[HV_SRC_KVM_EXIT])
		fail("kvm tracepoints", hv_err_str(p.src[HV_SRC_KVM_EXIT] ?
			p.src[HV_SRC_KVM_EXIT] : p.src[HV_SRC_KVM_UEXIT]),
		     __LINE__);
	printf("kvm module: %s; kvm_exit %s\n", p.kvm[0] ? p.kvm : "(built in)",
	       p.exits_seen ? "traced" : "not traced by this module");

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(sock, sizeof(sock), "%s/vm.sock", dir);
	vm = start_vm(argv[1], argv[2], sock);
	wait_vcpus(vm);

	CHECK(hv_rec_new(&o, &r) == 0, "hv_rec_new");
	n = hv_rec_follow(r, vm);
	/* the main thread and both vCPUs (the control thread and the
	 * kernel's workers are OTHER, not followed by default) */
	CHECK(n == VCPUS + 1, "followed threads");
	for (uint32_t i = 0, k = 0; i < hv_rec_count(r); i++) {
		struct hv_thread_stats st;

		CHECK(hv_rec_stats(r, i, &st) == 0, "stats");
		if (st.id.kind != HV_KIND_VCPU)
			continue;
		CHECK(k < VCPUS, "vCPU count");
		CHECK(st.id.vcpu >= 0 && st.id.vcpu < VCPUS, "vCPU index");
		CHECK(!strcmp(st.id.accel, "KVM"), "vCPU thread name");
		CHECK(st.sources == o.sources, "sources open");
		s->v[k].tid = st.id.tid;
		s->v[k].index = st.id.vcpu;
		hv_track_init(&s->v[k].t, NULL, NULL);
		k++;
	}
	CHECK(s->v[0].index != s->v[1].index, "two vCPU indexes");
	wait_guest(argv[1], sock, dir);

	/* Stop: every vCPU is kicked out of KVM_RUN, then ends. */
	CHECK(kill(vm, SIGTERM) == 0, "kill");
	CHECK(waitpid(vm, &status, 0) == vm, "waitpid");
	vm = -1;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "VMM exit status");
	ret = hv_rec_read(r, HV_READ_NEW, on_event, s);
	CHECK(ret >= 0, "hv_rec_read");
	CHECK(ret & HV_REFRESH_DUE, "EXIT records ask for a refresh");
	CHECK(hv_rec_refresh(r, &rf) == 0, "refresh");
	CHECK(rf.process_gone == 1, "the process is gone");
	hv_rec_totals(r, &tot);
	CHECK(tot.gone == tot.added && tot.added == VCPUS + 1,
	      "every thread counted gone");
	CHECK(tot.lost == 0 && tot.corrupt == 0, "nothing lost");
	CHECK(tot.live == 0 && tot.mem == 0, "buffers released");
	CHECK(s->wrong_tid == 0, "events of their own thread");

	for (int i = 0; i < VCPUS; i++) {
		struct vcpu_seen *v = &s->v[i];

		CHECK(hv_track_finish(&v->t, 0) == 0, "finish");
		printf("vCPU %d (tid %d): %llu events, %llu exits, %llu exits "
		       "to the VMM, %llu switches, running %llu ns, steal %llu ns\n",
		       v->index, v->tid, (unsigned long long)v->events,
		       (unsigned long long)v->t.exits,
		       (unsigned long long)v->t.uexits,
		       (unsigned long long)v->t.switches_in,
		       (unsigned long long)v->t.state_ns[HV_ST_RUNNING],
		       (unsigned long long)hv_track_steal(&v->t));
		for (uint32_t k = 0; k < v->t.nreasons; k++) {
			const struct hv_reason_count *rc = &v->t.reasons[k];
			const char *name = hv_name_exit(rc->type, rc->isa,
							rc->reason);

			printf("  %s %s (%#x): %llu\n",
			       rc->type == HV_EV_KVM_EXIT ? "exit" : "to VMM",
			       name ? name : "?", rc->reason,
			       (unsigned long long)rc->count);
		}
		CHECK(v->exited, "the vCPU thread's EXIT record");
		/* The stop kicks a thread out of KVM_RUN only where it finds
		 * it there: one handling an exit of its own (the workload's
		 * MMIO) sees the stop before it enters again, and makes no
		 * exit more.  Either way nothing follows the kick. */
		printf("  kicked out of KVM_RUN by the stop: %s\n",
		       v->uexit_kick ? "yes" : "no (outside it)");
		CHECK(v->uexit_kick == 0 || v->after_kick == 0,
		      "the stop's kick: the last exit to the VMM");
		CHECK(v->t.uexits >= 1, "exits to the VMM");
		if (p.exits_seen) {
			CHECK(v->t.exits >= 1, "exits into KVM");
			CHECK(v->t.reasons_other == 0, "reasons counted");
		}
		for (uint32_t k = 0; k < v->t.nreasons; k++)
			if (v->t.reasons[k].type == HV_EV_KVM_UEXIT)
				CHECK(hv_name_exit(HV_EV_KVM_UEXIT, 0,
						   v->t.reasons[k].reason) != NULL,
				      "a named exit to the VMM");
		CHECK(v->t.out_of_order == 0, "in time order");
	}
	hv_rec_free(r);
	snprintf(sock, sizeof(sock), "%s/w.data", dir);
	unlink(sock);
	rmdir(dir);
	free(s);
	printf("ok\n");
	return 0;
}
