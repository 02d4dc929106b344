/* SPDX-License-Identifier: MIT */
/*
 * What the library's files share and its users never see.
 */
#ifndef RINGSIDE_DOMAIN_INTERNAL_H
#define RINGSIDE_DOMAIN_INTERNAL_H

#include <libxml/tree.h>

#include "ringside/domain.h"

/* A parsed domain document (xml.c parses and frees it; pt.c edits its
 * <qemu:commandline>). */
struct dom_xml {
	xmlDocPtr doc;
};

/* Its <domain> root element, NULL when there is none (or no @x). */
xmlNode *dom_xml_domain(const struct dom_xml *x);

/* libvirt's words for the last failure, for dom_error_str(-dome_libvirt);
 * NULL forgets them. */
void dom_error_detail_set(const char *msg);

#endif /* RINGSIDE_DOMAIN_INTERNAL_H */
