/* SPDX-License-Identifier: MIT */
/*
 * ringside enable DOMAIN [options]: opt a libvirt domain in.  Writes
 * ringside's <metadata> element and an ivshmem-plain <shmem> device of the
 * region's exact size into the persistent XML; both apply at the next
 * start.  Every option is checked before libvirt is touched, and a failed
 * metadata write takes the device back out.  --trace pt also puts
 * ringside's QEMU TCG plugin on the domain's command line (<qemu:arg>,
 * domain.h); a failure there defines the domain back as it was.
 *
 * --live also opts the running guest in now, as the hook would at its
 * start: the region file laid out, the metadata set on the running
 * domain, the device hot-plugged (PCI).  The persistent change comes
 * first; when the live one fails, the region file and live metadata go
 * and the persistent XML is defined back as it was.  --live-only leaves
 * the persistent XML alone.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/domain_hook.h"
#include "ringside/domain_virt.h"

#include "cli.h"
#include "domain_cmd.h"
#include "print.h"

#define CMD "enable"

/* Where meson installs the plugin (pt-virt/qemu): libdir/ringside. */
#ifndef RS_PT_PLUGIN_PATH
#define RS_PT_PLUGIN_PATH "/usr/local/lib/ringside/" DOM_PT_PLUGIN_FILE
#endif

#define PT_FILTER_UNSET UINT32_MAX

struct enable_opts {
	struct domain_cmd_opts dom; /* live: plug into the running guest
				     * too */
	struct dom_cfg cfg;        /* cfg.rings 0: the domain's vCPU count */
	int aux_given;             /* --aux-pages was on the command line */
	int data_given;            /* --data-pages was */
	uint32_t memory_mib;       /* --memory; 0: DOM_MEMORY_DEFAULT_MIB */
	uint32_t vcpus;            /* the domain's (0: not known) */
	int pt;                    /* --trace had pt: the QEMU plugin */
	uint32_t pt_filter;        /* index into pt_filters; PT_FILTER_UNSET */
	uint32_t pt_psb;           /* 0: the plugin's default */
	const char *pt_plugin;     /* NULL: RS_PT_PLUGIN_PATH */
	uint32_t stall_ms;         /* the host's longest stall (0: default) */
	char plugin[PATH_MAX];     /* the plugin's resolved path */
};

static const char *const pt_filters[] = { "kernel", "all", NULL };

/* "pt" is no region attribute: it is the AUX area plus the plugin.  Take
 * it out of the list and put "aux" in its place. */
static const char *trace_list(struct enable_opts *o, const char *value,
			      char *buf, size_t len)
{
	const char *s = value;
	size_t used = 0;
	int aux = 0;

	buf[0] = '\0';
	while (*s) {
		size_t n = strcspn(s, ",");

		if (n == 2 && !strncmp(s, "pt", 2)) {
			o->pt = 1;
		} else {
			aux |= n == 3 && !strncmp(s, "aux", 3);
			if (used + n + 2 > len)
				return value;   /* dom_cfg_set will say why */
			if (used)
				buf[used++] = ',';
			memcpy(buf + used, s, n);
			buf[used += n] = '\0';
		}
		s += n;
		if (*s == ',' && *++s == '\0')
			return value;
	}
	if (o->pt && !aux) {
		if (used + 5 > len)
			return value;
		snprintf(buf + used, len - used, "%saux", used ? "," : "");
	}
	return o->pt ? buf : value;
}

/* Each option is the metadata attribute of its name: dom_cfg_set says
 * what a good value is. */
static const char *set(const struct opt *opt, const char *value)
{
	struct enable_opts *o = opt->dest;
	size_t n = strlen(opt->name);
	const char *bad;
	char list[128];

	if (!strcmp(opt->name, "aux-pages"))
		o->aux_given = 1;
	if (!strcmp(opt->name, "data-pages"))
		o->data_given = 1;
	if (!strcmp(opt->name, "trace")) {
		o->pt = 0;   /* the last --trace counts, as with every option */
		value = trace_list(o, value, list, sizeof(list));
	}
	if (!dom_cfg_set(&o->cfg, opt->name, value, &bad))
		return NULL;
	if (!strcmp(opt->name, "trace"))   /* pt is this command's item */
		return "a comma-separated list of samples, markers, aux, test, pt";
	/* bad names the attribute; the option says it already */
	if (!strncmp(bad, opt->name, n) && bad[n] == ':')
		bad += n + 2;
	return bad;
}

