/* SPDX-License-Identifier: MIT */
/*
 * ringside record REGION -o FILE: drain a live region until stopped.
 *
 * The loop (capture/src/cap_recorder.c) takes one batch from every ring, then waits
 * --interval ms or until a doorbell eventfd fires.  Without either, it
 * waits 10 ms after a pass that took something and backs off while the
 * rings are idle, as the service's recorders do
 * (ringside/service_idle.h).  On SIGINT/SIGTERM, at
 * the end of --duration, or (--vm) once the VM's vCPUs have all stopped, it
 * takes a last batch from every ring and completes the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/capture.h"
#include "ringside/domain_virt.h"
#include "ringside/service_idle.h"

#include "cli.h"
#include "print.h"

#define CMD "record"
#define DOORBELL_INTERVAL_MS 250  /* backstop between doorbells (--vm) */
#define HOST_PAGES 64  /* per vCPU thread: ~6400 switches between passes */
#define HOST_HOLD_MS 250 /* the longest sleep with the host's view: its
			  * threads may switch 25,000 times a second */

struct record_opts {
	const char *region;
	const char *vm;            /* --vm SOCKET instead of REGION */
	const char *output;
	double duration;           /* 0: until stopped */
	uint32_t interval_ms;      /* 0: not given */
	int doorbell_fd;
	int no_pstate;
	int no_host;
	int quiet;
};

#define STR_(x) #x
#define STR(x) STR_(x)

