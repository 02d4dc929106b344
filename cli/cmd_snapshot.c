/* SPDX-License-Identifier: MIT */
/*
 * ringside snapshot REGION -o FILE: copy every ring now, without consuming.
 *
 * Live (copy, then verify): the producer keeps writing; whatever it may
 * have overwritten during the copy is cut and reported.  Stable (--stable,
 * a source that can pause its writers: --vm, a libvirt domain): the vCPUs
 * are paused for the copy and resumed before the file is written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ringside/capture.h"
#include "ringside/domain_virt.h"
#include "ringside/introspect.h"
#include "ringside/vmm_client.h"

#include "cli.h"
#include "print.h"

#define CMD "snapshot"

struct snap_opts {
	const char *region;
	const char *vm;            /* --vm SOCKET instead of REGION */
	const char *output;
	int stable;
	int quiet;
	int no_guest_buffers;
	int no_vcpu_stacks;
	int no_pstate;
};

static int parse(int argc, char **argv, struct snap_opts *o)
{
	const struct opt opts[] = {
		CLI_OPT_VM(&o->vm, "; works on a hung or crashed guest too"),
		OPT_FLAG('s', "stable", &o->stable,
			 "stop the guest for the copy, resume it after: nothing is "
			 "cut.  --vm pauses the vCPUs; a DOMAIN is suspended through "
			 "libvirt (one already paused stays so).  Not for a path or "
			 "fd:N: nothing can stop their writers"),
		OPT_STRING('o', "output", &o->output, "FILE",
			   "the perf.data file to write (default: NAME-TIME.data "
			   "in the current directory, NAME the domain's or the "
			   "region file's, TIME UTC; its name is printed)"),
		OPT_FLAG(0, "no-guest-buffers", &o->no_guest_buffers,
			 "a DOMAIN: do not read the samples still in the guest "
			 "kernel's perf buffers (those the agent had not "
			 "forwarded when the guest stopped) from guest memory"),
		OPT_FLAG(0, "no-vcpu-stacks", &o->no_vcpu_stacks,
			 "a DOMAIN: do not read each vCPU's registers (through "
			 "QEMU's monitor) and kernel stack (from guest memory) "
			 "into a last sample per vCPU"),
		CLI_OPT_NO_PSTATE(&o->no_pstate, "FILE"),
		CLI_OPT_QUIET(&o->quiet, "no summary"),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_REGION_CMD,
		.usage = "REGION [-o FILE] [--quiet]\n"
			 "DOMAIN|--vm SOCKET [--stable] [-o FILE] [--quiet]",
		.about = "Copy every ring of a trace region into FILE (perf.data) "
			 "now, without consuming anything: the flight recorder's "
			 "view.  By default the copy is live: the guest keeps "
			 "running, and records it may have overwritten during the "
			 "copy are cut and counted.",
		.opts = opts,
		.notes = CLI_NOTES_EXIT("records"),
	};
	int first, ret;

	memset(o, 0, sizeof(*o));
	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret;
	if (cli_region_operand(CMD, argc - first, argv + first, o->vm, &o->region))
		return CLI_EXIT_USAGE;
	return 0;
}

/* Name @n of default_output's series, @arg { NAME, stamp }. */
static int output_name(char *buf, size_t len, unsigned n, const void *arg)
{
	const char *const *ns = arg;

	return n ? snprintf(buf, len, "%s-%s-%u.data", ns[0], ns[1], n)
		 : snprintf(buf, len, "%s-%s.data", ns[0], ns[1]);
}

/* No -o: NAME-YYYYmmddTHHMMSSZ[-N].data in the current directory, NAME
 * the domain's, the region file's (its last component) or "vm", with
 * what a file name should not hold replaced; a name no file has.  0, or
 * -errno. */
