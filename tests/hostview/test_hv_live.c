/* SPDX-License-Identifier: MIT */
/*
 * The recorder on real threads of this process (perf events need root,
 * CAP_PERFMON, or kernel.perf_event_paranoid <= 2; without, exit 77):
 *
 * - steal: a victim and a hog, both SCHED_OTHER, pinned to one CPU.
 *   Both never block, so whenever the hog runs the victim is runnable:
 *   the recorder must see the victim switched out with the preempt bit
 *   while the hog ran there, and a steal total > 0.  The scheduler
 *   guarantees it once both have run long enough; how long is decided
 *   by the records (loop until seen), bounded by a count of reads.
 * - a thread that ends while recorded: its EXIT record, counted gone,
 *   the others recorded on; a thread created later is found (FORK).
 * - losses: a forward buffer overrun (the kernel's LOST, counted), an
 *   overwrite buffer written over before a read (counted in bytes).
 * - refusals: another user may not record root's threads (a distinct
 *   error); a host without kvm tracepoints says so.
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "ringside/hv_parse.h"
#include "ringside/hv_rec.h"
#include "ringside/hv_track.h"

/* Reads, at most: each sleeps 1 ms, so the bound is minutes, far past
 * what a scheduler needs; only a hang ever reaches it. */
#define READS_MAX 100000

static int self_tid(void)
{
	return (int)gettid();
}

static int pick_cpu(int *other)
{
	cpu_set_t s;
	int first = -1;

	*other = -1;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(s), &s), 0);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &s))
			continue;
		if (first < 0)
			first = c;
		else if (*other < 0)
			*other = c;
	}
	ck_assert_int_ge(first, 0);
	return first;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(s), &s), 0);
}

struct spinner {
	pthread_t th;
	int cpu;
	volatile int tid;
	volatile int stop;
};

