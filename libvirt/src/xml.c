/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "domain_internal.h"

#define PARSE_OPTS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

static int is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !n->ns &&
	       !strcmp((const char *)n->name, name);
}

static xmlNode *child(const xmlNode *parent, const char *name)
{
	xmlNode *n;

	for (n = parent ? parent->children : NULL; n; n = n->next)
		if (is_elem(n, name))
			return n;
	return NULL;
}

xmlNode *dom_xml_domain(const struct dom_xml *x)
{
	xmlNode *r = x ? xmlDocGetRootElement(x->doc) : NULL;

	return (r && is_elem(r, "domain")) ? r : NULL;
}

/* The text of @n copied into @buf, trimmed.  -1 if it does not fit. */
static int node_text(const xmlNode *n, char *buf, size_t len)
{
	xmlChar *t = xmlNodeGetContent(n);
	const char *s = (const char *)t;
	size_t k;
	int ret = -1;

	if (!t)
		return -1;
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	k = strlen(s);
	while (k && (s[k - 1] == ' ' || s[k - 1] == '\n' || s[k - 1] == '\t' ||
		     s[k - 1] == '\r'))
		k--;
	if (k < len) {
		memcpy(buf, s, k);
		buf[k] = '\0';
		ret = 0;
	}
	xmlFree(t);
	return ret;
}

/* Attribute @name (no namespace) copied into @buf.  -1 absent or too long. */
static int attr(const xmlNode *n, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
	int ret = -1;

	if (v && strlen((const char *)v) < len) {
		strcpy(buf, (const char *)v);
		ret = 0;
	}
	xmlFree(v);
	return ret;
}

int dom_xml_parse(struct dom_xml **xp, const char *text, size_t len)
{
	struct dom_xml *x;

	*xp = NULL;
	if (!text || !len || len > DOM_XML_MAX)
		return -dome_xml;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->doc = xmlReadMemory(text, (int)len, "domain.xml", NULL, PARSE_OPTS);
	if (!x->doc || !dom_xml_domain(x)) {
		dom_xml_free(x);
		return -dome_xml;
	}
	*xp = x;
	return 0;
}

void dom_xml_free(struct dom_xml *x)
{
	if (!x)
		return;
	if (x->doc)
		xmlFreeDoc(x->doc);
	free(x);
}

int dom_xml_name(const struct dom_xml *x, char *buf, size_t len)
{
	xmlNode *n = child(dom_xml_domain(x), "name");

	return (n && !node_text(n, buf, len) && buf[0]) ? 0 : -dome_xml;
}

int dom_xml_vcpus(const struct dom_xml *x, uint32_t *nr)
{
	xmlNode *n = child(dom_xml_domain(x), "vcpu");
	char buf[16], *end;
	unsigned long v;

	if (!n || node_text(n, buf, sizeof(buf)) || buf[0] < '0' || buf[0] > '9')
		return -dome_xml;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || *end || !v || v > UINT32_MAX)
		return -dome_xml;
	*nr = (uint32_t)v;
	return 0;
}

/* Every attribute of ringside's element through dom_cfg_set(). */
static int meta_from_node(const xmlNode *n, struct dom_cfg *c, const char **bad)
{
	const xmlAttr *a;
	int seen_version = 0, err;

	*bad = NULL;
	/* No attribute, no sideband: the element predates them, and so does
	 * the size of its <shmem> device. */
	c->sideband_pages = 0;
	for (a = n->properties; a; a = a->next) {
		xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
		const char *name = (const char *)a->name;

		if (!v)
			return -ENOMEM;
		seen_version |= !strcmp(name, "version");
		err = dom_cfg_set(c, name, (const char *)v, bad);
		xmlFree(v);
		if (err)
			return err;
	}
	if (!seen_version) {
		*bad = "version: missing";
		return -dome_version;
	}
	return 0;
}

static int is_ours(const xmlNode *n)
{
	return n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
	       !strcmp((const char *)n->ns->href, DOM_XMLNS) &&
	       !strcmp((const char *)n->name, DOM_META_ELEMENT);
}

int dom_xml_meta(const struct dom_xml *x, struct dom_cfg *c, const char **bad)
{
	xmlNode *meta = child(dom_xml_domain(x), "metadata"), *n;

	*bad = NULL;
	for (n = meta ? meta->children : NULL; n; n = n->next)
		if (is_ours(n))
			return meta_from_node(n, c, bad);
	return -dome_not_enabled;
}

int dom_xml_meta_parse(const char *text, struct dom_cfg *c, const char **bad)
{
	size_t len = text ? strlen(text) : 0;
	xmlDocPtr doc;
	xmlNode *r;
	int err;

	*bad = NULL;
	if (!len || len > DOM_XML_MAX)
		return -dome_xml;
	doc = xmlReadMemory(text, (int)len, "metadata.xml", NULL, PARSE_OPTS);
	if (!doc)
		return -dome_xml;
	r = xmlDocGetRootElement(doc);
	if (r && r->type == XML_ELEMENT_NODE &&
	    !strcmp((const char *)r->name, DOM_META_ELEMENT))
		err = meta_from_node(r, c, bad);
	else
		err = -dome_xml;
	xmlFreeDoc(doc);
	return err;
}

