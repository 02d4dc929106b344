/* SPDX-License-Identifier: MIT */
/*
 * ringside run PAYLOAD: boot a freestanding payload in the ringside VMM
 * (vmm/) with one ring per vCPU, and consume its rings in this process:
 * normal rings are recorded while it runs (cap_recorder.c, woken by the
 * doorbells), overwrite rings are snapshotted once the vCPUs stopped
 * (cap_snapper.c).  With --control it serves the control socket instead and
 * leaves the rings to 'ringside record|snapshot --vm'.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/vmm.h"

#include "cli.h"
#include "cmd_run.h"
#include "print.h"

#define CMD "run"
#define DOORBELL_INTERVAL_MS 250  /* backstop between doorbells */
#define WAIT_STEP_MS 50
#define HOST_PAGES 64  /* per vCPU thread and per kind of event */

/* What consumed the rings, for the table. */
struct run_state {
	struct vmm *vm;
	struct cap_recorder *rec;      /* normal rings drained here */
	struct cap_snapper *snap;      /* overwrite rings snapshotted here */
	struct cap_host *host;         /* the vCPU threads' host view */
	double seconds;
};

static void log_line(void *arg, int level, const char *fmt, va_list ap)
{
	(void)arg;
	(void)level;
	cli_verr(CMD, fmt, ap);
}

static int boot_error(const struct run_opts *o, int err)
{
	switch (err) {
	case -ENOENT:
	case -EACCES:
		cli_err(CMD, "cannot use the KVM device %s; is KVM loaded and "
			"are you allowed to open it? (--kvm DEVICE names another)",
			o->params.kvm_path ? o->params.kvm_path : "/dev/kvm");
		break;
	case -ENOSYS:
		cli_err(CMD, "this KVM lacks what the ringside VMM needs (see above)");
		break;
	default:
		cli_err(CMD, "cannot create the VM: %s", strerror(-err));
	}
	return CLI_EXIT_FAIL;
}

static int load_error(const char *payload, int err)
{
	if (err == -ENOENT)
		cli_err(CMD, "payload %s does not exist; give the guest image "
			"(e.g. build/guest-agent/payload/ringside-guest-agent)",
			payload);
	else if (err == -ENOEXEC)
		cli_err(CMD, "payload %s is not a loadable x86-64 ELF executable "
			"(see above)", payload);
	else if (err == -E2BIG)
		cli_err(CMD, "payload %s does not fit the guest's memory", payload);
	else
		cli_err(CMD, "cannot load payload %s: %s", payload, strerror(-err));
	return CLI_EXIT_FAIL;
}

/* Create, load, listen, start; the vCPU and control threads inherit a mask
 * without SIGINT/SIGTERM, so that those reach this thread. */
static int boot(const struct run_opts *o, struct vmm **vmp)
{
	sigset_t stop_sigs, old;
	struct vmm *vm;
	int err;

	err = vmm_create(vmp, &o->params);
	if (err)
		return boot_error(o, err);
	vm = *vmp;
	err = vmm_load_file(vm, o->payload);
	if (err)
		return load_error(o->payload, err);
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, &old);
	if (o->control && (err = vmm_control_listen(vm, o->control)) < 0)
		cli_err(CMD, "cannot serve the control socket %s: %s", o->control,
			strerror(-err));
	else if ((err = vmm_start(vm)) < 0)
		cli_err(CMD, "cannot start the vCPUs: %s", strerror(-err));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* Until a signal, the end of --duration, or (@until_stopped) every vCPU
 * stopped. */
static void wait_end(const struct run_opts *o, struct vmm *vm,
		     int until_stopped)
{
	double start = cap_time_now();

	while (!cap_stop_requested() &&
	       !(o->duration && cap_time_now() - start >= o->duration)) {
		if (until_stopped && vmm_wait(vm, 0) == 0)
			break;
		cap_stop_wait_fds(NULL, 0, WAIT_STEP_MS);
	}
}

static int all_stopped(void *arg)
{
	return vmm_wait(arg, 0) == 0;
}

/* The vCPUs stop before the recorder's last pass: a guest that finished
 * its records after that pass would be counted done with records that
 * were neither delivered nor lost. */
static void stop_vcpus(void *arg)
{
	vmm_stop(arg);
}

/* The host's view of this process's vCPU threads with their exits, or
 * NULL, said either way. */
static struct cap_host *open_host(const struct run_opts *o, struct vmm *vm)
{
	struct cap_host_config hc = {
		.pid = getpid(),
		.nr_lanes = vmm_nr_rings(vm),
		.mode = HV_MODE_FORWARD,
		.data_pages = HOST_PAGES,
		.sources = HV_SRC_BIT(HV_SRC_KVM_EXIT) |
			   HV_SRC_BIT(HV_SRC_KVM_UEXIT),
	};
	struct cap_host *h = NULL;
	int err, tries = 0;

	/* each vCPU thread names itself as it starts (vmm/run.c) */
	while ((err = cap_host_open(&h, &hc)) == -ENOENT && ++tries < 100)
		usleep(2000);
	if (o->quiet)
		return h;
	if (err) {
		printf("ringside run: host view: not recorded: %s\n",
		       hv_err_str(err));
	} else {
		const struct cap_host_stats *st = cap_host_stats(h);

		printf("ringside run: host view: %u vCPU threads (context "
		       "switches%s%s)\n", st->vcpus,
		       st->sources & HV_SRC_BIT(HV_SRC_KVM_UEXIT) ?
		       ", exits to the VMM" : "",
		       st->sources & HV_SRC_BIT(HV_SRC_KVM_EXIT) ?
		       ", exits into KVM" : "");
		if (!(st->sources & HV_SRC_BIT(HV_SRC_KVM_UEXIT)))
			printf("ringside run: host view: no exits: %s\n",
			       hv_err_str(st->probe.src[HV_SRC_KVM_UEXIT]));
	}
	return h;
}

