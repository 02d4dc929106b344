/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

#include "ringside/domain_virt.h"

#include "domain_internal.h"

struct dom_virt {
	virConnectPtr conn;
	virDomainPtr dom;
};

static void silent(void *arg, virErrorPtr err)
{
	(void)arg;
	(void)err;
}

/* Keep libvirt's words for the failure and map its code to ours. */
static int failed(int fallback)
{
	const char *msg = virGetLastErrorMessage();
	int code = virGetLastErrorCode();

	dom_error_detail_set(msg);
	virResetLastError();
	switch (code) {
	case VIR_ERR_NO_DOMAIN:
		return -dome_no_domain;
	case VIR_ERR_NO_DOMAIN_METADATA:
		return -dome_not_enabled;
	default:
		return -fallback;
	}
}

int dom_virt_open(struct dom_virt **dp, const char *uri, const char *name,
		  int readonly)
{
	struct dom_virt *d;

	*dp = NULL;
	dom_error_detail_set(NULL);
	if (virInitialize() < 0)
		return failed(dome_libvirt);
	virSetErrorFunc(NULL, silent);
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->conn = readonly ? virConnectOpenReadOnly(uri) : virConnectOpen(uri);
	if (!d->conn) {
		free(d);
		return failed(dome_libvirt);
	}
	d->dom = virDomainLookupByName(d->conn, name);
	if (!d->dom) {
		int err = failed(dome_libvirt);

		dom_virt_close(d);
		return err;
	}
	*dp = d;
	return 0;
}

void dom_virt_close(struct dom_virt *d)
{
	if (!d)
		return;
	if (d->dom)
		virDomainFree(d->dom);
	if (d->conn)
		virConnectClose(d->conn);
	free(d);
}

int dom_virt_active(struct dom_virt *d)
{
	int r = virDomainIsActive(d->dom);

	return r < 0 ? failed(dome_libvirt) : r;
}

int dom_virt_persistent(struct dom_virt *d)
{
	int r = virDomainIsPersistent(d->dom);

	return r < 0 ? failed(dome_libvirt) : r;
}

int dom_virt_xml(struct dom_virt *d, int inactive, char **xml)
{
	*xml = virDomainGetXMLDesc(d->dom, inactive ? VIR_DOMAIN_XML_INACTIVE : 0);
	return *xml ? 0 : failed(dome_libvirt);
}

int dom_virt_xml_define(struct dom_virt *d, char **xml)
{
	/* What `virsh edit` reads: secrets (VNC passwords) included, or
	 * defining the text back would drop them. */
	*xml = virDomainGetXMLDesc(d->dom, VIR_DOMAIN_XML_INACTIVE |
				   VIR_DOMAIN_XML_SECURE);
	return *xml ? 0 : failed(dome_libvirt);
}

int dom_virt_define(struct dom_virt *d, const char *xml)
{
	virDomainPtr dom = virDomainDefineXML(d->conn, xml);

	if (!dom)
		return failed(dome_libvirt);
	virDomainFree(dom);
	return 0;
}

int dom_virt_xml_parse(struct dom_virt *d, int which, struct dom_xml **xp)
{
	char *text = NULL;
	int err;

	*xp = NULL;
	err = which == DOM_VIRT_XML_DEFINE ? dom_virt_xml_define(d, &text) :
					     dom_virt_xml(d, which, &text);
	if (!err)
		err = dom_xml_parse(xp, text, strlen(text));
	free(text);
	return err;
}

int dom_virt_pt_set(struct dom_virt *d, const char *shm_name,
		    const char *arg)
{
	struct dom_xml *x = NULL;
	char *text = NULL;
	int err, n;

	err = dom_virt_xml_parse(d, DOM_VIRT_XML_DEFINE, &x);
	n = err ? err : dom_pt_xml_set(x, shm_name, arg);
	err = n < 0 ? n : 0;
	if (!err && (n || arg)) {
		/* The domain is defined anew from this text: a <metadata>
		 * element ringside's metadata left empty would stay for good
		 * (libvirt keeps an empty element it parsed). */
		dom_xml_metadata_tidy(x);
		err = dom_xml_format(x, &text);
		if (!err)
			err = dom_virt_define(d, text);
	}
	dom_xml_free(x);
	free(text);
	return err ? err : (n || arg);
}

int dom_virt_meta_get(struct dom_virt *d, int inactive, char **xml)
{
	unsigned flags = inactive ? VIR_DOMAIN_AFFECT_CONFIG : VIR_DOMAIN_AFFECT_LIVE;

	*xml = virDomainGetMetadata(d->dom, VIR_DOMAIN_METADATA_ELEMENT,
				    DOM_XMLNS, flags);
	return *xml ? 0 : failed(dome_libvirt);
}

static int where_flags(struct dom_virt *d, unsigned where, unsigned *flags)
{
	int active;

	if (!where || (where & ~(DOM_VIRT_CONFIG | DOM_VIRT_LIVE)))
		return -dome_invalid;
	*flags = 0;
	if (where & DOM_VIRT_CONFIG)
		*flags |= VIR_DOMAIN_AFFECT_CONFIG;
	if (where & DOM_VIRT_LIVE) {
		/* libvirt's own words for it are "domain is not running" */
		active = dom_virt_active(d);
		if (active <= 0)
			return active < 0 ? active : -dome_not_running;
		*flags |= VIR_DOMAIN_AFFECT_LIVE;
	}
	return 0;
}

enum change { CHANGE_META, CHANGE_ATTACH, CHANGE_DETACH };