static int parse(int argc, char **argv, struct enable_opts *o)
{
	const struct opt opts[] = {
		OPT_FN('r', "rings", set, o, "N", "rings (one per vCPU): "
		       "1..1024 (default: the vCPU count)"),
		OPT_FN('p', "data-pages", set, o, "N", "4 KiB pages of "
		       "records per ring, a power of two (default: 64, or "
		       "fewer to fit --memory)"),
		OPT_U32(0, "memory", &o->memory_mib, "MIB", 1, 1024, "MiB",
			"the region's budget: data pages per ring follow from "
			"the rings (default 64: 64 pages a ring up to 236 "
			"vCPUs, fewer beyond)"),
		OPT_FN('a', "aux-pages", set, o, "N", "4 KiB pages of AUX "
		       "per ring, 0 or a power of two (0)"),
		OPT_FN('m', "mode", set, o, "MODE", "overwrite (flight "
		       "recorder, default) or normal"),
		OPT_FN('t', "trace", set, o, "LIST", "samples,markers,aux,"
		       "test,pt (default samples,markers); pt: Intel PT from "
		       "ringside's QEMU TCG plugin (aux-pages default 256)"),
		OPT_FN('f', "freq", set, o, "HZ", "guest samples per second "
		       "and vCPU, 1..100000 (1000)"),
		OPT_FN('s', "sideband-pages", set, o, "N", "4 KiB pages for "
		       "the guest kernel's symbols, 0 (none)..16384 (1024)"),
		OPT_ENUM(0, "pt-filter", &o->pt_filter, "F", pt_filters,
			 "with --trace pt: kernel (addresses from "
			 "0xffff800000000000, default) or all"),
		OPT_POW2(0, "pt-psb", &o->pt_psb, "BYTES", DOM_PT_PSB_MIN,
			 DOM_PT_PSB_MAX, "with --trace pt: bytes between PSB "
			 "packets (the plugin's default)"),
		OPT_STRING(0, "pt-plugin", &o->pt_plugin, "PATH", "with --trace "
			   "pt: the plugin file (default: the installed one, "
			   "below)"),
		OPT_FLAG(0, "live", &o->dom.live, "also opt the running domain "
			 "in now: lay the region out and hot-plug the device "
			 "into the guest (PCI); no restart"),
		CLI_OPT_LIVE_ONLY(&o->dom.live_only, " (the next start is not "
				  "traced)"),
		OPT_U32(0, "stall-ms", &o->stall_ms, "MS", 1, DOM_STALL_MS_MAX,
			"milliseconds", "the longest this host takes a CPU "
			"away from 'ringside record' (measured: ring-bench's "
			"stalls lines); a normal ring must hold it on top of "
			"the agent's 100 ms (default 10)"),
		CLI_OPT_CONNECT(&o->dom.uri),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_DOMAIN_CMD,
		.usage = "DOMAIN [OPTIONS]",
		.about = "Opt libvirt domain DOMAIN in to ringside tracing: write "
			 "ringside's <metadata> element and an ivshmem-plain <shmem "
			 "name='ringside-DOMAIN'> device into its persistent XML.  "
			 "Both apply at the domain's next start; the libvirt hook "
			 "('ringside hook install') then creates the region.  "
			 "Running 'enable' again replaces the settings.  With "
			 "--live a running domain is opted in at once: the region "
			 "file is laid out and the device hot-plugged; the guest's "
			 "agent attaches to it: the one the ringside-agent package "
			 "starts for the device (its udev rule and "
			 "ringside-agent@.service), or a 'ringside-agent --follow' "
			 "that runs already (a guest without systemd).",
		.opts = opts,
		.notes = "--trace pt needs a domain of type 'qemu' (TCG) and the "
			 "plugin file; it adds '-plugin PATH,region=FILE,...' to "
			 "the domain's <qemu:commandline>, after the operator's own "
			 "arguments; it cannot go on a running QEMU (not with "
			 "--live).  The installed plugin: " RS_PT_PLUGIN_PATH
			 ".  Exit status: 0 success, 1 failure (nothing "
			 "changed; also: no plugin file, --live on a domain that "
			 "is not running or has the device plugged in already, a "
			 "hot-plug QEMU or libvirt refused), 2 bad usage (also: "
			 "--trace pt on a domain that is not TCG).",
	};
	struct dom_cfg probe;
	const char *bad;
	int ret;

	memset(o, 0, sizeof(*o));
	dom_cfg_default(&o->cfg);
	o->pt_filter = PT_FILTER_UNSET;
	ret = domain_cmd_parse(&cmd, argc, argv, &o->dom);
	if (ret)
		return ret;
	if (o->pt && o->dom.live)
		return cli_usage(CMD, "--trace pt puts ringside's plugin on QEMU's "
				 "command line, which a running QEMU cannot take: "
				 "leave --live out, and restart the domain");
	if (!o->pt && (o->pt_plugin || o->pt_psb ||
		       o->pt_filter != PT_FILTER_UNSET))
		return cli_usage(CMD, "--pt-filter, --pt-psb and --pt-plugin go "
				 "with --trace pt");
	if (o->pt && o->aux_given && !o->cfg.aux_pages)
		return cli_usage(CMD, "--trace pt writes into AUX areas: "
				 "--aux-pages N (a power of two), or leave it "
				 "out for %u", DOM_PT_AUX_PAGES_DEFAULT);
	if (o->pt && !o->aux_given)
		o->cfg.aux_pages = DOM_PT_AUX_PAGES_DEFAULT;
	if (o->memory_mib && o->data_given)
		return cli_usage(CMD, "--memory sets the data pages from the "
				 "rings: leave --data-pages out, or --memory");
	/* The sizes together, before anything is looked up: with the rings
	 * given, or the fewest the domain could have. */
	probe = o->cfg;
	if (!probe.rings)
		probe.rings = 1;
	if (dom_cfg_check(&probe, &bad))
		return cli_usage(CMD, "%s", bad);
	return 0;
}

