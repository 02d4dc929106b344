/* SPDX-License-Identifier: MIT */
/*
 * ringside enable DOMAIN [options]: opt a libvirt domain in.  Writes
 * ringside's <metadata> element and an ivshmem-plain <shmem> device of the
 * region's exact size into the persistent XML; both apply at the next
 * start.  Every option is checked before libvirt is touched, and a failed
 * metadata write takes the device back out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/domain_hook.h"
#include "ringside/domain_virt.h"

#include "cli.h"
#include "report_out.h"

#define CMD "enable"

struct enable_opts {
	const char *domain;
	const char *uri;
	struct dom_cfg cfg;        /* cfg.rings 0: the domain's vCPU count */
};

/* Each option is the metadata attribute of its name: dom_cfg_set says
 * what a good value is. */
static const char *set(const struct opt *opt, const char *value)
{
	size_t n = strlen(opt->name);
	const char *bad;

	if (!dom_cfg_set(opt->dest, opt->name, value, &bad))
		return NULL;
	/* bad names the attribute; the option says it already */
	if (!strncmp(bad, opt->name, n) && bad[n] == ':')
		bad += n + 2;
	return bad;
}

static int parse(int argc, char **argv, struct enable_opts *o)
{
	const struct opt opts[] = {
		OPT_FN('r', "rings", set, &o->cfg, "N", "rings (one per vCPU): "
		       "1..48 (default: the vCPU count)"),
		OPT_FN('p', "data-pages", set, &o->cfg, "N", "4 KiB pages of "
		       "records per ring, a power of two (64)"),
		OPT_FN('a', "aux-pages", set, &o->cfg, "N", "4 KiB pages of AUX "
		       "per ring, 0 or a power of two (0)"),
		OPT_FN('m', "mode", set, &o->cfg, "MODE", "overwrite (flight "
		       "recorder, default) or normal"),
		OPT_FN('t', "trace", set, &o->cfg, "LIST", "samples,markers,aux,"
		       "test (default samples,markers)"),
		OPT_FN('f', "freq", set, &o->cfg, "HZ", "guest samples per second "
		       "and vCPU, 1..100000 (1000)"),
		OPT_FN('s', "sideband-pages", set, &o->cfg, "N", "4 KiB pages for "
		       "the guest kernel's symbols, 0 (none)..16384 (1024)"),
		CLI_OPT_CONNECT(&o->uri),
		OPT_END
	};
	const struct opt_cmd cmd = {
		.prog = CLI_PROG(CMD),
		.usage = "DOMAIN [OPTIONS]",
		.about = "Opt libvirt domain DOMAIN in to ringside tracing: write "
			 "ringside's <metadata> element and an ivshmem-plain <shmem "
			 "name='ringside-DOMAIN'> device into its persistent XML.  "
			 "Both apply at the domain's next start; the libvirt hook "
			 "('ringside hook install') then creates the region.  "
			 "Running 'enable' again replaces the settings.",
		.args = cli_domain_args,
		.opts = opts,
		.notes = "Exit status: 0 success, 1 failure (nothing changed), "
			 "2 bad usage.",
		.min_args = 1,
		.max_args = 1,
		.missing = CLI_DOMAIN_MISSING,
	};
	struct dom_cfg probe;
	const char *bad;
	int first, ret;

	memset(o, 0, sizeof(*o));
	dom_cfg_default(&o->cfg);
	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return ret;
	o->domain = argv[first];
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
				"--rings N", o->domain);
			return CLI_EXIT_FAIL;
		}
		o->cfg.rings = vcpus < RS_MAX_RINGS ? vcpus : RS_MAX_RINGS;
	}
	if (dom_cfg_check(&o->cfg, &bad))
		return cli_usage(CMD, "%s", bad);
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
	int err, have;

	have = dom_xml_shmem(x, shm_name, &old_size, &old_dev);
	if (have < 0) {
		cli_err(CMD, "%s: its <shmem name='%s'> device is not an "
			"ivshmem-plain device ringside made; remove it first",
			o->domain, shm_name);
		return CLI_EXIT_FAIL;
	}
	if (dom_cfg_format(&o->cfg, meta, sizeof(meta)) < 0 ||
	    dom_shmem_xml(shm_name, o->cfg.size, dev, sizeof(dev)) < 0) {
		free(old_dev);
		cli_err(CMD, "internal error: XML does not fit");
		return CLI_EXIT_FAIL;
	}
	err = 0;
	if (have && old_size != o->cfg.size)
		err = dom_virt_detach(d, old_dev);
	if (!err && (!have || old_size != o->cfg.size)) {
		err = dom_virt_attach(d, dev);
		if (err && have)
			dom_virt_attach(d, old_dev);  /* back as it was */
	}
	if (err) {
		free(old_dev);
		cli_err(CMD, "%s: cannot add the <shmem> device: %s; nothing "
			"changed", o->domain, dom_errstr(err));
		return CLI_EXIT_FAIL;
	}
	err = dom_virt_meta_set(d, meta);
	if (err) {
		if (!have || old_size != o->cfg.size) {
			dom_virt_detach(d, dev);
			if (have)
				dom_virt_attach(d, old_dev);
		}
		free(old_dev);
		cli_err(CMD, "%s: cannot write the metadata: %s; nothing changed",
			o->domain, dom_errstr(err));
		return CLI_EXIT_FAIL;
	}
	free(old_dev);
	return 0;
}