int dom_xml_scaled(const char *value, const char *unit, uint64_t *bytes)
{
	static const struct {
		const char *name;
		uint64_t scale;
	} units[] = {
		{ "", 1 }, { "b", 1 }, { "bytes", 1 },
		{ "KB", 1000ull }, { "k", 1ull << 10 }, { "K", 1ull << 10 },
		{ "KiB", 1ull << 10 },
		{ "MB", 1000000ull }, { "M", 1ull << 20 }, { "MiB", 1ull << 20 },
		{ "GB", 1000000000ull }, { "G", 1ull << 30 }, { "GiB", 1ull << 30 },
		{ "TB", 1000000000000ull }, { "T", 1ull << 40 }, { "TiB", 1ull << 40 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (!value || value[0] < '0' || value[0] > '9')
		return -dome_xml;
	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno || *end)
		return -dome_xml;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit ? unit : "", units[i].name))
			continue;
		if (v > UINT64_MAX / units[i].scale)
			return -dome_xml;
		*bytes = v * units[i].scale;
		return 0;
	}
	return -dome_xml;
}

static int shmem_size(const xmlNode *dev, uint64_t *size)
{
	xmlNode *model = child(dev, "model"), *sz = child(dev, "size");
	char type[32], value[32], unit[16];

	/* ivshmem-plain is what the guest agent looks for (1af4:1110) */
	if (!model || attr(model, "type", type, sizeof(type)) ||
	    strcmp(type, "ivshmem-plain"))
		return -dome_xml;
	if (!sz || node_text(sz, value, sizeof(value)))
		return -dome_xml;
	if (attr(sz, "unit", unit, sizeof(unit)))
		unit[0] = '\0';
	return dom_xml_scaled(value, unit, size);
}

static int dump_node(const struct dom_xml *x, xmlNode *n, char **xml)
{
	xmlBufferPtr buf = xmlBufferCreate();
	int ret = -ENOMEM;

	if (!buf)
		return -ENOMEM;
	if (xmlNodeDump(buf, x->doc, n, 0, 0) >= 0) {
		*xml = strdup((const char *)xmlBufferContent(buf));
		if (*xml)
			ret = 0;
	}
	xmlBufferFree(buf);
	return ret;
}

int dom_xml_shmem(const struct dom_xml *x, const char *name, uint64_t *size,
		  char **xml)
{
	xmlNode *devs = child(dom_xml_domain(x), "devices"), *n;
	char found[DOM_SHM_NAME_MAX];
	uint64_t bytes;
	int err;

	if (xml)
		*xml = NULL;
	for (n = devs ? devs->children : NULL; n; n = n->next) {
		if (!is_elem(n, "shmem") || attr(n, "name", found, sizeof(found)) ||
		    strcmp(found, name))
			continue;
		err = shmem_size(n, &bytes);
		if (err)
			return err;
		if (size)
			*size = bytes;
		if (xml && (err = dump_node(x, n, xml)))
			return err;
		return 1;
	}
	return 0;
}

int dom_xml_shmem_master(const struct dom_xml *x, const char *name)
{
	xmlNode *devs = child(dom_xml_domain(x), "devices"), *n;
	char found[DOM_SHM_NAME_MAX], role[16];

	for (n = devs ? devs->children : NULL; n; n = n->next) {
		if (!is_elem(n, "shmem") || attr(n, "name", found, sizeof(found)) ||
		    strcmp(found, name))
			continue;
		return !attr(n, "role", role, sizeof(role)) &&
		       !strcmp(role, "master");
	}
	return 0;
}

int dom_xml_type(const struct dom_xml *x, char *buf, size_t len)
{
	xmlNode *r = dom_xml_domain(x);
	xmlChar *v = r ? xmlGetNoNsProp(r, (const xmlChar *)"type") : NULL;
	int ret = -dome_xml;

	if (v && v[0] && strlen((const char *)v) < len) {
		strcpy(buf, (const char *)v);
		ret = 0;
	}
	xmlFree(v);
	return ret;
}

int dom_xml_tcg(const struct dom_xml *x)
{
	char type[32];

	if (dom_xml_type(x, type, sizeof(type)))
		return -dome_xml;
	return strcmp(type, "qemu") ? -dome_not_tcg : 0;
}

int dom_xml_format(const struct dom_xml *x, char **text)
{
	xmlChar *mem = NULL;
	int n = 0;

	*text = NULL;
	xmlDocDumpMemory(x->doc, &mem, &n);
	if (!mem)
		return -ENOMEM;
	*text = strndup((const char *)mem, (size_t)n);
	xmlFree(mem);
	return *text ? 0 : -ENOMEM;
}

/* Only blank text inside? */
static int blank(const xmlNode *n)
{
	for (n = n->children; n; n = n->next) {
		const xmlChar *c = n->content;

		if (n->type != XML_TEXT_NODE)
			return 0;
		while (c && (*c == ' ' || *c == '\n' || *c == '\t' || *c == '\r'))
			c++;
		if (c && *c)
			return 0;
	}
	return 1;
}

int dom_xml_metadata_tidy(struct dom_xml *x)
{
	xmlNode *r = dom_xml_domain(x), *n, *next;
	int removed = 0;

	for (n = r ? r->children : NULL; n; n = next) {
		next = n->next;
		if (is_elem(n, "metadata") && blank(n)) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
			removed++;
		}
	}
	return removed;
}