/* Rings from the vCPU count unless given; then every value checked. */
static int finish_cfg(struct enable_opts *o, const struct dom_xml *x)
{
	const char *bad;
	uint32_t vcpus;

	if (!o->cfg.rings) {
		if (dom_xml_vcpus(x, &vcpus)) {
			cli_err(CMD, "%s: the domain XML has no <vcpu> count; give "
				"--rings N", o->dom.domain);
			return CLI_EXIT_FAIL;
		}
		o->cfg.rings = vcpus < RS_MAX_RINGS ? vcpus : RS_MAX_RINGS;
		o->vcpus = vcpus;
	} else if (!dom_xml_vcpus(x, &vcpus)) {
		o->vcpus = vcpus;
	}
	if (!o->data_given) {
		uint64_t mib = o->memory_mib ? o->memory_mib :
			       DOM_MEMORY_DEFAULT_MIB;

		if (dom_cfg_fit(&o->cfg, mib << 20, &bad))
			return cli_usage(CMD, "--memory %" PRIu64 ": %s", mib, bad);
	} else if (dom_cfg_check(&o->cfg, &bad)) {
		return cli_usage(CMD, "%s", bad);
	}
	return 0;
}

/* Swap the device (if its size changes) and write the metadata; undo the
 * device change when the metadata cannot be written. */
static int apply(const struct enable_opts *o, struct dom_virt *d,
		 const struct dom_xml *x, const char *shm_name)
{
	char meta[512], dev[512];
	uint64_t old_size = 0;
	char *old_dev = NULL;
	int err, have, swap;

	have = dom_xml_shmem(x, shm_name, &old_size, &old_dev);
	if (have < 0) {
		cli_err(CMD, "%s: its <shmem name='%s'> device is not an "
			"ivshmem-plain device ringside made; remove it first",
			o->dom.domain, shm_name);
		return CLI_EXIT_FAIL;
	}
	if (dom_cfg_format(&o->cfg, meta, sizeof(meta)) < 0 ||
	    dom_shm_xml(shm_name, o->cfg.size, dev, sizeof(dev)) < 0) {
		free(old_dev);
		cli_err(CMD, "internal error: XML does not fit");
		return CLI_EXIT_FAIL;
	}
	/* a device of another size, or one without role='master' (as enable
	 * made it before: it pins the domain to its host), is replaced */
	swap = have && (old_size != o->cfg.size ||
			!dom_xml_shmem_master(x, shm_name));
	err = 0;
	if (swap)
		err = dom_virt_detach(d, old_dev);
	if (!err && (!have || swap)) {
		err = dom_virt_attach(d, dev);
		if (err && have)
			dom_virt_attach(d, old_dev);  /* back as it was */
	}
	if (err) {
		free(old_dev);
		cli_err(CMD, "%s: cannot add the <shmem> device: %s; nothing "
			"changed", o->dom.domain, dom_error_str(err));
		return CLI_EXIT_FAIL;
	}
	err = dom_virt_meta_set(d, meta);
	if (err) {
		if (!have || swap) {
			dom_virt_detach(d, dev);
			if (have)
				dom_virt_attach(d, old_dev);
		}
		free(old_dev);
		cli_err(CMD, "%s: cannot write the metadata: %s; nothing changed",
			o->dom.domain, dom_error_str(err));
		return CLI_EXIT_FAIL;
	}
	free(old_dev);
	return 0;
}