static void report(const struct enable_opts *o, const char *shm_name,
		   int active)
{
	const struct dom_cfg *c = &o->cfg;
	char trace[64], size[32];

	printf("ringside enable: %s: region %s/%s of %s (%u rings x %u data + "
	       "%u AUX pages, %u sideband pages, %s, %s, %u Hz)\n", o->domain,
	       DOM_SHM_DIR, shm_name, report_size(size, sizeof(size), c->size),
	       c->rings, c->data_pages, c->aux_pages, c->sideband_pages,
	       c->mode == RS_MODE_OVERWRITE ? "overwrite" : "normal",
	       dom_trace_names(c->trace_mask, trace, sizeof(trace)), c->freq);
	if (active)
		printf("  the domain is running: the change applies when it is next "
		       "started (shut it down, then start it)\n");
	if (!dom_hook_installed())
		printf("  no ringside hook is installed: run 'ringside hook install' "
		       "before starting the domain\n");
}

int cmd_enable(int argc, char **argv)
{
	char shm_name[DOM_SHM_NAME_MAX];
	struct dom_virt *d = NULL;
	struct dom_xml *x = NULL;
	struct enable_opts o;
	char *xml = NULL;
	int err, ret, active = 0;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (dom_shm_name(o.domain, shm_name, sizeof(shm_name))) {
		cli_err(CMD, "'%s': %s", o.domain, dom_errstr(-dome_name));
		return CLI_EXIT_FAIL;
	}
	ret = CLI_EXIT_FAIL;
	err = dom_virt_open(&d, o.uri, o.domain, 0);
	if (!err && (err = dom_virt_persistent(d)) == 0)
		err = -dome_transient;
	if (err >= 0 && (active = dom_virt_active(d)) < 0)
		err = active;
	if (err >= 0)
		err = dom_virt_xml(d, 1, &xml);
	if (!err)
		err = dom_xml_parse(&x, xml, strlen(xml));
	if (err < 0) {
		cli_err(CMD, "%s: %s", o.domain, dom_errstr(err));
		goto out;
	}
	ret = finish_cfg(&o, x);
	if (!ret)
		ret = apply(&o, d, x, shm_name);
	if (!ret)
		report(&o, shm_name, active);
out:
	dom_xml_free(x);
	free(xml);
	dom_virt_close(d);
	return ret;
}
