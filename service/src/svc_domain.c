/* SPDX-License-Identifier: MIT */
/*
 * What the service asks libvirt of a domain beside its events: an element
 * of its live XML (its UUID for the sidecars, its <on_crash> policy for a
 * panic), through the libvirt library's domain calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/domain_virt.h"

#include "svc_internal.h"

/* The text of @domain's live XML's first <@tag> element into @buf ("" when
 * libvirt does not say, or it does not fit). */
static void xml_element(const char *domain, const char *tag, char *buf,
			size_t len)
{
	struct dom_virt *d = NULL;
	char *xml = NULL, open[32], close[32];
	const char *a, *b;

	buf[0] = '\0';
	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	if (dom_virt_open(&d, NULL, domain, 1))
		return;
	if (!dom_virt_xml(d, 0, &xml) && (a = strstr(xml, open)) &&
	    (b = strstr(a, close))) {
		a += strlen(open);
		if (b - a < (long)len)
			snprintf(buf, len, "%.*s", (int)(b - a), a);
	}
	free(xml);
	dom_virt_close(d);
}

void svc_domain_uuid(const char *domain, char *buf, size_t len)
{
	xml_element(domain, "uuid", buf, len);
}

void svc_domain_on_crash(const char *domain, char *buf, size_t len)
{
	xml_element(domain, "on_crash", buf, len);
}