/* The plugin's path made absolute (QEMU runs elsewhere), and checked to
 * be a file, before libvirt is touched. */
static int find_plugin(struct enable_opts *o)
{
	const char *path = o->pt_plugin ? o->pt_plugin : RS_PT_PLUGIN_PATH;
	struct dom_pt pt = { .plugin = o->plugin };
	const char *bad;
	struct stat st;

	if (!realpath(path, o->plugin) || stat(o->plugin, &st)) {
		cli_err(CMD, "QEMU plugin %s: %s; build ringside with the QEMU "
			"plugin header (pt-virt/qemu) and install it, or give "
			"--pt-plugin PATH", path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (!S_ISREG(st.st_mode)) {
		cli_err(CMD, "QEMU plugin %s: not a regular file", path);
		return CLI_EXIT_FAIL;
	}
	if (dom_pt_check(&pt, &bad))
		return cli_usage(CMD, "%s", bad);
	return 0;
}

/*
 * Put ringside's plugin pair on the command line (@o->pt), or take it off
 * (a domain enabled with pt before): the persistent XML as it is now,
 * edited, defined.  1 changed, 0 nothing to do; on failure the domain is
 * defined back from @orig, as it was before enable.
 */
static int apply_pt(const struct enable_opts *o, struct dom_virt *d,
		    const char *orig, const char *shm_name)
{
	struct dom_pt pt = {
		.plugin = o->plugin,
		.all = o->pt_filter == 1,
		.psb = o->pt_psb,
	};
	char arg[DOM_PT_ARG_MAX];
	int err;

	if (o->pt && dom_pt_arg(&pt, shm_name, arg, sizeof(arg)) < 0) {
		cli_err(CMD, "internal error: the plugin's argument does not fit");
		return -dome_internal;
	}
	err = dom_virt_pt_set(d, shm_name, o->pt ? arg : NULL);
	if (err >= 0)
		return err;
	cli_err(CMD, "%s: cannot %s its command line: %s; nothing changed",
		o->dom.domain, o->pt ? "put ringside's QEMU plugin on" :
		"take ringside's QEMU plugin off", dom_error_str(err));
	if (dom_virt_define(d, orig))
		cli_err(CMD, "%s: and defining it back failed: %s; its ringside "
			"<metadata> and <shmem> may stay: check 'virsh dumpxml'",
			o->dom.domain, dom_error_str(-dome_libvirt));
	return err;
}

/*
 * Opt the running domain in, as the hook does at a start: the region file
 * laid out, the metadata on the running domain (what record, snapshot and
 * stat DOMAIN read), the device hot-plugged.  On failure whatever this did
 * is undone: nothing of the running domain changed.
 */
static int plug(const struct enable_opts *o, struct dom_virt *d,
		const char *shm_name)
{
	char meta[512], dev[512], why[512];
	const char *step;
	int err, meta_set;

	if (dom_cfg_format(&o->cfg, meta, sizeof(meta)) < 0 ||
	    dom_shm_xml(shm_name, o->cfg.size, dev, sizeof(dev)) < 0) {
		cli_err(CMD, "internal error: XML does not fit");
		return CLI_EXIT_FAIL;
	}
	/* QEMU's group, as the hook's default: QEMU opens the file */
	err = dom_shm_create_group(DOM_SHM_DIR, shm_name, &o->cfg, NULL);
	if (err == -ENOENT && !getgrnam(DOM_HOOK_GROUP)) {
		cli_err(CMD, "%s: --live: no group '%s' (QEMU's) for the region "
			"file", o->dom.domain, DOM_HOOK_GROUP);
		return CLI_EXIT_FAIL;
	}
	if (err) {
		cli_err(CMD, "%s: --live: cannot create %s/%s: %s",
			o->dom.domain, DOM_SHM_DIR, shm_name,
			dom_error_str(err));
		return CLI_EXIT_FAIL;
	}
	step = "set the metadata of the running domain";
	err = dom_virt_meta_set_in(d, meta, DOM_VIRT_LIVE);
	meta_set = !err;
	if (!err) {
		step = "hot-plug the <shmem> device into the running guest";
		err = dom_virt_attach_in(d, dev, DOM_VIRT_LIVE);
	}
	if (!err)
		return 0;
	/* libvirt's words, before the next call replaces them */
	snprintf(why, sizeof(why), "%s", dom_error_str(err));
	if (meta_set)
		dom_virt_meta_set_in(d, NULL, DOM_VIRT_LIVE);
	dom_shm_remove(DOM_SHM_DIR, shm_name);
	cli_err(CMD, "%s: cannot %s: %s", o->dom.domain, step, why);
	return CLI_EXIT_FAIL;
}

/* How long each ring holds at the rate; a warning when a normal ring
 * would not cover the agent's period and the host's stalls. */
static void report_hold(const struct enable_opts *o)
{
	const struct dom_cfg *c = &o->cfg;
	struct dom_hold h;
	char size[32];

	dom_cfg_hold(c, o->stall_ms, &h);
	print_size(size, sizeof(size), h.ring_bytes);
	printf("  each vCPU's %s data ring holds ~%.0f ms at %u Hz with call "
	       "chains (%u frames, %u B a sample), ~%.0f ms at %u frames "
	       "(%u B)", size, h.hold_us_typical / 1e3, h.freq,
	       DOM_CHAIN_FRAMES_TYPICAL, h.bytes_typical, h.hold_us_max / 1e3,
	       DOM_CHAIN_FRAMES_MAX, h.bytes_max);
	if (c->mode == RS_MODE_OVERWRITE)
		printf(": the flight recorder's newest\n");
	else
		printf("; 'record' needs %u ms: %u ms of samples + a "
		       "%u ms stall (%s)\n", h.need_ms, DOM_HOLD_MS,
		       h.need_ms - DOM_HOLD_MS, o->stall_ms ? "--stall-ms" :
		       "the default, as measured on this project's machines");
	if (h.short_of)
		fprintf(stderr, "ringside %s: warning: %s: a normal-mode ring of "
			"%s fills in ~%.0f ms at %u Hz with %u-frame call chains, "
			"less than the %u ms 'ringside record' must cover: "
			"records may be lost; --data-pages %u holds it\n", CMD,
			o->dom.domain, size, h.hold_us_max / 1e3, h.freq,
			DOM_CHAIN_FRAMES_MAX, h.need_ms, h.pages_needed);
}

static void report(const struct enable_opts *o, const char *shm_name,
		   int active, int pt_changed)
{
	const struct dom_cfg *c = &o->cfg;
	char trace[64], size[32];

	printf("ringside enable: %s: region %s/%s of %s (%u rings x %u data + "
	       "%u AUX pages, %u sideband pages, %s, %s, %u Hz)\n",
	       o->dom.domain, DOM_SHM_DIR, shm_name,
	       print_size(size, sizeof(size), c->size),
	       c->rings, c->data_pages, c->aux_pages, c->sideband_pages,
	       c->mode == RS_MODE_OVERWRITE ? "overwrite" : "normal",
	       dom_cfg_trace_names(c->trace_mask, trace, sizeof(trace)), c->freq);
	if (!o->data_given)
		printf("  memory budget %u MiB (%s): %u data pages a ring for "
		       "%u rings\n", o->memory_mib ? o->memory_mib :
		       DOM_MEMORY_DEFAULT_MIB, o->memory_mib ? "--memory" :
		       "the default", c->data_pages, c->rings);
	if (o->vcpus > c->rings)
		printf("  %u vCPUs share %u rings: vCPU c writes ring c mod %u, "
		       "so one vCPU's burst can evict another's records\n",
		       o->vcpus, c->rings, c->rings);
	report_hold(o);
	if (o->pt)
		printf("  PT: QEMU TCG plugin %s (filter=%s%s%s) on the domain's "
		       "<qemu:commandline>\n", o->plugin,
		       o->pt_filter == 1 ? "all" : "kernel", o->pt_psb ? ", psb=" : "",
		       o->pt_psb ? print_size(size, sizeof(size), o->pt_psb) : "");
	else if (pt_changed)
		printf("  PT: ringside's QEMU plugin taken off the domain's "
		       "<qemu:commandline>\n");
	if (o->dom.live)
		printf("  plugged into the running guest (PCI 1af4:1110): its "
		       "agent attaches to it (the ringside-agent package starts "
		       "one for the device; without systemd, a 'ringside-agent "
		       "--follow' that runs already); 'ringside stat %s' says "
		       "when\n", o->dom.domain);
	if (o->dom.live_only)
		printf("  the persistent XML is left as it was: the domain's next "
		       "start is not traced\n");
	else if (active && !o->dom.live)
		printf("  the domain is running: the change applies when it is next "
		       "started (shut it down, then start it), or now with "
		       "--live\n");
	if (!dom_hook_file_installed())
		printf("  no ringside hook is installed: run 'ringside hook install' "
		       "before starting the domain\n");
}

/* --live needs a running domain without ringside's device plugged in. */
static int live_check(const struct enable_opts *o, struct dom_virt *d,
		      int active, const char *shm_name)
{
	int have;

	if (!active) {
		cli_err(CMD, "%s: --live: the domain is not running; leave --live "
			"out: the change applies when it is next started",
			o->dom.domain);
		return CLI_EXIT_FAIL;
	}
	have = dom_virt_has_device(d, shm_name);
	if (have < 0) {
		cli_err(CMD, "%s: --live: %s", o->dom.domain,
			dom_error_str(have));
		return CLI_EXIT_FAIL;
	}
	if (have) {
		cli_err(CMD, "%s: --live: the running guest has ringside's device "
			"already; 'ringside disable %s --live' first to change "
			"it while it runs; nothing changed", o->dom.domain,
			o->dom.domain);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

int cmd_enable(int argc, char **argv)
{
	char shm_name[DOM_SHM_NAME_MAX];
	struct dom_virt *d = NULL;
	struct dom_xml *x = NULL;
	static struct enable_opts o;   /* PATH_MAX inside: not on the stack */
	char *xml = NULL;
	int err, ret, active = 0, pt_changed = 0;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (o.pt && (ret = find_plugin(&o)))
		return ret;
	ret = domain_cmd_open(CMD, &o.dom, shm_name, sizeof(shm_name), &d);
	if (ret)
		return ret;
	ret = CLI_EXIT_FAIL;
	err = dom_virt_persistent(d);
	if (!err)
		err = -dome_transient;
	if (err >= 0 && (active = dom_virt_active(d)) < 0)
		err = active;
	if (err >= 0)
		err = dom_virt_xml_define(d, &xml);
	if (!err)
		err = dom_xml_parse(&x, xml, strlen(xml));
	if (!err && o.pt && (err = dom_xml_tcg(x)) == -dome_not_tcg) {
		char type[32] = "?";

		dom_xml_type(x, type, sizeof(type));
		cli_err(CMD, "%s: --trace pt: the domain's type is '%s'; %s",
			o.dom.domain, type, dom_error_str(err));
		ret = CLI_EXIT_USAGE;
		goto out;
	}
	if (err < 0) {
		cli_err(CMD, "%s: %s", o.dom.domain, dom_error_str(err));
		goto out;
	}
	if (o.dom.live && (ret = live_check(&o, d, active, shm_name)))
		goto out;
	ret = finish_cfg(&o, x);
	if (!ret && !o.dom.live_only)
		ret = apply(&o, d, x, shm_name);
	if (!ret && !o.dom.live_only) {
		pt_changed = apply_pt(&o, d, xml, shm_name);
		if (pt_changed < 0)
			ret = CLI_EXIT_FAIL;
	}
	if (!ret && o.dom.live && (ret = plug(&o, d, shm_name)) &&
	    !o.dom.live_only) {
		/* the persistent XML back as it was before this command */
		if (dom_virt_define(d, xml))
			cli_err(CMD, "%s: and defining its persistent XML back "
				"failed: %s; check 'virsh dumpxml --inactive'",
				o.dom.domain, dom_error_str(-dome_libvirt));
		else
			cli_err(CMD, "%s: nothing changed", o.dom.domain);
	}
	if (!ret)
		report(&o, shm_name, active, pt_changed);
out:
	dom_xml_free(x);
	free(xml);
	dom_virt_close(d);
	return ret;
}