static void *spin(void *arg)
{
	struct spinner *s = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	__atomic_store_n(&s->tid, self_tid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
		;
	return NULL;
}

static void spinner_start(struct spinner *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	ck_assert_int_eq(pthread_create(&s->th, NULL, spin, s), 0);
	while (!__atomic_load_n(&s->tid, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void spinner_stop(struct spinner *s)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	pthread_join(s->th, NULL);
}

static void add_tid(struct hv_rec *r, int tid, const char *comm)
{
	struct hv_thread_id id = { .pid = getpid(), .tid = tid };

	hv_thread_classify(comm, 0, &id);
	ck_assert_int_eq(hv_rec_add(r, &id), 0);
}


/* ---- steal ---- */

#define IVS 4096

struct seen {
	int victim, hog;
	struct hv_track tv, th;
	struct hv_interval v_runnable[IVS], h_running[IVS];
	uint32_t nv, nh;
	int cur;                 /* tid of the track being fed */
	uint64_t events_other;
};

static int iv_victim(void *arg, const struct hv_interval *iv)
{
	struct seen *s = arg;

	if (iv->state == HV_ST_RUNNABLE && s->nv < IVS)
		s->v_runnable[s->nv++] = *iv;
	return 0;
}

static int iv_hog(void *arg, const struct hv_interval *iv)
{
	struct seen *s = arg;

	if (iv->state == HV_ST_RUNNING && s->nh < IVS)
		s->h_running[s->nh++] = *iv;
	return 0;
}

static int feed(void *arg, const struct hv_thread_id *t, const struct hv_ev *ev)
{
	struct seen *s = arg;

	if (ev->type == HV_EV_SWITCH_IN || ev->type == HV_EV_PREEMPT ||
	    ev->type == HV_EV_SWITCH_OUT)
		ck_assert_int_eq((int)ev->tid, t->tid);
	if (t->tid == s->victim)
		return hv_track_feed(&s->tv, ev);
	if (t->tid == s->hog)
		return hv_track_feed(&s->th, ev);
	s->events_other++;
	return 0;
}

/* A victim runnable interval on @cpu that a hog running interval on
 * @cpu overlaps. */
static int preempted_by_hog(const struct seen *s, uint32_t cpu)
{
	for (uint32_t i = 0; i < s->nv; i++)
		for (uint32_t j = 0; j < s->nh; j++)
			if (s->v_runnable[i].cpu == cpu &&
			    s->h_running[j].cpu == cpu &&
			    s->h_running[j].start < s->v_runnable[i].end &&
			    s->h_running[j].end > s->v_runnable[i].start)
				return 1;
	return 0;
}

static void steal_case(uint32_t mode)
{
	struct hv_rec_opts o = { .mode = mode, .data_pages = 64,
				 .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	struct hv_schedstat st0, st1;
	struct spinner victim, hog;
	struct hv_rec *r;
	struct seen *s = calloc(1, sizeof(*s));
	int cpu, other, reads, have_st;

	ck_assert_ptr_nonnull(s);
	cpu = pick_cpu(&other);
	if (other >= 0)
		pin(other);          /* the reader stays off the victim's CPU */
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	spinner_start(&victim, cpu);
	s->victim = victim.tid;
	add_tid(r, victim.tid, "CPU 0/KVM");
	have_st = hv_thread_schedstat_read(NULL, getpid(), victim.tid,
					   &st0) == 0;
	spinner_start(&hog, cpu);
	s->hog = hog.tid;
	add_tid(r, hog.tid, "hog");
	hv_track_init(&s->tv, iv_victim, s);
	hv_track_init(&s->th, iv_hog, s);
	for (reads = 0; reads < READS_MAX; reads++) {
		int n = hv_rec_read(r, HV_READ_NEW, feed, s);

		ck_assert_int_ge(n, 0);
		if (preempted_by_hog(s, (uint32_t)cpu) &&
		    hv_track_steal(&s->tv) > 0)
			break;
		usleep(1000);
	}
	have_st = have_st && hv_thread_schedstat_read(NULL, getpid(),
							 victim.tid, &st1) == 0;
	spinner_stop(&hog);
	spinner_stop(&victim);
	ck_assert_int_lt(reads, READS_MAX);
	ck_assert_uint_ge(s->tv.preempts, 1);
	ck_assert_uint_gt(hv_track_steal(&s->tv), 0);
	ck_assert_uint_ge(s->tv.ntop, 1);
	ck_assert_uint_gt(s->tv.top[0].ns, 0);
	/* pinned: preempted there and run again there */
	ck_assert_uint_eq(s->tv.top[0].cpu_out, (uint32_t)cpu);
	ck_assert_uint_eq(s->tv.top[0].cpu_in, (uint32_t)cpu);
	ck_assert_uint_eq(s->tv.migrations, 0);
	ck_assert_uint_eq(s->tv.out_of_order, 0);
	/* The scheduler's own count agrees that it waited. */
	if (have_st)
		ck_assert_uint_gt(st1.wait_ns, st0.wait_ns);
	hv_rec_free(r);
	free(s);
}

START_TEST(steal_forward)
{
	steal_case(HV_MODE_FORWARD);
}
END_TEST

START_TEST(steal_overwrite)
{
	steal_case(HV_MODE_OVERWRITE);
}
END_TEST

/* ---- threads that come and go ---- */

struct sleeper {
	pthread_t th;
	int fd[2];
	const char *name;
	volatile int tid;
};

static void *sleep_on_pipe(void *arg)
{
	struct sleeper *s = arg;
	char c;

	pthread_setname_np(pthread_self(), s->name);
	__atomic_store_n(&s->tid, self_tid(), __ATOMIC_RELEASE);
	while (read(s->fd[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void sleeper_start(struct sleeper *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	ck_assert_int_eq(pipe(s->fd), 0);
	ck_assert_int_eq(pthread_create(&s->th, NULL, sleep_on_pipe, s), 0);
	while (!__atomic_load_n(&s->tid, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void sleeper_end(struct sleeper *s)
{
	ck_assert_int_eq(write(s->fd[1], "x", 1), 1);
	pthread_join(s->th, NULL);
	close(s->fd[0]);
	close(s->fd[1]);
}

struct exits {
	int tid;
	uint64_t exit_time;
	uint64_t forks;
	uint64_t main_events;
};

static int count_exit(void *arg, const struct hv_thread_id *t,
		      const struct hv_ev *ev)
{
	struct exits *x = arg;

	if (ev->type == HV_EV_EXIT && t->tid == x->tid)
		x->exit_time = ev->time;
	if (ev->type == HV_EV_FORK)
		x->forks++;
	if (t->tid == getpid())
		x->main_events++;
	return 0;
}

static int find(struct hv_rec *r, int tid, struct hv_thread_stats *st)
{
	for (uint32_t i = 0; i < hv_rec_count(r); i++) {
		ck_assert_int_eq(hv_rec_stats(r, i, st), 0);
		if (st->id.tid == tid)
			return 1;
	}
	return 0;
}

static void thread_exit_case(uint32_t mode)
{
	struct hv_rec_opts o = { .mode = mode,
				 .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	struct hv_thread_stats st;
	struct hv_rec_totals tot;
	struct hv_refresh rf;
	struct sleeper a, b;
	struct exits x = { 0 };
	struct hv_rec *r;
	int n, ret;

	sleeper_start(&a, "CPU 7/KVM");
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	/* This process: its main thread (the emulator) and vCPU 7. */
	n = hv_rec_follow(r, getpid());
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(hv_rec_follow(r, getpid()), HV_ERR(hve_invalid));
	ck_assert(find(r, a.tid, &st));
	ck_assert_uint_eq(st.id.kind, HV_KIND_VCPU);
	ck_assert_int_eq(st.id.vcpu, 7);
	ck_assert_str_eq(st.id.accel, "KVM");
	ck_assert(find(r, getpid(), &st));
	ck_assert_uint_eq(st.id.kind, HV_KIND_EMULATOR);

	x.tid = a.tid;
	sleeper_end(&a);             /* ends while recorded */
	ret = hv_rec_read(r, HV_READ_NEW, count_exit, &x);
	ck_assert_int_ge(ret, 0);
	ck_assert(ret & HV_REFRESH_DUE);
	ck_assert_uint_gt(x.exit_time, 0);
	ck_assert(find(r, a.tid, &st));
	ck_assert_uint_eq(st.gone, 1);
	ck_assert_uint_eq(st.gone_time, x.exit_time);
	hv_rec_totals(r, &tot);
	ck_assert_uint_eq(tot.gone, 1);
	ck_assert_uint_eq(tot.live, 1);
	/* A refresh does not count it twice. */
	ck_assert_int_eq(hv_rec_refresh(r, &rf), 0);
	ck_assert_uint_eq(rf.gone, 0);
	ck_assert_uint_eq(rf.added, 0);

	/* A new vCPU thread: created by the main thread, whose FORK record
	 * says a refresh is due; the refresh records it. */
	sleeper_start(&b, "CPU 8/KVM");
	memset(&x, 0, sizeof(x));
	x.tid = -1;
	ret = hv_rec_read(r, HV_READ_NEW, count_exit, &x);
	ck_assert_int_ge(ret, 0);
	ck_assert(ret & HV_REFRESH_DUE);
	ck_assert_uint_ge(x.forks, 1);
	ck_assert_int_eq(hv_rec_refresh(r, &rf), 0);
	ck_assert_uint_eq(rf.added, 1);
	ck_assert_uint_eq(rf.gone, 0);
	ck_assert(find(r, b.tid, &st));
	ck_assert_int_eq(st.id.vcpu, 8);
	ck_assert_uint_eq(st.gone, 0);
	/* The main thread went on being recorded throughout. */
	sleeper_end(&b);
	ret = hv_rec_read(r, HV_READ_ALL, count_exit, &x);
	ck_assert_int_ge(ret, 0);
	ck_assert_uint_gt(x.main_events, 0);
	hv_rec_totals(r, &tot);
	ck_assert_uint_eq(tot.gone, 2);
	ck_assert_uint_eq(tot.added, 3);
	ck_assert_uint_eq(tot.failed, 0);
	/* Both gone threads were read one last time and let go. */
	ck_assert(find(r, b.tid, &st));
	ck_assert_uint_eq(st.mem, 0);
	hv_rec_free(r);
}

START_TEST(thread_exit_forward)
{
	thread_exit_case(HV_MODE_FORWARD);
}
END_TEST

START_TEST(thread_exit_overwrite)
{
	thread_exit_case(HV_MODE_OVERWRITE);
}
END_TEST

/* ---- losses ---- */

/* Context switches of the caller: a thread woken through a pipe. */
struct pinger {
	pthread_t th;
	int to[2], back[2];
	volatile int tid;
};

static void *pong(void *arg)
{
	struct pinger *p = arg;
	char c;

	__atomic_store_n(&p->tid, self_tid(), __ATOMIC_RELEASE);
	while (read(p->to[0], &c, 1) == 1 && c == 'p')
		if (write(p->back[1], &c, 1) != 1)
			break;
	return NULL;
}

static void pinger_start(struct pinger *p)
{
	memset(p, 0, sizeof(*p));
	ck_assert_int_eq(pipe(p->to), 0);
	ck_assert_int_eq(pipe(p->back), 0);
	ck_assert_int_eq(pthread_create(&p->th, NULL, pong, p), 0);
	while (!__atomic_load_n(&p->tid, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void pinger_round_trips(struct pinger *p, int n)
{
	char c = 'p';

	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(write(p->to[1], &c, 1), 1);
		ck_assert_int_eq(read(p->back[0], &c, 1), 1);
	}
}

static void pinger_stop(struct pinger *p)
{
	ck_assert_int_eq(write(p->to[1], "q", 1), 1);
	pthread_join(p->th, NULL);
	close(p->to[0]);
	close(p->to[1]);
	close(p->back[0]);
	close(p->back[1]);
}

static int check_order(void *arg, const struct hv_thread_id *t,
		       const struct hv_ev *ev)
{
	uint64_t *last = arg;

	(void)t;
	ck_assert_uint_ge(ev->time, *last);
	*last = ev->time;
	return 0;
}

START_TEST(forward_overrun_counted)
{
	/* One page (~100 records): 2 switches per round trip overrun it. */
	struct hv_rec_opts o = { .mode = HV_MODE_FORWARD, .data_pages = 1,
				 .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	struct hv_thread_stats st;
	struct hv_track tr;
	struct pinger p;
	struct hv_rec *r;
	int reads;

	pinger_start(&p);
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	add_tid(r, p.tid, "pong");
	hv_track_init(&tr, NULL, NULL);
	/* The kernel writes its LOST record once there is room again: an
	 * overrun, a read, more records, a read. */
	for (reads = 0; reads < READS_MAX; reads++) {
		pinger_round_trips(&p, 1000);
		ck_assert_int_ge(hv_rec_read(r, HV_READ_NEW, NULL, NULL), 0);
		ck_assert_int_eq(hv_rec_stats(r, 0, &st), 0);
		if (st.lost > 0)
			break;
	}
	ck_assert_int_lt(reads, READS_MAX);
	ck_assert_uint_gt(st.lost, 0);
	ck_assert_uint_eq(st.corrupt, 0);
	ck_assert_uint_gt(st.events, 0);
	pinger_stop(&p);
	hv_rec_free(r);
}
END_TEST

START_TEST(overwrite_overrun_counted)
{
	struct hv_rec_opts o = { .mode = HV_MODE_OVERWRITE, .data_pages = 1,
				 .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	struct hv_thread_stats st;
	struct pinger p;
	struct hv_rec *r;
	uint64_t last = 0;
	int n;

	pinger_start(&p);
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	add_tid(r, p.tid, "pong");
	/* 1000 round trips: ~2000 records, 20 pages of them into one. */
	pinger_round_trips(&p, 1000);
	/* A capture: what the buffer holds, oldest first, less than was
	 * written; nothing counted lost by it. */
	n = hv_rec_read(r, HV_READ_ALL, check_order, &last);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, 2000);
	ck_assert_int_eq(hv_rec_stats(r, 0, &st), 0);
	ck_assert_uint_gt(st.written, 4096);
	ck_assert_uint_eq(st.overwritten, 0);
	/* Incremental: what was written over before this read is counted,
	 * byte for byte (every record here is a 40-byte switch record). */
	n = hv_rec_read(r, HV_READ_NEW, NULL, NULL);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(hv_rec_stats(r, 0, &st), 0);
	ck_assert_uint_eq((uint64_t)n * 40 + st.overwritten, st.written);
	ck_assert_uint_gt(st.overwritten, st.written - 4096 - 1);
	ck_assert_uint_eq(st.corrupt, 0);
	/* Nothing new: nothing read, nothing more lost. */
	n = hv_rec_read(r, HV_READ_NEW, NULL, NULL);
	ck_assert_int_eq(n & ~HV_REFRESH_DUE, 0);
	pinger_stop(&p);
	hv_rec_free(r);
}
END_TEST

START_TEST(migrations_in_order)
{
	/* Switches and migration samples in one buffer, in time order. */
	struct hv_rec_opts o = { .mode = HV_MODE_FORWARD,
				 .sources = HV_SRC_BIT(HV_SRC_SWITCH) |
					    HV_SRC_BIT(HV_SRC_MIGRATE) };
	struct hv_probe pr;
	struct pinger p;
	struct hv_rec *r;
	uint64_t last = 0;

	if (hv_probe(&o, 0, &pr) || !(pr.usable & HV_SRC_BIT(HV_SRC_MIGRATE))) {
		printf("SKIP migrations_in_order: %s\n",
		       hv_err_str(pr.src[HV_SRC_MIGRATE]));
		return;
	}
	pinger_start(&p);
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	add_tid(r, p.tid, "pong");
	pinger_round_trips(&p, 100);
	ck_assert_int_gt(hv_rec_read(r, HV_READ_NEW, check_order, &last), 0);
	pinger_stop(&p);
	hv_rec_free(r);
}
END_TEST

/* ---- refusals ---- */

START_TEST(other_user_refused)
{
	struct hv_rec_opts o = { .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	int status;
	pid_t child, parent = getpid();

	if (geteuid() != 0) {
		printf("SKIP other_user_refused: not root\n");
		return;
	}
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct hv_thread_id id = { .pid = parent, .tid = parent };
		struct hv_probe p;
		struct hv_rec *r;
		int ret;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		ret = hv_probe(&o, parent, &p);
		if (ret != HV_ERR(hve_perm) || p.perf != HV_ERR(hve_perm))
			_exit(11);
		if (hv_rec_new(&o, &r))
			_exit(12);
		hv_thread_classify("x", 1, &id);
		ret = hv_rec_add(r, &id);
		hv_rec_free(r);
		_exit(ret == HV_ERR(hve_perm) ? 0 : 13);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

START_TEST(no_tracepoints_said)
{
	char dir[] = "/tmp/hv-tracefs-XXXXXX";
	char ev[64];
	struct hv_rec_opts o = { .tracefs = dir,
				 .sources = HV_SRC_DEFAULT |
					    HV_SRC_BIT(HV_SRC_KVM_EXIT) };
	struct hv_probe p;
	struct hv_rec *r;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_no_tracefs));
	snprintf(ev, sizeof(ev), "%s/events", dir);
	ck_assert_int_eq(mkdir(ev, 0700), 0);
	ck_assert_int_eq(hv_rec_new(&o, &r), HV_ERR(hve_no_tp));
	/* The probe: switches yes, kvm events no; the caller records what
	 * it can (here the switches) and says why not the rest. */
	ck_assert_int_eq(hv_probe(&o, 0, &p), 0);
	ck_assert_int_eq(p.src[HV_SRC_KVM_EXIT], HV_ERR(hve_no_tp));
	ck_assert_int_eq(p.src[HV_SRC_KVM_UEXIT], HV_ERR(hve_no_tp));
	ck_assert_uint_eq(p.usable & HV_SRC_BIT(HV_SRC_KVM_EXIT), 0);
	ck_assert(p.usable & HV_SRC_BIT(HV_SRC_SWITCH));
	o.sources = p.usable;
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	hv_rec_free(r);
	rmdir(ev);
	rmdir(dir);
}
END_TEST

START_TEST(pollfds_per_buffer)
{
	struct hv_rec_opts o = { .mode = HV_MODE_FORWARD,
				 .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	struct pollfd fds[4];
	struct sleeper a;
	struct hv_rec *r;

	sleeper_start(&a, "IO io0");
	ck_assert_int_eq(hv_rec_new(&o, &r), 0);
	add_tid(r, a.tid, "IO io0");
	ck_assert_uint_eq(hv_rec_pollfds(r, fds, 4), 1);
	ck_assert_uint_eq(hv_rec_pollfds(r, fds, 0), 0);
	/* A thread that ends: POLLHUP on its buffer. */
	sleeper_end(&a);
	ck_assert_int_eq(poll(fds, 1, -1), 1);
	ck_assert(fds[0].revents & POLLHUP);
	hv_rec_free(r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hostview_live");
	TCase *c = tcase_create("live");

	tcase_set_timeout(c, 300);
	tcase_add_test(c, steal_forward);
	tcase_add_test(c, steal_overwrite);
	tcase_add_test(c, thread_exit_forward);
	tcase_add_test(c, thread_exit_overwrite);
	tcase_add_test(c, forward_overrun_counted);
	tcase_add_test(c, overwrite_overrun_counted);
	tcase_add_test(c, migrations_in_order);
	tcase_add_test(c, other_user_refused);
	tcase_add_test(c, no_tracepoints_said);
	tcase_add_test(c, pollfds_per_buffer);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	struct hv_rec_opts o = { .sources = HV_SRC_BIT(HV_SRC_SWITCH) };
	struct hv_probe p;
	SRunner *r;
	int failed;

	/* Root, CAP_PERFMON or perf_event_paranoid <= 2 (exit 77: skipped,
	 * with the reason, never passed). */
	if (hv_probe(&o, 0, &p)) {
		printf("SKIP: no perf events here: %s\n", hv_err_str(p.perf));
		return 77;
	}
	r = srunner_create(suite());
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
