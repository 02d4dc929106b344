/* SPDX-License-Identifier: MIT */
/*
 * ringside disable DOMAIN: take ringside's <shmem> device, <metadata>
 * element and QEMU plugin arguments out of the persistent XML.  A domain
 * that has none of them is left alone (status 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/domain_virt.h"

#include "cli.h"

#define CMD "disable"

struct disable_opts {
	const char *domain;
	const char *uri;
};

static int parse(int argc, char **argv, struct disable_opts *o)
{
	const struct opt opts[] = {
		CLI_OPT_CONNECT(&o->uri),
		OPT_END
	};
	const struct opt_cmd cmd = {
		.prog = CLI_PROG(CMD),
		.usage = "DOMAIN [--connect URI]",
		.about = "Take libvirt domain DOMAIN out of ringside tracing: "
			 "remove the <shmem name='ringside-DOMAIN'> device, "
			 "ringside's <metadata> element and ringside's '-plugin' "
			 "pair (--trace pt) from its persistent XML; the domain's "
			 "other <qemu:commandline> arguments stay.  A running "
			 "domain keeps its region until it stops.",
		.args = cli_domain_args,
		.opts = opts,
		.notes = "Exit status: 0 success (also when it was not enabled), "
			 "1 failure, 2 bad usage.",
		.min_args = 1,
		.max_args = 1,
		.missing = CLI_DOMAIN_MISSING,
	};
	int first, ret;

	memset(o, 0, sizeof(*o));
	ret = opt_parse(&cmd, argc, argv, &first);
	if (!ret)
		o->domain = argv[first];
	return ret;
}

/* Remove what is there; 1 if something was, 0 if nothing. */
static int remove_both(struct dom_virt *d, const struct dom_xml *x,
		       const char *shm_name, const char **what)
{
	struct dom_cfg c;
	const char *bad;
	char *dev = NULL;
	int have_dev, have_meta, err;

	*what = "";
	dom_cfg_default(&c);
	have_meta = dom_xml_meta(x, &c, &bad) != -dome_not_enabled;
	have_dev = dom_xml_shmem(x, shm_name, NULL, &dev);
	if (have_dev < 0) {
		*what = "its <shmem> device";
		return have_dev;
	}
	err = 0;
	if (have_dev) {
		/* The device exactly as libvirt keeps it: detach matches on it. */
		err = dom_virt_detach(d, dev);
		*what = "the <shmem> device";
	}
	free(dev);
	if (!err && have_meta) {
		err = dom_virt_meta_set(d, NULL);
		*what = "the metadata";
	}
	return err ? err : (have_dev || have_meta);
}

/* ringside's plugin pair off the command line: 1 taken off, 0 none. */
static int remove_pt(struct dom_virt *d, const char *shm_name)
{
	struct dom_xml *x = NULL;
	char *xml = NULL, *text = NULL;
	int err, n;

	err = dom_virt_xml_define(d, &xml);
	if (!err)
		err = dom_xml_parse(&x, xml, strlen(xml));
	n = err ? err : dom_xml_pt_set(x, shm_name, NULL);
	err = n < 0 ? n : 0;
	/* The domain is defined anew from this text: the <metadata> element
	 * ringside's metadata left empty would stay for good (libvirt keeps
	 * an empty element it parsed). */
	if (n > 0)
		dom_xml_metadata_tidy(x);
	if (n > 0 && !(err = dom_xml_format(x, &text)))
		err = dom_virt_define(d, text);
	dom_xml_free(x);
	free(text);
	free(xml);
	return err ? err : n > 0;
}

int cmd_disable(int argc, char **argv)
{
	char shm_name[DOM_SHM_NAME_MAX];
	struct disable_opts o;
	struct dom_virt *d = NULL;
	struct dom_xml *x = NULL;
	const char *what = "";
	char *xml = NULL;
	int err, ret, pt = 0;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	if (dom_shm_name(o.domain, shm_name, sizeof(shm_name))) {
		cli_err(CMD, "'%s': %s", o.domain, dom_errstr(-dome_name));
		return CLI_EXIT_FAIL;
	}
	err = dom_virt_open(&d, o.uri, o.domain, 0);
	if (!err)
		err = dom_virt_xml(d, 1, &xml);
	if (!err)
		err = dom_xml_parse(&x, xml, strlen(xml));
	if (!err)
		err = remove_both(d, x, shm_name, &what);
	if (err >= 0) {
		pt = remove_pt(d, shm_name);
		if (pt < 0)
			what = "ringside's QEMU plugin arguments";
		err = pt < 0 ? pt : (err || pt);
	}
	ret = CLI_EXIT_OK;
	if (err < 0) {
		if (*what)
			cli_err(CMD, "%s: removing %s failed: %s", o.domain, what,
				dom_errstr(err));
		else
			cli_err(CMD, "%s: %s", o.domain, dom_errstr(err));
		ret = CLI_EXIT_FAIL;
	} else if (err == 0) {
		printf("ringside disable: %s was not enabled; nothing changed\n",
		       o.domain);
	} else {
		printf("ringside disable: %s: ringside metadata, device and QEMU "
		       "plugin arguments removed from the persistent XML\n",
		       o.domain);
	}
	dom_xml_free(x);
	free(xml);
	dom_virt_close(d);
	return ret;
}
