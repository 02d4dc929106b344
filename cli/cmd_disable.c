/* SPDX-License-Identifier: MIT */
/*
 * ringside disable DOMAIN: take ringside's <shmem> device, <metadata>
 * element and QEMU plugin arguments out of the persistent XML.  A domain
 * that has none of them is left alone (status 0).
 *
 * --live first unplugs the device from the running guest.  The guest's
 * kernel removes it whatever maps its BAR (the agent's mapping is revoked
 * under it; `ringside-agent` notices and lets go), then QEMU drops it;
 * libvirt waits for that a few seconds, this command up to --wait.  Only
 * once the device is gone do the running domain's metadata and the
 * region file go, then the persistent XML is changed: a guest that does
 * not let the device go leaves everything as it was (status 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ringside/domain_hook.h"
#include "ringside/domain_virt.h"

#include "cli.h"
#include "domain_cmd.h"

#define CMD "disable"

#define WAIT_DEFAULT 30.0   /* seconds for the guest to let the device go */
#define WAIT_STEP_NS 100000000L

struct disable_opts {
	struct domain_cmd_opts dom; /* live: unplug from the running guest
				     * too */
	double wait;               /* seconds; 0: WAIT_DEFAULT */
};

static int parse(int argc, char **argv, struct disable_opts *o)
{
	const struct opt opts[] = {
		OPT_FLAG(0, "live", &o->dom.live, "also unplug the device from "
			 "the running guest now, then remove its region file"),
		CLI_OPT_LIVE_ONLY(&o->dom.live_only, ""),
		OPT_SECONDS('w', "wait", &o->wait, "S", 3600, "with --live: how "
			    "long the guest has to let the device go (30)"),
		CLI_OPT_CONNECT(&o->dom.uri),
		OPT_END
	};
	const struct opt_cmd cmd = {
		CLI_DOMAIN_CMD,
		.usage = "DOMAIN [--live|--live-only] [--wait S] [--connect URI]",
		.about = "Take libvirt domain DOMAIN out of ringside tracing: "
			 "remove the <shmem name='ringside-DOMAIN'> device, "
			 "ringside's <metadata> element and ringside's '-plugin' "
			 "pair (--trace pt) from its persistent XML; the domain's "
			 "other <qemu:commandline> arguments stay.  A running "
			 "domain keeps its region until it stops, unless --live "
			 "unplugs the device now (PCI hot-unplug: the guest's "
			 "ringside-agent lets go of it) and removes the region "
			 "file; what the rings held goes with it (take a snapshot "
			 "first to keep it).",
		.opts = opts,
		.notes = "Exit status: 0 success (also when it was not enabled), "
			 "1 failure (with --live: also a domain that is not "
			 "running, and a guest that did not let the device go in "
			 "time: then nothing else changed), 2 bad usage.",
	};
	int ret;

	memset(o, 0, sizeof(*o));
	ret = domain_cmd_parse(&cmd, argc, argv, &o->dom);
	if (ret)
		return ret;
	if (o->wait > 0 && !o->dom.live)
		return cli_usage(CMD, "--wait goes with --live");
	if (o->wait <= 0)
		o->wait = WAIT_DEFAULT;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Unplug ringside's device from the running domain, wait until QEMU let
 * it go, then take the running domain's metadata and the region file
 * away.  1 unplugged, 0 there was no device (the metadata and a stale
 * file go all the same); CLI_EXIT_FAIL (negated) after saying why.
 */
static int unplug(const struct disable_opts *o, struct dom_virt *d,
		  const char *shm_name, double *took)
{
	struct dom_xml *x;
	char *dev = NULL, *meta = NULL;
	double t0 = now_s();
	int err, have, active, plugged;

	*took = 0;
	active = dom_virt_active(d);
	if (active <= 0) {
		cli_err(CMD, "%s: --live: %s", o->dom.domain, active < 0 ?
			dom_error_str(active) : "the domain is not running; leave "
			"--live out");
		return -CLI_EXIT_FAIL;
	}
	err = dom_virt_xml_parse(d, 0, &x);
	/* the device exactly as the running domain has it: detach matches */
	have = err ? err : dom_xml_shmem(x, shm_name, NULL, &dev);
	dom_xml_free(x);
	if (have < 0) {
		cli_err(CMD, "%s: --live: %s", o->dom.domain,
			dom_error_str(have));
		return -CLI_EXIT_FAIL;
	}
	plugged = have;
	if (have) {
		err = dom_virt_detach_in(d, dev, DOM_VIRT_LIVE);
		free(dev);
		if (err) {
			cli_err(CMD, "%s: --live: cannot unplug the <shmem> device "
				"from the running guest: %s; nothing changed",
				o->dom.domain, dom_error_str(err));
			return -CLI_EXIT_FAIL;
		}
		/* libvirt stops waiting after a few seconds; the guest may
		 * finish later */
		while ((have = dom_virt_has_device(d, shm_name)) == 1 &&
		       now_s() - t0 < o->wait)
			nanosleep(&(struct timespec){ 0, WAIT_STEP_NS }, NULL);
		*took = now_s() - t0;
		if (have) {
			if (have < 0)
				cli_err(CMD, "%s: --live: after the unplug request: "
					"%s", o->dom.domain,
					dom_error_str(have));
			else
				cli_err(CMD, "%s: --live: the guest has not let the "
					"device go in %.0f s (its kernel handles PCI "
					"hot-unplug: ACPI, acpiphp); the request stays "
					"with QEMU.  Nothing else changed: the region "
					"file, the metadata and the persistent XML stay.  "
					"Run 'ringside disable %s --live' again once "
					"it is gone, or stop the domain",
					o->dom.domain, o->wait, o->dom.domain);
			return -CLI_EXIT_FAIL;
		}
	}
	/* no device: the running domain's metadata goes (record, snapshot
	 * and stat DOMAIN then say it is not enabled) */
	if (!dom_virt_meta_get(d, 0, &meta)) {
		free(meta);
		err = dom_virt_meta_set_in(d, NULL, DOM_VIRT_LIVE);
		if (err) {
			cli_err(CMD, "%s: --live: the device is unplugged, but "
				"removing the running domain's metadata failed: %s",
				o->dom.domain, dom_error_str(err));
			return -CLI_EXIT_FAIL;
		}
	}
	/* QEMU has let the file go with the device */
	err = dom_shm_remove(DOM_SHM_DIR, shm_name);
	if (err) {
		cli_err(CMD, "%s: --live: the device is unplugged, but %s/%s "
			"stays: %s", o->dom.domain, DOM_SHM_DIR, shm_name,
			dom_error_str(err));
		return -CLI_EXIT_FAIL;
	}
	return plugged;
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
	double took = 0;
	int err, ret, pt = 0, live = 0;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? CLI_EXIT_OK : ret;
	ret = domain_cmd_open(CMD, &o.dom, shm_name, sizeof(shm_name), &d);
	if (ret)
		return ret;
	if (o.dom.live && (live = unplug(&o, d, shm_name, &took)) < 0) {
		dom_virt_close(d);
		return -live;
	}
	if (live)
		printf("ringside disable: %s: unplugged from the running guest in "
		       "%.1f s; %s/%s removed\n", o.dom.domain, took,
		       DOM_SHM_DIR, shm_name);
	else if (o.dom.live)
		printf("ringside disable: %s: the running guest had no ringside "
		       "device\n", o.dom.domain);
	if (o.dom.live_only) {
		dom_virt_close(d);
		return CLI_EXIT_OK;
	}
	err = dom_virt_xml_parse(d, 1, &x);
	if (!err)
		err = remove_both(d, x, shm_name, &what);
	if (err >= 0) {
		pt = dom_virt_pt_set(d, shm_name, NULL);
		if (pt < 0)
			what = "ringside's QEMU plugin arguments";
		err = pt < 0 ? pt : (err || pt);
	}
	ret = CLI_EXIT_OK;
	if (err < 0) {
		if (*what)
			cli_err(CMD, "%s: removing %s failed: %s",
				o.dom.domain, what, dom_error_str(err));
		else
			cli_err(CMD, "%s: %s", o.dom.domain,
				dom_error_str(err));
		ret = CLI_EXIT_FAIL;
	} else if (err == 0) {
		printf("ringside disable: %s was not enabled; nothing changed\n",
		       o.dom.domain);
	} else {
		printf("ringside disable: %s: ringside metadata, device and QEMU "
		       "plugin arguments removed from the persistent XML\n",
		       o.dom.domain);
	}
	if (!o.dom.live && dom_virt_active(d) == 1 &&
	    dom_virt_has_device(d, shm_name) == 1)
		printf("  the running guest keeps its device and region until it "
		       "stops; 'ringside disable %s --live' unplugs it now\n",
		       o.dom.domain);
	dom_xml_free(x);
	dom_virt_close(d);
	return ret;
}
