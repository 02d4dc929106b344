/* SPDX-License-Identifier: MIT */
/*
 * ringside disable DOMAIN: take ringside's <shmem> device and <metadata>
 * element out of the persistent XML.  A domain that has neither is left
 * alone (status 0).
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
			 "remove the <shmem name='ringside-DOMAIN'> device and "
			 "ringside's <metadata> element from its persistent XML.  A "
			 "running domain keeps its region until it stops.",
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

int cmd_disable(int argc, char **argv)
{
	char shm_name[DOM_SHM_NAME_MAX];
	struct disable_opts o;
	struct dom_virt *d = NULL;
	struct dom_xml *x = NULL;
	const char *what = "";
	char *xml = NULL;
	int err, ret;

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
		printf("ringside disable: %s: ringside metadata and device removed "
		       "from the persistent XML\n", o.domain);
	}
	dom_xml_free(x);
	free(xml);
	dom_virt_close(d);
	return ret;
}
