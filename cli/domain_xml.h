/* SPDX-License-Identifier: MIT */
/*
 * Reading libvirt domain XML: the parts ringside needs (name, vCPU count,
 * ringside's <metadata> element, the ringside <shmem> device).  Used by
 * `ringside enable/disable` on libvirt's persistent XML and by the hook on
 * the XML libvirt hands it on stdin, which it must never ask libvirt for.
 * The XML is parsed without network access and without entity expansion.
 */
#ifndef RINGSIDE_CLI_DOMAIN_XML_H
#define RINGSIDE_CLI_DOMAIN_XML_H

#include <stddef.h>
#include <stdint.h>

#include "domain_meta.h"

#define DOM_XML_MAX (16u << 20)   /* bytes of domain XML we accept */

struct dom_xml;

/* Parse @len bytes of a <domain> document.  -(ERR_DOM + dome_xml),
 * -ENOMEM. */
int dom_xml_parse(struct dom_xml **xp, const char *text, size_t len);

/* Accepts NULL. */
void dom_xml_free(struct dom_xml *x);

/* <name> into @buf.  -(ERR_DOM + dome_xml) (missing or longer than @len). */
int dom_xml_name(const struct dom_xml *x, char *buf, size_t len);

/* <vcpu> (the maximum).  -(ERR_DOM + dome_xml). */
int dom_xml_vcpus(const struct dom_xml *x, uint32_t *nr);

/*
 * ringside's <metadata> element into @c (on top of what @c holds).
 * -(ERR_DOM + dome_not_enabled) when there is none; dom_cfg_set()'s
 * errors with *@bad set; -(ERR_DOM + dome_xml).
 */
int dom_xml_meta(const struct dom_xml *x, struct dom_cfg *c, const char **bad);

/* The same for the element alone, as virDomainGetMetadata returns it. */
int dom_meta_parse(const char *text, struct dom_cfg *c, const char **bad);

/*
 * The <shmem name=@name> device: 1 found (its size in *@size when not
 * NULL, its XML in *@xml, malloc'ed, when not NULL), 0 none.  A device of
 * that name that is not ivshmem-plain, or whose size does not parse, is
 * -(ERR_DOM + dome_xml).  -ENOMEM.
 */
int dom_xml_shmem(const struct dom_xml *x, const char *name, uint64_t *size,
		  char **xml);

/* "4" + "M" -> bytes, libvirt's scaled units.  -(ERR_DOM + dome_xml). */
int dom_xml_scaled(const char *value, const char *unit, uint64_t *bytes);

#endif /* RINGSIDE_CLI_DOMAIN_XML_H */