static int default_output(const struct cap_source *m, const struct snap_opts *o,
			  char *buf, size_t len)
{
	const char *src = cap_source_domain(m) ? cap_source_domain(m) :
			  o->vm ? "vm" : o->region;
	const char *slash = strrchr(src, '/');
	char name[128], stamp[32];
	struct tm tm;
	time_t now = time(NULL);
	size_t i;

	if (slash && slash[1])
		src = slash + 1;
	if (!strncmp(src, "fd:", 3))
		src = "snapshot";
	for (i = 0; src[i] && i < sizeof(name) - 1; i++) {
		char c = src[i];

		name[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' ||
			  (c == '.' && i) ? c : '_';
	}
	name[i] = '\0';
	if (!gmtime_r(&now, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		return -EINVAL;
	return cap_flight_free_name(buf, len, 100, output_name,
				    (const char *const[]){ name, stamp });
}

/* The vCPUs as the VMM sees them: did the guest hang, halt or crash? */
static void vm_status(struct cap_vm *v)
{
	struct rs_vmm_vcpu_info info;

	for (uint32_t i = 0; i < cap_vm_nr_vcpus(v); i++) {
		if (cap_vm_status(v, i, &info))
			continue;
		printf("  vCPU %u: %s, %" PRIu64 " records attempted", i,
		       vmm_cpu_state_name(info.state), info.report.attempted);
		if (info.state == RS_VCPU_SHUTDOWN || info.state == RS_VCPU_FAILED)
			printf(", last rip %#" PRIx64, info.rip);
		putchar('\n');
	}
}

/* The records the agent published the place of but had not forwarded,
 * from the domain's memory (docs/abi.md); cap_snapper_kbuf_dedup drops
 * those the rings' copy holds too.  Never a reason to fail: @why says
 * what stood in the way. */
static int recover_kbufs(struct cap_snapper *s, struct cap_source *m,
			 struct gi_kbuf *kb, char *why, size_t len)
{
	struct gi_kbuf_src src;
	int err = cap_source_domain_kbuf_src(m, &src);

	if (err) {
		snprintf(why, len, "cannot reach the domain through libvirt: %s",
			 dom_error_str(err));
		return 0;
	}
	return gi_kbuf_recover(kb, cap_source_region(m), &src,
			       cap_snapper_stats(s)->sample_type);
}

/* Each vCPU's registers and stack, with the vCPUs stopped if they are
 * (--stable, a panicked or hung guest).  Never a reason to fail. */
static int take_vcpus(struct gi_vcpu *vcpu, struct cap_source *m,
		      const struct pdf_ksyms *ksyms)
{
	struct gi_vcpu_src src;
	int err = cap_source_domain_vcpu_src(m, &src);

	if (err) {
		vcpu->state = GI_VCPU_NO_REGISTERS;
		vcpu->err = err;
		vcpu->errstr = dom_error_str;
		return 0;
	}
	return gi_vcpu_take(vcpu, &src, ksyms);
}

/*
 * Copy under a pause when asked; resume before anything is written.  The
 * pause holds only the copy of the rings' bytes (cap_snapper_take): their
 * buffers are made before it, and the records are walked and the vCPUs
 * read after the resume.
 *
 * The guest kernel's perf buffers are read before the rings: reading
 * them takes a monitor call a page, long enough for a live agent to pass
 * meanwhile, forward what they held and give their space back.  Read
 * after the rings, that pass's records would be in neither copy, nor the
 * processes born in it in the state table, and the samples recovered
 * after it would lack their processes.  Read before, whatever the agent
 * forwarded since is in the rings' copy (and dropped from the recovered,
 * cap_snapper_kbuf_dedup), and the table is as new as the rings.
 */
static int copy(struct cap_snapper *s, struct cap_source *m,
		const struct pdf_ksyms *ksyms, char *why, size_t len)
{
	const struct cap_snapper_config *c = cap_snapper_config(s);
	const struct rs_region *region = cap_source_region(m);
	struct cap_err e = { 0 };
	int ret, resumed = 0;

	ret = print_snapper_prepare(CMD, s, region);
	if (ret != CLI_EXIT_OK)
		return ret;
	if (c->kbuf && recover_kbufs(s, m, c->kbuf, why, len)) {
		cli_err(CMD, "out of memory");
		return CLI_EXIT_FAIL;
	}
	if (c->stable && cap_source_pause(m, &e)) {
		if (cap_err_is(&e, cap_err_sys, -EOPNOTSUPP))
			return cli_usage(CMD, "--stable needs a source whose writers can "
					 "be paused (--vm SOCKET or a libvirt DOMAIN); "
					 "%s is a plain region", c->source);
		cli_err(CMD, "cannot pause the vCPUs of %s: %s", c->source,
			cap_err_str(&e));
		return CLI_EXIT_FAIL;
	}
	ret = print_snapper_take(CMD, s, region);
	if (c->stable) {
		resumed = !cap_source_resume(m, &e);
		cap_snapper_set_pause(s, cap_source_paused_ns(m, 0),
				      cap_source_paused_ns(m, 1));
	}
	if (c->stable && !resumed) {
		cli_err(CMD, "cannot resume the vCPUs of %s: %s (closing the "
			"connection resumes them)", c->source, cap_err_str(&e));
		return CLI_EXIT_FAIL;
	}
	if (ret == CLI_EXIT_OK)
		ret = print_snapper_parse(CMD, s);
	if (ret == CLI_EXIT_OK && c->kbuf)
		cap_snapper_kbuf_dedup(s);
	if (ret == CLI_EXIT_OK && c->vcpu && take_vcpus(c->vcpu, m, ksyms)) {
		cli_err(CMD, "out of memory");
		ret = CLI_EXIT_FAIL;
	}
	/* the guest wrote on while its vCPUs were read: the vCPU samples
	 * filed after the newest record are held against a window that
	 * ends after those reads */
	if (ret == CLI_EXIT_OK && c->vcpu)
		cap_snapper_read_more(s);
	return ret;
}

/* One clock sync with the guest's agent (docs/cli.md, "Time"). */
static void take_sync(struct cap_sync *sync, const struct cap_source *m)
{
	void *hdr = cap_source_vm(m) ? NULL :
		    cap_sync_map_header(cap_source_fd(m));

	cap_sync_take(sync, cap_source_region(m), hdr, 1);
	cap_sync_unmap(hdr);
}

/* A DOMAIN with PT: the kernel's code for perf's decoder, or why not in
 * @kcode. */
static void kcode_source(struct cap_source *m, struct gi_kcode *kcode,
			 struct gi_kcode_src *src, struct cap_snapper_config *c)
{
	int err = cap_source_domain_kcode_src(m, src);

	c->kcode = kcode;
	if (!err) {
		c->kcode_src = src;
	} else {
		kcode->state = GI_KCODE_UNREADABLE;
		kcode->err = err;
		kcode->errstr = dom_error_str;
	}
}

int cmd_snapshot(int argc, char **argv)
{
	struct gi_kcode_src kcode_src;
	struct gi_kcode kcode = { 0 };
	struct cap_snapper_config c;
	struct cap_snapper *s = NULL;
	struct cap_source *m = NULL;
	const struct rs_region *region;
	const char *domain;
	struct gi_syms syms = { 0 };
	struct gi_usyms usyms = { 0 };
	struct gi_kbuf kb;
	struct gi_vcpu vcpu;
	struct pdf_ksyms *ksyms = NULL;
	char why[256] = "", defout[256];
	struct snap_opts o;
	struct cap_sync sync;
	int ret;

	cap_sync_init(&sync);
	gi_kbuf_init(&kb);
	gi_vcpu_init(&vcpu);
	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (cli_region_open(CMD, &m, o.vm, o.region, 0, o.output))
		return CLI_EXIT_FAIL;
	region = cap_source_region(m);
	domain = cap_source_domain(m);
	if (!o.output) {
		int err = default_output(m, &o, defout, sizeof(defout));

		if (err) {
			cli_err(CMD, "no name for the output file in the current "
				"directory: %s; give one with -o FILE", strerror(-err));
			ret = CLI_EXIT_FAIL;
			goto out;
		}
		o.output = defout;
	}
	cap_snapper_config_init(&c);
	c.source = o.region;
	c.output = o.output;
	c.argc = cli_argc();
	c.argv = cli_argv();
	c.stable = o.stable;
	c.no_pstate = o.no_pstate;
	c.clock = &sync.cs;
	c.syms = &syms;
	c.usyms = &usyms;
	if (domain && !o.no_guest_buffers)
		c.kbuf = &kb;
	if (domain && !o.no_vcpu_stacks)
		c.vcpu = &vcpu;
	if (domain && cap_rinfo_aux_format(region) == PDF_AUX_INTEL_PT)
		kcode_source(m, &kcode, &kcode_src, &c);
	/* before the pause: a guest still writing them can finish */
	if (gi_syms_read(&syms, region, 1) || gi_usyms_read(&usyms, region) ||
	    cap_snapper_new(&s, &c)) {
		cli_err(CMD, "out of memory");
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	/* refused symbols are GI_VCPU_NO_SYMBOLS, not a failure */
	if (c.vcpu && syms.state == GI_SYMS_OK &&
	    pdf_ksyms_parse(&ksyms, syms.text, syms.info.length) == -ENOMEM)
		ksyms = NULL;   /* the stacks are not worth failing for */
	/* A live copy syncs after it: a guest that hangs costs the bounded
	 * wait, never the copy.  A stable one before the pause: QEMU stops
	 * the guest's clock with its vCPUs, so a sync after the resume would
	 * put every record of the copy later by the pause. */
	if (o.stable)
		take_sync(&sync, m);
	ret = copy(s, m, ksyms, why, sizeof(why));
	if (ret == CLI_EXIT_OK) {
		if (!o.stable)
			take_sync(&sync, m);
		ret = print_snapper_write(CMD, s);
	}
	if (ret == CLI_EXIT_OK && !o.quiet) {
		print_snapper(CMD, s);
		if (c.kbuf)
			print_gkbuf(stdout, &kb, why[0] ? why : NULL,
				    cap_snapper_stats(s)->kbuf_refused);
		if (c.vcpu)
			print_gvcpu(stdout, &vcpu);
		print_csync(stdout, &sync);
		if (cap_source_vm(m))
			vm_status(cap_source_vm(m));
		print_source_guard(stdout, m);
		print_names_hint(stdout, o.output, &cap_snapper_stats(s)->wstats,
				 cap_snapper_stats(s)->usyms.cached);
	}
	/* a name the operator did not give is said, --quiet or not */
	if (ret == CLI_EXIT_OK && o.quiet && o.output == defout)
		printf("%s\n", defout);
	/* --quiet or not: corruption, damage and lies are never silent */
	if (ret == CLI_EXIT_OK &&
	    (print_snapper_warn(CMD, s) || cap_source_damage(m)))
		ret = CLI_EXIT_CORRUPT;
out:
	cap_snapper_free(s);
	gi_vcpu_fini(&vcpu);
	pdf_ksyms_free(ksyms);
	gi_kbuf_fini(&kb);
	gi_syms_fini(&syms);
	gi_usyms_fini(&usyms);
	cap_source_free(m);
	return ret;
}