/* Per vCPU, the host's view as recorded: exits by reason. */
static void print_host(const struct run_state *st)
{
	const struct hv_track *t;
	uint32_t i;

	print_host_view(stdout, st->host);
	for (i = 0; i < RS_MAX_RINGS; i++) {
		t = cap_host_track(st->host, i);
		if (!t)
			continue;
		printf("  vCPU %u: %" PRIu64 " switches in, %" PRIu64
		       " preemptions\n", i, t->switches_in, t->preempts);
		print_host_exits(stdout, i, t);
	}
}

static int record(const struct run_opts *o, struct run_state *st)
{
	struct cap_recorder_config c;

	cap_recorder_config_init(&c);
	print_recorder_config(CMD, &c, o->quiet);
	c.source = o->payload;
	/* the freestanding payload fills AUX with its test pattern; PT from
	 * the ringside VMM comes through ringside-pt-trace */
	c.aux_opaque = 1;
	c.output = o->output;
	c.duration = o->duration;
	c.interval_ms = DOORBELL_INTERVAL_MS;
	c.finished = all_stopped;
	c.finished_arg = st->vm;
	c.stopping = stop_vcpus;
	c.host = open_host(o, st->vm);
	st->host = c.host;
	if (cap_recorder_new(&st->rec, &c)) {
		cli_err(CMD, "out of memory");
		return CLI_EXIT_FAIL;
	}
	for (uint32_t i = 0; i < vmm_nr_rings(st->vm); i++)
		cap_recorder_add_wake(st->rec, vmm_doorbell_fd(st->vm, i),
				      (int)i, 0);
	return print_recorder_run(CMD, st->rec, vmm_region(st->vm));
}

/* The flight recorder once nothing runs: a stable copy by construction. */
static int snapshot(const struct run_opts *o, struct run_state *st)
{
	struct cap_snapper_config c;
	int ret;

	cap_snapper_config_init(&c);
	c.source = o->payload;
	c.output = o->output;
	c.argc = cli_argc();
	c.argv = cli_argv();
	c.aux_opaque = 1;
	c.stable = 1;
	if (cap_snapper_new(&st->snap, &c)) {
		cli_err(CMD, "out of memory");
		return CLI_EXIT_FAIL;
	}
	ret = print_snapper_copy(CMD, st->snap, vmm_region(st->vm));
	return ret ? ret : print_snapper_write(CMD, st->snap);
}

/* Consume the rings as the options say; stops the vCPUs. */
static int consume(const struct run_opts *o, struct run_state *st)
{
	double start = cap_time_now();
	int ret = CLI_EXIT_OK;

	if (o->control) {
		if (!o->quiet)
			printf("ringside run: serving %s; 'ringside record|snapshot "
			       "--vm %s' reads the rings; Ctrl-C ends\n", o->control,
			       o->control);
		fflush(stdout);
		wait_end(o, st->vm, 0);
	} else if (o->params.data_mode == RS_MODE_NORMAL) {
		ret = record(o, st);
	} else {
		wait_end(o, st->vm, 1);
	}
	vmm_stop(st->vm);
	if (!ret && !o->control && o->params.data_mode == RS_MODE_OVERWRITE)
		ret = snapshot(o, st);
	st->seconds = cap_time_now() - start;
	return ret;
}

/* The records consumed here, counted as drained or copied. */
static const struct cap_tally *tally_of(const struct run_state *st)
{
	if (st->rec)
		return &cap_recorder_stats(st->rec)->tally;
	return st->snap ? &cap_snapper_stats(st->snap)->tally : NULL;
}

int cmd_run(int argc, char **argv)
{
	struct run_state st = { 0 };
	struct run_opts o;
	int err, ret, unbalanced = 0;

	ret = run_opts_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	o.params.log = log_line;
	err = cap_stop_install();
	if (err) {
		cli_err(CMD, "cannot catch SIGINT/SIGTERM: %s", strerror(-err));
		return CLI_EXIT_FAIL;
	}
	ret = boot(&o, &st.vm);
	if (ret == CLI_EXIT_OK)
		ret = consume(&o, &st);
	if (ret == CLI_EXIT_OK && !o.quiet) {
		if (st.snap)
			print_snapper(CMD, st.snap);
		unbalanced = run_print_rings(&o, st.vm, tally_of(&st), st.rec,
					     st.seconds) != 0;
		if (st.host)
			print_host(&st);
	} else if (ret == CLI_EXIT_OK && st.rec) {
		/* --quiet prints no table, but a count that does not add up
		 * is an error all the same */
		uint32_t n = run_balance(st.vm, tally_of(&st), st.rec);

		if (n)
			cli_err(CMD, "delivered + lost != produced on %u rings", n);
		unbalanced = n != 0;
	}
	/* as record and snapshot: --quiet or not, corruption and lies are
	 * never silent, and the status says so unless a worse one applies */
	if (ret == CLI_EXIT_OK && ((st.rec && print_recorder_warn(CMD, st.rec)) ||
				   (st.snap && print_snapper_warn(CMD, st.snap))))
		ret = CLI_EXIT_CORRUPT;
	if (unbalanced)
		ret = CLI_EXIT_FAIL;
	cap_recorder_free(st.rec);
	cap_host_free(st.host);
	cap_snapper_free(st.snap);
	vmm_destroy(st.vm);
	return ret;
}
