/* SPDX-License-Identifier: MIT */
/*
 * domain_virt.h for a ringside built without libvirt: every call says so,
 * and the rest of ringside works as before.
 */
#include <stddef.h>

#include "ringside/domain_virt.h"

#define NO_LIBVIRT (-dome_no_libvirt)

int dom_virt_open(struct dom_virt **dp, const char *uri, const char *name,
		  int readonly)
{
	(void)uri;
	(void)name;
	(void)readonly;
	*dp = NULL;
	return NO_LIBVIRT;
}

void dom_virt_close(struct dom_virt *d)
{
	(void)d;
}

int dom_virt_active(struct dom_virt *d)
{
	(void)d;
	return NO_LIBVIRT;
}

int dom_virt_persistent(struct dom_virt *d)
{
	(void)d;
	return NO_LIBVIRT;
}

int dom_virt_xml_define(struct dom_virt *d, char **xml)
{
	(void)d;
	*xml = NULL;
	return NO_LIBVIRT;
}

int dom_virt_define(struct dom_virt *d, const char *xml)
{
	(void)d;
	(void)xml;
	return NO_LIBVIRT;
}

int dom_virt_xml_parse(struct dom_virt *d, int which, struct dom_xml **xp)
{
	(void)d;
	(void)which;
	*xp = NULL;
	return NO_LIBVIRT;
}

int dom_virt_pt_set(struct dom_virt *d, const char *shm_name,
		    const char *arg)
{
	(void)d;
	(void)shm_name;
	(void)arg;
	return NO_LIBVIRT;
}

int dom_virt_xml(struct dom_virt *d, int inactive, char **xml)
{
	(void)d;
	(void)inactive;
	*xml = NULL;
	return NO_LIBVIRT;
}

int dom_virt_meta_get(struct dom_virt *d, int inactive, char **xml)
{
	return dom_virt_xml(d, inactive, xml);
}

int dom_virt_meta_set(struct dom_virt *d, const char *xml)
{
	(void)d;
	(void)xml;
	return NO_LIBVIRT;
}

int dom_virt_attach(struct dom_virt *d, const char *xml)
{
	return dom_virt_meta_set(d, xml);
}

int dom_virt_detach(struct dom_virt *d, const char *xml)
{
	return dom_virt_meta_set(d, xml);
}

int dom_virt_meta_set_in(struct dom_virt *d, const char *xml, unsigned where)
{
	(void)where;
	return dom_virt_meta_set(d, xml);
}

int dom_virt_attach_in(struct dom_virt *d, const char *xml, unsigned where)
{
	(void)where;
	return dom_virt_meta_set(d, xml);
}

int dom_virt_detach_in(struct dom_virt *d, const char *xml, unsigned where)
{
	(void)where;
	return dom_virt_meta_set(d, xml);
}

int dom_virt_has_device(struct dom_virt *d, const char *shm_name)
{
	(void)shm_name;
	return dom_virt_active(d);
}

int dom_virt_suspend(struct dom_virt *d)
{
	return dom_virt_active(d);
}

int dom_virt_can_suspend(struct dom_virt *d)
{
	return dom_virt_active(d);
}

int dom_virt_suspend_now(struct dom_virt *d)
{
	return dom_virt_active(d);
}

int dom_virt_resume(struct dom_virt *d)
{
	return dom_virt_active(d);
}

int dom_virt_ram_bytes(struct dom_virt *d, unsigned long long *bytes)
{
	*bytes = 0;
	return dom_virt_active(d);
}

int dom_virt_peek_phys(struct dom_virt *d, unsigned long long gpa, size_t len,
		       void *buf)
{
	(void)gpa;
	(void)len;
	(void)buf;
	return dom_virt_active(d);
}

int dom_virt_peek_virt(struct dom_virt *d, unsigned long long gva, size_t len,
		       void *buf)
{
	return dom_virt_peek_phys(d, gva, len, buf);   /* the same refusal */
}

int dom_virt_vcpu_registers(struct dom_virt *d, char **text)
{
	*text = NULL;
	return dom_virt_active(d);
}

int dom_virt_life(struct dom_virt *d)
{
	return dom_virt_active(d);
}