static int change(struct dom_virt *d, enum change what, const char *xml,
		  unsigned where)
{
	unsigned flags;
	int err = where_flags(d, where, &flags), r;

	if (err)
		return err;
	if (what == CHANGE_META)
		r = virDomainSetMetadata(d->dom, VIR_DOMAIN_METADATA_ELEMENT, xml,
					 xml ? DOM_XMLNS_KEY : NULL, DOM_XMLNS,
					 flags);
	else if (what == CHANGE_ATTACH)
		r = virDomainAttachDeviceFlags(d->dom, xml, flags);
	else
		r = virDomainDetachDeviceFlags(d->dom, xml, flags);
	return r < 0 ? failed(dome_libvirt) : 0;
}

int dom_virt_meta_set(struct dom_virt *d, const char *xml)
{
	return change(d, CHANGE_META, xml, DOM_VIRT_CONFIG);
}

int dom_virt_attach(struct dom_virt *d, const char *xml)
{
	return change(d, CHANGE_ATTACH, xml, DOM_VIRT_CONFIG);
}

int dom_virt_detach(struct dom_virt *d, const char *xml)
{
	return change(d, CHANGE_DETACH, xml, DOM_VIRT_CONFIG);
}

int dom_virt_meta_set_in(struct dom_virt *d, const char *xml, unsigned where)
{
	return change(d, CHANGE_META, xml, where);
}

int dom_virt_attach_in(struct dom_virt *d, const char *xml, unsigned where)
{
	return change(d, CHANGE_ATTACH, xml, where);
}

int dom_virt_detach_in(struct dom_virt *d, const char *xml, unsigned where)
{
	return change(d, CHANGE_DETACH, xml, where);
}

int dom_virt_has_device(struct dom_virt *d, const char *shm_name)
{
	struct dom_xml *x;
	int err;

	err = dom_virt_xml_parse(d, 0, &x);
	if (!err)
		err = dom_xml_shmem(x, shm_name, NULL, NULL);
	dom_xml_free(x);
	return err;
}

int dom_virt_can_suspend(struct dom_virt *d)
{
	int state, reason;

	if (virDomainGetState(d->dom, &state, &reason, 0) < 0)
		return failed(dome_libvirt);
	if (state == VIR_DOMAIN_PAUSED || state == VIR_DOMAIN_CRASHED)
		return 0;  /* stopped already: leave it as it is */
	if (state != VIR_DOMAIN_RUNNING && state != VIR_DOMAIN_BLOCKED)
		return -dome_not_running;
	return 1;
}

int dom_virt_suspend_now(struct dom_virt *d)
{
	return virDomainSuspend(d->dom) < 0 ? failed(dome_libvirt) : 1;
}

int dom_virt_suspend(struct dom_virt *d)
{
	int r = dom_virt_can_suspend(d);

	return r <= 0 ? r : dom_virt_suspend_now(d);
}

int dom_virt_resume(struct dom_virt *d)
{
	return virDomainResume(d->dom) < 0 ? failed(dome_libvirt) : 0;
}

int dom_virt_ram_bytes(struct dom_virt *d, unsigned long long *bytes)
{
	virDomainInfo info;

	if (virDomainGetInfo(d->dom, &info) < 0)
		return failed(dome_libvirt);
	*bytes = (unsigned long long)info.maxMem * 1024u;
	return 0;
}

/* One bounded read through QEMU's memsave/pmemsave. */
static int peek(struct dom_virt *d, unsigned long long addr, size_t len,
		void *buf, unsigned int flags)
{
	if (len > DOM_PEEK_MAX)
		return -EINVAL;
	if (virDomainMemoryPeek(d->dom, addr, len, buf, flags) < 0)
		return failed(dome_libvirt);
	return 0;
}

int dom_virt_peek_phys(struct dom_virt *d, unsigned long long gpa, size_t len,
		       void *buf)
{
	return peek(d, gpa, len, buf, VIR_MEMORY_PHYSICAL);
}

int dom_virt_peek_virt(struct dom_virt *d, unsigned long long gva, size_t len,
		       void *buf)
{
	return peek(d, gva, len, buf, VIR_MEMORY_VIRTUAL);
}

int dom_virt_vcpu_registers(struct dom_virt *d, char **text)
{
	/* No libvirt API returns a vCPU's registers; QEMU's monitor does, and
	 * libvirt passes the command through (it marks the domain tainted
	 * "custom-monitor" in its log: the command changes nothing). */
	*text = NULL;
	if (virDomainQemuMonitorCommand(d->dom, "info registers -a", text,
					VIR_DOMAIN_QEMU_MONITOR_COMMAND_HMP) < 0) {
		*text = NULL;
		return failed(dome_libvirt);
	}
	return 0;
}

int dom_virt_life(struct dom_virt *d)
{
	int state, reason, saved;

	if (virDomainGetState(d->dom, &state, &reason, 0) < 0)
		return failed(dome_libvirt);
	switch (state) {
	case VIR_DOMAIN_RUNNING:
	case VIR_DOMAIN_BLOCKED:
	case VIR_DOMAIN_SHUTDOWN:
		return DOM_LIFE_RUNNING;
	case VIR_DOMAIN_SHUTOFF:
		if (reason == VIR_DOMAIN_SHUTOFF_SAVED)
			return DOM_LIFE_SAVED;
		saved = virDomainHasManagedSaveImage(d->dom, 0);
		if (saved < 0)
			return failed(dome_libvirt);
		return saved ? DOM_LIFE_SAVED : DOM_LIFE_OFF;
	default:
		return DOM_LIFE_PAUSED;
	}
}