static int parse(int argc, char **argv, struct record_opts *o)
{
	uint32_t fd = UINT32_MAX;
	const struct opt opts[] = {
		CLI_OPT_VM(&o->vm, ": wakes on its doorbells, and ends by itself "
			   "once every vCPU has stopped or the VMM has gone"),
		OPT_STRING('o', "output", &o->output, "FILE",
			   "the perf.data file to write"),
		OPT_SECONDS('d', "duration", &o->duration, "S", 10000000,
			    "stop after S seconds (fractions allowed)"),
		OPT_U32('i', "interval", &o->interval_ms, "MS", 1, 60000,
			"milliseconds", "wait MS milliseconds between passes "
			"(default: 10 after a pass that took records, doubling "
			"while the rings are idle up to what they hold; with "
			"doorbells " STR(DOORBELL_INTERVAL_MS) ", as they wake it)"),
		OPT_U32(0, "doorbell-fd", &fd, "N", 0, 1u << 30,
			"a descriptor number", "also wake when eventfd N fires (the "
			"VMM's doorbell; not with --vm)"),
		CLI_OPT_NO_PSTATE(&o->no_pstate, "each file"),
		OPT_FLAG(0, "no-host", &o->no_host, "record the guest side alone: "
			 "not the host's view of the vCPU threads (a DOMAIN, --vm)"),
		CLI_OPT_QUIET(&o->quiet, "no progress line and no summary"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_REGION_CMD,
		.usage = CLI_REGION_USAGE("-o FILE [OPTIONS]"),
		.about = "Drain every ring of a live trace region into FILE "
			 "(perf.data) until Ctrl-C, SIGTERM or --duration.  FILE is "
			 "written as FILE.tmp.XXXXXX and renamed when complete.",
		.opts = opts,
		.notes = "A progress line is shown on a terminal only.  "
			 CLI_NOTES_EXIT("bytes"),
	};
	int first, ret;

	memset(o, 0, sizeof(*o));
	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret;
	o->doorbell_fd = fd == UINT32_MAX ? -1 : (int)fd;
	if (o->vm && o->doorbell_fd >= 0)
		return cli_usage(CMD, "--vm brings the VM's doorbells; --doorbell-fd "
				 "is for a REGION");
	if (cli_region_operand(CMD, argc - first, argv + first, o->vm, &o->region))
		return CLI_EXIT_USAGE;
	if (!o->output)
		return cli_usage(CMD, "where to? give the output file with -o FILE");
	return 0;
}

/* A DOMAIN's recording across saves: where its region is now, and the
 * words said when it goes and comes back. */
struct record_src {
	const struct record_opts *o;
	const struct cap_source *m; /* the region as opened first */
	struct cap_source *spare[2]; /* the region restored, in turn */
	int cur;                   /* the spare in use; -1: m */
	struct dom_virt *dom;
	char path[4096];           /* the region file's name ("": unknown) */
	char next[2][4200];        /* the file after a restore, and the one
				    * before (the output until the rotation) */
	int warned;                /* a completed file had warnings */
	uint32_t idle_bound_ms;    /* the backoff's longest sleep */
	uint32_t sleep_ms;         /* ... and the last one */
};

/* Ring @i's doorbells: read here (a host fact), and the producer's own
 * counts of those it rang and those it skipped while this consumer said
 * it polled (guest claims: rung is what read should be). */
static void print_bells(const struct cap_recorder *r, const struct cap_source *m,
			uint32_t i)
{
	struct cap_rinfo ri;

	printf("    doorbells: %" PRIu64 " read", cap_recorder_doorbells(r, i));
	if (!cap_rinfo_get(cap_source_region(m), i, &ri))
		printf("; guest claims: %" PRIu64 " rung, %" PRIu64 " skipped "
		       "(the consumer polled)", ri.doorbells, ri.suppressed);
	putchar('\n');
}

/* The sleep after a pass: the interval after one that took something,
 * twice the last while the rings are idle, up to what they hold. */
static uint32_t idle_sleep(void *arg, const struct cap_recorder *r,
			   int found)
{
	struct record_src *src = arg;

	src->sleep_ms = svc_idle_next(src->sleep_ms, found,
				      cap_recorder_config(r)->interval_ms,
				      src->idle_bound_ms);
	return src->sleep_ms;
}

/* How it slept: between the interval and the bound, in so many passes. */
static void print_backoff(const struct cap_recorder *r)
{
	const struct cap_recorder_config *c = cap_recorder_config(r);
	const struct record_src *src = c->hooks.arg;

	if (src->idle_bound_ms <= c->interval_ms)
		return;
	printf("  sleeps: %u ms after a pass that took records, doubling up to "
	       "%u ms while the rings were idle; %" PRIu64 " passes\n",
	       c->interval_ms, src->idle_bound_ms, cap_recorder_stats(r)->passes);
}

/* @rotated: a file completed at a restore (its time before the save). */
static void summary(const struct record_opts *o, const struct cap_recorder *r,
		    const struct cap_source *m, int rotated)
{
	const struct cap_recorder_config *c = cap_recorder_config(r);
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	const struct cap_tally *t = st->have_file_tally ? &st->file_tally :
							  &st->tally;
	const struct gi_pstate *ps = cap_recorder_pstate(r);
	struct cap_vm *vm = cap_source_vm(m);
	struct pdf_host_ring early;
	struct cap_tally_ring sum;
	char label[64], size[32];
	uint32_t i;

	cap_tally_total(t, &sum);
	if (rotated)
		/* a file completed at a restore: its time before it */
		printf("ringside record: wrote %" PRIu64 " records (%s) from "
		       "%u rings to %s (until the domain was saved)\n",
		       sum.records, print_size(size, sizeof(size), sum.bytes),
		       st->nr_rings, st->output);
	else
		printf("ringside record: wrote %" PRIu64 " records (%s) from %u "
		       "rings to %s in %.1f s%s\n", sum.records,
		       print_size(size, sizeof(size), sum.bytes), st->nr_rings,
		       st->output, st->seconds,
		       st->end == CAP_RECORDER_END_SIGNAL ? " (interrupted)" :
		       st->end == CAP_RECORDER_END_FINISHED ?
		       (cap_source_domain(m) ? " (the domain stopped)" :
		       " (the VM ended)") : "");
	if (c->syms) {
		print_gsyms(stdout, c->syms, &st->wstats);
		print_guest_usyms(stdout, &st->usyms);
	}
	if (ps->state != GI_PSTATE_NONE && ps->state != GI_PSTATE_ABSENT)
		print_gpstate(stdout, ps, st->output, c->no_pstate,
			      &st->pstate_out);
	print_gfacts(stdout, &st->guest, st->guest_late);
	print_chains_cut(stdout, &st->wstats);
	if (c->kcode && c->kcode->state != GI_KCODE_ABSENT)
		print_gkcode(stdout, c->kcode);
	print_names_hint(stdout, st->output, &st->wstats, st->usyms.cached);
	if (c->sync)
		print_csync(stdout, c->sync);
	if (c->hooks.sleep_ms == idle_sleep)
		print_backoff(r);
	if (vm || o->doorbell_fd >= 0)
		printf("  woken by doorbells: %" PRIu64 " of %" PRIu64 " passes; "
		       "%" PRIu64 " sleeps given up on a re-check (a doorbell "
		       "may have been skipped while it drained)\n",
		       st->woken, st->passes, st->rechecks);
	if (c->host)
		print_host_view(stdout, c->host);
	print_host_total(&st->host, &early);
	print_early(stdout, &early);
	for (i = 0; i < st->nr_rings; i++) {
		snprintf(label, sizeof(label), "  ring %u", i);
		print_ring_lines(stdout, label, "  ", &t->ring[i],
				  &st->host.ring[i], &t->bounds);
		if (vm && i < cap_vm_nr_doorbells(vm))
			print_bells(r, m, i);
	}
}

static int vm_finished(void *arg)
{
	return cap_vm_stopped(arg);
}

/* The source that holds the region now. */
static const struct cap_source *current(const struct record_src *src)
{
	return src->cur < 0 ? src->m : src->spare[src->cur];
}

/* A domain that is shut off (destroyed, powered off) or undefined writes
 * nothing more.  A crashed one kept by on_crash=preserve is still active:
 * its rings can still be read, and the recording goes on.  A saved one
 * (virsh save, managedsave) is away: it may be restored. */
static int dom_finished(void *arg)
{
	struct record_src *src = arg;
	int life = dom_virt_life(src->dom);

	if (life == DOM_LIFE_OFF || life == -dome_no_domain)
		return CAP_RECORDER_GONE;
	if (life == DOM_LIFE_SAVED)
		return CAP_RECORDER_AWAY;
	/* saved and restored between two looks: its region is another file */
	if (src->path[0] && !access(src->path, F_OK) &&
	    !cap_source_is_file(current(src), src->path))
		return CAP_RECORDER_AWAY;
	return CAP_RECORDER_HERE;
}

/* A saved domain runs again: its region is a new file (the hook laid it
 * out, QEMU restored the saved bytes into it), opened as at the start.
 * Only once it runs: while it is being restored QEMU still writes it. */
static int dom_reopen(void *arg, const struct rs_region **region,
		      void **sync_mem, struct cap_err *e)
{
	struct record_src *src = arg;
	int life = dom_virt_life(src->dom), slot, err;
	struct cap_source *m;

	if (life == DOM_LIFE_OFF || life == -dome_no_domain)
		return CAP_RECORDER_GONE;
	if (life != DOM_LIFE_RUNNING)
		return CAP_RECORDER_AWAY;
	/* the other spare: nothing reads the one before the last any more */
	slot = src->cur == 0 ? 1 : 0;
	m = src->spare[slot];
	err = cap_source_open(m, cap_source_domain(src->m),
			      CAP_SOURCE_WRITE | CAP_SOURCE_EXCL, e);
	if (err == -ENOENT && cap_err_from(e, cap_err_sys))
		return CAP_RECORDER_AWAY;
	if (err)
		return err;
	src->cur = slot;
	*region = cap_source_region(m);
	*sync_mem = cap_source_mem(m);
	return CAP_RECORDER_BACK;
}

static void dom_gone_away(void *arg, const struct cap_recorder *r)
{
	struct record_src *src = arg;

	(void)r;
	if (src->o->quiet)
		return;
	printf("ringside record: %s was saved: waiting for it to run again\n",
	       cap_source_domain(src->m));
	fflush(stdout);
}

static const char *dom_back_output(void *arg, const struct cap_recorder *r)
{
	struct record_src *src = arg;
	uint32_t files = cap_recorder_stats(r)->files;
	char *next = src->next[files & 1];

	snprintf(next, sizeof(src->next[0]), "%s.%u", src->o->output, files);
	return next;
}

/* A file completed at a restore: its own summary and warnings. */
static void dom_file_done(void *arg, const struct cap_recorder *r)
{
	struct record_src *src = arg;

	if (!src->o->quiet)
		summary(src->o, r, src->m, 1);
	if (print_recorder_warn(CMD, r))
		src->warned = 1;
}

static void dom_came_back(void *arg, const struct cap_recorder *r, int events)
{
	struct record_src *src = arg;
	const struct cap_recorder_stats *st = cap_recorder_stats(r);
	uint32_t i;

	(void)events;
	if (src->o->quiet)
		return;
	printf("ringside record: %s runs again: every ring reattached%s%s\n",
	       cap_source_domain(src->m),
	       st->output ? "; records from now on in " : "",
	       st->output ? st->output : "");
	for (i = 0; i < st->nr_rings; i++)
		print_reattach(stdout, i, cap_recorder_cons_stats(r, i));
	fflush(stdout);
}

/* Nothing wakes it but its clock (no --interval, no doorbell): it backs
 * off while the rings are idle, at most as long as they hold at their
 * rate and as long as the host view's buffers hold. */
static void back_off(struct cap_recorder_config *c, struct record_src *src,
		     const struct rs_region *region)
{
	struct svc_idle_rings ir;

	svc_idle_rings_of(region, &ir);
	src->idle_bound_ms = svc_idle_bound(&ir, c->interval_ms, 0);
	if (c->host && src->idle_bound_ms > HOST_HOLD_MS)
		src->idle_bound_ms = HOST_HOLD_MS;
	src->sleep_ms = 0;
	c->hooks.sleep_ms = idle_sleep;
	c->hooks.arg = src;
}

/* A DOMAIN: it ends when the domain stops (its own connection: the
 * code's reader has the other one), and goes on across a save. */
static void follow_domain(struct cap_recorder_config *c,
			  struct record_src *src)
{
	const char *domain = cap_source_domain(src->m);

	if (dom_virt_open(&src->dom, NULL, domain, 1) ||
	    cap_source_new(&src->spare[0]) || cap_source_new(&src->spare[1]))
		return;
	if (dom_region_path(domain, src->path, sizeof(src->path)))
		src->path[0] = '\0';
	c->finished = dom_finished;
	c->reopen = dom_reopen;
	c->finished_arg = src;
	c->hooks.arg = src;
	c->hooks.gone_away = dom_gone_away;
	c->hooks.back_output = dom_back_output;
	c->hooks.came_back = dom_came_back;
	c->hooks.file_done = dom_file_done;
}

/* --vm and --doorbell-fd: the descriptors the recorder wakes on. */
static void add_wakes(struct cap_recorder *r, const struct record_opts *o,
		      struct cap_vm *vm)
{
	if (o->doorbell_fd >= 0)
		cap_recorder_add_wake(r, o->doorbell_fd, -1, 0);
	if (!vm)
		return;
	for (uint32_t i = 0; i < cap_vm_nr_doorbells(vm); i++)
		cap_recorder_add_wake(r, cap_vm_doorbell(vm, i), (int)i, 0);
	cap_recorder_add_wake(r, cap_vm_socket(vm), -1, 1);
}

/* The host's view of the VMM's vCPU threads (a DOMAIN's QEMU, --vm's
 * VMM), or NULL, said either way. */
static struct cap_host *open_host(const struct record_opts *o,
				  struct cap_source *m)
{
	struct cap_host_config hc = {
		.nr_lanes = cap_rinfo_count(cap_source_region(m)),
		.mode = HV_MODE_FORWARD,
		.data_pages = HOST_PAGES,
	};
	const char *domain = cap_source_domain(m);
	struct cap_vm *vm = cap_source_vm(m);
	struct cap_host *h = NULL;
	int err = -EOPNOTSUPP;

	if (o->no_host || (!domain && !vm))
		return NULL;
	if (domain)
		err = cap_host_domain_pid(domain, NULL, &hc.pid);
	else
		err = cap_host_socket_pid(cap_vm_socket(vm), &hc.pid);
	if (!err)
		err = cap_host_open(&h, &hc);
	if (!o->quiet) {
		if (err == -ENOENT && hc.pid)
			printf("ringside record: host view: not recorded: the "
			       "VMM (pid %d) has no thread named 'CPU N/...'; "
			       "the guest side alone\n", hc.pid);
		else if (err)
			printf("ringside record: host view: not recorded: %s%s; "
			       "the guest side alone\n", hv_err_str(err),
			       err == -ENOENT ? " (no pid file of the domain)" :
			       "");
		else
			printf("ringside record: host view: %u vCPU threads of "
			       "pid %d (context switches)\n",
			       cap_host_stats(h)->vcpus, hc.pid);
	}
	return h;
}

static int run(const struct record_opts *o, struct cap_source *m)
{
	struct record_src src = { .o = o, .m = m, .cur = -1 };
	const struct rs_region *region = cap_source_region(m);
	const char *domain = cap_source_domain(m);
	struct cap_vm *vm = cap_source_vm(m);
	struct gi_kcode_src kcode_src;
	struct cap_recorder_config c;
	struct cap_recorder *r = NULL;
	struct gi_kcode kcode = { 0 };
	struct gi_syms syms = { 0 };
	struct cap_sync sync;
	int ret;

	cap_recorder_config_init(&c);
	print_recorder_config(CMD, &c, o->quiet);
	c.source = o->region;
	c.output = o->output;
	c.duration = o->duration;
	c.no_pstate = o->no_pstate;
	c.syms = &syms;
	cap_sync_init(&sync);
	c.sync = &sync;
	c.sync_mem = cap_source_mem(m);
	if (o->interval_ms)
		c.interval_ms = o->interval_ms;
	if (vm) {
		c.finished = vm_finished;
		c.finished_arg = vm;
		if (!o->interval_ms && cap_vm_nr_doorbells(vm))
			c.interval_ms = DOORBELL_INTERVAL_MS;
	}
	if (domain)
		follow_domain(&c, &src);
	c.host = open_host(o, m);
	if (!o->interval_ms && o->doorbell_fd < 0 &&
	    (!vm || !cap_vm_nr_doorbells(vm)))
		back_off(&c, &src, region);
	/* a DOMAIN with PT: the kernel's code for perf's decoder */
	if (domain && o->output &&
	    cap_rinfo_aux_format(region) == PDF_AUX_INTEL_PT) {
		c.kcode = &kcode;
		if (!cap_source_domain_kcode_src(m, &kcode_src))
			c.kcode_src = &kcode_src;
	}
	if (gi_syms_read(&syms, region, 1) || cap_recorder_new(&r, &c)) {
		cli_err(CMD, "out of memory");
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	add_wakes(r, o, vm);
	ret = print_recorder_run(CMD, r, region);
	if (ret == CLI_EXIT_OK && !o->quiet) {
		summary(o, r, m, 0);
		if (cap_recorder_stats(r)->aways)
			print_reattach_total(stdout, r);
	}
	/* --quiet or not: corruption and lies are never silent */
	if (ret == CLI_EXIT_OK && (print_recorder_warn(CMD, r) || src.warned))
		ret = CLI_EXIT_CORRUPT;
out:
	cap_recorder_free(r);
	cap_host_free(c.host);
	cap_source_free(src.spare[0]);
	cap_source_free(src.spare[1]);
	dom_virt_close(src.dom);
	gi_syms_fini(&syms);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct cap_source *m;
	int err, ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (o.doorbell_fd >= 0 && fcntl(o.doorbell_fd, F_GETFD) < 0) {
		cli_err(CMD, "--doorbell-fd %d: not an open descriptor", o.doorbell_fd);
		return CLI_EXIT_FAIL;
	}
	err = cap_stop_install();
	if (err) {
		cli_err(CMD, "cannot catch SIGINT/SIGTERM: %s", strerror(-err));
		return CLI_EXIT_FAIL;
	}
	if (cli_region_open(CMD, &m, o.vm, o.region,
			    CAP_SOURCE_WRITE | CAP_SOURCE_EXCL, o.output))
		return CLI_EXIT_FAIL;
	ret = run(&o, m);
	cap_source_free(m);
	return ret;
}
